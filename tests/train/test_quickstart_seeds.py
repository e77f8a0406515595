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


def test_the_budget_table_lists_each_run_at_each_step_budget(seeds):
    def split(gained, lost, em_after):
        return {"n": 100, "em_warm": 0.6, "em_se_warm": 0.05, "em_after": em_after, "gained_rl": gained, "lost_rl": lost,
                "p_value_rl": 0.04, "better_rl": gained, "worse_rl": lost, "reward_p_value_rl": 0.2}

    def run(seed):
        return {"seed": seed, "budget": [
            {"steps": 36, "train_minutes": 12.0, "splits": {k: split(9, 3, 0.66) for k in ("in", "cross", "out")}},
            {"steps": 18, "train_minutes": 6.0, "splits": {k: split(4, 5, 0.59) for k in ("in", "cross", "out")}}]}

    lines = seeds.budget_table([("a", run(0)), ("b", run(1))]).splitlines()
    seeds_column = [line.strip("|").split("|")[2].strip() for line in lines[2:]]
    assert len(lines) == 8 and seeds_column == ["0", "1", "pooled", "0", "1", "pooled"]
    assert lines[2] == "| 18 | 6.0 | 0 | 60 → 59 | +4 −5, 0.04 | 4 / 5, 0.2 | -0.2, -0.2, -0.2 | – |"
    assert lines[5].startswith("| 36 | 12.0 | 0 | 60 → 66 | +9 −3, 0.04 |")
    assert lines[4] == "| 18 | | pooled | | +8 −10, 0.81 | | | |"   # binomial: 8 of 18, two-sided
    assert lines[7] == "| 36 | | pooled | | +18 −6, 0.023 | | | |"
    assert seeds.budget_table([("a", {"seed": 0})]) == ""


def test_the_budget_plot_never_replaces_an_existing_file_without_overwrite(seeds, tmp_path, capsys):
    existing = tmp_path / "mine.png"
    existing.write_bytes(b"a user's file")
    assert seeds.main([str(tmp_path), "--budget-plot", str(existing)]) == 2
    assert "--overwrite" in capsys.readouterr().err and existing.read_bytes() == b"a user's file"
