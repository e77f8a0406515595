"""MolecularIQ feature solvers: hand-checked molecules, invariance, consistency, bounds, API, CLI."""
from __future__ import annotations

import json
import random
import time

import pytest
from rdkit import Chem, RDConfig
from rdkit.Chem import BRICS, Descriptors, rdMolDescriptors

import rlvr
from rlvr.cli import main as cli_main
from rlvr.chem.molecules.features import (
    CATEGORIES,
    FEATURES,
    FeatureError,
    clear_caches,
    feature_keys,
    feature_value,
    index_answer_correct,
    molecule_features,
    molecule_features_with_status,
    spec_for_key,
)

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
C60 = (
    "C12=C3C4=C5C6=C1C7=C8C9=C1C%10=C%11C(=C29)C3=C2C3=C4C4=C5C5=C9C6=C7C6=C7C8=C1C1=C8C%10=C%10C%11=C2C2=C3C3="
    "C4C4=C5C5=C%11C%12=C(C6=C95)C7=C1C1=C%12C5=C%11C4=C3C3=C5C(=C81)C%10=C23"
)


def _nci(n: int) -> list[str]:
    out = []
    with open(RDConfig.RDDataDir + "/NCI/first_5K.smi") as fh:
        for line in fh:
            smi = line.split()[0]
            if Chem.MolFromSmiles(smi) is not None:
                out.append(smi)
            if len(out) >= n:
                break
    return out


# ---------------------------------------------------------------------------------------
# hand-checked molecules


def test_aspirin_by_hand():
    v = molecule_features(ASPIRIN)
    # C0 C1 O2 O3 c4 c5 c6 c7 c8 c9 C10 O11 O12
    expected = {
        "carbon_atom_count": 9, "carbon_atom_index": [0, 1, 4, 5, 6, 7, 8, 9, 10],
        "hetero_atom_count": 4, "hetero_atom_index": [2, 3, 11, 12],
        "halogen_atom_count": 0, "heavy_atom_count": 13, "hydrogen_atom_count": 8,
        "molecular_formula_count": "C9H8O4",
        "ring_count": 1, "ring_index": [4, 5, 6, 7, 8, 9],
        "aromatic_ring_count": 1, "aliphatic_ring_count": 0, "saturated_ring_count": 0, "heterocycle_count": 0,
        "fused_ring_count": 0, "bridgehead_count": 0, "spiro_count": 0,
        "smallest_largest_ring_size_smallest_count": 6, "smallest_largest_ring_size_largest_count": 6,
        "chain_termini_index": [0], "branch_point_index": [1, 4, 9, 10],
        "csp3_carbon_index": [0],
        "longest_carbon_chain_count": 7, "longest_carbon_chain_index": [4, 5, 6, 7, 8, 9, 10],
        "hbd_index": [12], "hba_index": [2, 3, 11],
        "rotatable_bond_count": 2, "rotatable_bond_index": [3, 4, 9, 10],
        "stereocenter_count": 0, "e_z_stereochemistry_double_bond_e_count": 0,
        "oxidation_state_C_max_index": [1, 10], "oxidation_state_C_min_index": [0],
        "oxidation_state_O_max_count": 4,
        "murcko_scaffold_count": 6, "murcko_scaffold_index": [4, 5, 6, 7, 8, 9], "murcko_scaffold_value": "c1ccccc1",
        "brics_decomposition_index": [1, 3, 4, 9, 10],
        "functional_group_ester_count": 1, "functional_group_carboxylic_acid_count": 1,
        "functional_group_ether_count": 0, "functional_group_benzene_ring_count": 1,
    }
    assert {k: v[k] for k in expected} == expected


def test_cyclohexane_by_hand():
    v = molecule_features("C1CCCCC1")
    assert v["carbon_atom_count"] == 6 and v["hydrogen_atom_count"] == 12
    assert v["molecular_formula_count"] == "C6H12"
    assert (v["ring_count"], v["aliphatic_ring_count"], v["saturated_ring_count"], v["aromatic_ring_count"]) == (1, 1, 1, 0)
    assert v["csp3_carbon_count"] == 6 and v["longest_carbon_chain_count"] == 6
    assert v["chain_termini_count"] == 0 and v["branch_point_count"] == 0
    assert v["murcko_scaffold_value"] == "C1CCCCC1"
    assert v["oxidation_state_C_max_count"] == 6  # every carbon is -2


