"""Count values of one molecule, computed key by key: what a verdict on a generated molecule needs.

:func:`~rlvr.chem.molecules.features.molecule_features_for` computes whole solver groups on the
canonical atom order (a canonical SMILES, a second parse, ring and stereo perception, every
functional group). A constraint on a generated molecule names one or two count keys, and a count
does not depend on the atom order, so :func:`count_values` reads each asked key off the parsed
molecule as written, with only the work that key needs: one SMARTS pattern for a functional
group or a reaction template, the ring set for ring counts, the symmetric oxidation numbers of
one element (on the canonical atom order, since a Kekulé structure depends on it), and so on.

The values are those of :func:`~rlvr.chem.molecules.features.molecule_features` (rlvr
convention), checked key by key on pool molecules in canonical, random and kekulised SMILES by
``tests/chem/molecules/test_counts.py``. Keys this module does not compute (index keys, the
BRICS leaf count, template products, a longest chain whose search hit its work bound) are left
out of the result for the caller to compute the full way (:func:`split_keys`).

This module computes no value that a feature table stores, so it is left out of the solver
fingerprint (:data:`rlvr.chem.molecules.tables.NON_SOLVER_MODULES`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

from rlvr.chem.molecules import solvers
from rlvr.chem.molecules.functional_groups import MAX_MATCHES, compiled_patterns
from rlvr.chem.molecules.graph import longest_simple_path
from rlvr.chem.molecules.oxidation import oxidation_numbers
from rlvr.chem.molecules.reactions import MAX_PRODUCTS, compiled_templates
from rlvr.chem.molecules.reactions import PREFIX as TEMPLATE_PREFIX
from rlvr.chem.molecules.rings import bridgehead_atoms, fused_ring_systems, spiro_atoms
from rlvr.chem.molecules.specs import OX_ELEMENTS
from rlvr.chem.smiles import has_stereo_marks, may_write_hydrogen, mol_formula

_FG_PREFIX = "functional_group_"
_OX_PREFIX = "oxidation_state_"
_STEREO_KEYS = frozenset({
    "r_s_stereocenter_r_count", "r_s_stereocenter_s_count", "unspecified_stereocenter_count",
    "stereocenter_count", "e_z_stereochemistry_double_bond_e_count", "e_z_stereochemistry_double_bond_z_count",
    "stereochemistry_unspecified_double_bond_count",
})


class _Molecule:
    """One parsed molecule and the intermediate results its keys share (computed on first use)."""

    def __init__(self, mol: Chem.Mol, stereo: bool = True) -> None:
        self.mol = mol
        self.stereo_marks = stereo
        self._cache: dict[str, Any] = {}

    def _get(self, name: str, make: Callable[[], Any]) -> Any:
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    @property
    def perceived(self) -> Chem.Mol:
        """A copy after the stereo perception the solvers run first (it can clear stereo marks; without
        marks it changes nothing the patterns read, and the molecule itself serves)."""
        if not self.stereo_marks:
            return self.mol

        def make() -> Chem.Mol:
            work = Chem.Mol(self.mol)
            Chem.AssignStereochemistry(work, cleanIt=True, force=True)
            return work
        return self._get("perceived", make)

    @property
    def formula(self) -> Any:
        return self._get("formula", lambda: mol_formula(self.mol))

    @property
    def elements(self) -> dict[str, int]:
        return self._get("elements", lambda: self.formula.as_dict())

    @property
    def rings(self) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
        def make() -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
            info = self.mol.GetRingInfo()
            return [tuple(r) for r in info.AtomRings()], [tuple(r) for r in info.BondRings()]
        return self._get("rings", make)

    @property
    def stereo(self) -> dict[str, Any]:
        def make() -> dict[str, Any]:
            values: dict[str, Any] = {}
            solvers._stereo_features(Chem.Mol(self.mol), values)
            return values
        return self._get("stereo", make)

    @property
    def canonical_oxidation(self) -> tuple[Chem.Mol, list[int], list[int]]:
        """The canonical molecule (as the solvers see it), its oxidation numbers and symmetry classes."""
        def make() -> tuple[Chem.Mol, list[int], list[int]]:
            canon = Chem.MolFromSmiles(Chem.MolToSmiles(self.mol))
            Chem.AssignStereochemistry(canon, cleanIt=True, force=True)
            return canon, oxidation_numbers(canon), list(Chem.CanonicalRankAtoms(canon, breakTies=False))
        return self._get("oxidation", make)


#: ring classes as :func:`rlvr.chem.molecules.solvers._ring_features` sorts the rings (all bonds aromatic;
#: some bond not aromatic; some atom not carbon; all bonds single), counted by RDKit on the same rings
_RING_CLASS_COUNTS: dict[str, Callable[[Chem.Mol], int]] = {
    "aromatic_ring_count": rdMolDescriptors.CalcNumAromaticRings,
    "aliphatic_ring_count": rdMolDescriptors.CalcNumAliphaticRings,
    "heterocycle_count": rdMolDescriptors.CalcNumHeterocycles,
    "saturated_ring_count": rdMolDescriptors.CalcNumSaturatedRings,
}


def _ring_class_count(key: str) -> Callable[[_Molecule], int]:
    count = _RING_CLASS_COUNTS[key]
    return lambda m: count(m.mol)


def _fused_count(m: _Molecule) -> int:
    return len(fused_ring_systems(m.rings[0]))


def _bridgehead_count(m: _Molecule) -> int:
    bond_rings = m.rings[1]
    if len(bond_rings) < 2:
        return 0
    bond_atoms = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in m.mol.GetBonds()]
    return len(bridgehead_atoms(bond_rings, bond_atoms))


def _spiro_count(m: _Molecule) -> int:
    return len(spiro_atoms(m.rings[0]))


def _ring_size(which: str) -> Callable[[_Molecule], int]:
    def value(m: _Molecule) -> int:
        sizes = [len(r) for r in m.mol.GetRingInfo().AtomRings()]
        return (min(sizes) if which == "smallest" else max(sizes)) if sizes else 0
    return value


def _carbons(m: _Molecule) -> list[int]:
    return [match[0] for match in m.mol.GetSubstructMatches(_CARBON)]


def _matches(pattern: Chem.Mol) -> Callable[[_Molecule], int]:
    """Atoms matching a one-atom pattern (the graph holds no hydrogen atoms: D is the heavy degree)."""
    return lambda m: len(m.mol.GetSubstructMatches(pattern))


def _atoms_matching(pattern: Chem.Mol) -> Callable[[_Molecule], int]:
    """Atoms matching a one-atom pattern, however many (hydrogen atoms in the graph included)."""
    return lambda m: len(m.mol.GetSubstructMatches(pattern, maxMatches=m.mol.GetNumAtoms() + 1))


_CARBON = Chem.MolFromSmarts("[#6]")
_HALOGEN = Chem.MolFromSmarts("[#9,#17,#35,#53,#85]")
#: carbons with one heavy neighbour, with three or more, and sp3 carbons
_TERMINUS = Chem.MolFromSmarts("[#6;D1]")
_BRANCH = Chem.MolFromSmarts("[#6;!D0;!D1;!D2]")
_CSP3 = Chem.MolFromSmarts("[#6;^3]")


def _longest_chain(m: _Molecule) -> int | None:
    adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in m.mol.GetAtoms()]
    chain = longest_simple_path(adj, _carbons(m))
    return len(chain.path) if chain.exact else None  # a bounded search depends on the atom order


def _composition(key: str) -> Callable[[_Molecule], Any]:
    """Atom counts, as the molecular formula gives them (isotopes count as their element)."""
    if key == "molecular_formula_count":
        return lambda m: m.formula.hill()
    if key == "hydrogen_atom_count":  # the graph's hydrogen atoms and those attached to its atoms
        return lambda m: m.mol.GetNumAtoms(onlyExplicit=False) - m.mol.GetNumHeavyAtoms()
    if key == "carbon_atom_count":
        return _atoms_matching(_CARBON)
    if key == "halogen_atom_count":
        return _atoms_matching(_HALOGEN)
    if key == "heavy_atom_count":
        return lambda m: m.mol.GetNumHeavyAtoms()
    carbons = _atoms_matching(_CARBON)
    return lambda m: m.mol.GetNumHeavyAtoms() - carbons(m)  # hetero_atom_count


def _pattern_atoms(pattern: Chem.Mol) -> Callable[[_Molecule], int]:
    """Distinct first atoms of the matches (the H-bond donor / acceptor counts)."""
    return lambda m: len({match[0] for match in m.perceived.GetSubstructMatches(pattern, uniquify=True)})


def _rotatable(m: _Molecule) -> int:
    return len(m.perceived.GetSubstructMatches(solvers.STRICT_ROTATABLE, uniquify=True))


@lru_cache(maxsize=1)
def _group_patterns() -> dict[str, tuple[Chem.Mol, ...]]:
    return dict(compiled_patterns())


@lru_cache(maxsize=1)
def _template_patterns() -> dict[str, Chem.Mol]:
    return {name: pattern for name, _rxn, pattern in compiled_templates()}


def _functional_group(name: str) -> Callable[[_Molecule], int]:
    patterns = _group_patterns()[name]
    if len(patterns) == 1:  # uniquified matches of one pattern are distinct atom sets already
        (pattern,) = patterns
        return lambda m: len(m.perceived.GetSubstructMatches(pattern, uniquify=True, maxMatches=MAX_MATCHES))

    def value(m: _Molecule) -> int:
        seen: set[tuple[int, ...]] = set()
        for pattern in patterns:
            for match in m.perceived.GetSubstructMatches(pattern, uniquify=True, maxMatches=MAX_MATCHES):
                seen.add(tuple(sorted(match)))
        return len(seen)
    return value


def _template_sites(name: str) -> Callable[[_Molecule], int]:
    pattern = _template_patterns()[name]
    return lambda m: len(m.perceived.GetSubstructMatches(pattern, uniquify=True, maxMatches=MAX_PRODUCTS))


def _oxidation(element: str, which: str) -> Callable[[_Molecule], int]:
    """Atoms of ``element`` at its highest (lowest) oxidation number, averaged over symmetry classes
    on the canonical atom order (:func:`rlvr.chem.molecules.oxidation.symmetric_oxidation_numbers`)."""
    def value(m: _Molecule) -> int:
        if not m.elements.get(element):
            return 0
        canon, numbers, classes = m.canonical_oxidation
        total: dict[int, int] = {}
        size: dict[int, int] = {}
        for c, n in zip(classes, numbers):
            total[c] = total.get(c, 0) + n
            size[c] = size.get(c, 0) + 1
        values = [Fraction(total[classes[a.GetIdx()]], size[classes[a.GetIdx()]])
                  for a in canon.GetAtoms() if a.GetSymbol() == element]
        target = max(values) if which == "max" else min(values)
        return sum(1 for v in values if v == target)
    return value


def _murcko_count(m: _Molecule) -> int:
    """The atoms of the Murcko scaffold (``solvers._murcko`` without the atom indices and the SMILES)."""
    mol = m.perceived
    if mol.GetRingInfo().NumRings() == 0:
        return 0
    scaffold = Chem.MurckoDecompose(mol)  # what MurckoScaffold.GetScaffoldForMol returns, before its clean-ups
    return 0 if scaffold is None else scaffold.GetNumAtoms()


def _murcko(key: str) -> Callable[[_Molecule], Any]:
    def value(m: _Molecule) -> Any:
        values: dict[str, Any] = {}
        solvers._murcko(m.perceived, values)
        return values[key]
    return value


def _stereo(key: str) -> Callable[[_Molecule], int]:
    index = key[: -len("_count")] + "_index"
    return lambda m: m.stereo[key] if key in m.stereo else len(m.stereo[index])


@lru_cache(maxsize=4096)
def _solver(key: str) -> Callable[[_Molecule], Any] | None:
    """The function that computes ``key`` here, or None when the caller must compute it the full way (cached per key)."""
    if key in _SOLVERS:
        return _SOLVERS[key]
    if key.startswith(_FG_PREFIX) and key.endswith("_count"):
        name = key[len(_FG_PREFIX):-len("_count")]
        return _functional_group(name) if name in _group_patterns() else None
    if key.startswith(TEMPLATE_PREFIX) and key.endswith("_count"):
        name = key[len(TEMPLATE_PREFIX):-len("_count")]
        return _template_sites(name) if name in _template_patterns() else None
    return None


_SOLVERS: dict[str, Callable[[_Molecule], Any]] = {
    "ring_count": lambda m: m.mol.GetRingInfo().NumRings(),
    "fused_ring_count": _fused_count,
    "bridgehead_count": _bridgehead_count,
    "spiro_count": _spiro_count,
    "smallest_largest_ring_size_smallest_count": _ring_size("smallest"),
    "smallest_largest_ring_size_largest_count": _ring_size("largest"),
    **{key: _ring_class_count(key) for key in _RING_CLASS_COUNTS},
    "chain_termini_count": _matches(_TERMINUS),
    "branch_point_count": _matches(_BRANCH),
    "csp3_carbon_count": _matches(_CSP3),
    "longest_carbon_chain_count": _longest_chain,
    **{key: _stereo(key) for key in _STEREO_KEYS},
    **{key: _composition(key) for key in ("carbon_atom_count", "hetero_atom_count", "halogen_atom_count",
                                          "heavy_atom_count", "hydrogen_atom_count", "molecular_formula_count")},
    "hba_count": _pattern_atoms(solvers.HBOND_PATTERNS["hba"]),
    "hbd_count": _pattern_atoms(solvers.HBOND_PATTERNS["hbd"]),
    "rotatable_bond_count": _rotatable,
    **{f"{_OX_PREFIX}{el}_{mm}_count": _oxidation(el, mm) for el in OX_ELEMENTS for mm in ("max", "min")},
    "murcko_scaffold_count": _murcko_count,
    "murcko_scaffold_value": _murcko("murcko_scaffold_value"),
}


def supported(key: str) -> bool:
    """Whether :func:`count_values` may compute ``key`` (it can still leave it out, see the module doc)."""
    return _solver(key) is not None


def split_keys(keys: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(keys computed here, keys to compute the full way)``, each in the given order."""
    here, full = [], []
    for key in keys:
        (here if supported(key) else full).append(key)
    return here, full


