"""Loading MolecularIQ question files (the paper's appendix A.3 examples) and verifying answers to them."""
from __future__ import annotations

import json

import pytest

import rlvr
from rlvr.chem.molecules.features import molecule_features
from rlvr.generators.molecules.questions import load_questions, row_to_task

#: the family each MolecularIQ task type is filed under (what the molecular family module passes)
FAMILIES = {"count": "mol.count", "index": "mol.index", "gen": "mol.gen"}

# appendix A.3 examples in the benchmark's dataset schema (target/constraints/metadata as JSON strings);
# targets hand-checked (carbon count, formula, hetero atoms, aliphatic ring atoms) or absent features
PAPER_ROWS = [
    {"uid": "single_count", "task_type": "count",
     "question": "How many carbon atoms are in C1(CC)N(N=C1C(CC)CCC)C? Return the numerical answer as a JSON object "
                 "with the field `carbon_atom_count`.",
     "target": json.dumps({"carbon_atom_count": 11}), "constraints": None, "original_smiles": "CCCC(CC)C1=NN(C)C1CC",
     "complexity_bin": "0-250", "multi_task_load": 1,
     "metadata": json.dumps({"smiles": "C1(CC)N(N=C1C(CC)CCC)C", "is_randomized": True, "is_kekulized": False})},
    # the printed SMILES of this example does not parse in RDKit (a five-atom 'benzene'); the target is still verifiable
    {"uid": "single_index", "task_type": "index",
     "question": "Which atoms in c1(CN2c3cc(F)ccc3C(N)C2=O)cccc1 are part of saturated rings? Please provide your answer "
                 "using `saturated_ring_index` for the list of atom indices.",
     "target": json.dumps({"saturated_ring_index": []}), "multi_task_load": 1,
     "metadata": json.dumps({"smiles": "c1(CN2c3cc(F)ccc3C(N)C2=O)cccc1"})},
    {"uid": "single_gen", "task_type": "generation",
     "question": "Recommend a molecule that fulfills exactly 13 hydrogen bond acceptors. Return the result as a JSON "
                 "object using the key 'smiles'.",
     "constraints": json.dumps([{"type": "hba_count", "operator": "=", "value": 13}]), "multi_task_load": 1},
    {"uid": "multi_count", "task_type": "count",
     "question": "How many unspecified E/Z (stereochemistry) double bonds are in C(C(c1ccc(cc1Cl)F)O)c1ccsc1, what is its "
                 "molecular formula, and how many atoms make up the longest continuous carbon chain? Return the answers "
                 "as a JSON object using the keys `stereochemistry_unspecified_double_bond_count`, "
                 "`molecular_formula_count`, and `longest_carbon_chain_count`.",
     "target": json.dumps({"stereochemistry_unspecified_double_bond_count": 0, "molecular_formula_count": "C12H10ClFOS",
                           "longest_carbon_chain_count": 11}),
     "multi_task_load": 3, "metadata": json.dumps({"smiles": "C(C(c1ccc(cc1Cl)F)O)c1ccsc1"})},
    {"uid": "multi_index", "task_type": "index",
     "question": "Which atom indices in N#CC1CNCCN1CC1CCOCO1 are: hydrogen bond acceptors, heteroatoms, atoms in "
                 "aliphatic rings, branch points, atoms in Z-double bonds? ...",
     "target": json.dumps({"hetero_atom_index": [0, 4, 7, 12, 14],
                           "aliphatic_ring_index": [2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14],
                           "e_z_stereochemistry_double_bond_z_index": []}),
     "multi_task_load": 3, "metadata": json.dumps({"smiles": "N#CC1CNCCN1CC1CCOCO1"})},
    {"uid": "multi_gen", "task_type": "generation",
     "question": "Build a molecule containing exactly 5 S-stereocenters and exactly 5 saturated rings. Respond with a "
                 "JSON mapping whose key is 'smiles'.",
     "constraints": json.dumps([{"type": "r_s_stereocenter_s_count", "operator": "=", "value": 5},
                                {"type": "saturated_ring_count", "operator": "=", "value": 5}]), "multi_task_load": 2},
]