def test_naphthalene_by_hand():
    v = molecule_features("c1ccc2ccccc2c1")  # ring-fusion carbons are atoms 3 and 8
    assert v["molecular_formula_count"] == "C10H8"
    assert (v["ring_count"], v["aromatic_ring_count"], v["fused_ring_count"]) == (2, 2, 1)
    assert v["fused_ring_index"] == list(range(10))
    assert v["bridgehead_count"] == 0  # fused rings share one bond: no bridgeheads
    assert v["branch_point_index"] == [3, 8]
    assert v["longest_carbon_chain_count"] == 10  # around the periphery
    assert v["oxidation_state_C_max_index"] == [3, 8]  # C(0) at the fusion, C(-1) elsewhere
    assert v["oxidation_state_C_min_count"] == 8


def test_norbornane_bridgeheads():
    # C0 C1 C2 C3 C4 C5 C6: closures 1 (C0-C5) and 2 (C2-C6); bridgeheads are C2 and C5
    v = molecule_features("C1CC2CCC1C2")
    assert v["bridgehead_index"] == [2, 5] and v["bridgehead_count"] == 2
    assert v["ring_count"] == 2 and v["fused_ring_count"] == 1
    assert v["smallest_largest_ring_size_smallest_count"] == 5
    assert v["branch_point_index"] == [2, 5]
    assert v["longest_carbon_chain_count"] == 7  # 0-1-2-3-4-5-6 visits every carbon
    assert v["bridgehead_count"] == rdMolDescriptors.CalcNumBridgeheadAtoms(Chem.MolFromSmiles("C1CC2CCC1C2"))


def test_spiro():
    v = molecule_features("C1CCC2(CC1)CCC2")  # spiro[5.3]nonane: C0 C1 C2 C3(spiro) ...
    assert v["spiro_index"] == [3] and v["fused_ring_count"] == 0 and v["ring_count"] == 2


@pytest.mark.parametrize(
    "smiles,r,s,unspecified",
    [
        ("C[C@@H](O)CC", [1], [], []),  # (R)-butan-2-ol, worked out from the @@ neighbour order
        ("C[C@H](O)CC", [], [1], []),
        ("CC(O)CC", [], [], [1]),
        ("N[C@@H](C)C(=O)O", [], [1], []),  # L-alanine is S
    ],
)
def test_r_s_stereocentres(smiles, r, s, unspecified):
    v = molecule_features(smiles)
    assert v["r_s_stereocenter_r_index"] == r
    assert v["r_s_stereocenter_s_index"] == s
    assert v["unspecified_stereocenter_index"] == unspecified
    assert v["stereocenter_index"] == sorted(r + s + unspecified)


def test_paper_r_stereocentre_example():
    # appendix example: the ground truth of `r_s_stereocenter_r_index` is [1, 7, 11, 26, 28]
    smi = "C[C@@H]1CCC=C2C[C@H]3OC(=O)[C@@H](C[NH+]4CCN(C5=NC=CC=N5)CC4)[C@H]3[C@@H](O)[C@@]21C"
    assert feature_value(smi, "r_s_stereocenter_r_index") == [1, 7, 11, 26, 28]


@pytest.mark.parametrize(
    "smiles,e,z,unspecified",
    [
        ("C/C=C/C", [1, 2], [], []),  # trans-2-butene: E
        ("C/C=C\\C", [], [1, 2], []),  # cis: Z
        ("CC=CC", [], [], [1, 2]),
        ("CC=C", [], [], []),  # not stereogenic
    ],
)
def test_e_z_double_bonds(smiles, e, z, unspecified):
    v = molecule_features(smiles)
    assert v["e_z_stereochemistry_double_bond_e_index"] == e
    assert v["e_z_stereochemistry_double_bond_z_index"] == z
    assert v["stereochemistry_unspecified_double_bond_index"] == unspecified
    assert v["e_z_stereochemistry_double_bond_e_count"] == len(e) // 2


def test_explicit_hydrogens_are_not_numbered_but_isotopes_are():
    v = molecule_features("[2H]C([2H])([2H])C[H]")
    assert v["carbon_atom_index"] == [1, 4]  # [2H]=0, C=1, [2H]=2, [2H]=3, C=4, [H] skipped
    assert v["hydrogen_atom_count"] == 6 and v["heavy_atom_count"] == 2
    assert molecule_features("[H]OC([H])([H])C")["carbon_atom_index"] == [1, 2]


