"""Prompts for the molecular tasks: the system prompt (MolecularIQ appendix B.2.2, with answers as
real JSON objects), several phrasings per task type (appendix A.3), and the natural-language
descriptor of every feature key.

Every user message names the exact JSON keys to use; index questions restate the indexing
convention (heavy atoms, 0-based, in order of appearance in the SMILES as shown).
"""
from __future__ import annotations

import random
from typing import Any, Sequence

SYSTEM_PROMPT = """You are an expert chemist. Answer questions about molecular structure, properties and molecular generation precisely and accurately.

Only the content of the last <answer></answer> block is graded. It must be one JSON object.
Use EXACTLY the key names given in the question: never rename, invent, repeat or omit a key.

INDEXING: atoms are numbered from 0 in the order they appear in the SMILES string as written, from left to right. Only heavy atoms are numbered: skip hydrogens written as [H]; isotopic hydrogens such as [2H] or [3H] are numbered.
Examples:
- "CCO": C(0), C(1), O(2)
- "CC(C)O": C(0), C(1), C(2), O(3)
- "CC(=O)N": C(0), C(1), O(2), N(3)

VALUES: counts are JSON integers (0 if the feature is absent); index answers are JSON lists of distinct integers ([] if absent); never null.

Formats:
- one count (key "alcohol_count"): <answer>{"alcohol_count": 2}</answer>
- one index list (key "ketone_index"): <answer>{"ketone_index": [5]}</answer>
- several properties (keys "ring_count", "halogen_atom_index"): <answer>{"ring_count": 2, "halogen_atom_index": [3, 7]}</answer>
- constrained generation: <answer>{"smiles": "CC(O)C"}</answer>
Include ALL requested keys."""

INDEX_REMINDER = (
    "Atom indices are 0-based and count heavy atoms in their order of appearance in the SMILES as written."
)

# ------------------------------------------------------------------------------------ descriptors

#: base feature name -> (count phrase, index phrase, style); style "count" reads "the number of <phrase>",
#: "quantity" reads "the <phrase>".
_BASE: dict[str, tuple[str, str, str]] = {
    "ring": ("rings", "atoms in rings", "count"),
    "fused_ring": ("fused ring systems", "atoms in fused rings", "count"),
    "bridgehead": ("bridgehead atoms", "bridgehead atoms", "count"),
    "spiro": ("spiro atoms", "spiro atoms", "count"),
    "smallest_largest_ring_size_smallest": ("size of the smallest ring (its number of atoms)", "atoms in the smallest ring(s)", "quantity"),
    "smallest_largest_ring_size_largest": ("size of the largest ring (its number of atoms)", "atoms in the largest ring(s)", "quantity"),
    "chain_termini": ("chain termini (carbon atoms with exactly one heavy-atom neighbour)", "chain termini (carbon atoms with exactly one heavy-atom neighbour)", "count"),
    "branch_point": ("branch points (carbon atoms with three or more heavy-atom neighbours)", "branch points (carbon atoms with three or more heavy-atom neighbours)", "count"),
    "aromatic_ring": ("aromatic rings", "atoms in aromatic rings", "count"),
    "aliphatic_ring": ("aliphatic rings", "atoms in aliphatic rings", "count"),
    "heterocycle": ("heterocyclic rings", "atoms in heterocyclic rings", "count"),
    "saturated_ring": ("saturated rings", "atoms in saturated rings", "count"),
    "csp3_carbon": ("sp3-hybridized carbon atoms", "sp3-hybridized carbon atoms", "count"),
    "longest_carbon_chain": ("carbon atoms in the longest continuous carbon chain", "atoms of the longest continuous carbon chain", "count"),
    "r_s_stereocenter_r": ("R-configured stereocenters", "R-configured stereocenters", "count"),
    "r_s_stereocenter_s": ("S-configured stereocenters", "S-configured stereocenters", "count"),
    "unspecified_stereocenter": ("stereocenters with unspecified configuration", "stereocenters with unspecified configuration", "count"),
    "stereocenter": ("stereocenters (specified or unspecified)", "stereocenters (specified or unspecified)", "count"),
    "e_z_stereochemistry_double_bond_e": ("E-configured double bonds", "atoms in E-configured double bonds", "count"),
    "e_z_stereochemistry_double_bond_z": ("Z-configured double bonds", "atoms in Z-configured double bonds", "count"),
    "stereochemistry_unspecified_double_bond": ("stereogenic double bonds with unspecified E/Z configuration", "atoms in stereogenic double bonds with unspecified E/Z configuration", "count"),
    "carbon_atom": ("carbon atoms", "carbon atoms", "count"),
    "hetero_atom": ("heteroatoms (heavy atoms other than carbon)", "heteroatoms (heavy atoms other than carbon)", "count"),
    "halogen_atom": ("halogen atoms", "halogen atoms", "count"),
    "heavy_atom": ("heavy (non-hydrogen) atoms", "heavy (non-hydrogen) atoms", "count"),
    "hydrogen_atom": ("hydrogen atoms (implicit and explicit)", "hydrogen atoms", "count"),
    "molecular_formula": ("molecular formula (Hill notation, as a string)", "", "quantity"),
    "hba": ("hydrogen-bond acceptor atoms", "hydrogen-bond acceptor atoms", "count"),
    "hbd": ("hydrogen-bond donor atoms", "hydrogen-bond donor atoms", "count"),
    "rotatable_bond": ("rotatable bonds", "atoms in rotatable bonds", "count"),
    "brics_decomposition": ("BRICS fragments", "atoms at the ends of BRICS bonds", "count"),
    "murcko_scaffold": ("atoms in the Bemis-Murcko scaffold", "atoms in the Bemis-Murcko scaffold", "count"),
    "murcko_scaffold_value": ("Bemis-Murcko scaffold (as a SMILES string, \"\" if there is none)", "", "quantity"),
}

