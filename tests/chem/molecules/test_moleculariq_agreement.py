"""``convention="moleculariq"`` gives the MolecularIQ benchmark's answer key, quirks included.

The quirk tests pin both conventions on constructed molecules and need nothing but RDKit; the
sample test compares every count and index key with the benchmark's own solver
(``moleculariq_core``, development only) and skips when that package is absent.
"""
from __future__ import annotations

import random

import pytest
from rdkit import Chem

from rlvr.chem.molecules.features import feature_keys, molecule_features, molecule_features_with_status
from rlvr.chem.molecules.moleculariq import QUIRKS, extra_keys, owns
from rlvr.generators.molecules.pools import default_pool_rows, filter_rows

FG = "functional_group_"
TPL = "template_based_reaction_prediction_"
#: pool molecules compared with the benchmark's solver, every key each (every other one written as a random SMILES)
SAMPLE_SIZE = 300
SEED = 35


def _both(smiles: str, key: str) -> tuple:
    return molecule_features(smiles, [key])[key], molecule_features(smiles, [key], convention="moleculariq")[key]


# --------------------------------------------------------------------------- quirks, on constructed molecules


@pytest.mark.parametrize("smiles, rlvr_index, bench_index", [
    ("Cn1cccc1", [], [1]),           # N-methylpyrrole: the benchmark's index lists the pyrrole-type N
    ("Cn1ccc2ccccc21", [], [1]),     # N-methylindole, likewise
    ("c1ccncc1", [3], [3]),          # pyridine N: an acceptor in both
])
def test_hba_index_lists_pyrrole_type_nitrogen_only_under_moleculariq(smiles, rlvr_index, bench_index):
    assert _both(smiles, "hba_index") == (rlvr_index, bench_index)
    assert _both(smiles, "hba_count") == (len(rlvr_index), len(rlvr_index))  # CalcNumHBA in both


def test_aromatic_ring_index_takes_rings_of_aromatic_atoms_under_moleculariq():
    smiles = "O=c1ccc2nc3ccccc3oc-2c1"  # phenoxazin-3-one: only the benzo ring has all bonds aromatic
    assert _both(smiles, "aromatic_ring_count") == (1, 1)
    rlvr, bench = _both(smiles, "aromatic_ring_index")
    assert rlvr == [6, 7, 8, 9, 10, 11]
    assert bench == list(range(1, 15))


def test_spiro_index_needs_an_atom_in_exactly_two_rings_under_moleculariq():
    smiles = "C1CC2CCC1C21CC1"  # spiro[cyclopropane-1,7'-norbornane]: C7 is in three rings
    assert _both(smiles, "spiro_count") == (1, 1)
    assert _both(smiles, "spiro_index") == ([6], [])
    assert _both("C1CCC2(CC1)CCCC2", "spiro_index") == ([3], [3])  # spiro[4.5]decane: both agree


@pytest.mark.parametrize("smiles, group, rlvr_count, bench_instances", [
    ("CC(C)=NO", "oxime", 1, 0),                       # the benchmark's oxime pattern is N=C-OH
    ("C[N+](C)(C)[O-]", "quaternary_ammonium", 0, 1),  # an amine N-oxide
    ("Cc1ccc(S(=O)(=O)Cl)cc1", "sulfone", 0, 1),       # tosyl chloride
    ("O=C1CCCN1c1ccccc1", "lactam", 1, 2),             # once per ring neighbour of the N
])
def test_group_quirks_are_reproduced_under_moleculariq(smiles, group, rlvr_count, bench_instances):
    assert molecule_features(smiles, [f"{FG}{group}_count"])[f"{FG}{group}_count"] == rlvr_count
    key = f"{FG}{group}_nbrInstances"
    assert molecule_features(smiles, [key], convention="moleculariq")[key] == bench_instances


@pytest.mark.parametrize("smiles, bench_instances", [
    ("COP(=O)(OC)OC", 6),     # trimethyl phosphate: no C-P bond, one instance per match
    ("CP(=O)(OC)OC", 2),
])
def test_phosphonate_quirk_is_reproduced(smiles, bench_instances):
    key = f"{FG}phosphonate_nbrInstances"
    assert molecule_features(smiles, [key], convention="moleculariq")[key] == bench_instances


def test_bounded_brics_count_is_enumerated_under_moleculariq():
    smiles = "COCC1OC(OC2(COC)OC(COC)C(OC)C2OC)C(OC)C(OC)C1OC"  # rlvr's BRICS search stops here
    key = "brics_decomposition_count"
    ours = molecule_features_with_status(smiles, [key])
    bench = molecule_features_with_status(smiles, [key], convention="moleculariq")
    assert ours.bounded and not bench.bounded
    assert ours.values[key] < bench.values[key] == 6


def test_every_quirk_is_a_key_the_convention_owns():
    for name in QUIRKS:
        key = name if name.endswith("_index") else f"{FG}{name}_index"
        assert owns(key), key


# --------------------------------------------------------------------------- against the benchmark's own solver


def _sample() -> list[str]:
    kept, _ = filter_rows(default_pool_rows())
    pool = random.Random(SEED).sample([s for s, _ in kept], SAMPLE_SIZE)
    return [Chem.MolToSmiles(Chem.MolFromSmiles(s), doRandom=True, canonical=False) if i % 2 else s
            for i, s in enumerate(pool)]


def test_every_count_and_index_key_agrees_with_the_benchmark_solver():
    pytest.importorskip("moleculariq_core")
    from moleculariq_core.rewards.property_solver_mapping import PROPERTY_TO_SOLVER_MAP
    from moleculariq_core.solver import SymbolicSolver

    solver = SymbolicSolver()
    groups = set(solver.functional_group_solver.names)
    templates = set(solver.reaction_solver.templates)
    suffixes = ("_count", "_index", "_nbrInstances")

    def shared(key: str) -> bool:
        if not key.endswith(suffixes):
            return False
        if key.startswith(FG):
            return key[len(FG):].rsplit("_", 1)[0] in groups
        if key.startswith(TPL):
            return key[len(TPL):].rsplit("_", 1)[0] in templates
        return key in PROPERTY_TO_SOLVER_MAP

    keys = sorted({k for k in list(feature_keys()) + extra_keys() if shared(k)})
    assert len(keys) > 600  # every group and template key, and every other count and index key
    mismatches = []
    for smiles in _sample():
        fg = solver.functional_group_solver.get_counts_and_indices(smiles)
        rx = solver.reaction_solver.get_reaction_data(smiles)
        ours = molecule_features(smiles, keys, convention="moleculariq")
        for k in keys:
            if k.startswith(FG):
                bench = fg.get(k, [] if k.endswith("_index") else 0)
            elif k.startswith(TPL):
                bench = rx[k]
            else:
                method, params = PROPERTY_TO_SOLVER_MAP[k]
                bench = getattr(solver, method)(smiles, **params)
            if k.endswith("_index"):
                bench, mine = sorted(set(bench)), sorted(set(ours[k]))
            else:
                mine = ours[k]
            if mine != bench:
                mismatches.append((smiles, k, mine, bench))
    assert not mismatches, f"{len(mismatches)} disagreements, first: {mismatches[:5]}"
