"""The quickstart: scoring helpers and an end-to-end run with the tiny model."""
from __future__ import annotations

import json

import pytest

from rlvr.train.quickstart import render_table, run_quickstart, score_records


def _record(group, reason, correct, f1, valid=1.0):
    return {"split": f"test_{group}", "split_group": group,
            "rollouts": [{"reason": reason, "correct": correct, "metrics": {"f1": f1, "valid": valid, "em": float(correct)}}]}


def test_scores_separate_format_from_correctness():
    records = [
        _record("in", "ok", True, 1.0),
        _record("in", "wrong_count", False, 0.5),
        _record("in", "no_answer", False, 0.0, 0.0),
        _record("in", "unparsable", False, 0.0, 0.0),
        _record("out", "wrong_species", False, 0.25),
    ]
    scores = score_records(records, "f1")
    s = scores["in"]
    assert s.n == 4 and s.format_ok == 0.5 and s.exact_match == 0.25 and s.f1 == pytest.approx(0.375)
    assert scores["out"].format_ok == 1.0 and scores["out"].exact_match == 0.0
    table = render_table(scores, score_records(records[:1] + records[4:], "f1"))
    lines = table.splitlines()
    assert lines[0].startswith("| split") and lines[2].startswith("| in") and lines[3].startswith("| out")
    assert "50.0 -> 100.0 (+50.0)" in lines[2]


@pytest.mark.slow
def test_quickstart_end_to_end_with_the_tiny_model(tmp_path, tiny_model):
    result = run_quickstart(
        output_dir=str(tmp_path / "qs"), max_steps=1, eval_size=1, max_new_tokens=8,
        overrides=["--model_name_or_path", tiny_model, "--max_completion_length", "8", "--report_to", "none",
                   "--save_steps", "1"],
    )
    assert set(result.before) == set(result.after) == {"in", "cross", "out"}
    assert result.train["steps"] == 1
    saved = json.loads((tmp_path / "qs" / "quickstart.json").read_text())
    assert saved["after"]["in"]["n"] == 1
    assert (tmp_path / "qs" / "train" / "adapter_model.safetensors").is_file()
    report = (tmp_path / "qs" / "quickstart.md").read_text()
    assert "| in |" in report and "format ok" in report
    assert (tmp_path / "qs" / "quickstart.png").stat().st_size > 10_000
