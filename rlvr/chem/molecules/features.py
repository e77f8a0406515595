"""MolecularIQ feature solvers: every feature of Table A1, RDKit-computed, under the benchmark's keys.

A feature (:class:`FeatureSpec`) has a count form (``<name>_count``, usually an integer; the
molecular formula and Murcko SMILES are strings) and, where atom positions make sense, an index
form (``<name>_index``: sorted list of atom indices). Key names follow the MolecularIQ benchmark
(``carbon_atom_count``, ``ring_count``, ``hba_index``, ``r_s_stereocenter_r_count``,
``e_z_stereochemistry_double_bond_z_index``, ``molecular_formula_count``,
``functional_group_<name>_count``, ``template_based_reaction_prediction_<t>_count``, ...).

Atom indices follow the benchmark convention: heavy atoms, 0-based, in the order they appear in
the SMILES string as given (explicit ``[H]`` atoms are skipped, isotopic ``[2H]``/``[3H]`` are
numbered). A randomised or kekulised SMILES of the same molecule gets its own indices, and all
counts are identical across presentations.

How values are computed (parse once, presentation-independent):

1. The SMILES as given is parsed once (:func:`rlvr.chem.smiles.parse_smiles`, cached) and
   written as RDKit canonical SMILES, which also yields the atom permutation between the two.
2. All features are computed once per canonical SMILES, on the canonical atom order, and cached
   (bounded LRU). Ring perception, stereo perception and the choice among equally long carbon
   chains therefore never depend on how the molecule was written.
3. Index answers are mapped back through the permutation to the positions in the given SMILES.

Two values are expensive and computed only when a key asks for them (or all keys are asked
for): the BRICS leaf count and the reaction-template products/success flags (one sanitised
product molecule per reactive site).

Bounded work: every solver is polynomial except the longest carbon chain
(:mod:`~rlvr.chem.molecules.graph`) and the BRICS exploration
(:mod:`~rlvr.chem.molecules.brics`), which are exact within documented work bounds;
:func:`molecule_features_with_status` reports any feature whose value is only the best found.
See ``docs/features.md`` for every definition and the differences from the benchmark's solver.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

from rdkit import Chem
from rdkit.Chem import BRICS, Lipinski
from rdkit.Chem.Scaffolds import MurckoScaffold

from rlvr.chem.smiles import SmilesError, mol_formula, parse_smiles
from rlvr.chem.molecules import graph as feature_graph
from rlvr.chem.molecules.brics import brics_leaves
from rlvr.chem.molecules.reactions import PREFIX as TEMPLATE_PREFIX
from rlvr.chem.molecules.reactions import REACTION_TEMPLATES, reaction_sites, template_products
from rlvr.chem.molecules.functional_groups import FUNCTIONAL_GROUPS, functional_group_instances

CATEGORIES = (
    "graph_topology", "chemistry_typed_topology", "composition", "perception", "functional_groups", "synthesis",
)

#: largest molecule (heavy atoms) accepted; the benchmark pool stops at 50
MAX_HEAVY_ATOMS = 500


class FeatureError(ValueError):
    """The input cannot be featurised (invalid SMILES, unsupported atoms) or the key is unknown."""


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


@dataclass(frozen=True)
class FeatureReport:
    """All feature values of one molecule plus the features whose solver hit its work bound."""

    values: dict[str, Any]
    bounded: dict[str, str] = field(default_factory=dict)  # feature name -> reason code

    @property
    def exact(self) -> bool:
        return not self.bounded


# ---------------------------------------------------------------------------------------
# the feature table


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


_OX_ELEMENTS = ("C", "N", "O", "P", "S")
_HALOGENS = frozenset({9, 17, 35, 53, 85})

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
for _el in _OX_ELEMENTS:
    for _mm, _word in (("max", "highest"), ("min", "lowest")):
        _BASE_SPECS.append(_spec(
            f"oxidation_state_{_el}_{_mm}", "perception",
            f"{_el} atoms whose oxidation number equals the {_word} among {_el} atoms "
            "(Pauling electronegativities, aromatic bonds count 1.5)"))
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

_KEY_TO_SPEC: dict[str, FeatureSpec] = {}
for _s in FEATURES.values():
    for _k in (_s.count_key, _s.index_key):
        if _k:
            _KEY_TO_SPEC[_k] = _s

#: keys of the expensive tier (BRICS leaves, reaction products), computed only when asked for
_LAZY_KEYS = frozenset(
    [k for k in _KEY_TO_SPEC if k.startswith(TEMPLATE_PREFIX) and (k.endswith("_products") or k.endswith("_success"))]
    + ["brics_decomposition_count"]
)
_INDEX_KEYS = frozenset(s.index_key for s in FEATURES.values() if s.index_key)
#: template product/success key -> template name, and -> its site-count key
_TEMPLATE_OF: dict[str, str] = {}
_SITE_KEY: dict[str, str] = {}
for _t in REACTION_TEMPLATES:
    for _suffix in ("_products", "_success"):
        _TEMPLATE_OF[f"{TEMPLATE_PREFIX}{_t.name}{_suffix}"] = _t.name
        _SITE_KEY[f"{TEMPLATE_PREFIX}{_t.name}{_suffix}"] = f"{TEMPLATE_PREFIX}{_t.name}_count"


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
        return _KEY_TO_SPEC[key]
    except (KeyError, TypeError):
        import difflib

        close = difflib.get_close_matches(str(key), list(_KEY_TO_SPEC), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"unknown feature key {key!r}{hint} (see `rlvr features`)") from None


# ---------------------------------------------------------------------------------------
# parsing and the canonical record

#: RDKit's H-bond acceptor/donor definitions (the patterns behind CalcNumHBA / CalcNumHBD; the
#: acceptor pattern is Lipinski.HAcceptorSmarts with aromatic n restricted to two connections)
_HBOND_PATTERNS = {
    "hba": Chem.MolFromSmarts(
        "[$([O,S;H1;v2]-[!$(*=[O,N,P,S])]),$([O,S;H0;v2]),$([O,S;-]),$([N;v3;!$(N-*=!@[O,N,P,S])]),"
        "$([nH0X2,o,s;+0])]"),
    "hbd": Lipinski.HDonorSmarts,
}
#: RDKit's strict rotatable-bond definition (the pattern behind CalcNumRotatableBonds' default)
_STRICT_ROTATABLE = Chem.MolFromSmarts(
    "[!$(*#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])([CH3])[CH3])&!$([CH3])"
    "&!$([CD3](=[N,O,S])-!@[#7,O,S!D1])&!$([#7,O,S!D1]-!@[CD3]=[N,O,S])&!$([CD3](=[N+])-!@[#7!D1])"
    "&!$([#7!D1]-!@[CD3]=[N+])]-,:;!@[!$(*#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)"
    "&!$(C([CH3])([CH3])[CH3])&!$([CH3])]"
)


@dataclass(frozen=True)
class _Written:
    """How a SMILES as given relates to its canonical record."""

    canonical: str
    #: canonical atom position -> index in the given SMILES (-1 for a skipped explicit [H])
    to_written: tuple[int, ...]


def _check_mol(mol: Chem.Mol, smiles: str) -> None:
    for atom in mol.GetAtoms():
        if atom.GetAtomicNum() == 0:
            raise FeatureError(f"dummy atoms (*) are not supported: {smiles!r}")
    if mol.GetNumHeavyAtoms() > MAX_HEAVY_ATOMS:
        raise FeatureError(f"molecule has more than {MAX_HEAVY_ATOMS} heavy atoms")


def _positions(mol: Chem.Mol) -> tuple[int, ...]:
    """Position of each atom in its SMILES: plain explicit [H] atoms are not numbered (-1)."""
    position: list[int] = []
    n = 0
    for atom in mol.GetAtoms():
        if atom.GetAtomicNum() == 1 and atom.GetIsotope() == 0:
            position.append(-1)
        else:
            position.append(n)
            n += 1
    return tuple(position)


@lru_cache(maxsize=32768)
def _written(smiles: str) -> _Written:
    try:
        mol = parse_smiles(smiles)
    except SmilesError as exc:
        raise FeatureError(str(exc)) from exc
    _check_mol(mol, smiles)
    mol = Chem.Mol(mol)  # never touch the shared parse cache's object
    position = _positions(mol)
    canonical = Chem.MolToSmiles(mol)
    order = list(mol.GetPropsAsDict(True, True)["_smilesAtomOutputOrder"])
    return _Written(canonical, tuple(position[i] for i in order))


@dataclass(frozen=True)
class _Record:
    """Feature values of one canonical molecule (index lists hold canonical positions).

    Only non-default values of functional-group and template keys are stored (sparse), to keep
    the cache small; :data:`_DEFAULTS` fills the rest.
    """

    values: dict[str, Any]
    bounded: dict[str, str]
    n_atoms: int


def _ring_features(mol: Chem.Mol, v: dict[str, Any]) -> None:
    ri = mol.GetRingInfo()
    atom_rings = [tuple(r) for r in ri.AtomRings()]
    bond_rings = [tuple(r) for r in ri.BondRings()]

    def union(rings: Iterable[tuple[int, ...]]) -> list[int]:
        out: set[int] = set()
        for r in rings:
            out.update(r)
        return sorted(out)

    v["ring_count"] = len(atom_rings)
    v["ring_index"] = union(atom_rings)
    systems = feature_graph.fused_ring_systems(atom_rings)
    v["fused_ring_count"] = len(systems)
    v["fused_ring_index"] = union(atom_rings[i] for g in systems for i in g)
    bond_atoms = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in mol.GetBonds()]
    v["bridgehead_index"] = feature_graph.bridgehead_atoms(bond_rings, bond_atoms)
    v["spiro_index"] = feature_graph.spiro_atoms(atom_rings)
    if atom_rings:
        sizes = [len(r) for r in atom_rings]
        lo, hi = min(sizes), max(sizes)
        v["smallest_largest_ring_size_smallest_count"] = lo
        v["smallest_largest_ring_size_smallest_index"] = union(r for r in atom_rings if len(r) == lo)
        v["smallest_largest_ring_size_largest_count"] = hi
        v["smallest_largest_ring_size_largest_index"] = union(r for r in atom_rings if len(r) == hi)
    else:
        for which in ("smallest", "largest"):
            v[f"smallest_largest_ring_size_{which}_count"] = 0
            v[f"smallest_largest_ring_size_{which}_index"] = []
    bonds = list(mol.GetBonds())
    aromatic, aliphatic, hetero, saturated = [], [], [], []
    for atoms, bring in zip(atom_rings, bond_rings):
        arom = [bonds[b].GetIsAromatic() for b in bring]
        (aromatic if all(arom) else aliphatic).append(atoms)
        if all(not a and bonds[b].GetBondType() == Chem.BondType.SINGLE for a, b in zip(arom, bring)):
            saturated.append(atoms)
        if any(mol.GetAtomWithIdx(a).GetAtomicNum() != 6 for a in atoms):
            hetero.append(atoms)
    for name, rings in (("aromatic_ring", aromatic), ("aliphatic_ring", aliphatic),
                        ("heterocycle", hetero), ("saturated_ring", saturated)):
        v[f"{name}_count"] = len(rings)
        v[f"{name}_index"] = union(rings)


def _stereo_features(mol: Chem.Mol, v: dict[str, Any]) -> None:
    Chem.AssignStereochemistry(mol, cleanIt=True, force=True)
    centers = Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=True)
    r = sorted(i for i, lab in centers if lab == "R")
    s = sorted(i for i, lab in centers if lab == "S")
    other = sorted(i for i, lab in centers if lab not in ("R", "S"))
    v["r_s_stereocenter_r_index"] = r
    v["r_s_stereocenter_s_index"] = s
    v["unspecified_stereocenter_index"] = other
    v["stereocenter_index"] = sorted(i for i, _ in centers)
    e_bonds: list[tuple[int, int]] = []
    z_bonds: list[tuple[int, int]] = []
    unspecified: list[tuple[int, int]] = []
    for el in Chem.FindPotentialStereo(Chem.Mol(mol), cleanIt=False):
        if el.type != Chem.StereoType.Bond_Double:
            continue
        bond = mol.GetBondWithIdx(el.centeredOn)
        pair = (bond.GetBeginAtomIdx(), bond.GetEndAtomIdx())
        stereo = bond.GetStereo()
        if stereo == Chem.BondStereo.STEREOE:
            e_bonds.append(pair)
        elif stereo == Chem.BondStereo.STEREOZ:
            z_bonds.append(pair)
        else:
            unspecified.append(pair)
    for key, pairs in (("e_z_stereochemistry_double_bond_e", e_bonds),
                       ("e_z_stereochemistry_double_bond_z", z_bonds),
                       ("stereochemistry_unspecified_double_bond", unspecified)):
        v[f"{key}_count"] = len(pairs)
        v[f"{key}_index"] = sorted({a for p in pairs for a in p})


def _murcko(mol: Chem.Mol, v: dict[str, Any]) -> None:
    if mol.GetRingInfo().NumRings() == 0:  # no ring, no scaffold (and RDKit is slow on long chains)
        v["murcko_scaffold_count"], v["murcko_scaffold_index"], v["murcko_scaffold_value"] = 0, [], ""
        return
    tagged = Chem.Mol(mol)
    for atom in tagged.GetAtoms():
        atom.SetIntProp("_feat_idx", atom.GetIdx())
    scaffold = MurckoScaffold.GetScaffoldForMol(tagged)
    if scaffold is None or scaffold.GetNumAtoms() == 0:
        v["murcko_scaffold_count"], v["murcko_scaffold_index"], v["murcko_scaffold_value"] = 0, [], ""
        return
    idx = sorted(a.GetIntProp("_feat_idx") for a in scaffold.GetAtoms() if a.HasProp("_feat_idx"))
    v["murcko_scaffold_count"] = len(idx)
    v["murcko_scaffold_index"] = idx
    v["murcko_scaffold_value"] = Chem.MolToSmiles(scaffold)


def _brics_bonds(mol: Chem.Mol, v: dict[str, Any]) -> None:
    bonds = BRICS.FindBRICSBonds(mol)
    v["brics_decomposition_index"] = sorted({a for (pair, _) in bonds for a in pair})


#: Pauling electronegativities (the scale RDKit's CalcOxidationNumbers uses)
_PAULING: dict[int, float] = {
    1: 2.20, 3: 0.98, 4: 1.57, 5: 2.04, 6: 2.55, 7: 3.04, 8: 3.44, 9: 3.98, 11: 0.93, 12: 1.31,
    13: 1.61, 14: 1.90, 15: 2.19, 16: 2.58, 17: 3.16, 19: 0.82, 20: 1.00, 21: 1.36, 22: 1.54,
    23: 1.63, 24: 1.66, 25: 1.55, 26: 1.83, 27: 1.88, 28: 1.91, 29: 1.90, 30: 1.65, 31: 1.81,
    32: 2.01, 33: 2.18, 34: 2.55, 35: 2.96, 36: 3.00, 37: 0.82, 38: 0.95, 39: 1.22, 40: 1.33,
    41: 1.6, 42: 2.16, 43: 1.9, 44: 2.2, 45: 2.28, 46: 2.20, 47: 1.93, 48: 1.69, 49: 1.78,
    50: 1.96, 51: 2.05, 52: 2.1, 53: 2.66, 54: 2.6, 55: 0.79, 56: 0.89, 57: 1.10, 72: 1.3,
    73: 1.5, 74: 2.36, 75: 1.9, 76: 2.2, 77: 2.20, 78: 2.28, 79: 2.54, 80: 2.00, 81: 1.62,
    82: 2.33, 83: 2.02, 84: 2.0, 85: 2.2,
}
#: twice the bond order (aromatic bonds count 1.5)
_HALF_ORDER = {
    Chem.BondType.SINGLE: 2, Chem.BondType.DOUBLE: 4, Chem.BondType.TRIPLE: 6, Chem.BondType.AROMATIC: 3,
}


def oxidation_numbers_x2(mol: Chem.Mol) -> list[int]:
    """Twice the oxidation number of every atom (integers; aromatic bonds count as order 1.5).

    Each bond's electrons go to the more electronegative partner (Pauling scale), bonds between
    equally electronegative atoms are split, hydrogens count as bonded H, and the formal charge
    is added. This reproduces RDKit's ``CalcOxidationNumbers`` except that a bond inside an
    aromatic ring counts 1.5 instead of the order in one Kekule structure, so the value does
    not depend on how an aromatic ring happens to be kekulised (both alpha carbons of pyridine
    get +1/2).
    """
    out: list[int] = []
    for atom in mol.GetAtoms():
        en = _PAULING.get(atom.GetAtomicNum(), 1.5)
        ox2 = 2 * atom.GetFormalCharge()
        h_en = _PAULING[1]
        if en > h_en:
            ox2 -= 2 * atom.GetTotalNumHs()
        elif en < h_en:
            ox2 += 2 * atom.GetTotalNumHs()
        for bond in atom.GetBonds():
            other = bond.GetOtherAtom(atom)
            o_en = _PAULING.get(other.GetAtomicNum(), 1.5)
            w = _HALF_ORDER.get(bond.GetBondType(), 0)
            if en > o_en:
                ox2 -= w
            elif en < o_en:
                ox2 += w
        out.append(ox2)
    return out


def _oxidation(mol: Chem.Mol, v: dict[str, Any]) -> None:
    ox2 = oxidation_numbers_x2(mol)
    by_el: dict[str, list[tuple[int, int]]] = {el: [] for el in _OX_ELEMENTS}
    for atom, value in zip(mol.GetAtoms(), ox2):
        sym = atom.GetSymbol()
        if sym in by_el:
            by_el[sym].append((atom.GetIdx(), value))
    for el, pairs in by_el.items():
        for mm in ("max", "min"):
            if pairs:
                target = max(o for _, o in pairs) if mm == "max" else min(o for _, o in pairs)
                idx = sorted(i for i, o in pairs if o == target)
            else:
                idx = []
            v[f"oxidation_state_{el}_{mm}_count"] = len(idx)
            v[f"oxidation_state_{el}_{mm}_index"] = idx


def _compute_record(mol: Chem.Mol) -> _Record:
    v: dict[str, Any] = {}
    bounded: dict[str, str] = {}
    atoms = list(mol.GetAtoms())
    heavy_deg = [sum(1 for n in a.GetNeighbors() if n.GetAtomicNum() != 1) for a in atoms]
    z = [a.GetAtomicNum() for a in atoms]

    _ring_features(mol, v)
    carbons = [i for i, zi in enumerate(z) if zi == 6]
    v["chain_termini_index"] = [i for i in carbons if heavy_deg[i] == 1]
    v["branch_point_index"] = [i for i in carbons if heavy_deg[i] >= 3]
    v["csp3_carbon_index"] = [i for i in carbons if atoms[i].GetHybridization() == Chem.HybridizationType.SP3]
    adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in atoms]
    chain = feature_graph.longest_simple_path(adj, carbons)
    v["longest_carbon_chain_index"] = sorted(chain.path)
    if not chain.exact:
        bounded["longest_carbon_chain"] = chain.reason
    _stereo_features(mol, v)
    v["carbon_atom_index"] = carbons
    v["hetero_atom_index"] = [i for i, zi in enumerate(z) if zi not in (1, 6)]
    v["halogen_atom_index"] = [i for i, zi in enumerate(z) if zi in _HALOGENS]
    v["heavy_atom_index"] = [i for i, zi in enumerate(z) if zi != 1]
    formula = mol_formula(mol)
    v["hydrogen_atom_count"] = formula.as_dict().get("H", 0)
    v["molecular_formula_count"] = formula.hill()
    for key, pattern in _HBOND_PATTERNS.items():
        v[f"{key}_index"] = sorted({m[0] for m in mol.GetSubstructMatches(pattern, uniquify=True)})
    rot = mol.GetSubstructMatches(_STRICT_ROTATABLE, uniquify=True)
    v["rotatable_bond_count"] = len(rot)
    v["rotatable_bond_index"] = sorted({a for m in rot for a in m})
    _oxidation(mol, v)
    _brics_bonds(mol, v)
    _murcko(mol, v)
    for name, instances in functional_group_instances(mol).items():
        v[f"functional_group_{name}_count"] = len(instances)
        v[f"functional_group_{name}_index"] = sorted({a for inst in instances for a in inst})
    for name, sites in reaction_sites(mol).items():
        v[f"{TEMPLATE_PREFIX}{name}_count"] = len(sites)
        v[f"{TEMPLATE_PREFIX}{name}_index"] = sorted({a for site in sites for a in site})
    # count forms of atom-valued features
    for spec in _CORE_SPECS:
        if spec.count_unit == "atoms" and spec.index_key and spec.count_key not in v:
            v[spec.count_key] = len(v[spec.index_key])  # type: ignore[index]
    return _Record({k: (tuple(x) if isinstance(x, list) else x) for k, x in v.items()}, bounded, len(atoms))


_CORE_SPECS = [s for s in FEATURES.values() if s.category not in ("functional_groups",)
               and not s.name.startswith(TEMPLATE_PREFIX)]
#: default (absent) values of the sparse keys
_DEFAULTS: dict[str, Any] = {}
for _s in FEATURES.values():
    if _s.category == "functional_groups" or _s.name.startswith(TEMPLATE_PREFIX):
        if _s.index_key:
            _DEFAULTS[_s.index_key] = ()
        if _s.count_key:
            _DEFAULTS[_s.count_key] = () if _s.value_type == "smiles_list" else 0


@lru_cache(maxsize=2048)
def _parsed(smiles: str) -> Chem.Mol:
    """A private, sanitised molecule for a (canonical) SMILES, shared by the two value tiers."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:  # pragma: no cover - RDKit canonical SMILES round-trip failure
        raise FeatureError(f"SMILES {smiles!r} does not parse back")
    return mol


