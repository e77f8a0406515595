"""Resumability: a limited run is a prefix of the full one; an interrupted run loses and redoes nothing."""
import json

import pytest

from rlvr.eval import EvalConfigError, run_eval
from rlvr.eval.backends import OracleBackend


def _lines(out_dir):
    return [json.loads(line) for line in (out_dir / "verdicts.jsonl").read_text().splitlines()]


def test_limited_then_full_run_recomputes_nothing(make_config):
    first = OracleBackend()
    small = run_eval(make_config(backend="oracle", suite="stoich", limit=1), backend=first)
    assert first.completions == len(small.records)
    second = OracleBackend()
    full = run_eval(make_config(backend="oracle", suite="stoich", limit=3), backend=second)
    assert second.completions == len(full.records) - len(small.records)
    assert full.results["timing"]["tasks_resumed"] == len(small.records)
    third = OracleBackend()
    again = run_eval(make_config(backend="oracle", suite="stoich", limit=3), backend=third)
    assert third.calls == 0 and third.completions == 0
    assert again.summary == full.summary
    ids = [r["task_id"] for r in _lines(full.out_dir)]
    assert len(ids) == len(set(ids)) == len(full.records)


class _Interrupted(OracleBackend):
    """Dies like a killed process after ``batches`` batches."""

    def __init__(self, batches):
        super().__init__()
        self.batches = batches

    def _generate(self, tasks, samples):
        if self.calls >= self.batches:
            raise KeyboardInterrupt
        return super()._generate(tasks, samples)


def test_interrupted_run_continues_where_it_stopped(make_config, tmp_path):
    config = make_config(backend="oracle", suite="stoich", limit=2, batch_size=3, samples=2)
    with pytest.raises(KeyboardInterrupt):
        run_eval(config, backend=_Interrupted(batches=2))
    assert len(_lines(config.out_dir())) == 6  # two finished batches of three, flushed
    rest = OracleBackend()
    resumed = run_eval(config, backend=rest)
    assert rest.completions == 2 * (len(resumed.records) - 6)
    reference = run_eval(make_config(backend="oracle", suite="stoich", limit=2, batch_size=3, samples=2,
                                     out=str(tmp_path / "reference")))
    assert resumed.summary == reference.summary
    assert [r["id"] for r in resumed.records] == [r["id"] for r in reference.records]


def test_config_mismatch_on_resume_is_a_clear_error(make_config):
    run_eval(make_config(backend="oracle", suite="stoich", limit=1))
    with pytest.raises(EvalConfigError, match="samples"):
        run_eval(make_config(backend="oracle", suite="stoich", limit=1, samples=2))
    with pytest.raises(EvalConfigError, match="backend"):
        run_eval(make_config(backend="copy-input", suite="stoich", limit=1))
    fresh = OracleBackend()
    run_eval(make_config(backend="oracle", suite="stoich", limit=1, samples=2, overwrite=True), backend=fresh)
    assert fresh.completions > 0


def test_ranks_share_the_work_and_rank0_reports(make_config, tmp_path):
    config = make_config(backend="oracle", suite="stoich", limit=2)
    one, zero = OracleBackend(), OracleBackend()
    partial = run_eval(config, backend=one, rank=1, world_size=2)
    assert partial.results["partial"] and (config.out_dir() / "verdicts.rank1.jsonl").exists()
    result = run_eval(config, backend=zero, rank=0, world_size=2, wait_timeout=5)
    n = len(result.records)
    assert one.completions == n // 2 and zero.completions == n - n // 2
    reference = run_eval(make_config(backend="oracle", suite="stoich", limit=2, out=str(tmp_path / "single")))
    assert result.summary == reference.summary


def test_rank0_times_out_when_a_rank_is_missing(make_config):
    with pytest.raises(TimeoutError):
        run_eval(make_config(backend="oracle", suite="stoich", limit=1), rank=0, world_size=2, wait_timeout=0)
