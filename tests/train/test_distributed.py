"""Two CPU processes (gloo) under ``accelerate launch``: disjoint tasks, gathered rewards, one checkpoint."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    """An unused loopback port, so concurrent runs never collide on the rendezvous port."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _kill_tree(pid: int) -> None:
    import psutil

    try:
        parent = psutil.Process(pid)
        procs = parent.children(recursive=True) + [parent]
    except psutil.NoSuchProcess:
        return
    for p in procs:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _launch(cmd: list[str], env: dict[str, str], cwd: Path, what: str) -> tuple[int, str]:
    """Run an ``accelerate launch`` command for at most 300 s: its exit status and stderr. On a timeout the launcher
    *and* its workers are killed, never orphaned: the workers run in sessions of their own, so they are collected by
    process tree before the launcher dies."""
    with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                          start_new_session=True) as proc:
        try:
            _, stderr = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            _kill_tree(proc.pid)
            _, stderr = proc.communicate(timeout=30)
            pytest.fail(f"{what} did not finish within 300 s:\n{stderr[-4000:]}")
    return proc.returncode, stderr


@pytest.mark.slow
def test_two_process_run(tmp_path, tiny_model, make_recipe):
    if shutil.which("accelerate") is None:
        pytest.skip("accelerate CLI not installed")
    probe = tmp_path / "probe"
    probe.mkdir()
    out = tmp_path / "out"
    # per rank: 2 completions = one prompt x num_generations 2, so every group lives on one rank
    recipe = make_recipe(
        tmp_path / "r.yaml", tiny_model, out,
        per_device_train_batch_size=2, num_generations=2, max_steps=2, save_steps=2,
        reward_funcs=["probe_rewards.probe_reward"],
    )
    env = dict(os.environ)
    env["RLVR_PROBE_DIR"] = str(probe)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), str(ROOT), env.get("PYTHONPATH", "")])
    env["OMP_NUM_THREADS"] = "1"
    cmd = [
        sys.executable, "-m", "accelerate.commands.launch",
        "--config_file", str(ROOT / "recipes" / "accelerate" / "cpu_ddp.yaml"),
        "--main_process_port", str(_free_port()),
        str(ROOT / "scripts" / "train.py"), "--config", str(recipe),
    ]
    returncode, stderr = _launch(cmd, env, tmp_path, "two-process run")
    assert returncode == 0, stderr[-4000:]
    calls = {r: [json.loads(x) for x in (probe / f"rank{r}.jsonl").read_text().splitlines()] for r in (0, 1)}
    for r in (0, 1):
        assert calls[r] and all(c["world_size"] == 2 and c["env_world_size"] == 2 and c["rank"] == r for c in calls[r])
    ids0 = {i for c in calls[0] for i in c["ids"]}
    ids1 = {i for c in calls[1] for i in c["ids"]}
    assert ids0 and ids1 and not ids0 & ids1, "ranks trained on overlapping tasks"
    # the logged reward of step 1 is the mean over BOTH ranks' rewards (gathered), not rank 0's alone
    state = json.loads((out / "checkpoint-2" / "trainer_state.json").read_text())
    logged = [h["reward"] for h in state["log_history"] if "reward" in h]
    first = calls[0][0]["rewards"] + calls[1][0]["rewards"]
    assert logged[0] == pytest.approx(sum(first) / len(first), abs=1e-5)
    # one checkpoint, written once
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-2"]
    assert (out / "checkpoint-2" / "adapter_model.safetensors").is_file()
    info = json.loads((out / "run_info.json").read_text())
    assert info["world_size"] == 2 and info["global_step"] == 2


@pytest.mark.slow
def test_the_fsdp_config_on_two_cpu_processes_is_refused_in_one_line(tmp_path, tiny_model, make_recipe):
    """``recipes/accelerate/fsdp.yaml`` on CPU under gloo (two processes, ``use_cpu``, no mixed precision): accelerate
    1.x has no CPU FSDP and would run it as plain DDP, so a rank refuses it in one line before loading a model."""
    import yaml

    if shutil.which("accelerate") is None:
        pytest.skip("accelerate CLI not installed")
    config = yaml.safe_load((ROOT / "recipes" / "accelerate" / "fsdp.yaml").read_text())
    assert config["distributed_type"] == "FSDP"
    config.update(use_cpu=True, num_processes=2, mixed_precision="no")
    cpu_fsdp = tmp_path / "cpu_fsdp.yaml"
    cpu_fsdp.write_text(yaml.safe_dump(config))
    out = tmp_path / "out"
    recipe = make_recipe(tmp_path / "r.yaml", tiny_model, out, per_device_train_batch_size=2, num_generations=2)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "RLVR_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(cpu_fsdp),
           "--main_process_port", str(_free_port()), str(ROOT / "scripts" / "train.py"), "--config", str(recipe)]
    returncode, stderr = _launch(cmd, env, tmp_path, "the refused FSDP launch")
    assert returncode != 0
    ours = [line for line in stderr.splitlines() if line.startswith("scripts/train.py:")]
    refusals = [line for line in ours if line.startswith("scripts/train.py: error: FSDP needs a CUDA GPU")]
    # the first rank to refuse ends the launch: the launcher stops the other, which may not have reached its check yet
    assert 1 <= len(refusals) <= 2 and refusals == ours, stderr[-4000:]
    assert all(line.count("scripts/train.py") == 1 for line in refusals), refusals  # no two ranks' lines spliced
    assert not out.exists()
