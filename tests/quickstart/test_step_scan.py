"""The RL stage against the step budget (``rlvr quickstart --eval-every``): budgets, rows, the table."""
from __future__ import annotations

import pytest

from rlvr.quickstart.step_scan import budget_row, checkpoint_steps, plot_budget, render_budget, smallest_significant


def _split(gained, lost, p, reward_p, em_warm=0.6, em_after=0.65):
    """A split row of build_summary with the warm start, the checkpoint (as ``rl``) and the test between them."""
    stage = lambda em, reward: {"em": em, "em_se": 0.05, "reward": reward, "f1": reward, "format": 1.0}  # noqa: E731
    return {"n": 100, "stages": {"base": stage(0.0, 0.0), "warm": stage(em_warm, 0.8), "rl": stage(em_after, 0.85)},
            "tests": {"warm->rl": {"reference": "warm", "treated": "rl", "gained": gained, "lost": lost, "p_value": p,
                                   "better": gained, "worse": lost, "reward_diff": 0.05, "reward_p_value": reward_p}}}


def test_checkpoint_steps_are_the_budgets_below_the_last_step():
    assert checkpoint_steps(18, 72) == [18, 36, 54]
    assert checkpoint_steps(5, 12) == [5, 10]
    assert checkpoint_steps(20, 18) == []
    with pytest.raises(ValueError, match="at least 1"):
        checkpoint_steps(0, 10)


def test_a_row_keeps_the_rl_stage_tests_and_prorates_the_training_minutes():
    row = budget_row(18, 72, 1440.0, {"in": _split(7, 3, 0.34, 0.56)})
    assert row["steps"] == 18 and row["train_minutes"] == 6.0
    assert row["splits"]["in"]["p_value_rl"] == 0.34 and row["splits"]["in"]["em_warm"] == 0.6
    assert row["primary_p_value"] == 0.34 and "em_before" not in row["splits"]["in"]


def test_the_smallest_significant_budget_holm_corrects_the_primary_test_over_the_budgets():
    from rlvr.quickstart.claims import PrimaryTest

    # primary p 0.03 / 0.01 / 0.2 at 18 / 36 / 54 steps; Holm: 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.2
    rows = [budget_row(54, 72, 1440.0, {"in": _split(12, 3, 0.2, 0.001)}),
            budget_row(18, 72, 1440.0, {"in": _split(7, 3, 0.03, 0.56), "out": _split(9, 0, 0.004, 0.01)}),
            budget_row(36, 72, 1440.0, {"in": _split(9, 3, 0.01, 0.5)})]
    found = smallest_significant(rows)
    assert found["steps"] == 36
    assert found["p_holm"] == pytest.approx({"18": 0.06, "36": 0.03, "54": 0.2})
    # the Wilcoxon p (0.001 at 54 steps) is not the declared test, and "out" is not the declared split
    assert smallest_significant(rows, PrimaryTest(alpha=0.01))["steps"] is None
    # a recipe that declares the Wilcoxon test reads its p instead: 0.001 x 3 = 0.003 at 54 steps
    wil = PrimaryTest(test="wilcoxon")
    rows_w = [budget_row(r["steps"], 72, 1440.0, {"in": _split(1, 1, 1.0, p)}, primary=wil)
              for r, p in zip(rows, (0.001, 0.56, 0.5))]
    assert smallest_significant(rows_w, wil)["steps"] == 54
    assert smallest_significant([]) == {"steps": None, "p_holm": {}}


def test_the_table_has_a_line_per_budget_and_split_in_step_order():
    rows = [budget_row(36, 36, 600.0, {"in": _split(9, 3, 0.15, 0.03, 0.6, 0.66)}),
            budget_row(18, 36, 600.0, {"in": _split(4, 6, 0.75, 0.9, 0.6, 0.58)})]
    lines = render_budget(rows).splitlines()
    assert lines[0].startswith("| GRPO steps") and len(lines) == 4
    assert lines[2] == "| 18 | 5.0 | in | 60 -> 58 | +4 -6, 0.75 | 4 / 6, 0.9 | -0.4 |"
    assert lines[3].startswith("| 36 | 10.0 | in | 60 -> 66 | +9 -3, 0.15 | 9 / 3, 0.03 | +1.2 |")


def test_the_budget_figure_is_written_atomically_with_a_panel_per_split(tmp_path):
    rows = [budget_row(18, 36, 600.0, {k: _split(4, 6, 0.75, 0.9) for k in ("in", "cross", "out")}),
            budget_row(36, 36, 600.0, {k: _split(9, 1, 0.02, 0.03, 0.6, 0.68) for k in ("in", "cross", "out")})]
    out = plot_budget([("seed 0", rows), ("seed 1", rows[:1])], tmp_path / "budget.png")
    assert out.stat().st_size > 10_000 and [p.name for p in tmp_path.iterdir()] == ["budget.png"]