@lru_cache(maxsize=8192)
def _record(smiles: str) -> _Record:
    """Core tier: every value except the BRICS leaves and the template products."""
    return _compute_record(Chem.Mol(_parsed(smiles)))  # stereo perception edits the molecule


@lru_cache(maxsize=4096)
def _brics_count(smiles: str) -> tuple[int, str]:
    """Expensive tier: number of BRICS leaf fragments, and a reason code if bounded."""
    result = brics_leaves(_parsed(smiles))
    return len(result.fragments), result.reason


@lru_cache(maxsize=16384)
def _products(smiles: str, template: str) -> tuple[str, ...]:
    """Expensive tier: products of one template (computed only when a key asks for them)."""
    return tuple(template_products(_parsed(smiles), template))


# ---------------------------------------------------------------------------------------
# public API


def _materialise(smiles: str, keys: Iterable[str] | None) -> FeatureReport:
    if not isinstance(smiles, str):
        raise FeatureError(f"SMILES must be a string, got {type(smiles).__name__}")
    wanted = list(keys) if keys is not None else None
    specs = [spec_for_key(k) for k in wanted] if wanted is not None else None
    w = _written(smiles)
    mapping = w.to_written
    source_smiles = w.canonical
    rec = _record(source_smiles)
    if rec.n_atoms != len(mapping):
        # the canonical round trip changed the atom count (explicit hydrogens RDKit keeps):
        # compute on the molecule as written instead, positions mapped directly
        source_smiles, mapping = smiles, _positions(parse_smiles(smiles))
        rec = _record(source_smiles)
    source = rec.values
    bounded = dict(rec.bounded)
    lazy = [k for k in (wanted if wanted is not None else _LAZY_KEYS) if k in _LAZY_KEYS]
    if lazy:
        source = dict(source)
        for k in lazy:
            if k == "brics_decomposition_count":
                source[k], reason = _brics_count(source_smiles)
                if reason:
                    bounded["brics_decomposition"] = reason
            elif source.get(_SITE_KEY[k]):  # templates without a site have no products
                products = _products(source_smiles, _TEMPLATE_OF[k])
                source[k] = products if k.endswith("_products") else int(bool(products))
    out: dict[str, Any] = {}
    for k in (wanted if wanted is not None else _ORDERED_KEYS):
        val = source.get(k, _DEFAULTS.get(k))
        if k in _INDEX_KEYS:
            val = sorted(p for p in (mapping[i] for i in val) if p >= 0)
        elif isinstance(val, tuple):
            val = list(val)
        out[k] = val
    names = None if specs is None else {s.name for s in specs}
    bounded = {n: r for n, r in bounded.items() if names is None or n in names}
    return FeatureReport(out, bounded)


