"""``scripts/quickstart_seeds.py``: the kind of each final answer, read with the checker's own verdict."""
import importlib.util
from pathlib import Path

import pytest

import rlvr

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "quickstart_seeds.py"


@pytest.fixture(scope="module")
def seeds():
    spec = importlib.util.spec_from_file_location("quickstart_seeds", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def task():
    # the reaction {20}CO2.{12}H2O run n = 3 times: the answer is {60}CO2.{36}H2O
    t = rlvr.generate("stoich.t1", "test_in", 1234, 1, encoding="formula", prompt_mode="open", corpus="classic")
    assert t.ground_truth["products"] == {"H2O": 36, "CO2": 60} and t.meta["runs"] == 3
    return t


@pytest.mark.parametrize("answer, kind", [
    ("{60}CO2.{36}H2O", "right"),
    ("{40}CO2.{24}H2O", "scaled"),       # every count times n = 2
    ("{60}CO2.{35}H2O", "arithmetic"),   # one product miscomputed
    ("{60}CO2.{36}H2O2", "species"),
    ("{60}CO2", "species"),
    ("no answer block", "no_answer"),
])
def test_error_kind(seeds, task, answer, kind):
    completion = answer if kind == "no_answer" else f"<answer>{answer}</answer>"
    verdict = rlvr.verify(task, completion)
    rollout = {"completion": completion, "correct": verdict.correct, "reason": str(verdict.reason)}
    assert seeds.error_kind(task.to_dict(), rollout) == kind
