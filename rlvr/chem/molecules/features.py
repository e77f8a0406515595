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

How values are computed (parse once, presentation-independent; the cached tiers are
:mod:`~rlvr.chem.molecules.feature_tiers`, this module is the public API and the conventions):

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
Conventions: ``convention="rlvr"`` (default) gives the values above; ``convention="moleculariq"``
gives the MolecularIQ benchmark's answer key, quirks included, taking the keys where it differs
from :mod:`~rlvr.chem.molecules.moleculariq` (functional groups counted and indexed as the benchmark
does, plus its ``_nbrInstances`` keys and its 63 extra groups; its reaction templates; oxidation
states, longest-chain ties, ``hba_index``, ``aromatic_ring_index`` and ``spiro_index`` on the
molecule as written; BRICS counts where rlvr's search is bounded). See ``docs/features.md`` for every
definition and ``docs/moleculariq_compat.md`` for every key compared with the benchmark's solver.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from rdkit import Chem

from rlvr.chem.molecules import graph as feature_graph
from rlvr.chem.molecules import moleculariq
from rlvr.chem.molecules.feature_tiers import (
    MAX_HEAVY_ATOMS,
    FeatureError,
    Written,
    add_lazy_values,
    as_written,
    atom_positions,
    core_record,
    parsed,
    source_record,
)
from rlvr.chem.molecules import feature_tiers
from rlvr.chem.molecules.oxidation import symmetric_oxidation_numbers
from rlvr.chem.molecules.solvers import Record, compute_values
from rlvr.chem.molecules.specs import (
    CATEGORIES,
    FEATURES,
    INDEX_KEYS,
    LAZY_KEYS,
    ORDERED_KEYS,
    FeatureSpec,
    feature_keys,
    spec_for_key,
)
from rlvr.chem.smiles import parse_smiles


@dataclass(frozen=True)
class FeatureReport:
    """All feature values of one molecule plus the features whose solver hit its work bound."""

    values: dict[str, Any]
    bounded: dict[str, str] = field(default_factory=dict)  # feature name -> reason code

    @property
    def exact(self) -> bool:
        return not self.bounded


# ---------------------------------------------------------------------------------------
# public API


def _materialise(smiles: str, keys: Iterable[str] | None, table: Any = None) -> FeatureReport:
    if not isinstance(smiles, str):
        raise FeatureError(f"SMILES must be a string, got {type(smiles).__name__}")
    wanted = list(keys) if keys is not None else None
    specs = [spec_for_key(k) for k in wanted] if wanted is not None else None
    found = table.written(smiles) if table is not None else None

    def record(source: str) -> Record:  # a feature table's row, else computed (same values)
        return (table.record(source) if table is not None else None) or core_record(source)

    source_smiles, mapping, rec = source_record(smiles, record, Written(*found) if found is not None else None)
    bounded = dict(rec.bounded)
    source = add_lazy_values(rec.values, wanted if wanted is not None else LAZY_KEYS, source_smiles, bounded)
    out = as_written(source, wanted if wanted is not None else ORDERED_KEYS, mapping)
    names = None if specs is None else {s.name for s in specs}
    bounded = {n: r for n, r in bounded.items() if names is None or n in names}
    return FeatureReport(out, bounded)


def _materialise_moleculariq(smiles: str, keys: Iterable[str] | None, table: Any = None) -> FeatureReport:
    """``convention="moleculariq"``: rlvr's values, with the keys the convention owns replaced."""
    wanted = list(keys) if keys is not None else list(ORDERED_KEYS) + moleculariq.extra_keys()
    for k in wanted:
        if not moleculariq.owns(k):
            spec_for_key(k)  # KeyError naming close matches
    own = [k for k in wanted if moleculariq.owns(k)]
    ours = [k for k in wanted if not moleculariq.owns(k)]
    chain_key = "longest_carbon_chain_count"
    base = _materialise(smiles, ours + ([chain_key] if "longest_carbon_chain_index" in own else []), table)
    try:
        overlay = moleculariq.moleculariq_values(smiles, own, base.values.get(chain_key))
    except ValueError as exc:
        raise FeatureError(str(exc)) from exc
    if "longest_carbon_chain_index" in own and "longest_carbon_chain_index" not in overlay:
        overlay.update(_materialise(smiles, ["longest_carbon_chain_index"], table).values)
    bounded = dict(base.bounded)
    if "brics_decomposition" in bounded and "brics_decomposition_count" in wanted:
        exact = moleculariq.brics_fragment_count(smiles)  # the benchmark's exhaustive enumeration
        if exact is not None:
            overlay["brics_decomposition_count"] = exact
            del bounded["brics_decomposition"]
    values = {k: overlay[k] if k in overlay else base.values[k] for k in wanted}
    return FeatureReport(values, bounded)


def _report(smiles: str, keys: Iterable[str] | None, convention: str, table: Any = None) -> FeatureReport:
    if moleculariq.check_convention(convention) == "moleculariq":
        return _materialise_moleculariq(smiles, keys, table)
    return _materialise(smiles, keys, table)


def is_feature_key(key: str, convention: str = "rlvr") -> bool:
    """Whether ``key`` is a feature key under ``convention`` (``moleculariq`` adds its own keys)."""
    if moleculariq.check_convention(convention) == "moleculariq" and moleculariq.owns(key):
        return True
    try:
        spec_for_key(key)
    except KeyError:
        return False
    return True


def molecule_features(smiles: str, keys: Iterable[str] | None = None, convention: str = "rlvr",
                      table: Any = None) -> dict[str, Any]:
    """Every feature value of the molecule as written (``keys`` restricts the result to those keys).

    Index values refer to atom positions in ``smiles`` itself. ``convention="moleculariq"``
    reproduces the MolecularIQ benchmark's meaning of the keys where it differs from rlvr's by a
    convention (module docstring). ``table``: a pool's precomputed feature table
    (:class:`~rlvr.chem.molecules.tables.FeatureTable`), read instead of computing where it has the
    molecule (same values). Raises :class:`FeatureError` for invalid SMILES,
    :class:`KeyError` for unknown keys and ``ValueError`` for an unknown convention.
    """
    return _report(smiles, keys, convention, table).values


def molecule_features_with_status(smiles: str, keys: Iterable[str] | None = None,
                                  convention: str = "rlvr") -> FeatureReport:
    """Like :func:`molecule_features`, plus which features hit a work bound (``report.bounded``).

    ``report.bounded`` maps a feature name (e.g. ``"longest_carbon_chain"``) to a reason code
    (``"search_budget_exhausted"``): its value is the best found, a lower bound on the true value.
    """
    return _report(smiles, keys, convention)


def feature_value(smiles: str, key: str, convention: str = "rlvr") -> Any:
    """The value of one feature key for the molecule as written."""
    return _report(smiles, [key], convention).values[key]


def oxidation_numbers_x2(mol: Chem.Mol) -> list[int]:
    """Twice the oxidation number of every atom of ``mol`` as the features use them, rounded.

    The numbers are RDKit's on the Kekulé structure of the molecule's canonical atom order,
    averaged over symmetry-equivalent atoms (:mod:`~rlvr.chem.molecules.oxidation`), so they do
    not depend on how ``mol`` was written; doubled for callers that print half-integers (an
    average over three or more equivalent atoms can be a third: rounded to the nearest half).
    """
    work = Chem.Mol(mol)
    canonical = Chem.MolFromSmiles(Chem.MolToSmiles(work))
    order = list(work.GetPropsAsDict(True, True)["_smilesAtomOutputOrder"])
    if canonical is None or canonical.GetNumAtoms() != work.GetNumAtoms():
        return [round(2 * n) for n in symmetric_oxidation_numbers(work)]
    numbers = symmetric_oxidation_numbers(canonical)
    out = [0] * work.GetNumAtoms()
    for canonical_idx, original_idx in enumerate(order):
        out[original_idx] = round(2 * numbers[canonical_idx])
    return out


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
    pos = atom_positions(mol)
    by_pos = {p: i for i, p in enumerate(pos) if p >= 0}
    if not all(p in by_pos and mol.GetAtomWithIdx(by_pos[p]).GetAtomicNum() == 6 for p in given):
        return False
    atoms = [by_pos[p] for p in given]
    adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in mol.GetAtoms()]
    found = feature_graph.longest_simple_path(adj, atoms)
    return found.n_vertices == len(atoms)


