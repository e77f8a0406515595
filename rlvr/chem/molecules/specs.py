"""The MolecularIQ feature table (Table A1): every feature's keys, value type, count unit and
one-line definition, under the benchmark's key names, and the key sets derived from it.

A feature (:class:`FeatureSpec`) has a count form (``<name>_count``, usually an integer; the
molecular formula and Murcko SMILES are strings) and, where atom positions make sense, an index
form (``<name>_index``: sorted list of atom indices). The solvers are in
:mod:`~rlvr.chem.molecules.solvers`, the cached, presentation-aware values in
:mod:`~rlvr.chem.molecules.features`.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from rlvr.chem.molecules.functional_groups import FUNCTIONAL_GROUPS
from rlvr.chem.molecules.reactions import PREFIX as TEMPLATE_PREFIX
from rlvr.chem.molecules.reactions import REACTION_TEMPLATES

CATEGORIES = (
    "graph_topology", "chemistry_typed_topology", "composition", "perception", "functional_groups", "synthesis",
)

@dataclass(frozen=True)
class FeatureSpec:
    """One molecular feature: its keys, value type and one-line definition.

    ``count_unit`` says what the count form counts (``atoms``, ``rings``, ``bonds``, ``systems``,
    ``fragments``, ``instances``, ``sites``, ``size``, ``value``); ``count == len(index)`` holds
    exactly for ``count_unit == "atoms"``.
    """

    name: str
    category: str
    count_key: str | None
    index_key: str | None
    value_type: str
    definition: str
    count_unit: str = "atoms"


def _spec(name: str, category: str, definition: str, *, unit: str = "atoms", index: bool = True,
          value_type: str = "int", count_key: str | None = None) -> FeatureSpec:
    return FeatureSpec(
        name=name,
        category=category,
        count_key=count_key or f"{name}_count",
        index_key=f"{name}_index" if index else None,
        value_type=value_type,
        definition=definition,
        count_unit=unit,
    )


OX_ELEMENTS = ("C", "N", "O", "P", "S")

_BASE_SPECS: list[FeatureSpec] = [
    # graph topology
    _spec("ring", "graph_topology", "rings in RDKit's ring set (symmetrised SSSR); index: atoms in any ring",
          unit="rings"),
    _spec("fused_ring", "graph_topology",
          "fused ring systems (rings joined by sharing >= 2 atoms); index: atoms of rings sharing >= 2 atoms "
          "with another ring", unit="systems"),
    _spec("bridgehead", "graph_topology",
          "bridgehead atoms (RDKit definition: ends of the shared bond path of two rings sharing > 1 bond)"),
    _spec("spiro", "graph_topology", "spiro atoms (the single atom shared by two rings)"),
    _spec("smallest_largest_ring_size_smallest", "graph_topology",
          "size of the smallest ring (0 without rings); index: atoms of every ring of that size", unit="size"),
    _spec("smallest_largest_ring_size_largest", "graph_topology",
          "size of the largest ring in the ring set (0 without rings); index: atoms of every ring of that size",
          unit="size"),
    _spec("chain_termini", "graph_topology", "chain termini: carbon atoms with exactly one heavy-atom neighbour"),
    _spec("branch_point", "graph_topology", "branch points: carbon atoms with three or more heavy-atom neighbours"),
    # chemistry-typed topology
    _spec("aromatic_ring", "chemistry_typed_topology", "rings whose bonds are all aromatic; index: their atoms",
          unit="rings"),
    _spec("aliphatic_ring", "chemistry_typed_topology",
          "rings with at least one non-aromatic bond; index: their atoms", unit="rings"),
    _spec("heterocycle", "chemistry_typed_topology", "rings containing at least one non-carbon atom; index: their atoms",
          unit="rings"),
    _spec("saturated_ring", "chemistry_typed_topology",
          "rings with only single, non-aromatic bonds; index: their atoms", unit="rings"),
    _spec("csp3_carbon", "chemistry_typed_topology", "sp3-hybridised carbon atoms"),
    _spec("longest_carbon_chain", "chemistry_typed_topology",
          "atoms in the longest simple path of bonded carbon atoms (any bond order, rings included); "
          "index: one such path, chosen on the canonical atom order"),
    _spec("r_s_stereocenter_r", "chemistry_typed_topology", "specified stereocentres with CIP label R"),
    _spec("r_s_stereocenter_s", "chemistry_typed_topology", "specified stereocentres with CIP label S"),
    _spec("unspecified_stereocenter", "chemistry_typed_topology",
          "possible tetrahedral stereocentres whose configuration is not given"),
    _spec("stereocenter", "chemistry_typed_topology",
          "tetrahedral stereocentres, specified or not (R + S + unspecified)"),
    _spec("e_z_stereochemistry_double_bond_e", "chemistry_typed_topology",
          "stereogenic double bonds with CIP label E; index: atoms of those bonds", unit="bonds"),
    _spec("e_z_stereochemistry_double_bond_z", "chemistry_typed_topology",
          "stereogenic double bonds with CIP label Z; index: atoms of those bonds", unit="bonds"),
    _spec("stereochemistry_unspecified_double_bond", "chemistry_typed_topology",
          "stereogenic double bonds without E/Z given; index: atoms of those bonds", unit="bonds"),
    # composition
    _spec("carbon_atom", "composition", "carbon atoms"),
    _spec("hetero_atom", "composition", "heavy atoms other than carbon"),
    _spec("halogen_atom", "composition", "halogen atoms (F, Cl, Br, I, At)"),
    _spec("heavy_atom", "composition", "non-hydrogen atoms"),
    _spec("hydrogen_atom", "composition", "hydrogen atoms, implicit and explicit (isotopes included)",
          index=False),
    _spec("molecular_formula", "composition", "molecular formula in Hill order with charge suffix (RDKit style)",
          index=False, value_type="str", unit="value"),
    # perception
    _spec("hba", "perception", "hydrogen-bond acceptor atoms (RDKit Lipinski HAcceptorSmarts)"),
    _spec("hbd", "perception", "hydrogen-bond donor atoms (RDKit Lipinski HDonorSmarts)"),
    _spec("rotatable_bond", "perception",
          "rotatable bonds (RDKit strict definition); index: atoms of those bonds", unit="bonds"),
]
for _el in OX_ELEMENTS:
    for _mm, _word in (("max", "highest"), ("min", "lowest")):
        _BASE_SPECS.append(_spec(
            f"oxidation_state_{_el}_{_mm}", "perception",
            f"{_el} atoms whose oxidation number equals the {_word} among {_el} atoms "
            "(RDKit CalcOxidationNumbers on a Kekulé structure, averaged over symmetry-equivalent atoms)"))
_BASE_SPECS += [
    _spec("brics_decomposition", "synthesis",
          "distinct BRICS fragments after breaking every BRICS bond; index: atoms at the ends of BRICS bonds",
          unit="fragments"),
    _spec("murcko_scaffold", "synthesis", "atoms in the Bemis-Murcko scaffold (RDKit GetScaffoldForMol)"),
    FeatureSpec("murcko_scaffold_value", "synthesis", "murcko_scaffold_value", None, "smiles",
                "canonical SMILES of the Bemis-Murcko scaffold ('' without rings)", "value"),
]
for _g in FUNCTIONAL_GROUPS:
    _BASE_SPECS.append(_spec(f"functional_group_{_g.name}", "functional_groups",
                             f"{_g.name.replace('_', ' ')} groups: {_g.definition}", unit="instances"))
for _t in REACTION_TEMPLATES:
    _n = f"{TEMPLATE_PREFIX}{_t.name}"
    _BASE_SPECS += [
        _spec(_n, "synthesis", f"reactive sites for {_t.description}; index: atoms of those sites", unit="sites"),
        FeatureSpec(f"{_n}_success", "synthesis", f"{_n}_success", None, "int",
                    f"1 if {_t.description} yields a product, else 0", "value"),
        FeatureSpec(f"{_n}_products", "synthesis", f"{_n}_products", None, "smiles_list",
                    f"sorted distinct canonical SMILES of the products of {_t.description}, one site at a time",
                    "value"),
    ]

FEATURES: dict[str, FeatureSpec] = {s.name: s for s in _BASE_SPECS}
assert len(FEATURES) == len(_BASE_SPECS), "duplicate feature name"

KEY_TO_SPEC: dict[str, FeatureSpec] = {}
for _s in FEATURES.values():
    for _k in (_s.count_key, _s.index_key):
        if _k:
            KEY_TO_SPEC[_k] = _s

#: keys of the expensive tier (BRICS leaves, reaction products), computed only when asked for
LAZY_KEYS = frozenset(
    [k for k in KEY_TO_SPEC if k.startswith(TEMPLATE_PREFIX) and (k.endswith("_products") or k.endswith("_success"))]
    + ["brics_decomposition_count"]
)
INDEX_KEYS = frozenset(s.index_key for s in FEATURES.values() if s.index_key)
#: template product/success key -> template name, and -> its site-count key
TEMPLATE_OF: dict[str, str] = {}
SITE_KEY: dict[str, str] = {}
for _t in REACTION_TEMPLATES:
    for _suffix in ("_products", "_success"):
        TEMPLATE_OF[f"{TEMPLATE_PREFIX}{_t.name}{_suffix}"] = _t.name
        SITE_KEY[f"{TEMPLATE_PREFIX}{_t.name}{_suffix}"] = f"{TEMPLATE_PREFIX}{_t.name}_count"


def feature_keys(kind: str | None = None) -> list[str]:
    """Every task key (``kind=None``), only count-form keys (``"count"``) or only index keys (``"index"``).

    Count-form keys include the non-integer values (formula, Murcko SMILES, template products);
    filter on :attr:`FeatureSpec.value_type` for integer-only tasks.
    """
    if kind not in (None, "count", "index"):
        raise ValueError(f"kind must be None, 'count' or 'index', got {kind!r}")
    out: list[str] = []
    for s in FEATURES.values():
        if kind in (None, "count") and s.count_key:
            out.append(s.count_key)
        if kind in (None, "index") and s.index_key:
            out.append(s.index_key)
    return out


def spec_for_key(key: str) -> FeatureSpec:
    """The :class:`FeatureSpec` a task key belongs to (``KeyError`` naming close matches if unknown)."""
    try:
        return KEY_TO_SPEC[key]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(key), list(KEY_TO_SPEC), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"unknown feature key {key!r}{hint} (see `rlvr features`)") from None


CORE_SPECS = [s for s in FEATURES.values() if s.category not in ("functional_groups",)
               and not s.name.startswith(TEMPLATE_PREFIX)]
#: default (absent) values of the sparse keys
SPARSE_DEFAULTS: dict[str, Any] = {}
for _s in FEATURES.values():
    if _s.category == "functional_groups" or _s.name.startswith(TEMPLATE_PREFIX):
        if _s.index_key:
            SPARSE_DEFAULTS[_s.index_key] = ()
        if _s.count_key:
            SPARSE_DEFAULTS[_s.count_key] = () if _s.value_type == "smiles_list" else 0
#: every task key, count forms and index forms in table order
ORDERED_KEYS: tuple[str, ...] = tuple(feature_keys())
