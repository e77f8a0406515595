"""The strict constrained-generation verifier and time bounds on adversarial completions."""
from __future__ import annotations

import json
import logging

import pytest

import rlvr

from rlvr.answer import MAX_COMPLETION_CHARS
from rlvr.chem.constraints import constraint_satisfied, normalize_constraint
from rlvr.checkers.molecules import MAX_GEN_SMILES_CHARS, check, oracle, validate_generated
from rlvr.task import Task


def _gen(constraints, reference=None):
    return Task(id="g", family="mol.gen", prompt=[{"role": "user", "content": "q"}],
                ground_truth={"constraints": constraints}, meta={"reference_smiles": reference})


def _ans(smiles) -> str:
    return "<answer>" + json.dumps({"smiles": smiles}) + "</answer>"


# the paper's single-constraint example: "exactly 13 hydrogen bond acceptors"
HBA13 = _gen([{"key": "hba_count", "op": "==", "value": 13}], "OCC(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)C(O)CO")
TWO_RINGS = _gen([{"key": "ring_count", "op": ">=", "value": 2}, {"key": "carbon_atom_count", "op": "<=", "value": 12},
                  {"key": "halogen_atom_count", "op": "range", "value": [1, 2]}], "Clc1ccc2ccccc2c1")


def test_paper_generation_example_and_oracle():
    assert check(HBA13, oracle(HBA13)).correct
    v = check(HBA13, _ans("OCC(O)C(O)CO"))
    assert v.reason == "constraint_failed" and v.metrics["wrong_keys"] == ["hba_count"]
    assert v.metrics["smiles_valid"] and v.metrics["constraints"][0]["actual"] == 4


def test_operators():
    assert check(TWO_RINGS, _ans("Clc1ccc2ccccc2c1")).correct
    assert check(TWO_RINGS, _ans("FC1CC2CCC1C2Br")).correct  # bicyclic, 7 C, 2 halogens
    v = check(TWO_RINGS, _ans("Clc1ccccc1"))
    assert v.reason == "constraint_failed" and v.metrics["wrong_keys"] == ["ring_count"]
    assert check(TWO_RINGS, _ans("Clc1ccccc1"), reward="shaped").reward == pytest.approx(2 / 3)
    v = check(TWO_RINGS, _ans("ClC(Cl)(Cl)c1ccc2ccccc2c1"))  # three halogens: outside the range
    assert v.metrics["wrong_keys"] == ["halogen_atom_count"]
    assert constraint_satisfied(3, ">", 2) and not constraint_satisfied(2, "<", 2)
    assert constraint_satisfied([1, 2, 3], "==", 3)  # an index list counts its atoms
    assert constraint_satisfied("C9H8O4", "==", "C9O4H8", "molecular_formula_count")
    assert not constraint_satisfied("C9H8O4", ">=", "C9H8O4", "molecular_formula_count")


def test_verdicts_do_not_share_the_parsed_constraints():
    """Constraints are parsed once per record: a caller editing a verdict's metrics changes no later verdict."""
    first = check(TWO_RINGS, _ans("ClC(Cl)(Cl)c1ccc2ccccc2c1"))
    first.metrics["constraints"][2]["value"].append(99)
    first.metrics["constraints"][2]["value"][0] = 3
    again = check(TWO_RINGS, _ans("ClC(Cl)(Cl)c1ccc2ccccc2c1"))
    assert again.metrics["constraints"][2]["value"] == [1, 2] and not again.correct
    assert TWO_RINGS.ground_truth["constraints"][2]["value"] == [1, 2]


def test_fragments_are_rejected_even_when_they_would_satisfy():
    # two separate benzene rings would game the ring count
    v = check(TWO_RINGS, _ans("Clc1ccccc1.c1ccccc1"))
    assert not v.correct and v.reason == "multiple_fragments" and v.reward == 0.0
    assert check(TWO_RINGS, _ans("Clc1ccccc1.c1ccccc1"), reward="shaped").reward == 0.0


