"""The report's line on the two arms: budgets side by side, token counts as whole numbers."""
from __future__ import annotations

from rlvr.quickstart.report import _arms_lines

RL = {"steps": 18, "prompts_per_step": 2, "completions_per_prompt": 4, "seconds": 234.0, "tokens": 23614.0}
CONTROL = {"steps": 18, "rows_per_step": 8, "match": "completions", "seconds": 84.0, "tokens": 21740}


def test_no_control_arm_no_line():
    assert _arms_lines({"rl": RL}) == []


def test_the_arms_line_names_the_match_and_counts_tokens_whole():
    (line,) = _arms_lines({"rl": RL, "control": CONTROL})
    assert "18 SFT steps x 8 fresh verified worked solutions" in line and "match: completions" in line
    assert "RL 18 steps x 2 prompts x 4 completions" in line and "Minutes: RL 3.9, control 1.4" in line
    assert "trained tokens: RL 23,614, control 21,740" in line


def test_a_missing_token_count_reads_n_a():
    (line,) = _arms_lines({"rl": {**RL, "tokens": None}, "control": {k: v for k, v in CONTROL.items() if k != "tokens"}})
    assert "trained tokens: RL n/a, control n/a" in line
