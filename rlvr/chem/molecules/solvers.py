"""The per-molecule feature solvers: every value of one molecule, computed on its canonical atom
order (index lists hold canonical positions; :mod:`~rlvr.chem.molecules.features` maps them back to
the SMILES as written). RDKit's own definitions are used where they exist (ring set, CIP labels,
Lipinski H-bond patterns, strict rotatable bonds, Murcko scaffold, BRICS bonds).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from rdkit import Chem
from rdkit.Chem import BRICS, Lipinski
from rdkit.Chem.Scaffolds import MurckoScaffold

from rlvr.chem.molecules.graph import longest_simple_path
from rlvr.chem.molecules.functional_groups import functional_group_instances
from rlvr.chem.molecules.oxidation import extreme_atoms, symmetric_oxidation_numbers
from rlvr.chem.molecules.reactions import PREFIX as TEMPLATE_PREFIX
from rlvr.chem.molecules.reactions import reaction_sites
from rlvr.chem.molecules.rings import bridgehead_atoms, fused_ring_systems, spiro_atoms
from rlvr.chem.molecules.specs import CORE_SPECS, OX_ELEMENTS
from rlvr.chem.smiles import mol_formula

_HALOGENS = frozenset({9, 17, 35, 53, 85})

#: RDKit's H-bond acceptor/donor definitions (the patterns behind CalcNumHBA / CalcNumHBD; the
#: acceptor pattern is Lipinski.HAcceptorSmarts with aromatic n restricted to two connections)
HBOND_PATTERNS = {
    "hba": Chem.MolFromSmarts(
        "[$([O,S;H1;v2]-[!$(*=[O,N,P,S])]),$([O,S;H0;v2]),$([O,S;-]),$([N;v3;!$(N-*=!@[O,N,P,S])]),"
        "$([nH0X2,o,s;+0])]"),
    "hbd": Lipinski.HDonorSmarts,
}
#: RDKit's strict rotatable-bond definition (the pattern behind CalcNumRotatableBonds' default)
STRICT_ROTATABLE = Chem.MolFromSmarts(
    "[!$(*#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])([CH3])[CH3])&!$([CH3])"
    "&!$([CD3](=[N,O,S])-!@[#7,O,S!D1])&!$([#7,O,S!D1]-!@[CD3]=[N,O,S])&!$([CD3](=[N+])-!@[#7!D1])"
    "&!$([#7!D1]-!@[CD3]=[N+])]-,:;!@[!$(*#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)"
    "&!$(C([CH3])([CH3])[CH3])&!$([CH3])]"
)


@dataclass(frozen=True)
class Record:
    """Feature values of one canonical molecule (index lists hold canonical positions).

    Only non-default values of functional-group and template keys are stored (sparse), to keep
    the cache small; :data:`~rlvr.chem.molecules.specs.SPARSE_DEFAULTS` fills the rest.
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
    systems = fused_ring_systems(atom_rings)
    v["fused_ring_count"] = len(systems)
    v["fused_ring_index"] = union(atom_rings[i] for g in systems for i in g)
    bond_atoms = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in mol.GetBonds()]
    v["bridgehead_index"] = bridgehead_atoms(bond_rings, bond_atoms)
    v["spiro_index"] = spiro_atoms(atom_rings)
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


def _oxidation(mol: Chem.Mol, v: dict[str, Any]) -> None:
    """Oxidation-state extremes: RDKit's numbers on the Kekulé structure of the canonical atom order,
    averaged over symmetry-equivalent atoms (:mod:`~rlvr.chem.molecules.oxidation`)."""
    numbers = symmetric_oxidation_numbers(mol)
    for el in OX_ELEMENTS:
        for mm in ("max", "min"):
            idx = extreme_atoms(mol, numbers, el, mm)
            v[f"oxidation_state_{el}_{mm}_count"] = len(idx)
            v[f"oxidation_state_{el}_{mm}_index"] = idx


#: key prefix -> the solver group that computes it (keys of no listed prefix come from the base group:
#: rings, chain ends, stereo, atom lists and the formula, always computed since stereo perception
#: edits the molecule the later groups read)
_GROUP_PREFIXES: tuple[tuple[str, str], ...] = (
    ("functional_group_", "functional_groups"),
    (TEMPLATE_PREFIX, "reactions"),
    ("oxidation_state_", "oxidation"),
    ("murcko_scaffold_", "murcko"),
    ("brics_decomposition_", "brics"),
    ("longest_carbon_chain_", "chain"),
    ("hba_", "hbond"),
    ("hbd_", "hbond"),
    ("rotatable_bond_", "rotatable"),
)


def solver_group(key: str) -> str:
    """The group of :func:`compute_values` that computes ``key`` (``"base"`` for the always-computed ones)."""
    for prefix, group in _GROUP_PREFIXES:
        if key.startswith(prefix):
            return group
    return "base"


#: every solver group beyond the always-computed base
ALL_GROUPS: frozenset[str] = frozenset(group for _prefix, group in _GROUP_PREFIXES)


def compute_record(mol: Chem.Mol) -> Record:
    """Every core-tier value of ``mol`` (BRICS leaves and template products excepted), plus bounded features."""
    return _compute(mol, ALL_GROUPS)


def compute_values(mol: Chem.Mol, keys: Iterable[str]) -> Record:
    """The core-tier values :func:`compute_record` gives for ``keys`` (and those of the same solver
    groups), computing only the groups the keys need, in the same order."""
    return _compute(mol, {solver_group(k) for k in keys})


def _compute(mol: Chem.Mol, groups: Iterable[str]) -> Record:
    """The base group's values plus those of ``groups``, in one fixed order (stereo perception edits
    the molecule the later groups read)."""
    groups = set(groups)
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
    if "chain" in groups:
        adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in atoms]
        chain = longest_simple_path(adj, carbons)
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
    if "hbond" in groups:
        for key, pattern in HBOND_PATTERNS.items():
            v[f"{key}_index"] = sorted({m[0] for m in mol.GetSubstructMatches(pattern, uniquify=True)})
    if "rotatable" in groups:
        rot = mol.GetSubstructMatches(STRICT_ROTATABLE, uniquify=True)
        v["rotatable_bond_count"] = len(rot)
        v["rotatable_bond_index"] = sorted({a for m in rot for a in m})
    if "oxidation" in groups:
        _oxidation(mol, v)
    if "brics" in groups:
        _brics_bonds(mol, v)
    if "murcko" in groups:
        _murcko(mol, v)
    if "functional_groups" in groups:
        for name, instances in functional_group_instances(mol).items():
            v[f"functional_group_{name}_count"] = len(instances)
            v[f"functional_group_{name}_index"] = sorted({a for inst in instances for a in inst})
    if "reactions" in groups:
        for name, sites in reaction_sites(mol).items():
            v[f"{TEMPLATE_PREFIX}{name}_count"] = len(sites)
            v[f"{TEMPLATE_PREFIX}{name}_index"] = sorted({a for site in sites for a in site})
    for spec in CORE_SPECS:
        if spec.count_unit == "atoms" and spec.index_key in v and spec.count_key not in v:
            v[spec.count_key] = len(v[spec.index_key])  # type: ignore[index]
    return Record({k: (tuple(x) if isinstance(x, list) else x) for k, x in v.items()}, bounded, len(atoms))