def test_heteroaromatic_oxidation_states_do_not_depend_on_kekulisation():
    # RDKit's numbers on one Kekulé structure, averaged over symmetry-equivalent atoms: both alpha carbons
    # of pyridine are +1/2 (a 1.5 bond order gave pyrrole N -4 and furan O -3)
    assert feature_value("c1ccncc1", "oxidation_state_C_max_index") == [2, 4]
    assert feature_value("C1=CC=NC=C1", "oxidation_state_C_max_index") == [2, 4]
    assert feature_value("C1=CN=CC=C1", "oxidation_state_C_max_index") == [1, 3]
    assert feature_value("c1cc[nH]c1", "oxidation_state_N_min_index") == [3]
    assert molecule_features("c1ccoc1", ["oxidation_state_O_max_count"])["oxidation_state_O_max_count"] == 1


# ---------------------------------------------------------------------------------------
# parity with the RDKit descriptors the benchmark uses


def test_counts_match_rdkit_descriptors():
    for smi in _nci(40) + [ASPIRIN, "C1CC2CCC1C2", "C1CCC2(CC1)CCC2"]:
        m = Chem.MolFromSmiles(smi)
        v = molecule_features(smi)
        assert v["ring_count"] == m.GetRingInfo().NumRings(), smi
        assert v["aromatic_ring_count"] == Descriptors.NumAromaticRings(m), smi
        assert v["aliphatic_ring_count"] == Descriptors.NumAliphaticRings(m), smi
        assert v["saturated_ring_count"] == Descriptors.NumSaturatedRings(m), smi
        assert v["heterocycle_count"] == rdMolDescriptors.CalcNumHeterocycles(m), smi
        assert v["bridgehead_count"] == rdMolDescriptors.CalcNumBridgeheadAtoms(m), smi
        assert v["spiro_count"] == rdMolDescriptors.CalcNumSpiroAtoms(m), smi
        assert v["hba_count"] == rdMolDescriptors.CalcNumHBA(m), smi
        assert v["hbd_count"] == rdMolDescriptors.CalcNumHBD(m), smi
        assert v["rotatable_bond_count"] == rdMolDescriptors.CalcNumRotatableBonds(m), smi
        assert v["heavy_atom_count"] == m.GetNumHeavyAtoms(), smi
        assert v["molecular_formula_count"] == rdMolDescriptors.CalcMolFormula(m), smi
        assert v["brics_decomposition_count"] == len(BRICS.BRICSDecompose(m)), smi


# ---------------------------------------------------------------------------------------
# invariance across presentations


def _presentations(smi: str, rng: random.Random) -> list[tuple[str, list[int]]]:
    """(SMILES, position -> atom of the reference parse) for randomised and kekulised writings."""
    m = Chem.MolFromSmiles(smi)
    out = []
    for _ in range(2):
        perm = list(range(m.GetNumAtoms()))
        rng.shuffle(perm)
        mr = Chem.RenumberAtoms(m, perm)
        text = Chem.MolToSmiles(mr, canonical=False)
        order = mr.GetPropsAsDict(True, True)["_smilesAtomOutputOrder"]
        out.append((text, [perm[i] for i in order]))
    mk = Chem.Mol(m)
    Chem.Kekulize(mk, clearAromaticFlags=True)
    text = Chem.MolToSmiles(mk, kekuleSmiles=True, canonical=False, doRandom=False)
    out.append((text, list(mk.GetPropsAsDict(True, True)["_smilesAtomOutputOrder"])))
    out.append((Chem.MolToSmiles(m), list(m.GetPropsAsDict(True, True)["_smilesAtomOutputOrder"])))
    return out


INVARIANCE_SET = _nci(25) + [
    ASPIRIN, "C1CC2CCC1C2", "c1ccc2ccccc2c1", "C/C=C/C(=O)O", "C[C@@H](N)C(=O)O", "OCC1OC(O)C(O)C(O)C1O",
    "c1ccncc1", "Cc1ccncc1", "O=C1CCCCO1", "CC(C)Cc1ccc(C(C)C(=O)O)cc1",
]


