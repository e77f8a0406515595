"""Hostile values under a family's own answer keys: the shared hostile corpus writes bad values only
under the built-in families' keys, so a checker that calls ``int(v)`` on its own key passes it and
then returns ``checker_error`` on ``"x"``, ``null`` or ``Infinity`` in real use. The conformance checks
derive hostile answers from the family's own oracle answer (:mod:`rlvr.families.derived`) and catch it,
and two more bugs of the same kind: a checker that coerces with ``int()`` (``true`` for 1, ``2.5`` for
2) and one that keeps the last value of a repeated key (a hedge: a wrong value, then the right one).
The family is a plugin defined here (oxygen and nitrogen atoms of small molecules, as a JSON object; each
split draws from its own molecules)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from rlvr.answer import extract_answer
from rlvr.families.conformance import ConformanceError, check_family, check_hostile, check_own_hostile
from rlvr.families.derived import key_steps, own_hostile_answers
from rlvr.reasons import Reason
from rlvr.registry import FamilySpec, Items, register_family, unregister_family
from rlvr.rng import task_rng
from rlvr.task import Task, Verdict, config_key, task_id

POOLS = {"train": {"CCO": (1, 0), "CC(=O)O": (2, 0), "NCC(=O)O": (2, 1), "CCN(CC)CC": (0, 1), "OCC(O)CO": (3, 0)},
         "test": {"CC(=O)Nc1ccc(O)cc1": (2, 1), "C=CC#N": (0, 1), "CN1C=NC2=C1C(=O)N(C(=O)N2C)C": (2, 4)}}
MOLECULES = {**POOLS["train"], **POOLS["test"]}
KEYS = ("oxygens", "nitrogens")
INDICES = range(3)


@dataclass(frozen=True)
class AtomsConfig:
    """No option besides the prompt options."""

    units: str = "atoms"


def make_generator(name: str) -> Callable[[AtomsConfig, str, int, int], Task]:
    def generate(config: AtomsConfig, split: str, seed: int, index: int) -> Task:
        smiles = task_rng(seed, name, split, index).choice(sorted(POOLS[split]))
        question = f"How many O and N atoms has {smiles}? Answer <answer>{{\"oxygens\": n, \"nitrogens\": m}}</answer>."
        return Task(id=task_id(name, split, seed, index, config_key(config)), family=name,
                    prompt=[{"role": "user", "content": question}],
                    ground_truth=dict(zip(KEYS, MOLECULES[smiles])), meta={"split": split, "smiles": smiles})
    return generate


def read_pairs(completion: Any) -> list[tuple[str, Any]] | None:
    """The (key, value) pairs of the answer's JSON object, repeated keys kept; None when there is none."""
    text = extract_answer(completion).text
    if text is None:
        return None
    try:
        pairs = json.loads(text, object_pairs_hook=lambda p: p)
    except (ValueError, RecursionError):
        return None
    return pairs if isinstance(pairs, list) and all(isinstance(p, tuple) for p in pairs) else None


def _verdict(correct: bool, reason: Reason) -> Verdict:
    return Verdict(float(correct), correct, {}, Reason.OK if correct else reason)


def exact(task: Task, completion: Any) -> Verdict:
    """Right when every key is there once, with the true JSON integer."""
    pairs = read_pairs(completion)
    if pairs is None:
        return Verdict.fail(Reason.UNPARSABLE)
    keys = [k for k, _ in pairs]
    for key in KEYS:
        if keys.count(key) != 1:
            return Verdict.fail(Reason.MISSING_KEY if key not in keys else Reason.DUPLICATE_KEY)
    values = dict(pairs)
    if not all(type(values[k]) is int for k in KEYS):
        return Verdict.fail(Reason.WRONG_TYPE)
    return _verdict(all(values[k] == task.ground_truth[k] for k in KEYS), Reason.WRONG_VALUE)


def _last_values(completion: Any) -> dict[str, Any] | None:
    pairs = read_pairs(completion)
    return None if pairs is None else dict(pairs)  # a repeated key keeps its last value


def calls_int(task: Task, completion: Any) -> Verdict:
    values = _last_values(completion)
    if values is None or any(k not in values for k in KEYS):
        return Verdict.fail(Reason.UNPARSABLE)
    # the bug: int() of whatever the policy wrote ("x", null, Infinity raise)
    return _verdict(all(int(values[k]) == task.ground_truth[k] for k in KEYS), Reason.WRONG_VALUE)


