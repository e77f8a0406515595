"""The strict MolecularIQ count/index verifier: extraction cascade, key canonicalisation, leniency cases."""
from __future__ import annotations

import json

import pytest

import rlvr
from rlvr.checkers.molecules import check, check_value, oracle
from rlvr.checkers.molecules_keys import canonical_key, normalize_key
from rlvr.checkers.molecules_parse import parse_text_answer
from rlvr.task import Task, TaskFormatError


def _task(truth, family="mol.count"):
    return Task(id="t", family=family, prompt=[{"role": "user", "content": "q"}], ground_truth=truth, meta={})


def _ans(obj) -> str:
    return "<answer>" + (obj if isinstance(obj, str) else json.dumps(obj)) + "</answer>"


ASPIRIN = _task({"carbon_atom_count": 9, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4",
                 "heavy_atom_count": 13, "aromatic_ring_count": 1})


def test_correct_answer_and_oracle():
    v = check(ASPIRIN, _ans(ASPIRIN.ground_truth))
    assert v.correct and v.reward == 1.0 and v.reason == "ok"
    assert v.metrics["key_accuracy"] == 1.0 and v.metrics["type_valid"] and v.metrics["wrong_keys"] == []
    assert set(v.metrics["keys"]) == set(ASPIRIN.ground_truth)
    assert check(ASPIRIN, oracle(ASPIRIN)).correct