@pytest.mark.parametrize("completion, reason", [
    (_ans("C1CC"), "invalid_smiles"),
    (_ans("c1cccc1"), "invalid_smiles"),  # cannot be kekulised
    (_ans("C(C)(C)(C)(C)C"), "invalid_smiles"),  # pentavalent carbon
    (_ans("*c1ccc2ccccc2c1Cl"), "invalid_smiles"),  # dummy atom
    (_ans("[#0]c1ccc2ccccc2c1Cl"), "invalid_smiles"),  # a dummy atom by atomic number
    (_ans("[1*]c1ccc2ccccc2c1[C@H](N)O"), "invalid_smiles"),  # a labelled dummy atom, with stereo
    (_ans(""), "invalid_smiles"),
    (_ans("C" * (MAX_GEN_SMILES_CHARS + 1)), "too_long"),
    (_ans("C" * 150), "too_long"),  # more heavy atoms than the cap
    ('<answer>{"smiles": 42}</answer>', "wrong_type"),
    ('<answer>{"smiles": ["Clc1ccc2ccccc2c1"]}</answer>', "wrong_type"),
    ('<answer>{"molecule_name": "chloronaphthalene"}</answer>', "missing_key"),
    ('<answer>{"smiles": "Clc1ccc2ccccc2c1", "smiles": "Clc1ccc2ccccc2c1"}</answer>', "duplicate_key"),
    ('<answer>{"smiles": "Clc1ccc2ccccc2c1", "molecule": "c1ccccc1"}</answer>', "duplicate_key"),
    ("<answer>two rings please</answer>", "unparsable"),
    ("no answer at all", "no_answer"),
])
def test_generation_rejections(completion, reason):
    v = check(TWO_RINGS, completion)
    assert not v.correct and v.reward == 0.0 and v.reason == reason
    assert v.metrics["wrong_keys"] == ["ring_count", "carbon_atom_count", "halogen_atom_count"]


@pytest.mark.parametrize("completion", [
    "<answer>Clc1ccc2ccccc2c1</answer>",  # a bare SMILES in the tags
    "<answer>smiles: Clc1ccc2ccccc2c1</answer>",
    '<answer>{"SMILES": "Clc1ccc2ccccc2c1"}</answer>',
    '<answer>{"molecule": "Clc1ccc2ccccc2c1", "reasoning": "naphthalene + Cl"}</answer>',
    'Final: {"smiles": "Clc1ccc2ccccc2c1"}',
])
def test_generation_answer_forms(completion):
    assert check(TWO_RINGS, completion).correct


def test_constraint_normalisation_accepts_benchmark_shapes():
    assert normalize_constraint({"type": "ring_count", "operator": "=", "value": 2}) == {
        "key": "ring_count", "op": "==", "value": 2}
    assert normalize_constraint({"property": "hba_count", "operator": "range", "min_value": 1, "max_value": 3}) == {
        "key": "hba_count", "op": "range", "value": [1, 3]}
    assert normalize_constraint({"type": "functional_group_alcohol_nbrInstances", "operator": ">=", "min_value": 1}) == {
        "key": "functional_group_alcohol_count", "op": ">=", "value": 1}
    for bad in ({"operator": "="}, {"type": "ring_count", "operator": "~", "value": 1}, {"type": "ring_count", "operator": "range"}):
        with pytest.raises(ValueError):
            normalize_constraint(bad)


def test_unsupported_constraint_key_fails_cleanly():
    t = _gen([{"key": "not_a_feature_count", "op": "==", "value": 1}])
    v = check(t, _ans("CCCCO"))
    assert v.reason == "constraint_failed" and v.metrics["keys"]["not_a_feature_count"]["status"] == "unsupported_constraint"