_ELEMENT_WORDS = {"C": "carbon", "N": "nitrogen", "O": "oxygen", "P": "phosphorus", "S": "sulfur"}
_TEMPLATE_PREFIX = "template_based_reaction_prediction_"


def _strip_kind(key: str) -> tuple[str, str]:
    for suffix, kind in (("_count", "count"), ("_index", "index")):
        if key.endswith(suffix):
            return key[: -len(suffix)], kind
    return key, "count"


def _template_description(base: str) -> str:
    try:
        from rlvr.chem.molecules.features import FEATURES

        definition = FEATURES[base].definition
    except (ImportError, KeyError):
        return base[len(_TEMPLATE_PREFIX):].replace("_", " ")
    text = definition.split(";")[0]
    return text[len("reactive sites for "):] if text.startswith("reactive sites for ") else text


def describe(key: str) -> tuple[str, str]:
    """``(phrase, style)`` naming what ``key`` asks for; style ``count`` reads "the number of <phrase>",
    ``quantity`` reads "the <phrase>", ``index`` phrases name atoms."""
    base, kind = _strip_kind(key)
    if key.endswith("_success") and base.startswith(_TEMPLATE_PREFIX):
        desc = _template_description(key[: -len("_success")])
        return f"outcome of the {desc} (1 if it yields a product, else 0)", "quantity"
    if key.endswith("_products") and base.startswith(_TEMPLATE_PREFIX):
        desc = _template_description(key[: -len("_products")])
        return f"products of the {desc} (a list of SMILES)", "quantity"
    if base in _BASE:
        count_phrase, index_phrase, style = _BASE[base]
        return (index_phrase, "index") if kind == "index" else (count_phrase, style)
    if base.startswith("functional_group_"):
        group = base[len("functional_group_"):].replace("_", " ")
        return (f"atoms of {group} groups", "index") if kind == "index" else (f"{group} groups", "count")
    if base.startswith(_TEMPLATE_PREFIX):
        desc = _template_description(base)
        return (f"atoms of the reactive sites for {desc}", "index") if kind == "index" else (
            f"reactive sites for {desc}", "count")
    if base.startswith("oxidation_state_"):
        parts = base.split("_")
        el, mm = parts[2], parts[3] if len(parts) > 3 else "max"
        word = _ELEMENT_WORDS.get(el, el)
        level = "highest" if mm == "max" else "lowest"
        phrase = f"{word} atoms at the {level} oxidation state found among the {word} atoms"
        return (phrase, "index") if kind == "index" else (phrase, "count")
    phrase = base.replace("_", " ")
    return (phrase, "index") if kind == "index" else (phrase, "count")


