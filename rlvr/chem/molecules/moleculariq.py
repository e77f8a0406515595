"""The ``moleculariq`` feature convention: the MolecularIQ benchmark's answer key, quirks included.

rlvr's feature keys are the benchmark's names, but a few keys mean something else by design
(``docs/moleculariq_compat.md`` lists every shared key). ``molecule_features(smiles,
convention="moleculariq")`` takes the keys below from this module and every other key from rlvr:

- **Functional groups**: the benchmark's own SMARTS library and its procedural substituent
  detectors (:mod:`~rlvr.chem.molecules.moleculariq_data`), evaluated as its solver does: one
  instance per uniquified SMARTS match, ``_index`` the union of all matched atoms (the whole
  pattern, not only the group's own atoms), ``_count`` the number of those atoms, and
  ``_nbrInstances`` the number of instances (the key the benchmark's constraints use). Every one
  of the benchmark's 135 groups is available, including the 63 rlvr does not define. rlvr-only
  groups keep rlvr's patterns under the same key semantics.
- **Reaction templates**: the benchmark's 58 SMIRKS (reactive-site count and atoms, success, products).
- **Oxidation states**: RDKit's Kekulé structure of the molecule *as written* (rlvr's default
  kekulises the canonical atom order, so its values never depend on the presentation).
- **Longest carbon chain index**: among equally long chains, the one the benchmark's depth-first
  search finds first.
- **Ring, acceptor and spiro indices**: ``hba_index`` takes the benchmark's acceptor pattern,
  whose aromatic ``n`` has no connection limit (pyrrole-type N included, which its own
  ``hba_count``, RDKit's ``CalcNumHBA``, rejects); ``aromatic_ring_index`` the atoms of every ring
  whose atoms are all aromatic (its count takes rings of aromatic bonds); ``spiro_index`` the atoms
  in exactly two rings that share only that atom (its count, ``CalcNumSpiroAtoms``, has no
  two-ring limit).
- **BRICS fragment count**: where rlvr's bounded BRICS search stops, RDKit's ``BRICSDecompose``
  as the benchmark calls it (molecules up to :data:`BRICS_EXACT_LIMIT` heavy atoms).

The benchmark's answers are reproduced where they contradict its own feature names or counts
(:data:`QUIRKS`, ``docs/moleculariq_compat.md``); the default convention keeps rlvr's consistent
answers. Not reproduced: its longest-chain search beyond 60 carbons (unbounded recursion).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

from rdkit import Chem, RDLogger
from rdkit.Chem import BRICS, rdChemReactions

from rlvr.chem.molecules.functional_groups import FUNCTIONAL_GROUP_NAMES, functional_group_instances
from rlvr.chem.molecules.moleculariq_data import functional_group_smarts, template_smirks
from rlvr.chem.molecules.moleculariq_substituents import PROCEDURES
from rlvr.chem.molecules.oxidation import extreme_atoms, oxidation_numbers
from rlvr.chem.molecules.specs import feature_keys

CONVENTIONS = ("rlvr", "moleculariq")
DEFAULT_CONVENTION = "rlvr"

_FG = "functional_group_"
_TPL = "template_based_reaction_prediction_"
_OX_ELEMENTS = ("C", "N", "O", "P", "S")
#: the benchmark's exact longest-chain search gives up (recursing without end) above this many carbons
CHAIN_DFS_LIMIT = 60

#: the benchmark's answers that contradict its own feature names or counts, all reproduced here
#: (the default convention keeps rlvr's answers; ``docs/moleculariq_compat.md`` shows an example of each)
QUIRKS: dict[str, str] = {
    "hba_index": "aromatic n of any connectivity (pyrrole-type N too); its hba_count does not count those",
    "aromatic_ring_index": "rings whose atoms are all aromatic; its count takes rings of aromatic bonds",
    "spiro_index": "atoms in exactly two rings sharing only that atom; its count has no two-ring limit",
    "oxime": "pattern N=C-OH (an imidic acid): no C=N-OH oxime matches",
    "quaternary_ammonium": "any four-connected N+ without H: amine N-oxides count",
    "sulfone": "any S(=O)(=O): sulfonamides, sulfonyl chlorides, sulfonates and sulfates count",
    "phosphine_oxide": "any P=O: phosphates and phosphonates count",
    "phosphonate": "no C-P bond required and one instance per match: trimethyl phosphate is six",
    "lactam": "one instance per ring neighbour of the N: an N-aryl lactam counts twice, aryl C indexed",
}
#: the benchmark's H-bond acceptor pattern for its index (aromatic n without RDKit's X2 restriction)
HBA_INDEX_PATTERN = Chem.MolFromSmarts(
    "[$([O,S;H1;v2]-[!$(*=[O,N,P,S])]),$([O,S;H0;v2]),$([O,S;-]),"
    "$([N;v3;!$(N-*=!@[O,N,P,S])]),$([nH0,o,s;+0])]")
#: largest molecule (heavy atoms) whose BRICS fragments are enumerated exhaustively when rlvr's
#: bounded search stops (the benchmark's pool stops at 50 heavy atoms)
BRICS_EXACT_LIMIT = 50
_RING_KEYS = ("hba_index", "aromatic_ring_index", "spiro_index")

_SUFFIXES = ("_count", "_index", "_nbrInstances")


def check_convention(convention: str) -> str:
    """``convention`` if known, else ``ValueError`` naming the known ones."""
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown feature convention {convention!r}; use one of {', '.join(CONVENTIONS)}")
    return convention


@lru_cache(maxsize=1)
def _group_patterns() -> dict[str, Chem.Mol]:
    out: dict[str, Chem.Mol] = {}
    for name, smarts in functional_group_smarts().items():
        pattern = Chem.MolFromSmarts(smarts)
        if pattern is not None:  # the benchmark skips (and warns about) patterns RDKit cannot read
            out[name] = pattern
    return out


def group_names() -> tuple[str, ...]:
    """Every functional group of this convention: the benchmark's, then rlvr's own."""
    bench = tuple(_group_patterns())
    return bench + tuple(n for n in FUNCTIONAL_GROUP_NAMES if n not in bench)


@lru_cache(maxsize=1)
def _owned_keys() -> frozenset[str]:
    keys = {f"{_FG}{g}{s}" for g in group_names() for s in _SUFFIXES}
    for t in template_smirks():
        keys |= {f"{_TPL}{t}{s}" for s in ("_count", "_index", "_success", "_products")}
    for el in _OX_ELEMENTS:
        keys |= {f"oxidation_state_{el}_{mm}_{s}" for mm in ("max", "min") for s in ("count", "index")}
    keys.add("longest_carbon_chain_index")
    keys.update(_RING_KEYS)
    return frozenset(keys)


def owns(key: str) -> bool:
    """Whether ``key`` takes its value from this module under ``convention="moleculariq"``."""
    return key in _owned_keys()


def extra_keys() -> list[str]:
    """Keys this convention adds to rlvr's: ``_nbrInstances`` keys and the benchmark-only groups."""
    known = set(feature_keys())
    return sorted(k for k in _owned_keys() if k not in known)


