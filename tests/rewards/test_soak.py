"""A short soak of ``rlvr serve-rewards --workers 2 --token`` (scripts/soak_server.py): mixed right, wrong
and hostile load of every family, a SIGKILLed worker, a checker blocked in C, a mid-request disconnect,
an oversized body and too many samples. No wrong reward, no HTTP error outside the kill window, no
traceback in the server log; the native-code hang through ``make_async_reward`` delays a step by at most
the verdict deadline (plus the time to replace the scoring process)."""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rlvr
from rlvr.rewards.trl import make_async_reward

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = str(Path(__file__).with_name("hang_family.py"))
SLACK = 2.5  # seconds past the deadline on a slow, loaded machine: grace, kill and a new scoring process


@pytest.mark.slow
def test_short_soak_with_faults(tmp_path):
    out = tmp_path / "soak.json"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "soak_server.py"), "--duration", "15",
                           "--clients", "3", "--timeout", "1", "--hang-rate", "0.01", "--json", str(out)],
                          capture_output=True, text=True, timeout=400, cwd=ROOT)
    assert out.exists(), proc.stdout + proc.stderr
    result = json.loads(out.read_text())
    assert result["samples"] > 1000, result
    assert result["wrong_rewards"] == 0 and result["tracebacks"] == 0, result
    assert result["http_errors_outside_kill_window"] == 0, result
    assert result["faults"]["oversized_body_status"] == 413 and result["faults"]["too_many_samples_status"] in (413, 422)
    assert result["faults"]["workers_after_kill"] == 2
    assert result["hung_requests"] == 0 or result["hung_request_max_s"] < 1 + SLACK + 5, result
    assert proc.returncode == 0 and "PASSED" in proc.stdout, proc.stdout


def _columns(labels):
    return {"task_json": labels, "trainer_state": None, "log_extra": lambda *a: None, "log_metric": lambda *a: None}


@pytest.mark.slow
def test_a_checker_blocked_in_c_delays_an_async_step_by_at_most_the_deadline(hang_in_process):
    module = hang_in_process
    timeout = 1.0
    tasks = [rlvr.generate(f, seed=3) for f in rlvr.list_families() if not f.startswith("test.")]
    labels = [t.to_json() for t in tasks] + [rlvr.generate(module.NAME).to_json()]
    completions = [rlvr.oracle_completion(t) for t in tasks] + ["<answer>native</answer>"]
    fn = make_async_reward(workers=1, timeout=timeout, imports=[PLUGIN])
    try:
        base = asyncio.run(fn(prompts=["p"] * len(tasks), completions=completions[:-1], **_columns(labels[:-1])))
        assert base == [1.0] * len(tasks)
        start = time.monotonic()
        out = asyncio.run(fn(prompts=["p"] * len(labels), completions=completions, **_columns(labels)))
        delay = time.monotonic() - start
        assert out == base + [0.0]
        assert delay < timeout + SLACK, delay
    finally:
        fn.close()