#: keys that depend only on which atoms a molecule has (computed here even with hydrogen atoms in the graph)
COMPOSITION_KEYS = frozenset({
    "carbon_atom_count", "hetero_atom_count", "halogen_atom_count", "heavy_atom_count", "hydrogen_atom_count",
    "molecular_formula_count",
})


def count_values(mol: Chem.Mol, keys: Iterable[str], *, smiles: str | None = None) -> dict[str, Any]:
    """The values of the supported ``keys`` for ``mol`` (a sanitised parse, not modified), as
    ``molecule_features`` gives them; keys it cannot compute exactly here are left out.

    A molecule with hydrogen atoms in its graph (``[2H]``, or kept by RDKit for stereo) gets only
    its :data:`COMPOSITION_KEYS` here: the solvers compute the rest on the molecule as written.
    ``smiles``, the text ``mol`` was parsed from, lets a molecule without stereo marks skip the
    stereo perception.
    """
    m = _Molecule(mol, stereo=True if smiles is None else has_stereo_marks(smiles))
    explicit_h = (smiles is None or may_write_hydrogen(smiles)) and has_explicit_hydrogens(mol)
    out: dict[str, Any] = {}
    for key in keys:
        solver = _solver(key)
        if solver is None or (explicit_h and key not in COMPOSITION_KEYS):
            continue
        value = solver(m)
        if value is not None:
            out[key] = value
    return out


def has_explicit_hydrogens(mol: Chem.Mol) -> bool:
    """Whether hydrogen atoms are part of the molecule graph (``[2H]``, or kept for stereo)."""
    return mol.GetNumAtoms() != mol.GetNumHeavyAtoms()


__all__ = ["COMPOSITION_KEYS", "count_values", "has_explicit_hydrogens", "has_stereo_marks", "split_keys", "supported"]
