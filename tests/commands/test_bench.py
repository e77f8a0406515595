"""``rlvr bench``: a tiny run end to end (fresh processes, a real reward server) and its user errors."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rlvr.cli import main

TINY = ["--quick", "-n", "5", "--duration", "0.5", "--families", "stoich.t1,mol.count", "--workers", "2",
        "--clients", "1", "--batch", "8", "--group", "2"]


def test_a_tiny_run_measures_every_case_and_both_worker_counts(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["bench", *TINY, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text())
    cases = [row["case"] for row in result["families"]]
    assert cases == ["stoich.t1 formula", "stoich.t1 smiles", "mol.count"]
    for row in result["families"]:
        assert row["n"] == 5 and row["oracle_below_1"] == 0, row
        assert min(row["tasks_per_s"], row["first_per_s"], row["again_per_s"]) > 0, row
        assert (row["parse_floor_per_s"] is None) == (row["case"] == "stoich.t1 formula"), row
        assert row["case"] in printed
    assert [row["workers"] for row in result["server"]] == [1, 2]
    assert all(row["requests"] > 0 and row["completions_per_s"] > 0 for row in result["server"])
    size = result["sizing"]
    assert size["completions_per_s"] == max(row["completions_per_s"] for row in result["server"])
    assert f"enough for a trainer producing {size['rollouts_per_s']:,.0f} rollouts/s" in printed
    assert result["settings"]["n"] == 5 and result["machine"]["cpus"] >= 1


@pytest.mark.parametrize("argv, message", [
    (["--families", "no.such"], "unknown families ['no.such']"),
    (["--duration", "0"], "--duration must be positive"),
    (["-n", "0"], "must be"),
])
def test_mistakes_end_in_one_line(argv, message):
    proc = subprocess.run([sys.executable, "-m", "rlvr.cli", "bench", "--no-server", *argv], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_an_existing_json_file_is_kept_without_overwrite(tmp_path, capsys):
    out = tmp_path / "mine.json"
    out.write_text("keep me")
    assert main(["bench", "--no-server", "-n", "2", "--families", "mol.count", "--json", str(out)]) == 2
    assert out.read_text() == "keep me" and "--overwrite" in capsys.readouterr().err
    assert main(["bench", "--no-server", "-n", "2", "--families", "mol.count", "--json", str(out),
                 "--overwrite"]) == 0
    assert json.loads(out.read_text())["server"] == []


# ------------------------------------------------------------------------------------------- --gpu, --plugin
PLUGIN = Path(__file__).resolve().parents[1] / "families" / "fixtures" / "mol_mw.py"


def _has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


@pytest.fixture(scope="module")
def tiny_model() -> str:
    """A tiny random causal LM with the embedded model's tokenizer (built once, cached)."""
    from rlvr.paths import cache_dir
    from rlvr.train.tiny import build_tiny_model

    return build_tiny_model(cache_dir("test-models") / "tiny-eval")