def test_validate_generated():
    mol, status = validate_generated("c1ccccc1O")
    assert status == "ok" and mol.GetNumAtoms() == 7
    assert validate_generated("CC.O")[1] == "multiple_fragments"
    c60 = ("C12=C3C4=C5C6=C1C7=C8C9=C1C%10=C%11C(=C29)C3=C2C3=C4C4=C5C5=C9C6=C7C6=C7C8=C1C1=C8C%10=C%10C%11=C2C2=C3"
           "C3=C4C4=C5C5=C%11C%12=C(C6=C95)C7=C1C1=C%12C5=C%11C4=C3C3=C5C(=C81)C%10=C23")
    assert validate_generated(c60)[1] == "too_long"  # 32 rings: a cage beyond the ring cap


LONE_SURROGATES = "C\ud800\udfffC"  # not encodable as UTF-8: RDKit cannot even be handed this text


@pytest.mark.parametrize("completion", [
    "<answer>" + json.dumps({"smiles": LONE_SURROGATES}, ensure_ascii=False) + "</answer>",
    _ans(LONE_SURROGATES),  # JSON escapes \ud800\udfff, decoded back to lone surrogates
    f"<answer>{LONE_SURROGATES}</answer>",  # a bare token
    "<answer>" + json.dumps({"smiles": "\u00e9CCO"}, ensure_ascii=False) + "</answer>",  # non-ASCII
])
def test_hostile_text_in_a_generated_smiles_is_a_plain_reason(completion, caplog):
    v = check(TWO_RINGS, completion)
    assert not v.correct and v.reward == 0.0 and v.reason == "invalid_smiles"
    assert validate_generated(LONE_SURROGATES) == (None, "invalid_smiles")
    with caplog.at_level(logging.DEBUG):
        verdict = rlvr.verify(TWO_RINGS, completion)
    assert verdict.reason == "invalid_smiles"  # never checker_error
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]


C60 = ("C12=C3C4=C5C6=C1C7=C8C9=C1C%10=C%11C(=C29)C3=C2C3=C4C4=C5C5=C9C6=C7C6=C7C8=C1C1=C8C%10=C%10C%11=C2C2=C3"
       "C3=C4C4=C5C5=C%11C%12=C(C6=C95)C7=C1C1=C%12C5=C%11C4=C3C3=C5C(=C81)C%10=C23")
PATHOLOGICAL = {
    "c60": _ans(C60),
    "long_chain": _ans("C" * 99),
    "branched": _ans("CC(C)(C)" * 24 + "C"),
    "cage": _ans("C12C3C4C1C5C2C3C45"),
    "bridged": _ans("C1C2CC3CC1CC(C2)C3" * 4),
    "fused": _ans("C1CC2CC3CC4CC5CC6CC7CC8CC9CC%10CCCCC%10CC9CC8CC7CC6CC5CC4CC3CC2C1"),
    "bad_brackets": _ans("[" * 150),
    "many_braces": "{" * (MAX_COMPLETION_CHARS - 10),
    "many_json": '{"smiles": "C"} ' * 6000,
    "nested_lists": "<answer>" + "[" * 7000 + "</answer>",
    "deep_object": "<answer>" + '{"a":' * 900 + "1" + "}" * 900 + "</answer>",
    "kv_spam": "<answer>" + "smiles: C, " * 700 + "</answer>",
    "many_answers": "<answer>x</answer>" * 5000,
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_completions_stay_fast(name, cpu_seconds):
    check(TWO_RINGS, _ans("CCO"))  # warm-up: imports and compiled patterns
    count_task = Task(id="c", family="mol.count", prompt=[], ground_truth={"ring_count": 2, "hba_index": [1]}, meta={})
    for task in (TWO_RINGS, count_task):
        verdict, elapsed = cpu_seconds(check, task, PATHOLOGICAL[name])
        assert verdict.reward in (0.0, 1.0)
        assert elapsed < 0.25, f"{name}: {elapsed * 1000:.0f} ms"  # CPU time of this thread: typically < 60 ms