def molecule_features_for(smiles: str, keys: Iterable[str]) -> dict[str, Any]:
    """:func:`molecule_features` of ``keys`` (rlvr convention), computing only the solver groups they
    need (:func:`~rlvr.chem.molecules.solvers.compute_values`), not every feature of the molecule.

    For a molecule seen once (a generated one), this is what a verdict on a few constraints costs.
    """
    if not isinstance(smiles, str):
        raise FeatureError(f"SMILES must be a string, got {type(smiles).__name__}")
    wanted = list(keys)
    for k in wanted:
        spec_for_key(k)  # KeyError naming close matches
    source_smiles, mapping, rec = source_record(smiles, lambda s: compute_values(Chem.Mol(parsed(s)), wanted))
    return as_written(add_lazy_values(rec.values, wanted, source_smiles), wanted, mapping)


def canonical_feature_values(smiles: str) -> dict[str, Any]:
    """Presentation-independent values (counts, formula, SMILES values) of a molecule, index keys omitted."""
    values = molecule_features(smiles)
    return {k: v for k, v in values.items() if k not in INDEX_KEYS}


def cache_info() -> dict[str, Any]:
    """Hit/miss statistics of the feature caches (:mod:`~rlvr.chem.molecules.feature_tiers`)."""
    return feature_tiers.cache_info()


def clear_caches() -> None:
    """Empty the feature caches (benchmarks, tests)."""
    feature_tiers.clear_caches()
    moleculariq.clear_caches()


__all__ = [
    "CATEGORIES", "FEATURES", "MAX_HEAVY_ATOMS", "FeatureError", "FeatureReport", "FeatureSpec", "cache_info",
    "canonical_feature_values", "clear_caches", "feature_keys", "feature_value", "index_answer_correct",
    "is_feature_key", "molecule_features", "molecule_features_for", "molecule_features_with_status", "oxidation_numbers_x2", "spec_for_key",
]