# --------------------------------------------------------------------------- values on the molecule as written


@lru_cache(maxsize=4096)
def _mol(smiles: str) -> Chem.Mol:
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        raise ValueError(f"invalid SMILES: {smiles!r}")
    return mol


@lru_cache(maxsize=4096)
def _groups(smiles: str) -> dict[str, tuple[tuple[int, ...], int]]:
    """Group name -> (sorted matched atoms, number of instances), present groups only."""
    mol = _mol(smiles)
    out: dict[str, tuple[tuple[int, ...], int]] = {}
    for name, pattern in _group_patterns().items():
        if name in PROCEDURES:
            instances = PROCEDURES[name](mol)
            atoms = {i for inst in instances for i in inst}
            n = len(instances)
        else:
            matches = mol.GetSubstructMatches(pattern)
            atoms = {i for m in matches for i in m}
            n = len(matches)
        if n:
            out[name] = (tuple(sorted(atoms)), n)
    bench = _group_patterns()
    for name, instances in functional_group_instances(mol).items():
        if name not in bench:
            out[name] = (tuple(sorted({i for inst in instances for i in inst})), len(instances))
    return out


@lru_cache(maxsize=1)
def _templates_compiled() -> dict[str, tuple[Chem.Mol, Any]]:
    out = {}
    for name, smirks in template_smirks().items():
        out[name] = (Chem.MolFromSmarts(smirks.split(">>")[0]), rdChemReactions.ReactionFromSmarts(smirks))
    return out


def _product_smiles(product: Chem.Mol) -> str | None:
    try:
        text = Chem.MolToSmiles(product)
    except (RuntimeError, ValueError):
        return None
    parsed = Chem.MolFromSmiles(text)
    return Chem.MolToSmiles(parsed) if parsed is not None else text


@lru_cache(maxsize=4096)
def _template(smiles: str, name: str) -> tuple[int, tuple[int, ...], int, tuple[str, ...]]:
    """(site count, site atoms, success, sorted distinct products) of one benchmark template."""
    mol = _mol(smiles)
    center, rxn = _templates_compiled()[name]
    matches = mol.GetSubstructMatches(center)
    atoms = tuple(sorted({i for m in matches for i in m}))
    RDLogger.DisableLog("rdApp.*")
    outcomes = rxn.RunReactants((Chem.Mol(mol),))
    products = {p for p in (_product_smiles(o[0]) for o in outcomes) if p is not None}
    return len(matches), atoms, int(bool(outcomes)), tuple(sorted(products))


@lru_cache(maxsize=4096)
def _oxidation(smiles: str) -> dict[str, tuple[int, ...]]:
    mol = _mol(smiles)
    numbers = oxidation_numbers(mol)
    return {f"{el}_{mm}": tuple(extreme_atoms(mol, numbers, el, mm)) for el in _OX_ELEMENTS for mm in ("max", "min")}


