"""The GPU job queue (``scripts/gpu_jobs.sh``, docs/results/gpu.md): the ``rl`` pair of jobs rehearsed on CPU with the
tiny model end to end (``rl-tune`` with a trimmed grid, then ``rl`` with its choice), every job's command plan read
by the real command-line parsers, the speed verdicts, the deadlines, and the user's mistakes.

The other jobs' full rehearsals (``speed``, ``molecules-tune``, ``molecules``) take a minute or more each on two
cores, so they are run by hand (docs/results/gpu.md); here their plans are checked.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import json
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from rlvr.bench import gpu
from rlvr.bench.gpu_jobs import MAX_FILES, bundle, lever_verdicts, merge_verdicts, runs_tarball, shrink, speed_report

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_jobs.py"


@pytest.fixture(scope="module")
def jobs():
    spec = importlib.util.spec_from_file_location("gpu_jobs_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(ROOT / "scripts" / "gpu_jobs.sh"), *args], capture_output=True, text=True,
                          timeout=300)


# ----------------------------------------------------------------------------------------- the rl pair, rehearsed
@pytest.mark.slow
def test_rl_tune_then_rl_rehearse_end_to_end(jobs, tmp_path, monkeypatch):
    spec = jobs.PLANS["rl-tune"]["tuning"]
    # the grid trimmed to 2 RL candidates (two shapes) and one of each control: the same steps, fewer processes
    trimmed = dataclasses.replace(spec, rl_grid=(spec.rl_grid[0], spec.rl_grid[-1]), control_grid=spec.control_grid[:1],
                                  rft_grid=spec.rft_grid[:1])
    monkeypatch.setitem(jobs.PLANS, "rl-tune", {"tuning": trimmed})
    tune_out = tmp_path / "tune-out"
    assert jobs.main(["rl-tune", "--rehearse", "--work", str(tmp_path / "tune"), "--out", str(tune_out)]) == 0
    assert sorted(p.name for p in tune_out.iterdir()) == sorted(
        ["job.json", "commands.sh", "nvidia_smi.csv", "log.txt", "report.md", "tuning.json", "runs.tar.gz"])
    job = json.loads((tune_out / "job.json").read_text())
    assert job["status"] == "ok" and job["rehearsal"] and job["seconds"] < jobs.BUDGET_S
    assert [p["phase"] for p in job["phases"]] == ["prepare", "warm_start", "rl_grid", "control_rft_grid"]
    assert job["phases"][0]["commands"][0]["argv"][-1] == jobs.PREPARE_CODE
    tuning = json.loads((tune_out / "tuning.json").read_text())
    assert [len(tuning[arm]["candidates"]) for arm in ("rl", "control", "rft")] == [2, 1, 1]
    assert all(c["score"]["n"] == 2 for arm in ("rl", "control", "rft") for c in tuning[arm]["candidates"])
    # the rehearsal shrinks sizes only: the first candidate's rate and generation batch, 1 step of batch 4
    assert tuning["rl"]["chosen"] == shrink(spec.rl_grid[0]) == "max_steps=1,per_device_train_batch_size=4," \
                                                                "steps_per_generation=4,learning_rate=1e-4"
    assert tuning["overrides"] == [*tuning["rl"]["chosen"].split(","), spec.control_grid[0], spec.rft_grid[0]]
    shape = tuning["rl"]["chosen"].rsplit(",", 1)[0]
    assert tuning["control"]["candidates"][0]["candidate"] == f"{shape},{spec.control_grid[0]}"
    script = (tune_out / "commands.sh").read_text()
    assert script.count("tune_arms.py") == 5 and "--rl-run" in script and script.count("wait") == 2
    assert "| rl | `max_steps=1," in (tune_out / "report.md").read_text()

    seeds_out = tmp_path / "seeds-out"
    assert jobs.main(["rl", "--rehearse", "--tuning", str(tune_out / "tuning.json"), "--work", str(tmp_path / "seeds"),
                      "--out", str(seeds_out), "--budget", "700"]) == 0
    files = sorted(p.name for p in seeds_out.iterdir())
    assert len(files) <= MAX_FILES and {"summaries.json", "report.md", "runs.tar.gz", "tuning.json"} <= set(files)
    job = json.loads((seeds_out / "job.json").read_text())
    assert job["status"] == "ok" and job["tuning"]["from_file"] == str(tune_out / "tuning.json")
    assert job["budget_s"] == 700 and job["plan"]["seeds"] == 685
    assert [(p["phase"], p["deadline_s"]) for p in job["phases"][:2]] == [("prepare", 90), ("seeds", 685)]
    assert {label: run["grpo_steps"] for label, run in job["seeds"]["runs"].items()} == {"seed0": 1, "seed1": 1, "seed2": 1}
    summaries = json.loads((seeds_out / "summaries.json").read_text())
    assert [summaries["runs"][f"seed{s}"]["summary"]["seed"] for s in (0, 1, 2)] == [0, 1, 2]
    script = (seeds_out / "commands.sh").read_text()
    assert script.count("-m rlvr.cli quickstart --recipe quickstart_gpu") == 3 and "-s learning_rate=1e-4" in script
    assert "-s 'rft={" in script  # rft.learning_rate merged into the recipe's rft mapping
    report = (seeds_out / "report.md").read_text()
    assert "| seed | primary test" in report and report.count(": quickstart.md") == 3
    with tarfile.open(seeds_out / "runs.tar.gz") as tar:
        names = tar.getnames()
    assert "seed0/summary.json" in names and not any(n.endswith((".safetensors", "tokenizer.json")) for n in names)


# ---------------------------------------------------------------------------------------------------- the plans
def _quickstart_and_bench_argv(argv: list[str]) -> list[str] | None:
    """The rlvr command line inside a planned command (``-m rlvr.cli ...`` or the rehearsal's bench), else None."""
    if argv[1:3] == ["-m", "rlvr.cli"]:
        return argv[3:]
    if argv[2:3] == ["bench-on-cpu"]:
        return argv[3:]
    return None


@pytest.mark.parametrize("job", ["rl-tune", "rl", "speed", "molecules-tune", "molecules"])
@pytest.mark.parametrize("rehearse", [False, True])
def test_every_planned_command_is_read_by_its_parser(jobs, job, rehearse, tmp_path):
    from rlvr.cli import build_parser

    args = ["--dry-run", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o"), *(["--rehearse"] if rehearse else [])]
    if "claims" in jobs.PLANS[job]:  # a choice as the tune job records it
        choice = {"recipe": jobs.PLANS[job]["claims"].recipe, "rehearsal": rehearse,
                  "overrides": ["max_steps=24", "learning_rate=1e-4", "control_learning_rate=3e-5", "rft.learning_rate=3e-4"]}
        (tmp_path / "tuning.json").write_text(json.dumps(choice))
        args += ["--tuning", str(tmp_path / "tuning.json")]
    proc = subprocess.run([sys.executable, str(SCRIPT), job, *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert plan["phases"][0] == ["prepare", [[sys.executable, "-c", jobs.PREPARE_CODE]]]
    commands = [argv for _, group in plan["phases"][1:] for argv in group]
    assert commands
    for argv in commands:
        rlvr_argv = _quickstart_and_bench_argv(argv)
        if rlvr_argv is None:
            assert argv[1].endswith("scripts/tune_arms.py") and "--tuning-set" in argv
        else:
            parsed = build_parser().parse_args([a.replace("<the levers that passed>", "decoding=static") for a in rlvr_argv])
            assert parsed.command == ("bench" if job == "speed" else "quickstart")
            if job == "speed":
                assert parsed.gpu and parsed.json
            else:  # the choice as -s overrides, the rft rate merged into the recipe's rft mapping
                assert parsed.seed in (0, 1, 2) and {"max_steps=24", "control_learning_rate=3e-5"} <= set(parsed.set)
                assert json.loads(next(v for v in parsed.set if v.startswith("rft="))[4:])["learning_rate"] == 3e-4
        if job != "speed":
            assert argv[argv.index("--device") + 1] == ("cpu" if rehearse else "cuda")
    seeds = [a for a in commands if "quickstart" in a]
    assert len(seeds) == (3 if "claims" in jobs.PLANS[job] else 0)
    assert [phase for phase, _ in plan["phases"][1:]] == list(jobs.PLANS["speed"]) if job == "speed" else True


def test_every_grid_value_is_a_field_of_its_recipe_and_the_plans_fit(jobs, tmp_path):
    for name, plan in jobs.PLANS.items():
        if "tuning" in plan:  # at GPU values, read by the recipe parser (a renamed field fails here, not on a GPU)
            run = jobs.Run(name, tmp_path, False, None)
            jobs.check_fields(run, plan, None)
            t = plan["tuning"]
            assert t.warm_deadline < t.rl_deadline < t.arms_deadline <= jobs.BUDGET_S - 10
        if "claims" in plan:
            c = plan["claims"]
            assert c.reserve_s < c.min_s <= c.deadline <= jobs.BUDGET_S - 10
    assert list(jobs.PLANS["speed"].values()) == sorted(jobs.PLANS["speed"].values())
    assert max(jobs.PLANS["speed"].values()) <= jobs.BUDGET_S - 10
    # the prepare phase ends before any job's first deadline, and leaves a seeds job its minimum
    firsts = [min(jobs.PLANS["speed"].values()), jobs.PLANS["fsdp"]["launches"][0].deadline,
              *(p["tuning"].warm_deadline for p in jobs.PLANS.values() if "tuning" in p)]
    assert jobs.PREPARE_DEADLINE + 60 <= min(firsts)
    assert all(p["claims"].deadline - jobs.PREPARE_DEADLINE >= p["claims"].min_s for p in jobs.PLANS.values() if "claims" in p)
    bad = dataclasses.replace(jobs.PLANS["rl-tune"]["tuning"], rl_grid=("max_steps=24,per_device_train_batch_size=30",))
    with pytest.raises(jobs.JobError, match="does not take 'max_steps=24,per_device_train_batch_size=30'"):
        jobs.check_fields(jobs.Run("rl-tune", tmp_path, False, None), {"tuning": bad}, None)


def test_the_recorded_gpu_choice_is_read_by_the_recipe_parser_and_a_budget_moves_the_seeds_deadline(jobs, tmp_path):
    choice = json.loads((jobs.RESULTS / "rl-tune" / "tuning.json").read_text())
    assert choice["recipe"] == "quickstart_gpu" and not choice["rehearsal"]
    jobs.check_fields(jobs.Run("rl", tmp_path, False, None), jobs.PLANS["rl"], choice["overrides"])
    for budget, deadline in ((None, 525), ("780", 765)):
        proc = _cli("rl", "--dry-run", *(["--budget", budget] if budget else []), "--work", str(tmp_path / "w"),
                    "--out", str(tmp_path / "o"))
        assert proc.returncode == 0, proc.stderr
        plan = json.loads(proc.stdout)
        assert plan["plan"]["seeds"] == deadline
        assert [a for a in plan["phases"][1][1][0] if a.startswith("max_steps=")] == ["max_steps=24"]


def test_the_rehearsal_shrinks_sizes_and_keeps_rates():
    assert shrink("max_steps=48,per_device_train_batch_size=32,steps_per_generation=2,learning_rate=3e-4") == \
        "max_steps=2,per_device_train_batch_size=4,steps_per_generation=2,learning_rate=3e-4"
    assert shrink("rft.learning_rate=1e-4") == "rft.learning_rate=1e-4"


# -------------------------------------------------------------------------------------------------- the verdicts
def _row(cps: float, correct: list[bool], lever: str | None = None, default: gpu.EvalSpeed | None = None) -> dict:
    """A ``rlvr bench --gpu`` eval row as run_gpu reports it (EvalSpeed, and the differences from the default)."""
    row = gpu.EvalSpeed(device="cuda", dtype="bfloat16", batch_size=256, max_new_tokens=80, tasks=len(correct),
                        static_cache=False, sort_by_length=True, adapter_merged=False, seconds=1.0,
                        completions_per_s=cps, tokens_per_s=cps * 50, mean_tokens=50.0,
                        em=sum(correct) / len(correct), texts=[str(c) for c in correct], correct=correct)
    if lever is None:
        return row
    return {"lever": lever, **row.to_dict(), "vs_default": gpu.differences(row, default)}


def test_a_lever_passes_only_faster_and_within_one_paired_se():
    base = [True, False] * 50
    default = _row(66.0, base)
    one_flip = [not base[0], *base[1:]]          # 1 task of 100 lost: change -0.01, paired SE 0.01
    many_flips = [False] * 100                    # 50 lost: far outside one SE
    result = {"eval": [default.to_dict(), _row(190.0, base, "decoding=static", default),
                       _row(70.0, one_flip, "decoding=fixed", default), _row(300.0, many_flips, "attention=x", default),
                       _row(60.0, base, "decoding=fixed,attention=x", default)]}
    grpo = {"grpo": {"completions_per_step": 64, "mean_step_s": 2.82, "mean_generation_s": 2.31},
            "grpo_levers": [{"lever": "generate_merged=true", "completions_per_step": 64, "mean_step_s": 2.0,
                             "mean_generation_s": 1.5}]}
    first = lever_verdicts(result, grpo)
    assert [(v["lever"], v["faster"], v["em_within_se"], v["passes"]) for v in first] == [
        ("decoding=static", True, True, True), ("decoding=fixed", True, True, True),
        ("attention=x", True, False, False), ("decoding=fixed,attention=x", False, True, False),
        ("generate_merged=true", True, None, True)]
    assert first[1]["em_change"] == -0.01 and first[1]["paired_se"] == 0.01
    assert first[-1]["completions_per_s"] == round(64 / 2.0, 2) and first[-1]["default_completions_per_s"] == 22.7
    # the confirmation: static passes again, fixed does not, the GRPO lever was not confirmed
    again = lever_verdicts({"eval": [default.to_dict(), _row(180.0, base, "decoding=static", default),
                                     _row(60.0, base, "decoding=fixed", default)]}, {})
    merged = {v["lever"]: v for v in merge_verdicts(first, again)}
    assert [merged[k]["adopt"] for k in ("decoding=static", "decoding=fixed", "attention=x", "generate_merged=true")] \
        == [True, False, False, None]
    assert merged["attention=x"]["reason"] == "exact match moved by more than one paired SE"
    assert merged["decoding=fixed,attention=x"]["reason"] == "not faster than the default path"
    table = speed_report(list(merged.values()))
    assert "| `decoding=static` | eval | 256 | 190.0 / 66.0 |" in table and "unconfirmed" in table


# ------------------------------------------------------------------------------------- deadlines, files, mistakes
def test_a_command_past_its_deadline_is_stopped_and_recorded(jobs, tmp_path):
    from rlvr.bench.gpu_jobs import commands_sh, log_tails

    run = jobs.Run("rl", tmp_path, True, None)
    sleeper = [sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"]
    t0 = time.monotonic()
    rows = run.parallel("seeds", [("a", sleeper), ("b", [sys.executable, "-c", "print('done')"])], deadline=6)
    assert time.monotonic() - t0 < 15
    assert [(r["label"], r["timed_out"], r["rc"] == 0) for r in rows] == [("a", True, False), ("b", False, True)]
    assert "# a: stopped at the deadline" in commands_sh("rl", run.phases, {}) and " &  # b: exit 0" in \
        commands_sh("rl", run.phases, {})
    assert "===== seeds / a: rc" in log_tails(run.phases) and "started" in log_tails(run.phases)
    with pytest.raises(jobs.JobError, match="earlier phases overran"):
        run.parallel("late", [("c", sleeper)], deadline=run.elapsed() + 1)


def test_the_bundle_holds_at_most_eight_files_and_the_tarball_no_models(tmp_path):
    with pytest.raises(ValueError, match="at most 8"):
        bundle(tmp_path / "out", {f"f{i}.txt": "x" for i in range(MAX_FILES + 1)})
    run = tmp_path / "work" / "seed0"
    (run / "train" / "checkpoint-2").mkdir(parents=True)
    for name in ("summary.json", "train/trainer_state.json", "train/tokenizer.json", "train/checkpoint-2/x.json",
                 "train/adapter_model.safetensors"):
        (run / name).write_text("{}")
    (tmp_path / "work" / "nvidia_smi.csv").write_text("a\n")
    info = runs_tarball(tmp_path / "work" / "runs.tar.gz", tmp_path / "work")
    with tarfile.open(tmp_path / "work" / "runs.tar.gz") as tar:
        assert sorted(tar.getnames()) == ["seed0/summary.json", "seed0/train/trainer_state.json"]
    assert info["files"] == 2 and info["left_out"] == []


@pytest.mark.parametrize("args, message", [
    (["nope"], "invalid choice: 'nope'"),
    (["speed", "--rehearse", "--tuning", "x.json"], "--tuning is for the jobs that run seeds"),
    (["rl", "--rehearse", "--tuning", "/no/such/tuning.json"], "run `bash scripts/gpu_jobs.sh rl-tune` first"),
    (["speed", "--rehearse", "--budget", "700"], "--budget is for the jobs that run seeds (rl, molecules), not speed"),
    (["rl", "--rehearse", "--budget", "900"], "--budget 900: give 540-800 seconds"),
    (["rl", "--rehearse", "--budget", "500"], "--budget 500: give 540-800 seconds"),
])
def test_mistakes_end_in_one_line(args, message, tmp_path):
    proc = _cli(*args, "--out", str(tmp_path / "o"), "--work", str(tmp_path / "w"))
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr


def test_nothing_is_overwritten_and_a_gpu_choice_is_not_rehearsed(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "job.json").write_text("keep me")
    proc = _cli("speed", "--rehearse", "--out", str(out), "--work", str(tmp_path / "w"))
    assert proc.returncode == 2 and "--overwrite" in proc.stderr and (out / "job.json").read_text() == "keep me"
    choice = tmp_path / "tuning.json"
    choice.write_text(json.dumps({"recipe": "quickstart_gpu", "rehearsal": False, "overrides": ["max_steps=24"]}))
    proc = _cli("rl", "--rehearse", "--tuning", str(choice), "--out", str(tmp_path / "o2"), "--work", str(tmp_path / "w"))
    assert proc.returncode == 2 and "comes from a GPU run; this is a rehearsal" in proc.stderr
    choice.write_text(json.dumps({"recipe": "quickstart_molecules_gpu", "rehearsal": True, "overrides": ["a=1"]}))
    proc = _cli("rl", "--rehearse", "--tuning", str(choice), "--out", str(tmp_path / "o2"), "--work", str(tmp_path / "w"))
    assert proc.returncode == 2 and "no complete choice for recipe quickstart_gpu" in proc.stderr


def test_a_job_that_fails_still_writes_its_files_and_says_why_in_one_line(tmp_path):
    choice = tmp_path / "tuning.json"
    choice.write_text(json.dumps({"recipe": "quickstart_gpu", "rehearsal": True, "rl": {}, "overrides": ["no_such_field=1"]}))
    out = tmp_path / "o"
    proc = _cli("rl", "--rehearse", "--tuning", str(choice), "--out", str(out), "--work", str(tmp_path / "w"))
    assert proc.returncode == 1 and "does not take 'no_such_field=1'" in proc.stderr, proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    job = json.loads((out / "job.json").read_text())
    assert job["status"] == "failed" and "no_such_field" in job["message"] and job["phases"] == []
    assert {"commands.sh", "log.txt", "nvidia_smi.csv", "report.md", "tuning.json"} <= {p.name for p in out.iterdir()}


def _has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


@pytest.mark.skipif(_has_cuda(), reason="checks the message of a machine without CUDA")
def test_a_gpu_job_without_a_gpu_is_one_line(tmp_path):
    proc = _cli("speed", "--out", str(tmp_path / "o"), "--work", str(tmp_path / "w"))
    assert proc.returncode == 2 and "no CUDA GPU is visible here" in proc.stderr and "--rehearse" in proc.stderr
    assert not (tmp_path / "o").exists() and not (tmp_path / "w").exists()


# ------------------------------------------------------------------------------------------------ the fsdp job
@pytest.mark.parametrize("rehearse", [False, True])
def test_the_fsdp_plan_is_read_by_accelerate_and_the_recipe_parser(jobs, rehearse, tmp_path):
    """Each launch of the ``fsdp`` job: accelerate's own launch parser reads its options and config, and the training
    arguments after ``scripts/train.py`` are read by the recipe parser for a CUDA device."""
    import contextlib
    import io

    import yaml
    from accelerate.commands.launch import launch_command_parser

    from rlvr.device import Device
    from rlvr.train.recipe import parse_recipe

    args = ["--dry-run", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "o"), *(["--rehearse"] if rehearse else [])]
    proc = subprocess.run([sys.executable, str(SCRIPT), "fsdp", *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert [label for label, _ in plan["phases"]] == ["prepare", "fsdp_lora", "fsdp_full", "zero2"]
    deadlines = [x.deadline for x in jobs.PLANS["fsdp"]["launches"]]
    assert deadlines == sorted(deadlines) and deadlines[-1] <= jobs.BUDGET_S - 10
    kinds = []
    for _, [argv] in plan["phases"][1:]:
        assert argv[1:3] == ["-m", "accelerate.commands.launch"]
        launch = launch_command_parser().parse_args(argv[3:])
        assert launch.num_processes == 1 and launch.training_script.endswith("scripts/train.py")
        kinds.append(yaml.safe_load(Path(launch.config_file).read_text())["distributed_type"])
        train_args = launch.training_script_args
        if rehearse:
            assert train_args[train_args.index("--model_name_or_path") + 1] == "<tiny model>"
            continue
        with contextlib.redirect_stderr(io.StringIO()):
            recipe = parse_recipe([*train_args, "--bf16", "false"], prog="gpu_jobs", device=Device("cuda", "bfloat16"))
        assert recipe.training.max_steps == jobs.LAUNCH_STEPS and recipe.training.output_dir.startswith(str(tmp_path))
    assert kinds == ["FSDP", "FSDP", "DEEPSPEED"]


@pytest.mark.slow
def test_the_fsdp_job_rehearsed_records_why_each_config_did_not_run_on_cpu(tmp_path):
    """On CPU every launch is refused (no CPU FSDP in accelerate, DeepSpeed absent or GPU-only): the job still ends
    ``ok`` with each config's one line of why, which is the job's finding on a GPU too."""
    out = tmp_path / "o"
    proc = _cli("fsdp", "--rehearse", "--out", str(out), "--work", str(tmp_path / "w"))
    assert proc.returncode == 0, proc.stderr
    job = json.loads((out / "job.json").read_text())
    rows = {r["label"]: r for r in job["launches"]}
    assert list(rows) == ["fsdp_lora", "fsdp_full", "zero2"] and not any(r["ran"] for r in rows.values())
    for label in ("fsdp_lora", "fsdp_full"):
        assert rows[label]["error"].startswith("scripts/train.py: error: FSDP needs a CUDA GPU"), rows[label]
    assert "DeepSpeed" in rows["zero2"]["error"] or "deepspeed" in rows["zero2"]["error"]
    report = (out / "report.md").read_text()
    assert report.count("| no |") == 3 and "FSDP needs a CUDA GPU" in report
