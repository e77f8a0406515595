"""An evaluation says how much it will generate before it starts, and how long the rest will take after one batch."""
from __future__ import annotations

from rlvr.eval import run_eval


def test_eval_announces_the_completions_and_an_estimate(make_config, caplog):
    config = make_config(backend="oracle", suite="stoich", limit=1, samples=2, batch_size=4)
    with caplog.at_level("INFO", logger="rlvr.eval"):
        result = run_eval(config)
    n_tasks = len(result.records)
    messages = [r.getMessage() for r in caplog.records]
    plan = next(m for m in messages if m.startswith("generating "))
    assert plan.startswith(f"generating {2 * n_tasks} completions ({n_tasks} tasks x 2 samples) with the oracle backend")
    assert any(m.startswith("first batch: ") and f"for the remaining {2 * (n_tasks - 4)}" in m for m in messages)
    assert messages.index(plan) < next(i for i, m in enumerate(messages) if m.startswith("first batch: "))
    assert "> **" not in result.report  # the oracle answers everything: no notice at the top
