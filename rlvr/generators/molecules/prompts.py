"""Prompts for the molecular tasks: the system prompt (MolecularIQ appendix B.2.2, with answers as
real JSON objects), several phrasings per task type (appendix A.3), and the natural-language
descriptor of every feature key (:mod:`rlvr.chem.molecules.keys`).

Every user message names the exact JSON keys to use; index questions restate the indexing
convention (heavy atoms, 0-based, in order of appearance in the SMILES as shown).
"""
from __future__ import annotations

import random
from typing import Any, Sequence

from rlvr.chem.molecules.keys import describe, the_phrase

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


def count_question(smiles: str, keys: Sequence[str], rng: random.Random, n_phrasings: int | None = None,
                   convention: str = "rlvr") -> tuple[str, str]:
    """``(question, template id)`` for a count task on ``keys``."""
    if len(keys) == 1:
        key = keys[0]
        phrase, style = describe(key, convention)
        if style == "count" and rng.random() < 0.4:
            i, tpl = _choose(SINGLE_COUNT_HOW_MANY, rng, n_phrasings)
            return tpl.format(phrase=phrase, smiles=smiles, keys=key_list(keys)), f"single_count_how_many/{i}"
        i, tpl = _choose(SINGLE_COUNT, rng, n_phrasings)
        return tpl.format(what=the_phrase(key, convention), smiles=smiles, keys=key_list(keys)), f"single_count/{i}"
    i, tpl = _choose(MULTI_COUNT, rng, n_phrasings)
    bullets = "\n".join(f"- {the_phrase(k, convention)} (`{k}`)" for k in keys)
    listing = _listing([f"{the_phrase(k, convention)} (`{k}`)" for k in keys])
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


def constraint_phrase(c: dict[str, Any], convention: str = "rlvr") -> str:
    """``"exactly 5 carbon atoms (`carbon_atom_count`)"``, ``"the molecular formula C9H8O4 (...)"``..."""
    key, op, value = c["key"], c["op"], c["value"]
    phrase, style = describe(key, convention)
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


def generation_question(constraints: Sequence[dict[str, Any]], rng: random.Random, n_phrasings: int | None = None,
                        convention: str = "rlvr") -> tuple[str, str]:
    """``(question, template id)`` for a constrained-generation task."""
    phrases = [constraint_phrase(c, convention) for c in constraints]
    i, tpl = _choose(GENERATION, rng, n_phrasings)
    bullets = "\n" + "\n".join(f"- {p}" for p in phrases)
    text = tpl.format(constraints=_listing(phrases), constraints_bullets=bullets)
    return text + " The answer must be a single connected molecule (no '.').", f"generation/{i}"


def messages(user: str) -> list[dict[str, str]]:
    """The chat prompt: the system message and one user message."""
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
