"""The transformers backend estimates the generation time before generating, and the estimate changes no completion."""
from __future__ import annotations

import math

import torch

from rlvr.eval import load_eval_set, run_eval
from rlvr.eval.backends.hf import TransformersBackend

#: the tiny model on the stoich suite's in-distribution split, one task per entry (4 tasks), sampled
RUN = dict(suite="stoich", splits=("in",), limit=1, max_new_tokens=6, batch_size=3, threads=1, samples=2,
           temperature=1.0, seed=5)


class NoEstimate(TransformersBackend):
    """The transformers backend without an estimate (as before the calibration existed)."""

    def estimate_seconds(self, tasks, samples, batch_size):
        return None


def _backend(cls: type, tiny_model: str) -> TransformersBackend:
    return cls(tiny_model, max_new_tokens=RUN["max_new_tokens"], temperature=RUN["temperature"], seed=RUN["seed"],
               threads=1)


def _completions(result) -> list[list[str]]:
    return [[r["completion"] for r in rec["rollouts"]] for rec in result.records]


def test_estimate_is_positive_and_logged_before_the_first_batch(make_config, tiny_model, caplog):
    backend = _backend(TransformersBackend, tiny_model)
    events: list[str] = []  # log messages and generation events, in order
    logged = 0

    def note(event: str) -> None:
        nonlocal logged
        events.extend(r.getMessage() for r in caplog.records[logged:])
        logged = len(caplog.records)
        events.append(event)

    generate = backend._generate

    def spy(tasks, samples):
        note("<generate>")
        return generate(tasks, samples)

    backend._generate = spy
    with caplog.at_level("INFO", logger="rlvr.eval"):
        result = run_eval(make_config(model=tiny_model, **RUN), backend=backend,
                          on_batch=lambda done, total: note(f"<batch {done}/{total}>"))
    plan = next(i for i, m in enumerate(events) if m.startswith("generating 8 completions (4 tasks x 2 samples)"))
    assert "at most about " in events[plan] and "estimated after the first batch" not in events[plan]
    assert plan < events.index("<generate>") < events.index("<batch 3/4>")
    estimate = result.results["timing"]["generation_estimate_seconds_this_run"]
    assert math.isfinite(estimate) and estimate > 0
    # the "time left" line after the first batch is still there
    assert any(r.getMessage().startswith("first batch: ") for r in caplog.records)


def test_estimate_changes_no_completion_and_no_rng_state(make_config, tiny_model, tmp_path, caplog):
    with caplog.at_level("INFO", logger="rlvr.eval"):
        plain = run_eval(make_config(model=tiny_model, out=str(tmp_path / "plain"), **RUN),
                         backend=_backend(NoEstimate, tiny_model))
    plan = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("generating "))
    assert plan.endswith("; the time left is estimated after the first batch")  # no estimate: today's message
    assert plain.results["timing"]["generation_estimate_seconds_this_run"] is None
    calibrated = run_eval(make_config(model=tiny_model, out=str(tmp_path / "calibrated"), **RUN),
                          backend=_backend(TransformersBackend, tiny_model))
    assert calibrated.results["timing"]["generation_estimate_seconds_this_run"] > 0
    assert _completions(calibrated) == _completions(plain)

    backend = _backend(TransformersBackend, tiny_model)
    tasks = [t for _, t in load_eval_set(make_config(**RUN))[0]]
    before = backend.generate(tasks, 2)
    rng = torch.random.get_rng_state()
    seconds = backend.estimate_seconds(tasks, 2, 3)
    assert math.isfinite(seconds) and seconds > 0
    assert torch.equal(torch.random.get_rng_state(), rng)
    assert backend.generate(tasks, 2) == before