def test_paper_examples_load_and_verify(tmp_path):
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in PAPER_ROWS) + "\n")
    tasks, report = load_questions(path, families=FAMILIES)
    assert report.n_rows == 6 and report.n_tasks == 6 and not report.skipped
    by_uid = {t.meta["uid"]: t for t in tasks}
    assert [by_uid[u].family for u in ("single_count", "single_index", "single_gen")] == ["mol.count", "mol.index", "mol.gen"]
    assert by_uid["single_count"].user_text == PAPER_ROWS[0]["question"]
    assert by_uid["single_count"].meta["smiles"] == "C1(CC)N(N=C1C(CC)CCC)C"
    assert by_uid["single_count"].meta["presentation"] == {"randomized": True, "kekulized": False}

    def ok(uid, answer):
        return rlvr.verify(by_uid[uid], "<answer>" + json.dumps(answer) + "</answer>")

    assert ok("single_count", {"carbon_atom_count": 11}).correct
    assert not ok("single_count", {"carbon_atom_count": 10}).correct
    assert ok("single_index", {"saturated_ring_index": []}).correct
    assert ok("multi_count", {"stereochemistry_unspecified_double_bond_count": 0, "molecular_formula_count": "C12H10ClFOS",
                              "longest_carbon_chain_count": 11}).correct
    assert ok("multi_index", {"hetero_atom_index": [14, 12, 7, 4, 0],
                              "aliphatic_ring_index": [2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14],
                              "e_z_stereochemistry_double_bond_z_index": []}).correct
    assert ok("multi_index", {"hetero_atom_index": [0, 4, 7, 12, 14], "aliphatic_ring_index": [2, 3, 4, 5, 6, 7]}
              ).reason == "missing_key"
    polyol = "OCC(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)CO"  # 13 hydroxyl acceptors
    assert ok("single_gen", {"smiles": polyol}).correct
    assert ok("single_gen", {"smiles": "OCCO"}).reason == "constraint_failed"
    # five fused cyclohexanes carrying five (S) centres would be needed; a single ring fails both constraints
    v = ok("multi_gen", {"smiles": "C1CCCCC1"})
    assert v.reason == "constraint_failed" and set(v.metrics["wrong_keys"]) == {"r_s_stereocenter_s_count",
                                                                               "saturated_ring_count"}


def test_our_feature_solver_agrees_with_the_hand_checked_examples():
    for row in PAPER_ROWS:
        smiles = json.loads(row.get("metadata") or "{}").get("smiles")
        target = json.loads(row["target"]) if row.get("target") else None
        if smiles and target and row["uid"] != "single_index":
            assert molecule_features(smiles, list(target)) == target


def test_formats_and_column_variants(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"id": "a", "prompt": "Count rings in C1CCCCC1 as `ring_count`.", "answer": {"ring_count": 1}},
            {"question_id": "b", "text": "Indices of ring atoms in C1CC1 as `ring_index`.", "label": '{"ring_index": [0, 1, 2]}'},
            {"uid": "c", "question": "Make a molecule with 2 rings.", "constraint": {"property": "ring_count", "operator": ">=",
                                                                                  "min_value": 2}}]
    (tmp_path / "q.json").write_text(json.dumps({"data": rows}))
    tasks, report = load_questions(tmp_path / "q.json", families=FAMILIES)
    assert [t.family for t in tasks] == ["mol.count", "mol.index", "mol.gen"] and report.n_tasks == 3
    assert tasks[2].ground_truth == {"constraints": [{"key": "ring_count", "op": ">=", "value": 2}]}
    pq.write_table(pa.table({"uid": ["a", "c"], "question": [rows[0]["prompt"], rows[2]["question"]],
                             "answer": [json.dumps(rows[0]["answer"]), None],
                             "constraints": [None, json.dumps(rows[2]["constraint"])]}), tmp_path / "q.parquet")
    ptasks, _ = load_questions(tmp_path / "q.parquet", families=FAMILIES)
    assert [t.family for t in ptasks] == ["mol.count", "mol.gen"]
    (tmp_path / "q.csv").write_text('uid,question,target\nz,"Count rings in C1CC1, key `ring_count`","{""ring_count"": 1}"\n')
    ctasks, _ = load_questions(tmp_path / "q.csv", families=FAMILIES)
    assert ctasks[0].ground_truth == {"ring_count": 1}
    assert rlvr.verify(ctasks[0], '<answer>{"ring_count": 1}</answer>').correct
    import datasets

    dsd = datasets.DatasetDict({"test": datasets.Dataset.from_list([{"question": "q", "target": '{"ring_count": 0}',
                                                                     "task_type": "count"}])})
    dtasks, _ = load_questions(dsd, families=FAMILIES)
    assert dtasks[0].ground_truth == {"ring_count": 0}