@lru_cache(maxsize=4096)
def _ring_indices(smiles: str) -> dict[str, tuple[int, ...]]:
    """The benchmark's ``hba_index``, ``aromatic_ring_index`` and ``spiro_index`` of the molecule as written."""
    mol = _mol(smiles)
    hba = sorted({i for m in mol.GetSubstructMatches(HBA_INDEX_PATTERN) for i in m})
    rings = [tuple(r) for r in mol.GetRingInfo().AtomRings()]
    aromatic = sorted({i for r in rings if all(mol.GetAtomWithIdx(a).GetIsAromatic() for a in r) for i in r})
    spiro: list[int] = []
    if len(rings) >= 2:
        sets = [set(r) for r in rings]
        for idx in range(mol.GetNumAtoms()):
            holding = [r for r in sets if idx in r]
            if len(holding) == 2 and holding[0] & holding[1] == {idx}:
                spiro.append(idx)
    return {"hba_index": tuple(hba), "aromatic_ring_index": tuple(aromatic), "spiro_index": tuple(spiro)}


def brics_fragment_count(smiles: str) -> int | None:
    """The benchmark's BRICS fragment count (RDKit's exhaustive ``BRICSDecompose``), or None above
    :data:`BRICS_EXACT_LIMIT` heavy atoms, where the enumeration can take unbounded time."""
    mol = _mol(smiles)
    if mol.GetNumHeavyAtoms() > BRICS_EXACT_LIMIT:
        return None
    return len(BRICS.BRICSDecompose(mol))


def first_longest_chain(mol: Chem.Mol, length: int) -> list[int] | None:
    """The first carbon path of ``length`` atoms in the benchmark's depth-first order, or None.

    The benchmark starts a search from every carbon in atom order, visits neighbours by
    decreasing carbon degree and keeps a path only when it is strictly longer than the best so
    far, so its answer is the first longest path in that order. The same order with pruning
    (a branch whose reachable carbons cannot complete ``length`` atoms is skipped) finds it.
    """
    carbons = [a.GetIdx() for a in mol.GetAtoms() if a.GetSymbol() == "C"]
    if not carbons or length < 1 or len(carbons) > CHAIN_DFS_LIMIT:
        return None
    is_c = set(carbons)
    adj = {i: [n.GetIdx() for n in mol.GetAtomWithIdx(i).GetNeighbors() if n.GetIdx() in is_c] for i in carbons}
    deg = {i: len(adj[i]) for i in carbons}
    for i in carbons:
        adj[i].sort(key=lambda x: deg[x], reverse=True)

    def reachable(u: int, visited: set[int]) -> int:
        seen, stack = {u}, [u]
        while stack:
            for v in adj[stack.pop()]:
                if v not in seen and v not in visited:
                    seen.add(v)
                    stack.append(v)
        return len(seen)

    def dfs(u: int, visited: set[int], path: list[int]) -> list[int] | None:
        if len(path) == length:
            return list(path)
        if len(path) - 1 + reachable(u, visited - {u}) < length:
            return None
        for v in adj[u]:
            if v in visited:
                continue
            visited.add(v)
            path.append(v)
            found = dfs(v, visited, path)
            path.pop()
            visited.discard(v)
            if found:
                return found
        return None

    for s in carbons:
        found = dfs(s, {s}, [s])
        if found:
            return found
    return None


def moleculariq_values(smiles: str, keys: Iterable[str], chain_length: int | None = None) -> dict[str, Any]:
    """Values of the keys this convention owns, on the molecule as written (atom indices = RDKit's).

    ``chain_length`` is rlvr's longest-chain length, needed for ``longest_carbon_chain_index``
    (returned only when the benchmark's search order can be reproduced).
    """
    out: dict[str, Any] = {}
    for key in keys:
        if key.startswith(_FG):
            for suffix in _SUFFIXES:
                if key.endswith(suffix):
                    name = key[len(_FG):-len(suffix)]
                    break
            atoms, n = _groups(smiles).get(name, ((), 0))
            out[key] = list(atoms) if suffix == "_index" else (len(atoms) if suffix == "_count" else n)
        elif key.startswith(_TPL):
            base = key[len(_TPL):]
            suffix = base[base.rindex("_"):]
            count, atoms, success, products = _template(smiles, base[: -len(suffix)])
            out[key] = {"_count": count, "_index": list(atoms), "_success": success, "_products": list(products)}[suffix]
        elif key.startswith("oxidation_state_"):
            el, mm, kind = key[len("oxidation_state_"):].split("_")
            atoms = _oxidation(smiles)[f"{el}_{mm}"]
            out[key] = list(atoms) if kind == "index" else len(atoms)
        elif key in _RING_KEYS:
            out[key] = list(_ring_indices(smiles)[key])
        elif key == "longest_carbon_chain_index" and chain_length is not None:
            path = first_longest_chain(_mol(smiles), chain_length)
            if path is not None:
                out[key] = sorted(path)
    return out


def clear_caches() -> None:
    """Empty this module's caches."""
    for fn in (_mol, _groups, _template, _oxidation, _ring_indices):
        fn.cache_clear()