def coerces_with_int(task: Task, completion: Any) -> Verdict:
    values = _last_values(completion)
    if values is None or any(k not in values for k in KEYS):
        return Verdict.fail(Reason.UNPARSABLE)
    try:  # the crash is mended, but int() still takes true for 1 and 2.5 for 2
        correct = all(int(values[k]) == task.ground_truth[k] for k in KEYS)
    except (TypeError, ValueError, OverflowError):
        return Verdict.fail(Reason.WRONG_TYPE)
    return _verdict(correct, Reason.WRONG_VALUE)


def keeps_the_last_repeated_key(task: Task, completion: Any) -> Verdict:
    values = _last_values(completion)
    if values is None or any(k not in values for k in KEYS):
        return Verdict.fail(Reason.UNPARSABLE)
    if not all(type(values[k]) is int for k in KEYS):
        return Verdict.fail(Reason.WRONG_TYPE)
    return _verdict(all(values[k] == task.ground_truth[k] for k in KEYS), Reason.WRONG_VALUE)


def oracle(task: Task) -> str:
    return "<answer>" + json.dumps(task.ground_truth) + "</answer>"


@pytest.fixture
def family(request):
    name, check = request.param
    spec = FamilySpec(name=name, config_cls=AtomsConfig, generator=make_generator(name), check=check, oracle=oracle,
                      splits=tuple(POOLS), description="Oxygen and nitrogen atoms of a small molecule.",
                      items=Items("molecule", lambda task: task.meta["smiles"], lambda config, split: len(POOLS[split])))
    register_family(spec)
    yield name
    unregister_family(name)


def test_the_derived_answers_replace_each_value_under_each_key():
    answers = own_hostile_answers('<answer>{"oxygens": 1, "nitrogens": 2}</answer>')
    for value in ('"x"', "null", "Infinity", "NaN", "[]", "{}", "-1", "1e308", "9" * 5001):
        assert f'<answer>{{"oxygens": {value}, "nitrogens": 2}}</answer>' in answers
        assert f'<answer>{{"oxygens": 1, "nitrogens": {value}}}</answer>' in answers
    assert '<answer>{"oxygens": true, "nitrogens": 2}</answer>' in answers  # == 1 in Python
    assert '<answer>{"oxygens": 1, "nitrogens": 2.5}</answer>' in answers  # int() gives 2
    assert '<answer>{"oxygens": 2, "oxygens": 1, "nitrogens": 2}</answer>' in answers  # a hedge
    assert '<answer>{"oxygens": 1, "nitrogens": 2}</answer>' not in answers
    assert "<answer>{x}H2O</answer>" in own_hostile_answers("<answer>{2}H2O</answer>")  # not JSON: its numbers
    assert key_steps('<answer>{"oxygens": 1, "nitrogens": [2]}</answer>') == [
        '<answer>{"oxygens": 0, "nitrogens": [2]}</answer>', '<answer>{"oxygens": 2, "nitrogens": [2]}</answer>']


@pytest.mark.parametrize("family", [("test.on", exact)], indirect=True)
def test_an_exact_checker_passes_conformance(family):
    assert len(check_family(family, indices=INDICES, cross_process=False)) == 2 * len(INDICES)


@pytest.mark.parametrize("family", [("test.onint", calls_int)], indirect=True)
def test_a_checker_that_calls_int_on_its_own_key_fails_conformance(family):
    task = make_generator(family)(AtomsConfig(), "train", 11, 0)
    check_hostile(task)  # the shared corpus never puts a bad value under this family's keys
    with pytest.raises(ConformanceError, match="raised on .* the family's own keys"):
        check_own_hostile(task)
    with pytest.raises(ConformanceError, match="raised on .* the family's own keys"):
        check_family(family, indices=INDICES, cross_process=False)


@pytest.mark.parametrize("family, shown", [
    (("test.oncoerce", coerces_with_int), r"\.5"),
    (("test.onlast", keeps_the_last_repeated_key), r'"(oxygens|nitrogens)": .*, "\1"'),
], indirect=["family"])
def test_a_checker_that_accepts_a_look_alike_or_a_hedge_fails_conformance(family, shown):
    with pytest.raises(ConformanceError, match=f"accepts .*{shown}"):
        check_family(family, indices=INDICES, cross_process=False)