_ORDERED_KEYS: tuple[str, ...] = tuple(feature_keys())


def molecule_features(smiles: str, keys: Iterable[str] | None = None) -> dict[str, Any]:
    """Every feature value of the molecule as written (``keys`` restricts the result to those keys).

    Index values refer to atom positions in ``smiles`` itself. Raises :class:`FeatureError` for
    invalid SMILES and :class:`KeyError` for unknown keys.
    """
    return _materialise(smiles, keys).values


def molecule_features_with_status(smiles: str, keys: Iterable[str] | None = None) -> FeatureReport:
    """Like :func:`molecule_features`, plus which features hit a work bound (``report.bounded``).

    ``report.bounded`` maps a feature name (e.g. ``"longest_carbon_chain"``) to a reason code
    (``"search_budget_exhausted"``): its value is the best found, a lower bound on the true value.
    """
    return _materialise(smiles, keys)


def feature_value(smiles: str, key: str) -> Any:
    """The value of one feature key for the molecule as written."""
    return _materialise(smiles, [key]).values[key]


def index_answer_correct(smiles: str, key: str, answer: Iterable[int]) -> bool:
    """Whether an index answer is right, accepting every equally valid answer.

    All index features have one answer (a set of positions), except ``longest_carbon_chain_index``
    when several carbon chains share the maximum length: any of them is accepted (checked by a
    bounded search for a path through exactly the given carbons). Duplicates are the caller's
    concern; ``answer`` is compared as a set.
    """
    given = set(answer)
    truth = feature_value(smiles, key)
    if given == set(truth):
        return True
    if key != "longest_carbon_chain_index" or len(given) != len(truth):
        return False
    mol = parse_smiles(smiles)
    pos = _positions(mol)
    by_pos = {p: i for i, p in enumerate(pos) if p >= 0}
    if not all(p in by_pos and mol.GetAtomWithIdx(by_pos[p]).GetAtomicNum() == 6 for p in given):
        return False
    atoms = [by_pos[p] for p in given]
    adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in mol.GetAtoms()]
    found = feature_graph.longest_simple_path(adj, atoms)
    return found.n_vertices == len(atoms)


def canonical_feature_values(smiles: str) -> dict[str, Any]:
    """Presentation-independent values (counts, formula, SMILES values) of a molecule, index keys omitted."""
    values = molecule_features(smiles)
    return {k: v for k, v in values.items() if k not in _INDEX_KEYS}


def cache_info() -> dict[str, Any]:
    """Hit/miss statistics of the feature caches."""
    return {name: fn.cache_info()._asdict() for name, fn in
            (("written", _written), ("core", _record), ("brics", _brics_count), ("products", _products),
             ("parsed", _parsed))}


def clear_caches() -> None:
    """Empty the feature caches (benchmarks, tests)."""
    for fn in (_written, _record, _brics_count, _products, _parsed):
        fn.cache_clear()
