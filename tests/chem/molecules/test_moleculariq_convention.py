"""The ``moleculariq`` feature convention: hand-checked benchmark semantics, and (when the benchmark's
own solver is installed) agreement with it on every key the convention reproduces."""
from __future__ import annotations

import random

import pytest
from rdkit import Chem

from rlvr.chem.molecules import moleculariq as M
from rlvr.chem.molecules.moleculariq_data import functional_group_smarts, template_smirks

FG = "functional_group_"


def _v(smiles: str, *keys: str, chain: int | None = None) -> dict:
    return M.moleculariq_values(smiles, list(keys), chain)


def test_data_tables_have_the_benchmark_sizes():
    assert len(functional_group_smarts()) == 135 and len(template_smirks()) == 58
    assert all(Chem.MolFromSmarts(s) is not None for s in functional_group_smarts().values())


def test_index_is_the_whole_match_and_count_is_atoms():
    v = _v("CC(=O)C", f"{FG}ketone_index", f"{FG}ketone_count", f"{FG}ketone_nbrInstances")
    assert v == {f"{FG}ketone_index": [0, 1, 2, 3], f"{FG}ketone_count": 4, f"{FG}ketone_nbrInstances": 1}


@pytest.mark.parametrize("smiles, group, instances", [
    ("Cc1ccccc1", "benzyl", 1),              # the benchmark's benzyl includes a methyl on the ring
    ("COc1ccccc1", "ether", 0),              # ... and its ether is dialkyl only
    ("CCOCC", "ether", 1),
    ("Cn1cccc1", "pyrrole", 0),              # ... and its pyrrole needs an N-H
    ("NC(=O)N", "amide", 2),                 # ... and a urea is two amides
    ("CSC", "thioether", 1),                 # a group rlvr itself does not define
    ("CC(C)=NO", "oxime", 0),                # the benchmark's pattern (N=C-OH) misses acetone oxime
    ("COP(=O)(OC)OC", "phosphonate", 6),     # trimethyl phosphate is six of its phosphonates
    ("COP(=O)(OC)OC", "phosphate", 1),
    ("CP(=O)(OC)OC", "phosphonate", 2),      # a phosphonate diester twice
    ("C[N+](C)(C)[O-]", "quaternary_ammonium", 1),   # an amine N-oxide counts
    ("C[N+](C)(C)C", "quaternary_ammonium", 1),
    ("Cc1ccc(S(=O)(=O)Cl)cc1", "sulfone", 1),        # tosyl chloride counts
    ("CS(C)(=O)=O", "sulfone", 1),
    ("O=C1CCCN1c1ccccc1", "lactam", 2),      # once per ring neighbour of the N
    ("O=C1CCC(=O)N1c1ccccc1", "lactam", 4),
])
def test_group_instances(smiles, group, instances):
    assert _v(smiles, f"{FG}{group}_nbrInstances")[f"{FG}{group}_nbrInstances"] == instances


def test_rlvr_only_groups_keep_rlvr_patterns_under_benchmark_key_semantics():
    v = _v("CCNCC", f"{FG}amine_count", f"{FG}amine_index", f"{FG}amine_nbrInstances")
    assert v == {f"{FG}amine_count": 1, f"{FG}amine_index": [2], f"{FG}amine_nbrInstances": 1}


def test_templates_are_the_benchmarks():
    key = "template_based_reaction_prediction_oxime_formation"
    v = _v("CC(=O)OC", f"{key}_count", f"{key}_success")   # its pattern matches any C(=O)-C, esters included
    assert v == {f"{key}_count": 1, f"{key}_success": 1}
    assert _v("CCCC", f"{key}_success", f"{key}_products") == {f"{key}_success": 0, f"{key}_products": []}


def test_oxidation_and_chain_follow_the_smiles_as_written():
    key = "oxidation_state_C_max_index"
    assert _v("c1ccncc1", key)[key] == [2] and _v("n1ccccc1", key)[key] == [1]
    assert _v("CC(C)C", "longest_carbon_chain_index", chain=3)["longest_carbon_chain_index"] == [0, 1, 2]
    assert _v("CC(C)C", "longest_carbon_chain_index") == {}  # needs the chain length


def test_owned_and_extra_keys():
    assert M.owns(f"{FG}ketone_index") and M.owns(f"{FG}thioether_nbrInstances") and not M.owns("ring_count")
    extra = M.extra_keys()
    assert f"{FG}ketone_nbrInstances" in extra and f"{FG}thioether_count" in extra and "ring_count" not in extra
    with pytest.raises(ValueError, match="unknown feature convention"):
        M.check_convention("chemiq")


# --------------------------------------------------------------------------- against the benchmark's own solver


def test_agreement_with_the_benchmark_solver():
    pytest.importorskip("moleculariq_core")
    from moleculariq_core.solver import SymbolicSolver

    from rlvr.generators.molecules.pools import default_pool_rows

    solver = SymbolicSolver()
    rows = [r for r in default_pool_rows() if isinstance(r, str) and Chem.MolFromSmiles(r) is not None]
    sample = random.Random(3).sample(rows, 60)
    for smiles in sample:
        bench = solver.functional_group_solver.get_counts_and_indices(smiles)
        keys = list(bench)
        ours = M.moleculariq_values(smiles, keys)
        for k in keys:
            assert ours[k] == bench[k], (smiles, k)
        rx = solver.reaction_solver.get_reaction_data(smiles)
        tkeys = [k for k in rx if not k.endswith("_products")]
        ours = M.moleculariq_values(smiles, tkeys)
        for k in tkeys:
            assert ours[k] == rx[k], (smiles, k)
        for el in ("C", "N", "O", "P", "S"):
            for mm in ("max", "min"):
                key = f"oxidation_state_{el}_{mm}_index"
                assert ours_ox(smiles, key) == solver.get_oxidation_state_indices(smiles, el, mm == "max"), (smiles, key)


def ours_ox(smiles: str, key: str) -> list[int]:
    return M.moleculariq_values(smiles, [key])[key]