@pytest.mark.parametrize("smi", INVARIANCE_SET)
def test_same_counts_and_mapped_indices_across_presentations(smi):
    rng = random.Random(f"invariance:{smi}")
    ref = molecule_features(smi)
    index_keys = set(feature_keys("index"))
    for text, order in _presentations(smi, rng):
        got = molecule_features(text)
        assert got.keys() == ref.keys()
        for key, val in got.items():
            if key in index_keys:
                mapped = sorted(order[i] for i in val)
                if key == "longest_carbon_chain_index":
                    # several chains may be longest; the chosen one must be a valid longest chain
                    assert len(mapped) == len(ref[key])
                    assert index_answer_correct(smi, key, mapped), (text, key)
                else:
                    assert mapped == ref[key], (text, key)
            else:
                assert val == ref[key], (text, key)


# ---------------------------------------------------------------------------------------
# consistency


def test_consistency_over_nci_molecules():
    for smi in _nci(60):
        v = molecule_features(smi)
        for spec in FEATURES.values():
            if spec.count_unit == "atoms" and spec.count_key and spec.index_key:
                assert v[spec.count_key] == len(v[spec.index_key]), (smi, spec.name)
            if spec.index_key:
                idx = v[spec.index_key]
                assert idx == sorted(set(idx)) and all(0 <= i < v["heavy_atom_count"] for i in idx)
        assert v["aromatic_ring_count"] + v["aliphatic_ring_count"] == v["ring_count"]
        assert v["stereocenter_count"] == (
            v["r_s_stereocenter_r_count"] + v["r_s_stereocenter_s_count"] + v["unspecified_stereocenter_count"])
        assert v["carbon_atom_count"] + v["hetero_atom_count"] == v["heavy_atom_count"]
        assert v["saturated_ring_count"] <= v["aliphatic_ring_count"]
        assert set(v["bridgehead_index"]) <= set(v["ring_index"])
        assert set(v["murcko_scaffold_index"]) >= set(v["ring_index"])
        for key in ("e_z_stereochemistry_double_bond_e", "e_z_stereochemistry_double_bond_z",
                    "stereochemistry_unspecified_double_bond"):
            assert len(v[f"{key}_index"]) == 2 * v[f"{key}_count"]


# ---------------------------------------------------------------------------------------
# bounded solvers


@pytest.mark.parametrize(
    "smiles,chain",
    [
        (C60, 60),  # C60 has a Hamiltonian path
        ("C" * 200, 200),
        ("C12C3C4C1C5C2C3C45", 8),  # cubane
        ("C1C2CC3CC1CC(C2)C3", 9),  # adamantane: bipartite 4 + 6, so at most 2*4+1
        ("C1" + "C" * 98 + "C1", 100),
        ("CC1CCC2C(C1)CCC1C2CCC2(C)C(O)CCC12", 18),
    ],
)
def test_pathological_molecules_are_fast_and_exact(smiles, chain):
    clear_caches()
    start = time.perf_counter()
    report = molecule_features_with_status(smiles)
    assert time.perf_counter() - start < 1.0
    assert report.values["longest_carbon_chain_count"] == chain
    assert "longest_carbon_chain" not in report.bounded


def test_bounded_work_is_reported():
    # a sugar peracetate makes BRICSDecompose explore thousands of intermediates
    smi = ("CC(=O)OC[CH]1O[CH](O[CH]([CH](COC(C)=O)OC(C)=O)[CH](OC(C)=O)[CH](COC(C)=O)OC(C)=O)"
           "[CH](OC(C)=O)[CH](OC(C)=O)[CH]1OC(C)=O")
    clear_caches()
    start = time.perf_counter()
    report = molecule_features_with_status(smi)
    assert time.perf_counter() - start < 1.0
    assert report.bounded == {"brics_decomposition": "brics_budget_exhausted"}
    assert not report.exact and report.values["brics_decomposition_count"] >= 1
    assert molecule_features_with_status(ASPIRIN).exact


# ---------------------------------------------------------------------------------------
# API


