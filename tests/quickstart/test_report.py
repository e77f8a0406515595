"""The report's lines on the arms: each arm's budget, token counts as whole numbers, what is matched."""
from __future__ import annotations

from rlvr.quickstart.report import arm_lines, render_table
from rlvr.quickstart.scores import SplitScore

RL = {"steps": 48, "prompts_per_step": 4, "completions_per_prompt": 8, "trained_completions": 1536, "seconds": 234.0,
      "trained_tokens": 23614.0, "generated_tokens": 90210}
CONTROL = {"steps": 48, "rows_per_step": 32, "match": "completions", "trained_completions": 1536, "seconds": 84.0,
           "trained_tokens": 21740, "generated_tokens": 0}
RFT = {"steps": 48, "rows_per_step": 32, "sampled_prompts": 220, "sampled_completions": 1760, "kept_rows": 901,
       "temperature": 1.0, "trained_completions": 1536, "trained_tokens": 20000, "generated_tokens": 99000, "seconds": 400.0,
       "sampling_seconds": 300.0}


def test_one_arm_one_line_and_no_match_line():
    assert arm_lines({"rl": RL}) == ["  RL: 48 steps x 4 prompts x 8 completions; trained completions 1536, trained tokens "
                                     "23,614, generated tokens 90,210, 3.9 min"]


def test_every_arm_has_its_budget_and_the_match_is_named():
    lines = arm_lines({"rl": RL, "control": CONTROL, "rft": RFT})
    assert lines[1] == ("  SFT control: 48 steps x 32 rows (match: completions); trained completions 1536, trained tokens "
                        "21,740, generated tokens 0, 1.4 min")
    assert "kept 901 of 1760 completions sampled at temperature 1 on RL's 220 prompts; 48 steps x 32 rows" in lines[2]
    assert lines[2].endswith("6.7 min (5.0 of them sampling)")
    assert lines[3] == "  matched: optimizer steps and rows per step (step- and row-matched); generation is not matched"


def test_a_missing_token_count_reads_n_a():
    (line,) = arm_lines({"rl": {**RL, "trained_tokens": None, "generated_tokens": None}})
    assert "trained tokens n/a, generated tokens n/a" in line


def test_the_table_has_a_column_of_every_stage_in_run_order():
    score = lambda em: {"in": SplitScore("in", 100, 1.0, 1.0, em, em, em)}  # noqa: E731
    table = render_table({"base": score(0.0), "warm": score(0.6), "rl": score(0.7), "control": score(0.72)}).splitlines()
    assert table[0].startswith("| split | n | exact match %: base / warm start / RL / SFT control |")
    assert table[2].startswith("| in | 100 | 0.0 / 60.0 / 70.0 / 72.0 |")


def test_skipped_steps_are_named_only_when_there_are_some():
    (line,) = arm_lines({"rl": {**RL, "skipped_steps": [13, 29]}})
    assert line.endswith("3.9 min; optimizer steps skipped for non-finite gradients: 13, 29")
    (line,) = arm_lines({"rl": {**RL, "skipped_steps": []}})
    assert line.endswith("3.9 min")