@pytest.mark.parametrize("answer, reason, wrong", [
    ({"carbon_atom_count": 9, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4", "heavy_atom_count": 13},
     "missing_key", ["aromatic_ring_count"]),
    # an unknown (but real) key never stands in for the asked one
    ({"carbon_atom_count": 9, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4", "heavy_atom_count": 13,
      "ring_count": 1}, "missing_key", ["aromatic_ring_count"]),
    ('{"carbon_atom_count": 9, "carbon_atom_count": 9, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4",'
     ' "heavy_atom_count": 13, "aromatic_ring_count": 1}', "duplicate_key", ["carbon_atom_count"]),
    # two spellings of the same key are a duplicate too
    ({"carbon_atom_count": 9, "number of carbon atoms": 9, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4",
      "heavy_atom_count": 13, "aromatic_ring_count": 1}, "duplicate_key", ["carbon_atom_count"]),
    ({"carbon_atom_count": 9.0, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4", "heavy_atom_count": 13,
      "aromatic_ring_count": 1}, "wrong_type", ["carbon_atom_count"]),
    ({"carbon_atom_count": "9", "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4", "heavy_atom_count": 13,
      "aromatic_ring_count": 1}, "wrong_type", ["carbon_atom_count"]),
    ({"carbon_atom_count": 9, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4", "heavy_atom_count": 13,
      "aromatic_ring_count": True}, "wrong_type", ["aromatic_ring_count"]),
    ({"carbon_atom_count": None, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4", "heavy_atom_count": 13,
      "aromatic_ring_count": 1}, "wrong_type", ["carbon_atom_count"]),
    ({"carbon_atom_count": 9, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O3", "heavy_atom_count": 13,
      "aromatic_ring_count": 1}, "wrong_value", ["molecular_formula_count"]),
])
def test_leniency_cases_are_rejected(answer, reason, wrong):
    v = check(ASPIRIN, _ans(answer))
    assert not v.correct and v.reward == 0.0 and v.reason == reason
    assert v.metrics["wrong_keys"] == wrong
    shaped = check(ASPIRIN, _ans(answer), reward="shaped")
    assert shaped.reward == pytest.approx(4 / 5) and not shaped.correct


def test_two_point_seven_is_not_two():
    t = _task({"ring_count": 2})
    assert check(t, _ans({"ring_count": 2})).correct
    for bad in (2.7, 2.0, "2", [2], {"v": 2}):
        v = check(t, _ans({"ring_count": bad}))
        assert v.reason == "wrong_type" and v.metrics["invalid_type_keys"] == ["ring_count"]
        assert v.metrics["type_valid"] is False


def test_metrics_name_keys_without_leaking_values():
    v = check(ASPIRIN, _ans({"carbon_atom_count": 8, "hydrogen_atom_count": 8, "molecular_formula_count": "C9H8O4",
                             "heavy_atom_count": 13, "aromatic_ring_count": 1, "bogus": 3}))
    assert v.metrics["wrong_keys"] == ["carbon_atom_count"] and v.metrics["unknown_keys"] == ["bogus"]
    assert v.metrics["keys"]["carbon_atom_count"] == {"correct": False, "valid_type": True, "status": "wrong_value"}
    assert "9" not in json.dumps({k: v.metrics[k] for k in ("keys", "wrong_keys", "missing_keys", "unknown_keys")})


def test_formula_compared_as_formula():
    t = _task({"molecular_formula_count": "C9H8O4"})
    assert check(t, _ans({"molecular_formula_count": "C9O4H8"})).correct
    assert not check(t, _ans({"molecular_formula_count": "C9H8O4+"})).correct
    assert not check(t, _ans({"molecular_formula_count": "aspirin"})).correct
    assert check_value("murcko_scaffold_value", "C1=CC=CC=C1", "c1ccccc1") == (True, True, "ok")
    assert check_value("murcko_scaffold_value", "", "") == (True, True, "ok")


def test_index_answers():
    t = _task({"hetero_atom_index": [0, 4, 7, 12, 14], "branch_point_index": []}, "mol.index")
    assert check(t, _ans({"hetero_atom_index": [14, 12, 7, 4, 0], "branch_point_index": []})).correct
    v = check(t, _ans({"hetero_atom_index": [0, 4, 4, 7, 12, 14], "branch_point_index": []}))
    assert v.reason == "wrong_value" and v.metrics["keys"]["hetero_atom_index"]["status"] == "wrong_value"
    for bad in (7, [0, 4, 7, 12, 14.0], [0, 4, 7, 12, True], "0,4,7,12,14", None):
        assert check(t, _ans({"hetero_atom_index": bad, "branch_point_index": []})).reason == "wrong_type"
    assert check(t, _ans({"hetero_atom_index": [0, 4, 7, 12], "branch_point_index": []})).reason == "wrong_value"
    # a count key does not answer an index question
    assert check(t, _ans({"hetero_atom_count": [0, 4, 7, 12, 14], "branch_point_index": []})).reason == "missing_key"


@pytest.mark.parametrize("completion", [
    '<answer>{"carbon_atom_count": 9}</answer>',
    '<think>maybe {"carbon_atom_count": 8}</think>\n<answer>{"carbon_atom_count": 9}</answer>',
    '<answer>{"carbon_atom_count": 8}</answer> wait, corrected: <answer>{"carbon_atom_count": 9}</answer>',
    '<answer>```json\n{"carbon_atom_count": 9}\n```</answer>',
    '<answer>The result is {"carbon_atom_count": 9}.</answer>',
    '<answer>"carbon_atom_count": 9</answer>',  # the paper's own prompt shows answers without braces
    "<answer>carbon_atom_count: 9</answer>",
    "<answer>number of carbon atoms = 9</answer>",
    'No tags, but the final JSON is {"carbon_atom_count": 9}',
    [{"role": "assistant", "content": '<answer>{"carbon_atom_count": 9}</answer>'}],
])
def test_extraction_cascade_accepts(completion):
    assert check(_task({"carbon_atom_count": 9}), completion).correct


@pytest.mark.parametrize("completion, reason", [
    ("", "no_answer"),
    (None, "no_answer"),
    ('<think>{"carbon_atom_count": 9}</think>', "no_answer"),
    ('<think>{"carbon_atom_count": 9} never closed', "no_answer"),
    ("<answer>9</answer>", "unparsable"),
    ("<answer>nine carbons</answer>", "unparsable"),
    ('<answer>{"answer": {"carbon_atom_count": 9}}</answer>', "missing_key"),  # no unwrapping
    ('<answer>{"carbon": {"count": 9}}</answer>', "wrong_type"),
    ("x" * 200_000, "too_long"),
])
def test_extraction_cascade_rejects(completion, reason):
    v = check(_task({"carbon_atom_count": 9}), completion)
    assert not v.correct and v.reason == reason and v.reward == 0.0


@pytest.mark.parametrize("alias, asked", [
    ("carbon_atom_count", ["carbon_atom_count"]),
    ("Carbon Atom Count", ["carbon_atom_count"]),
    ("number of carbon atoms", ["carbon_atom_count"]),
    ("carbon count", ["carbon_atom_count"]),
    ("Number of rings", ["ring_count", "carbon_atom_count"]),
    ("hydrogen bond acceptors", ["hba_count"]),
    ("sp³ carbons", ["csp3_carbon_count"]),
    ("hetero_atom_indices", ["hetero_atom_index"]),
    ("ketone groups", ["functional_group_ketone_count"]),
    ("heteroatoms", ["hetero_atom_index"]),
    ("atoms in aromatic rings", ["aromatic_ring_index"]),
])
def test_aliases_resolve(alias, asked):
    assert canonical_key(alias, asked) == asked[0]


@pytest.mark.parametrize("alias, asked", [
    ("ring_count", ["aromatic_ring_count"]),  # another known key
    ("aromatic_ring_count", ["ring_count"]),
    ("carbon_atom_index", ["carbon_atom_count"]),  # other kind
    ("carbon indices", ["carbon_atom_count"]),
    ("number of carbons", ["carbon_atom_index"]),
    ("oxygen count", ["carbon_atom_count"]),  # not a feature at all
    ("count", ["carbon_atom_count"]),
    ("", ["carbon_atom_count"]),
    ("x" * 500, ["carbon_atom_count"]),
])
def test_unknown_or_other_keys_never_stand_in(alias, asked):
    assert canonical_key(alias, asked) is None


def test_normalize_key():
    assert normalize_key("Hetero-Atom Indices") == "hetero atom index"
    assert normalize_key("`RING_COUNT`") == "ring count"


def test_parse_text_answer():
    assert parse_text_answer('"a_count": 2, "b_index": [1, 2]') == [("a_count", 2), ("b_index", [1, 2])]
    assert parse_text_answer("a_count: 2; b_index = [3 4]\nc: CCO") == [("a_count", 2), ("b_index", [3, 4]), ("c", "CCO")]
    assert parse_text_answer("nothing here") is None


def test_reward_modes():
    t = _task({"ring_count": 2, "carbon_atom_count": 9})
    half = _ans({"ring_count": 2, "carbon_atom_count": 8})
    assert check(t, half).reward == 0.0
    assert check(t, half, reward="shaped").reward == 0.5
    assert check(t, half, reward="binary").reward == 0.0
    with pytest.raises(ValueError, match="reward mode"):
        check(t, half, reward="lenient")
    with pytest.raises(ValueError, match="unknown reward mode"):  # a caller error, not a silent zero
        rlvr.verify(t, half, reward="lenient")
    with pytest.raises(TypeError, match="unexpected keyword"):
        rlvr.verify(t, half, mode="shaped")


def test_malformed_tasks_raise_and_huge_numbers_do_not():
    with pytest.raises(TaskFormatError):
        check(_task({}), _ans({"ring_count": 1}))
    with pytest.raises(TaskFormatError):
        check(_task({"constraints": []}, "mol.gen"), _ans({"smiles": "CCO"}))
    with pytest.raises(TaskFormatError):
        rlvr.verify(_task({"constraints": [{"op": "=="}]}, "mol.gen"), _ans({"smiles": "CCO"}))
    huge = "1" * 5000  # beyond Python's int-parsing digit limit
    assert check(_task({"ring_count": 1}), '<answer>{"ring_count": ' + huge + "}</answer>").reason == "wrong_type"
    assert check(_task({"ring_count": 1}), '{"ring_count": ' + huge + "}").reason == "no_answer"
    assert check(_task({"ring_count": 1}), "<answer>ring_count: " + "1" * 30 + "</answer>").reason == "wrong_type"


def test_benchmark_keys_outside_the_feature_table_are_checked_by_value():
    t = _task({"functional_group_alcohol_nbrInstances": 2, "reaction_nitration_count": 0})
    assert check(t, _ans({"functional_group_alcohol_nbrInstances": 2, "reaction_nitration_count": 0})).correct
    assert not check(t, _ans({"functional_group_alcohol_nbrInstances": 3, "reaction_nitration_count": 0})).correct