@pytest.mark.skipif(_has_cuda(), reason="checks the message of a machine without CUDA")
def test_gpu_without_cuda_is_one_line():
    proc = subprocess.run([sys.executable, "-m", "rlvr.cli", "bench", "--gpu"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "--gpu needs a CUDA GPU" in proc.stderr


def test_the_plugin_option_is_read(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rlvr.cli", "bench", "--plugin", str(PLUGIN), "--no-server", "-n", "2",
                           "--families", "mol.mw"], capture_output=True, text=True, timeout=300)
    # the plugin family itself is measured: its rows run in child processes that load the plugin too
    assert proc.returncode == 0 and "mol.mw" in proc.stdout, proc.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('no such thing')\n")
    proc = subprocess.run([sys.executable, "-m", "rlvr.cli", "bench", "--plugin", str(broken), "--no-server"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--plugin" in proc.stderr and "Traceback" not in proc.stderr


def test_the_gpu_measurements_run_on_cpu_with_a_tiny_model(tiny_model):
    from rlvr.bench import gpu

    tasks = gpu.eval_tasks(6)
    sorted_row = gpu.measure_eval(tiny_model, device="cpu", tasks=tasks, batch_size=3, max_new_tokens=4, threads=1)
    assert sorted_row.tasks == 6 and sorted_row.completions_per_s > 0 and sorted_row.device == "cpu"
    assert 1 <= sorted_row.mean_tokens <= 4
    assert sorted_row.utilisation.startswith("unavailable")
    unsorted = gpu.measure_eval(tiny_model, device="cpu", tasks=tasks, batch_size=3, max_new_tokens=4, threads=1,
                                sort_by_length=False)
    assert unsorted.sort_by_length is False and unsorted.completions_per_s > 0
    assert unsorted.texts == sorted_row.texts and len(sorted_row.texts) == 6  # the same greedy answers, in task order
    fixed = gpu.measure_eval(tiny_model, device="cpu", tasks=tasks, batch_size=4, max_new_tokens=4, threads=1,
                             decoding="fixed", compile_backend="eager")
    assert fixed.decoding == "fixed" and fixed.warmup_s > 0 and fixed.load_s > 0 and fixed.texts == sorted_row.texts
    change = gpu.differences(fixed, sorted_row)
    assert change == {"texts_differ": 0.0, "verdicts_differ": 0.0, "em_change": 0.0, "paired_se": 0.0}
    flipped = dataclasses.replace(fixed, texts=["x", *fixed.texts[1:]], correct=[True, *[False] * 5])
    assert gpu.differences(flipped, dataclasses.replace(sorted_row, correct=[False] * 6)) == {
        "texts_differ": round(1 / 6, 4), "verdicts_differ": round(1 / 6, 4), "em_change": round(1 / 6, 4),
        "paired_se": round((1 / 6) ** 0.5 / 6 ** 0.5, 4)}
    row = {"lever": "decoding=fixed", **fixed.to_dict(), "vs_default": change}
    assert "eval [decoding=fixed]  batch    4  fixed cache" in gpu.text({"device": "cpu", "eval": [row]})
    speed = gpu.measure_grpo("quickstart_gpu", model=tiny_model, steps=2, device="cpu", overrides=[
        "--per_device_train_batch_size", "4", "--num_generations", "2", "--steps_per_generation", "1",
        "--max_completion_length", "4", "--bf16", "false", "--use_cpu", "true"])
    assert speed.steps == 2 and speed.completions_per_step == 4
    assert all(g > 0 for g in speed.generation_seconds) and all(s > g for s, g in zip(speed.step_seconds, speed.generation_seconds))
    assert speed.mean_update_s > 0 and abs(speed.mean_step_s - speed.mean_generation_s - speed.mean_update_s) < 1e-3
    merged = gpu.measure_grpo("quickstart_gpu", model=tiny_model, steps=2, device="cpu", overrides=[
        "--per_device_train_batch_size", "4", "--num_generations", "2", "--steps_per_generation", "1",
        "--max_completion_length", "4", "--bf16", "false", "--use_cpu", "true", "--generate_merged", "true"])
    assert merged.steps == 2 and all(g > 0 for g in merged.generation_seconds)
    printed = gpu.text({"device": "cpu", "eval": [sorted_row.to_dict()], "grpo": speed.to_dict(),
                        "grpo_levers": [{"lever": "generate_merged=true", **merged.to_dict()}]})
    assert "completions/s" in printed and "generation" in printed and "update" in printed
    assert "grpo [generate_merged=true]  4 completions/step" in printed


def test_a_malformed_grpo_lever_is_one_line():
    from rlvr.commands.bench import EVAL_LEVERS, eval_lever, lever_argv
    from rlvr.commands.errors import UsageError

    assert eval_lever("decoding=fixed,attention=rlvr_grouped_sdpa") == {"decoding": "fixed",
                                                                        "attention": "rlvr_grouped_sdpa"}
    assert all(eval_lever(lever) for lever in EVAL_LEVERS)
    with pytest.raises(UsageError, match="unknown key 'cache'"):
        eval_lever("cache=static")
    with pytest.raises(UsageError, match="decoding must be one of"):
        eval_lever("decoding=paged")

    assert lever_argv("generate_merged=true, lora_layers=top:8") == ["--generate_merged", "true", "--lora_layers", "top:8"]
    with pytest.raises(UsageError, match="--grpo-lever 'generate_merged': each item must look like KEY=VALUE"):
        lever_argv("generate_merged")
    with pytest.raises(UsageError, match="--try '=3e-4'"):  # scripts/tune_arms.py names its own option
        lever_argv("=3e-4", option="--try")