def test_feature_table_and_keys():
    assert {s.category for s in FEATURES.values()} == set(CATEGORIES)
    keys = feature_keys()
    assert len(keys) == len(set(keys))
    assert set(feature_keys("count")) | set(feature_keys("index")) == set(keys)
    for key in ("carbon_atom_count", "ring_count", "hba_index", "r_s_stereocenter_r_count",
                "e_z_stereochemistry_double_bond_z_index", "molecular_formula_count",
                "stereochemistry_unspecified_double_bond_count", "longest_carbon_chain_count",
                "saturated_ring_index", "hetero_atom_index", "aliphatic_ring_index", "branch_point_index",
                "bridgehead_index", "functional_group_alcohol_count", "brics_decomposition_count",
                "murcko_scaffold_value", "oxidation_state_C_max_count"):
        assert key in keys
        assert key in (spec_for_key(key).count_key, spec_for_key(key).index_key)
    assert "hydrogen_atom_index" not in keys and "molecular_formula_index" not in keys
    assert spec_for_key("molecular_formula_count").value_type == "str"
    with pytest.raises(KeyError, match="did you mean"):
        spec_for_key("carbon_atom_cont")
    with pytest.raises(ValueError):
        feature_keys("indices")


def test_every_key_is_computed():
    v = molecule_features(ASPIRIN)
    assert list(v) == feature_keys()
    for key, val in v.items():
        spec = spec_for_key(key)
        if key == spec.index_key or spec.value_type == "smiles_list":
            assert isinstance(val, list) and all(isinstance(x, (int, str)) for x in val)
        elif spec.value_type == "int":
            assert isinstance(val, int) and not isinstance(val, bool)
        else:
            assert isinstance(val, str)


def test_subset_and_single_key_agree_with_full_result():
    full = molecule_features("CCN(CC)C(=O)c1ccccc1Cl")
    sub = molecule_features("CCN(CC)C(=O)c1ccccc1Cl", ["ring_index", "functional_group_amide_count"])
    assert sub == {"ring_index": full["ring_index"], "functional_group_amide_count": full["functional_group_amide_count"]}
    assert feature_value("CCN(CC)C(=O)c1ccccc1Cl", "halogen_atom_index") == full["halogen_atom_index"] == [13]
    assert rlvr.molecule_features(ASPIRIN)["carbon_atom_count"] == 9


def test_results_are_copies():
    v = molecule_features(ASPIRIN)
    v["ring_index"].append(99)
    v["carbon_atom_count"] = -1
    assert molecule_features(ASPIRIN)["ring_index"] == [4, 5, 6, 7, 8, 9]


@pytest.mark.parametrize("bad", ["", "C1CC", "xyz", "C(", "[Xx]", "*CC", 42, None])
def test_invalid_input(bad):
    with pytest.raises(FeatureError):
        molecule_features(bad)  # type: ignore[arg-type]


def test_unknown_key_raises():
    with pytest.raises(KeyError):
        molecule_features(ASPIRIN, ["carbon_count"])


def test_index_answer_correct_accepts_any_longest_chain():
    smi = "CC(C)CC"  # chains 0-1-3-4 and 2-1-3-4 are both longest
    assert index_answer_correct(smi, "longest_carbon_chain_index", [0, 1, 3, 4])
    assert index_answer_correct(smi, "longest_carbon_chain_index", [2, 1, 3, 4])
    assert not index_answer_correct(smi, "longest_carbon_chain_index", [0, 1, 2, 3])
    assert not index_answer_correct(smi, "carbon_atom_index", [0, 1, 2])


# ---------------------------------------------------------------------------------------
# CLI


def test_cli_lists_features(capsys):
    assert cli_main(["features"]) == 0
    out = capsys.readouterr().out
    assert "carbon_atom_count" in out and "e_z_stereochemistry_double_bond_z_index" in out
    assert cli_main(["features", "--json", "--category", "composition"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} >= {"carbon_atom", "hydrogen_atom", "molecular_formula"}
    assert all(r["category"] == "composition" for r in rows)


def test_cli_computes_values(capsys):
    assert cli_main(["features", "--smiles", ASPIRIN, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["values"]["carbon_atom_count"] == 9 and data["values"]["molecular_formula_count"] == "C9H8O4"
    assert cli_main(["features", "--smiles", ASPIRIN, "--key", "hba_index"]) == 0
    assert capsys.readouterr().out.split() == ["hba_index", "[2,", "3,", "11]"]
    assert cli_main(["features", "--smiles", "not a smiles"]) == 2