def the_phrase(key: str) -> str:
    """``"the number of carbon atoms"``, ``"the molecular formula ..."``, ``"the carbon atoms"`` for a key."""
    phrase, style = describe(key)
    if style == "count":
        return f"the number of {phrase}"
    return f"the {phrase}"


def key_list(keys: Sequence[str]) -> str:
    """```a`, `b` and `c``` for a list of keys."""
    quoted = [f"`{k}`" for k in keys]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


# ------------------------------------------------------------------------------------ templates

SINGLE_COUNT = (
    "What is {what} in the molecule {smiles}? Return the answer as a JSON object with the key {keys}.",
    "Determine {what} of {smiles}. Give the result as a JSON object using the key {keys}.",
    "Analyze {smiles} and report {what}. Answer with a JSON object whose only key is {keys}.",
    "For the molecule {smiles}, find {what}. Provide your answer as JSON under the key {keys}.",
    "Report {what} for the compound {smiles}. Respond with a JSON object with the field {keys}.",
)
SINGLE_COUNT_HOW_MANY = (
    "How many {phrase} are in {smiles}? Return the answer as a JSON object with the key {keys}.",
    "Count the {phrase} in the molecule {smiles}. Give the count as a JSON object using the key {keys}.",
)
MULTI_COUNT = (
    "For the molecule {smiles}, determine the following:\n{bullets}\nReturn a JSON object with the keys {keys}.",
    "Analyze {smiles} and report {listing}. Answer with a JSON object using the keys {keys}.",
    "Summarize these properties of {smiles}:\n{bullets}\nGive your answer as one JSON object with the keys {keys}.",
    "List the values of the following features of the compound {smiles}: {listing}. Respond with a JSON object mapping {keys} to their values.",
)
SINGLE_INDEX = (
    "Which atoms of {smiles} are {phrase}? Give their indices as a JSON list under the key {keys}.",
    "Identify the indices of the {phrase} in the molecule {smiles}. Answer with a JSON object using the key {keys}.",
    "Output the index list of the {phrase} in the compound {smiles}. Provide a JSON object with the key {keys}.",
    "In {smiles}, locate the {phrase}. Return their atom indices as a JSON object with the key {keys}.",
)
MULTI_INDEX = (
    "For {smiles}, locate the atom indices of:\n{bullets}\nReturn a JSON object mapping {keys} to their index lists.",
    "Which atom indices in {smiles} are:\n{bullets}\nGive the answer as one JSON object with the keys {keys}.",
    "For the compound {smiles}, find the indices of {listing}. Answer with a JSON object using the keys {keys}.",
)
GENERATION = (
    "Generate a molecule with {constraints}. Return the result as a JSON object with the key `smiles`.",
    "Propose a molecular structure that has {constraints}. Respond with a JSON object whose key is `smiles`.",
    "Can you design a molecule that satisfies all of the following? {constraints_bullets}\nAnswer with a JSON object with the key `smiles`.",
    "Recommend a single molecule with {constraints}. Give its SMILES as a JSON object using the key `smiles`.",
)

TEMPLATE_SETS: dict[str, tuple[str, ...]] = {
    "single_count": SINGLE_COUNT, "single_count_how_many": SINGLE_COUNT_HOW_MANY, "multi_count": MULTI_COUNT,
    "single_index": SINGLE_INDEX, "multi_index": MULTI_INDEX, "generation": GENERATION,
}


def _choose(templates: Sequence[str], rng: random.Random, n_phrasings: int | None) -> tuple[int, str]:
    pool = list(templates)[: n_phrasings] if n_phrasings else list(templates)
    i = rng.randrange(len(pool))
    return i, pool[i]


