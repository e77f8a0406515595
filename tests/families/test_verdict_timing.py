"""The wall-clock budget of verdicts (rlvr.families.timing): a verdict slow twice fails; one slow first
verdict (a pause of a loaded machine) is forgiven, but not a checker that is slow on every input it has
not seen and fast once it has cached it; a slow median fails and names the slowest input."""
from __future__ import annotations

import time
from dataclasses import make_dataclass
from typing import Any

import pytest

import rlvr
from rlvr.families.timing import FORGIVEN, SlowVerdicts, check_verdict_times
from rlvr.reasons import Reason
from rlvr.registry import FamilySpec, register_family, unregister_family
from rlvr.task import Task, Verdict, config_key, task_id

FAMILY = "timing.slow"
SEEN: set[tuple[str, str]] = set()
PAUSE = 0.12
#: the budget these tests use: well under the pause, well over a verdict that does not pause
BUDGET = 0.06


def generate(config: Any, split: str, seed: int, index: int) -> Task:
    return Task(id=task_id(FAMILY, split, seed, index, config_key(config)), family=FAMILY,
                prompt=[{"role": "user", "content": f"Say {index}."}], ground_truth={"n": index},
                meta={"split": split})


def check(task: Task, completion: Any) -> Verdict:
    """Pauses on what it has not seen when the completion asks for it (``slow``), always on ``always``."""
    text = str(completion)
    if "always" in text or ("slow" in text and (task.id, text) not in SEEN):
        time.sleep(PAUSE)
    SEEN.add((task.id, text))
    return Verdict(0.0, False, {}, Reason.WRONG_VALUE)


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    spec = FamilySpec(name=FAMILY, config_cls=make_dataclass("TimingConfig", []), generator=generate, check=check,
                      oracle=lambda task: f"<answer>{task.ground_truth['n']}</answer>", splits=("test",))
    register_family(spec)
    yield [rlvr.generate(FAMILY, "test", 0, i) for i in range(8)]
    unregister_family(FAMILY)


def test_fast_verdicts_pass(tasks):
    times = check_verdict_times([(t, "<answer>1</answer>") for t in tasks], max_seconds=BUDGET)
    assert len(times.seconds) == len(tasks) and times.median < BUDGET


def test_a_verdict_slow_twice_fails(tasks):
    pairs = [(t, "<answer>1</answer>") for t in tasks] + [(tasks[3], "<answer>always</answer>")]
    with pytest.raises(SlowVerdicts, match=rf"^{tasks[3].id}: a verdict took 0\.\d\d s .*twice.*'<answer>always</answer>'"):
        check_verdict_times(pairs, max_seconds=BUDGET)


def test_a_few_slow_first_verdicts_are_forgiven_but_not_a_slow_first_sight_of_every_input(tasks):
    few = [(t, f"<answer>slow {i}</answer>") for i, t in enumerate(tasks[:FORGIVEN])]
    check_verdict_times(few + [(t, "<answer>1</answer>") for t in tasks], max_seconds=BUDGET)
    many = [(t, f"<answer>slow again {i}</answer>") for i, t in enumerate(tasks[:FORGIVEN + 1])]
    with pytest.raises(SlowVerdicts, match=rf"first verdicts of {FORGIVEN + 1} inputs .*fast only when repeated"):
        check_verdict_times(many, max_seconds=BUDGET)


def test_a_slow_median_fails_and_names_the_slowest_input(tasks):
    pairs = [(t, "<answer>always</answer>") for t in tasks[:3]] + [(tasks[4], "<answer>1</answer>")]
    with pytest.raises(SlowVerdicts, match=r"the median takes \d+ ms .*budget 50 ms.*the slowest input, 0\.\d\d s, "
                                           r"is '<answer>always</answer>'"):
        check_verdict_times(pairs, median_seconds=0.05)
