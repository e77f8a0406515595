"""What a feature key asks for, in words: the phrase every question uses to name a key (shared by
the question templates of the generators and the answer-key aliases of the checker), the answer
key of generation tasks, and the kind of value a key takes."""
from __future__ import annotations

from rlvr.chem.molecules.reactions import PREFIX as TEMPLATE_PREFIX
from rlvr.chem.molecules.specs import FEATURES

#: the answer key of a constrained-generation task (``{"smiles": "..."}``)
SMILES_KEY = "smiles"


def key_kind(key: str) -> str:
    """``"index"`` for keys ending in ``_index``/``_indices``, ``"smiles"`` for the generation key, else ``"count"``."""
    k = key.lower()
    if k == SMILES_KEY:
        return "smiles"
    return "index" if k.endswith(("_index", "_indices")) else "count"


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


def _strip_kind(key: str) -> tuple[str, str]:
    for suffix, kind in (("_count", "count"), ("_index", "index")):
        if key.endswith(suffix):
            return key[: -len(suffix)], kind
    return key, "count"


def _template_description(base: str) -> str:
    spec = FEATURES.get(base)
    if spec is None:
        return base[len(TEMPLATE_PREFIX):].replace("_", " ")
    definition = spec.definition
    text = definition.split(";")[0]
    return text[len("reactive sites for "):] if text.startswith("reactive sites for ") else text


def describe(key: str, convention: str = "rlvr") -> tuple[str, str]:
    """``(phrase, style)`` naming what ``key`` asks for; style ``count`` reads "the number of <phrase>",
    ``quantity`` reads "the <phrase>", ``index`` phrases name atoms. Under ``convention="moleculariq"``
    a functional-group ``_count`` counts the atoms of the group's matches (the benchmark's meaning)."""
    if key.startswith("functional_group_") and key.endswith("_nbrInstances"):
        return key[len("functional_group_"):-len("_nbrInstances")].replace("_", " ") + " groups", "count"
    base, kind = _strip_kind(key)
    if convention == "moleculariq" and kind == "count" and base.startswith("functional_group_") \
            and key.endswith("_count"):
        return f"atoms in {base[len('functional_group_'):].replace('_', ' ')} groups", "count"
    if key.endswith("_success") and base.startswith(TEMPLATE_PREFIX):
        desc = _template_description(key[: -len("_success")])
        return f"outcome of the {desc} (1 if it yields a product, else 0)", "quantity"
    if key.endswith("_products") and base.startswith(TEMPLATE_PREFIX):
        desc = _template_description(key[: -len("_products")])
        return f"products of the {desc} (a list of SMILES)", "quantity"
    if base in _BASE:
        count_phrase, index_phrase, style = _BASE[base]
        return (index_phrase, "index") if kind == "index" else (count_phrase, style)
    if base.startswith("functional_group_"):
        group = base[len("functional_group_"):].replace("_", " ")
        return (f"atoms of {group} groups", "index") if kind == "index" else (f"{group} groups", "count")
    if base.startswith(TEMPLATE_PREFIX):
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


def the_phrase(key: str, convention: str = "rlvr") -> str:
    """``"the number of carbon atoms"``, ``"the molecular formula ..."``, ``"the carbon atoms"`` for a key."""
    phrase, style = describe(key, convention)
    if style == "count":
        return f"the number of {phrase}"
    return f"the {phrase}"


__all__ = ["SMILES_KEY", "describe", "key_kind", "the_phrase"]