def _listing(phrases: Sequence[str]) -> str:
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]


def count_question(smiles: str, keys: Sequence[str], rng: random.Random, n_phrasings: int | None = None) -> tuple[str, str]:
    """``(question, template id)`` for a count task on ``keys``."""
    if len(keys) == 1:
        key = keys[0]
        phrase, style = describe(key)
        if style == "count" and rng.random() < 0.4:
            i, tpl = _choose(SINGLE_COUNT_HOW_MANY, rng, n_phrasings)
            return tpl.format(phrase=phrase, smiles=smiles, keys=key_list(keys)), f"single_count_how_many/{i}"
        i, tpl = _choose(SINGLE_COUNT, rng, n_phrasings)
        return tpl.format(what=the_phrase(key), smiles=smiles, keys=key_list(keys)), f"single_count/{i}"
    i, tpl = _choose(MULTI_COUNT, rng, n_phrasings)
    bullets = "\n".join(f"- {the_phrase(k)} (`{k}`)" for k in keys)
    listing = _listing([f"{the_phrase(k)} (`{k}`)" for k in keys])
    return tpl.format(smiles=smiles, bullets=bullets, listing=listing, keys=key_list(keys)), f"multi_count/{i}"


def index_question(smiles: str, keys: Sequence[str], rng: random.Random, n_phrasings: int | None = None) -> tuple[str, str]:
    """``(question, template id)`` for an index task on ``keys`` (the indexing convention is appended)."""
    if len(keys) == 1:
        i, tpl = _choose(SINGLE_INDEX, rng, n_phrasings)
        text = tpl.format(phrase=describe(keys[0])[0], smiles=smiles, keys=key_list(keys))
        tid = f"single_index/{i}"
    else:
        i, tpl = _choose(MULTI_INDEX, rng, n_phrasings)
        bullets = "\n".join(f"- {describe(k)[0]} (`{k}`)" for k in keys)
        listing = _listing([f"the {describe(k)[0]} (`{k}`)" for k in keys])
        text = tpl.format(smiles=smiles, bullets=bullets, listing=listing, keys=key_list(keys))
        tid = f"multi_index/{i}"
    return f"{text} {INDEX_REMINDER}", tid


_OP_WORDS = {"==": "exactly", ">=": "at least", "<=": "at most", ">": "more than", "<": "fewer than"}


def constraint_phrase(c: dict[str, Any]) -> str:
    """``"exactly 5 carbon atoms (`carbon_atom_count`)"``, ``"the molecular formula C9H8O4 (...)"``..."""
    key, op, value = c["key"], c["op"], c["value"]
    phrase, style = describe(key)
    if isinstance(value, str):
        if key.endswith("murcko_scaffold_value"):
            text = f"the Bemis-Murcko scaffold {value}" if value else "no Bemis-Murcko scaffold (no rings)"
        else:
            shown = phrase.split(" (")[0]
            text = f"the {shown} {value}"
        return f"{text} (`{key}`)"
    amount = f"between {value[0]} and {value[1]}" if op == "range" else f"{_OP_WORDS[op]} {value}"
    if style == "count":
        text = f"{amount} {phrase}"
    else:
        text = f"a {phrase.split(' (')[0]} of {amount}"
    return f"{text} (`{key}`)"


def generation_question(constraints: Sequence[dict[str, Any]], rng: random.Random, n_phrasings: int | None = None) -> tuple[str, str]:
    """``(question, template id)`` for a constrained-generation task."""
    phrases = [constraint_phrase(c) for c in constraints]
    i, tpl = _choose(GENERATION, rng, n_phrasings)
    bullets = "\n" + "\n".join(f"- {p}" for p in phrases)
    text = tpl.format(constraints=_listing(phrases), constraints_bullets=bullets)
    return text + " The answer must be a single connected molecule (no '.').", f"generation/{i}"


def messages(user: str) -> list[dict[str, str]]:
    """The chat prompt: the system message and one user message."""
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