def test_bad_rows_are_skipped_and_counted():
    rows = [
        {"question": "", "target": {"ring_count": 1}},
        {"question": "q"},
        {"question": "q", "target": "{not json"},
        {"question": "q", "task_type": "generation", "constraints": [{"type": "purchasable", "operator": "=", "value": 1}]},
        {"question": "q", "task_type": "generation", "constraints": [{"operator": "="}]},
        "not a record",
        {"question": "q", "target": {"ring_count": 1}},
    ]
    tasks, report = load_questions(rows, families=FAMILIES)
    assert len(tasks) == 1 and report.n_rows == 7
    assert report.skipped == {"no_question": 1, "no_target": 1, "bad_json": 1, "unsupported_constraint": 1,
                              "bad_constraint": 1, "not_a_record": 1}


def test_row_to_task_without_system_prompt():
    task = row_to_task({"question": "q", "target": {"hba_index": [1]}}, 0, families=FAMILIES, system_prompt=None)
    assert task.prompt == [{"role": "user", "content": "q"}] and task.family == "mol.index"
    with pytest.raises(ValueError, match="no_target"):
        row_to_task({"question": "q", "target": {}}, 0, families=FAMILIES)


def test_generation_is_scored_with_the_benchmarks_key_meaning():
    rows = [
        {"uid": "fg", "task_type": "generation", "question": "Give a molecule with one ester group and one thioether.",
         "constraints": json.dumps([{"type": "functional_group_ester_nbrInstances", "operator": "=", "value": 1},
                                    {"type": "functional_group_thioether_nbrInstances", "operator": "=", "value": 1}])},
        {"uid": "atoms", "task_type": "generation", "question": "Give a molecule with four ketone atoms.",
         "constraints": json.dumps([{"type": "functional_group_ketone_count", "operator": "=", "value": 4}])},
        {"uid": "oxime", "task_type": "generation", "question": "Give a molecule with one oxime group.",
         "constraints": json.dumps([{"type": "functional_group_oxime_nbrInstances", "operator": "=", "value": 1}])},
    ]
    tasks, report = load_questions(rows, families=FAMILIES)
    assert report.n_tasks == 3 and all(t.meta["convention"] == "moleculariq" for t in tasks)
    by_uid = {t.meta["uid"]: t for t in tasks}

    def ok(uid, smiles):
        return rlvr.verify(by_uid[uid], "<answer>" + json.dumps({"smiles": smiles}) + "</answer>").correct

    assert ok("fg", "CSCC(=O)OC") and not ok("fg", "COC(=O)CCOC")
    assert ok("atoms", "CC(=O)C") and not ok("atoms", "CCC(=O)CCC(=O)C")  # ketone "count" = atoms in the matches
    # graded as the benchmark grades: its oxime pattern (N=C-OH) misses acetone oxime and matches an imidic acid
    assert not ok("oxime", "CC(C)=NO") and ok("oxime", "CC(O)=N")
    # rlvr's convention reads _nbrInstances as its instance _count and has no thioether key
    plain, report = load_questions(rows, families=FAMILIES, convention="rlvr")
    assert report.skipped == {"unsupported_constraint": 1} and plain[0].ground_truth["constraints"][0]["key"] == \
        "functional_group_ketone_count"


def test_read_task_file_imports_question_files(tmp_path):
    from rlvr.registry import read_task_file

    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in PAPER_ROWS) + "\n")
    tasks = read_task_file(str(path))
    assert len(tasks) == 6 and {t.family for t in tasks} == {"mol.count", "mol.index", "mol.gen"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"not": "a task"}\n')
    with pytest.raises(Exception):
        read_task_file(str(bad))
