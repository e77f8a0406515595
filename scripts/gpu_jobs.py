"""Prepared GPU jobs: each runs as one command of at most 9 minutes on one H100/H200 and writes at most 8 files
(a seeds job given ``--budget`` over 540 s runs detached over two commands, docs/results/gpu.md).

    bash scripts/gpu_jobs.sh rl-tune --out "$OUT"               # on the GPU machine (docs/results/gpu.md)
    bash scripts/gpu_jobs.sh rl-tune --rehearse --out /tmp/rt   # the same steps on CPU with the tiny model

Jobs, in order of priority:

- ``rl-tune``: the stoichiometry GPU recipe's (``quickstart_gpu``) values chosen on ``valid``: seed 0's warm start
  (``scripts/tune_arms.py --arm warm_start``), a short grid of RL values (steps, batch, generation batch, learning
  rate) side by side from it, then the SFT control's and the RFT control's learning rates side by side, matched to
  the chosen RL run; the choice goes to ``tuning.json``;
- ``rl``: three seeds of ``rlvr quickstart --recipe quickstart_gpu`` with their control arms side by side, the
  choice of ``rl-tune`` (``--tuning``) passed as ``-s`` overrides;
- ``speed``: ``rlvr bench --gpu`` with every eval lever and every GRPO lever, a verdict per lever, then the
  default eval path and the levers that passed once more;
- ``molecules-tune`` and ``molecules``: the same two steps for ``quickstart_molecules_gpu`` on ``train_tune``;
- ``fsdp``: two optimizer steps of ``recipes/grpo/stoich_t1_formula.yaml`` under ``accelerate launch`` with
  ``recipes/accelerate/fsdp.yaml`` (one process; the recipe's LoRA, then a full fine-tune), then with ``zero2.yaml``;
  each config ran, or its error line is recorded.

The choice and the seeds are two jobs because together they do not fit one command: docs/results/gpu.md gives
the time plan. Each phase has a deadline (seconds from the job's start, :data:`PLANS`); a command still running at
its deadline is stopped, and the job says so and stops, so that it ends inside :data:`BUDGET_S` with its files
written. Every step is one of the project's command lines (``rlvr quickstart``, ``rlvr bench --gpu``,
``scripts/tune_arms.py``, ``scripts/quickstart_seeds.py``), side by side where the plan says so. ``--rehearse``
runs the same plan on CPU with the tiny model of :mod:`rlvr.train.tiny`, a few steps and a few tasks; ``rlvr bench
--gpu`` then runs its own code with the device resolved to the CPU (``gpu_jobs.py bench-on-cpu ...``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlvr.bench.gpu_jobs import (EVAL_SIZES, GRPO_EVAL_SIZES, REHEARSAL_SETS, RULE, GpuSamples,  # noqa: E402
                                 bundle, commands_sh, dumps, lever_verdicts, log_tails, machine, merge_verdicts,
                                 pairs, runs_tarball, shrink, speed_report, tuning_report)
PY = sys.executable
#: the whole job, files written, in seconds (one device command may run 10 minutes)
BUDGET_S = 540
#: the most ``--budget`` a seeds job may ask for: a session's 15 device minutes less its set-up and the fetch, the
#: job then running detached over two device commands (docs/results/gpu.md)
MAX_BUDGET_S = 800
JOBS = ("rl-tune", "rl", "speed", "molecules-tune", "molecules", "fsdp")
#: the first phase of every job: the embedded model converted into the cache (about 20 s on a fresh machine) and the
#: first imports paid, so that no timed phase pays them (the first ``rl-tune`` stopped at its warm start's deadline
#: for it); its deadline in seconds from the job's start
PREPARE_CODE = "from rlvr.models import ensure_default_model; print(ensure_default_model())"
PREPARE_DEADLINE = 90
SEEDS = (0, 1, 2)


@dataclass(frozen=True)
class Tuning:
    """A recipe's values chosen on its tuning set from seed 0's warm start: the RL candidates side by side, then the
    control arms' candidates side by side (the SFT control at the chosen RL shape, the RFT control on the chosen RL
    run; an empty grid keeps the recipe's values). Deadlines in seconds from the job's start."""

    recipe: str
    tuning_set: str
    rl_grid: tuple[str, ...]
    control_grid: tuple[str, ...]
    rft_grid: tuple[str, ...]
    warm_deadline: int
    rl_deadline: int
    arms_deadline: int


@dataclass(frozen=True)
class Claims:
    """Three seeds of ``rlvr quickstart`` side by side; GRPO is capped (``--minutes``) at the time left minus
    ``reserve_s`` (the runs' other stages); the phase does not start with less than ``min_s`` left. ``deadline``
    is the plan's at :data:`BUDGET_S`; ``--budget`` moves it by the difference."""

    recipe: str
    deadline: int
    reserve_s: int
    min_s: int

    def deadline_at(self, budget: int) -> int:
        """The seeds' deadline for a job of ``budget`` seconds."""
        return self.deadline + budget - BUDGET_S


@dataclass(frozen=True)
class Launch:
    """One accelerate launcher config tried with :data:`LAUNCH_RECIPE` (one process): its label, the config file in
    ``recipes/accelerate/``, extra recipe arguments, and the phase's deadline (seconds from the job's start)."""

    label: str
    config: str
    extra: tuple[str, ...]
    deadline: int


SHAPE = "max_steps={},per_device_train_batch_size={},steps_per_generation={},learning_rate={}"
#: the grids list the recipe's own value first (it wins a tie)
CONTROL_RATES = ("control_learning_rate=1e-4", "control_learning_rate=3e-5", "control_learning_rate=3e-4")
RFT_RATES = ("rft.learning_rate=1e-4", "rft.learning_rate=3e-5", "rft.learning_rate=3e-4")
PLANS: dict[str, dict[str, Any]] = {
    "rl-tune": {"tuning": Tuning(
        "quickstart_gpu", "valid:100",
        rl_grid=(SHAPE.format(24, 64, 4, "1e-4"), SHAPE.format(24, 64, 4, "3e-5"), SHAPE.format(24, 64, 4, "3e-4"),
                 SHAPE.format(48, 32, 2, "1e-4")),
        control_grid=CONTROL_RATES, rft_grid=RFT_RATES, warm_deadline=195, rl_deadline=380, arms_deadline=530)},
    "rl": {"claims": Claims("quickstart_gpu", deadline=525, reserve_s=300, min_s=360)},
    "speed": {"eval_levers": 280, "grpo_levers": 430, "eval_confirm": 500, "grpo_confirm": 530},
    "molecules-tune": {"tuning": Tuning(
        "quickstart_molecules_gpu", "train_tune",
        rl_grid=(SHAPE.format(24, 64, 4, "3e-5"), SHAPE.format(24, 64, 4, "1e-5"), SHAPE.format(24, 64, 4, "1e-4"),
                 SHAPE.format(48, 32, 2, "3e-5")),
        control_grid=CONTROL_RATES, rft_grid=RFT_RATES, warm_deadline=200, rl_deadline=400, arms_deadline=525)},
    "molecules": {"claims": Claims("quickstart_molecules_gpu", deadline=525, reserve_s=330, min_s=390)},
    "fsdp": {"launches": (Launch("fsdp_lora", "fsdp.yaml", (), 170), Launch("fsdp_full", "fsdp.yaml", ("--use_peft", "false"), 330),
                          Launch("zero2", "zero2.yaml", (), 500))},
}
#: the GRPO recipe the launcher configs are tried with (two optimizer steps, no eval, a final save)
LAUNCH_RECIPE = ROOT / "recipes" / "grpo" / "stoich_t1_formula.yaml"
LAUNCH_STEPS = 2
#: where a session keeps the returned files of a job (docs/results/gpu.md), and so the default --tuning
RESULTS = ROOT / "docs" / "results" / "gpu"
#: recipe fields that are a learning rate: the rest of the chosen RL candidate is the shape the control arm gets
RATE_KEYS = ("learning_rate",)
CHOICE_RULE = ("the candidate with the highest exact match on the tuning set (then reward, then grid order: the "
               "recipe's own value first) among those that finished by the phase's deadline; the SFT control's grid runs "
               "at the chosen RL shape, the RFT control's on the chosen RL run (tune_arms.py --rl-run)")


class JobError(RuntimeError):
    """A step failed or ran out of time: the job writes its files and stops with this message."""


class Run:
    """One job's clock, work folder, commands and their outcomes."""

    def __init__(self, job: str, work: Path, rehearse: bool, tiny: str | None, budget: int = BUDGET_S) -> None:
        self.job, self.work, self.rehearse, self.tiny, self.budget = job, work, rehearse, tiny, budget
        self.device = "cpu" if rehearse else "cuda"
        self.t0 = time.monotonic()
        self.phases: list[dict[str, Any]] = []
        self.running: list[subprocess.Popen] = []

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def parallel(self, phase: str, commands: list[tuple[str, list[str]]], deadline: float) -> list[dict[str, Any]]:
        """Run ``commands`` side by side until each ends or ``deadline`` passes (then they are stopped)."""
        start = self.elapsed()
        record: dict[str, Any] = {"phase": phase, "deadline_s": deadline, "start_s": round(start, 1), "commands": []}
        self.phases.append(record)
        if deadline - start < 5:
            raise JobError(f"phase {phase}: {start:.0f} s gone, its deadline is {deadline:.0f} s: earlier phases overran")
        env = child_env(len(commands))
        (self.work / "logs").mkdir(parents=True, exist_ok=True)
        rows: list[dict[str, Any]] = []
        record["commands"] = rows
        try:
            for label, argv in commands:
                log = self.work / "logs" / f"{label}.log"
                with open(log, "w", encoding="utf-8") as fh:
                    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                            process_group=0)
                self.running.append(proc)
                rows.append({"label": label, "argv": argv, "log": str(log), "proc": proc, "t": time.monotonic()})
            while any(r["proc"].poll() is None for r in rows) and self.elapsed() < deadline:
                for r in rows:
                    if "seconds" not in r and r["proc"].poll() is not None:
                        r["seconds"] = round(time.monotonic() - r["t"], 1)
                time.sleep(0.5)
        finally:  # at the deadline, or when the job itself is stopped: every command still running is stopped
            for r in rows:
                r["timed_out"] = r["proc"].poll() is None
                stop(r["proc"])
                started = r.pop("t")
                r.setdefault("seconds", round(time.monotonic() - started, 1))
                r["rc"] = r["proc"].returncode
                self.running.remove(r.pop("proc"))
            record["seconds"] = round(self.elapsed() - start, 1)
        return rows


def stop(proc: subprocess.Popen) -> None:
    """End a command and everything it started (its process group): TERM, then KILL after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue


def child_env(parallel: int) -> dict[str, str]:
    """The commands' environment: this checkout first on PYTHONPATH, unbuffered output, no hub, CPU threads shared."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", TOKENIZERS_PARALLELISM="false", HF_HUB_OFFLINE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // max(1, parallel))))
    return env


def finished(row: dict[str, Any]) -> bool:
    return row["rc"] == 0 and not row["timed_out"]


def why(row: dict[str, Any]) -> str:
    state = "ran past its deadline" if row["timed_out"] else f"exited {row['rc']}"
    return f"{row['label']} {state} after {row['seconds']} s (log: {row['log']})"


# ------------------------------------------------------------------------------------------------ commands
def rehearsal_sets(run: Run) -> list[str]:
    return [f"model_name_or_path={run.tiny}", *REHEARSAL_SETS] if run.rehearse else []


def rehearsal_mappings(run: Run, recipe: str) -> list[str]:
    """In a rehearsal, the recipe's measurement sets (mappings with a ``size``: pass@k, retention, KL, ...) at 2
    tasks, 2 samples and 8 new tokens (``--eval-size`` shrinks its eval sets)."""
    import yaml

    if not run.rehearse:
        return []
    fields = yaml.safe_load((ROOT / "recipes" / f"{recipe}.yaml").read_text(encoding="utf-8")) or {}
    small = {"size": 2, "samples": 2, "max_new_tokens": 8}
    return [f"{key}={json.dumps({k: small.get(k, v) for k, v in value.items()})}"
            for key, value in fields.items() if key != "eval_sets" and isinstance(value, dict)
            and isinstance(value.get("size"), int)]


def tune_argv(run: Run, spec: Tuning, arm: str, out: Path, candidate: str = "", warm: str | None = None) -> list[str]:
    """``scripts/tune_arms.py`` for one candidate (in a rehearsal after the tiny sets), scored on the tuning set."""
    name = spec.tuning_set.split(":")[0]
    items = [*rehearsal_sets(run), *filter(None, candidate.split(","))]
    argv = [PY, str(ROOT / "scripts" / "tune_arms.py"), "--recipe", spec.recipe, "--arm", arm, "--seed", "0",
            "--tuning-set", f"{name}:2" if run.rehearse else spec.tuning_set, "--device", run.device, "--out", str(out)]
    return argv + (["--warm", warm] if warm else []) + (["--try", ",".join(items)] if items else [])


def quickstart_argv(run: Run, spec: Claims, seed: int, overrides: list[str], minutes: float) -> list[str]:
    argv = [PY, "-m", "rlvr.cli", "quickstart", "--recipe", spec.recipe, "--seed", str(seed), "--output-dir",
            str(run.work / f"seed{seed}"), "--device", run.device, "--minutes", f"{minutes:.2f}"]
    for item in [*rehearsal_sets(run), *rehearsal_mappings(run, spec.recipe), *recipe_items(spec.recipe, overrides)]:
        argv += ["-s", item]
    return argv + (["--eval-size", "2", "--max-new-tokens", "8"] if run.rehearse else [])


def recipe_items(recipe: str, items: list[str]) -> list[str]:
    """Overrides as the recipe parser takes them: ``rft.KEY=VALUE`` items merged into one ``rft=JSON`` item on top of
    the recipe's own ``rft`` mapping (as tune_arms.py merges them for a ``--try``)."""
    import yaml

    nested = {k[4:]: _number(v) for k, _, v in (i.partition("=") for i in items) if k.startswith("rft.")}
    plain = [i for i in items if not i.startswith("rft.")]
    if not nested:
        return plain
    own = (yaml.safe_load((ROOT / "recipes" / f"{recipe}.yaml").read_text(encoding="utf-8")) or {}).get("rft") or {}
    return [*plain, "rft=" + json.dumps({**own, **nested})]


def _number(value: str) -> Any:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def bench_argv(run: Run, *args: str) -> list[str]:
    head = [PY, str(ROOT / "scripts" / "gpu_jobs.py"), "bench-on-cpu"] if run.rehearse else [PY, "-m", "rlvr.cli"]
    return [*head, "bench", "--gpu", *(["--model", str(run.tiny)] if run.rehearse else []), *args]


# ------------------------------------------------------------------------------------------------- phases
def tune(run: Run, spec: Tuning, state: dict[str, Any]) -> list[str]:
    """Seed 0's warm start, the RL grid side by side from it, then the control arms' grids side by side; the record
    grows in ``state["tuning"]`` as it goes. Returns the overrides for the claimed runs."""
    base = run.work / "tune"
    name = spec.tuning_set.split(":")[0]
    record = state["tuning"] = {"recipe": spec.recipe, "tuning_set": f"{name}:2" if run.rehearse else spec.tuning_set,
                                "seed": 0, "rehearsal": run.rehearse, "rule": CHOICE_RULE, "overrides": None}
    [row] = run.parallel("warm_start", [("warm_start", tune_argv(run, spec, "warm_start", base / "warm_start"))],
                         spec.warm_deadline)
    if not finished(row):
        raise JobError(f"the warm start failed: {why(row)}")
    record["warm_start"] = read_score(base / "warm_start", name)
    found = re.findall(r"\[tune\] warm-started model: (\S+)", Path(row["log"]).read_text(encoding="utf-8"))
    if not found:
        raise JobError(f"tune_arms.py named no warm-started model (log: {row['log']})")
    warm = found[-1]
    [(rl, rl_index)] = grids(run, spec, [("rl", [], spec.rl_grid, None)], warm, spec.rl_deadline, record)
    shape = [item for item in rl.split(",") if item.split("=", 1)[0] not in RATE_KEYS]
    rl_run = str(base / f"rl{rl_index}" / "try0")  # the chosen RL run: its steps and prompt stream (rft)
    arms = [(arm, shape if arm == "control" else [], grid, rl_run if arm == "rft" else None)
            for arm, grid in (("control", spec.control_grid), ("rft", spec.rft_grid)) if grid]
    chosen = grids(run, spec, arms, warm, spec.arms_deadline, record) if arms else []
    own = [item for (candidate, _), (_, front, _, _) in zip(chosen, arms) for item in candidate.split(",")[len(front):]]
    record["overrides"] = [*rl.split(","), *own]
    return record["overrides"]


def grids(run: Run, spec: Tuning, arms: list[tuple[str, list[str], tuple[str, ...], str | None]], warm: str,
          deadline: int, record: dict[str, Any]) -> list[tuple[str, int]]:
    """Every candidate of ``arms`` (arm, items in front of each candidate, candidates, ``--rl-run``) side by side
    from the warm start; each arm's chosen candidate (:data:`CHOICE_RULE`) and its index."""
    name, commands, plans = spec.tuning_set.split(":")[0], [], []
    for arm, front, grid, rl_run in arms:
        for i, c in enumerate(grid):
            candidate = ",".join([*front, shrink(c) if run.rehearse else c])
            argv = tune_argv(run, spec, arm, run.work / "tune" / f"{arm}{i}", candidate, warm)
            commands.append((f"{arm}{i}", argv + (["--rl-run", rl_run] if rl_run else [])))
            plans.append((arm, candidate))
    rows = run.parallel("_".join(arm for arm, *_ in arms) + "_grid", commands, deadline)
    for arm, *_ in arms:
        record[arm] = {"candidates": [], "chosen": None}
    for (arm, candidate), row in zip(plans, rows):
        score = read_score(run.work / "tune" / row["label"], name) if finished(row) else None
        record[arm]["candidates"].append({"candidate": candidate, "seconds": row["seconds"], "score": score})
    out = []
    for arm, *_ in arms:
        done = [(i, r) for i, r in enumerate(record[arm]["candidates"]) if r["score"]]
        if not done:
            raise JobError(f"no {arm} candidate scored {name}: " + "; ".join(
                why(r) if not finished(r) else f"{r['label']} wrote no score (log: {r['log']})"
                for r in rows if r["label"].startswith(arm)))
        index, best = max(done, key=lambda ir: (ir[1]["score"]["exact_match"], ir[1]["score"]["reward"], -ir[0]))
        record[arm]["chosen"] = best["candidate"]
        out.append((best["candidate"], index))
    return out


def read_score(out: Path, name: str) -> dict[str, Any] | None:
    """The tuning set's score in the ``tuning.json`` tune_arms.py wrote into ``out`` (it scores that set alone,
    under the set's name or its split's)."""
    try:
        scores = json.loads((out / "tuning.json").read_text(encoding="utf-8"))[0]["scores"]
    except (OSError, ValueError, LookupError, TypeError):
        return None
    return scores.get(name) or (next(iter(scores.values())) if len(scores) == 1 else None)


def claims(run: Run, spec: Claims, overrides: list[str], state: dict[str, Any]) -> None:
    """Three seeds side by side, then ``scripts/quickstart_seeds.py`` over those that finished."""
    deadline = spec.deadline_at(run.budget)
    left = deadline - run.elapsed()
    if left < spec.min_s:
        raise JobError(f"only {left:.0f} s left for the seeds, which need {spec.min_s} s: the checks before them overran")
    minutes = max(0.5, (left - spec.reserve_s) / 60)
    commands = [(f"seed{s}", quickstart_argv(run, spec, s, overrides, minutes)) for s in SEEDS]
    rows = run.parallel("seeds", commands, deadline)
    seeds = state["seeds"] = {"grpo_minutes_cap": round(minutes, 2), "overrides": overrides, "runs": {}}
    asked = dict(pairs(",".join(overrides))).get("max_steps")
    for r in rows:
        path = run.work / r["label"] / "summary.json"
        summary = json.loads(path.read_text(encoding="utf-8")) if finished(r) and path.is_file() else None
        steps = (summary or {}).get("steps")
        seeds["runs"][r["label"]] = {"rc": r["rc"], "timed_out": r["timed_out"], "seconds": r["seconds"],
                                     "grpo_steps": steps, "capped": bool(asked and steps is not None and steps < int(asked)),
                                     "summary": summary}
    done = [str(run.work / label) for label, s in seeds["runs"].items() if s["summary"]]
    if done:
        report = [PY, str(ROOT / "scripts" / "quickstart_seeds.py"), *done]
        try:
            [row] = run.parallel("seeds_report", [("quickstart_seeds", report)], round(min(run.budget - 3, run.elapsed() + 45)))
            state["seeds_report"] = Path(row["log"]).read_text(encoding="utf-8") if finished(row) else f"({why(row)})"
        except JobError as exc:  # the seeds' own files are what counts; their tables can be made again here
            state["seeds_report"] = f"(not run: {exc})"
    failed = [why(r) for r in rows if not finished(r)]
    if failed:
        raise JobError("seeds did not finish: " + "; ".join(failed))


def speed_args(run: Run, name: str, levers: list[str] | None = None) -> list[str]:
    """The ``rlvr bench --gpu`` arguments of a speed phase: every lever (the lever runs) or ``levers`` (the
    confirmations, the default path always included); the GRPO runs keep their eval row small."""
    from rlvr.commands.bench import EVAL_LEVERS, GRPO_LEVERS

    size = "rehearsal" if run.rehearse else "gpu"
    if name.startswith("eval"):
        chosen = list(EVAL_LEVERS) if levers is None else levers
        return [*EVAL_SIZES[size], *([a for lever in chosen for a in ("--eval-lever", lever)] or ["--no-eval-levers"]),
                "--no-grpo"]
    grpo = ["--grpo-recipe", str(run.work / "grpo_rehearsal.yaml"), "--grpo-steps", "2"] if run.rehearse else \
        ["--grpo-steps", "5"]
    chosen = list(GRPO_LEVERS) if levers is None else levers
    return [*GRPO_EVAL_SIZES[size], "--no-eval-levers", *grpo, *[a for lever in chosen for a in ("--grpo-lever", lever)]]


def speed(run: Run, state: dict[str, Any]) -> None:
    """Every eval lever and every GRPO lever against the default path, a verdict per lever; then the default eval
    path and the levers that passed once more (``state``: the bench results and the verdicts)."""
    results = state["bench"] = {}
    if run.rehearse:
        rehearsal_grpo_recipe(run)

    def bench(name: str, levers: list[str] | None = None) -> dict[str, Any]:
        out = run.work / f"{name}.json"
        argv = bench_argv(run, *speed_args(run, name, levers), "--json", str(out))
        [row] = run.parallel(name, [(name, argv)], PLANS["speed"][name])
        results[name] = json.loads(out.read_text(encoding="utf-8")) if finished(row) else {"failed": why(row)}
        return results[name]

    first = lever_verdicts(bench("eval_levers"), bench("grpo_levers"))
    state["verdicts"] = merge_verdicts(first, [])
    chosen = {kind: [v["lever"] for v in first if v["kind"] == kind and v["passes"]] for kind in ("eval", "grpo")}
    again = lever_verdicts(bench("eval_confirm", chosen["eval"]), {})
    if chosen["grpo"]:
        again += lever_verdicts({}, bench("grpo_confirm", chosen["grpo"]))
    state["verdicts"] = merge_verdicts(first, again)
    failed = [f"{name}: {result['failed']}" for name, result in results.items() if "failed" in result]
    if failed:
        raise JobError("bench runs failed: " + "; ".join(failed))


def launch_argv(run: Run, launch: Launch) -> list[str]:
    """``accelerate launch --config_file recipes/accelerate/CONFIG --num_processes 1 scripts/train.py`` with the GRPO
    recipe at two steps (in a rehearsal: the tiny model, 2-token groups, no mixed precision)."""
    tiny = ["--model_name_or_path", str(run.tiny), "--per_device_train_batch_size", "2", "--num_generations", "2",
            "--max_completion_length", "8"] if run.rehearse else []
    return [PY, "-m", "accelerate.commands.launch", "--config_file", str(ROOT / "recipes" / "accelerate" / launch.config),
            "--num_processes", "1", *(["--mixed_precision", "no"] if run.rehearse else []),
            str(ROOT / "scripts" / "train.py"), "--config", str(LAUNCH_RECIPE), "--max_steps", str(LAUNCH_STEPS),
            "--eval_strategy", "no", "--save_strategy", "no", "--report_to", "none",
            "--output_dir", str(run.work / launch.label), *tiny, *launch.extra]


def launches(run: Run, state: dict[str, Any]) -> None:
    """Each launcher config in turn: whether it ran its two steps (``run_info.json``), or the line that says why not.
    A config that fails is the job's finding, not the job's failure."""
    rows = state["launches"] = []
    for launch in PLANS["fsdp"]["launches"]:
        [row] = run.parallel(launch.label, [(launch.label, launch_argv(run, launch))], launch.deadline)
        info_path = run.work / launch.label / "run_info.json"
        info = json.loads(info_path.read_text(encoding="utf-8")) if info_path.is_file() else {}
        ran = finished(row) and info.get("global_step") == LAUNCH_STEPS
        rows.append({"label": launch.label, "config": f"recipes/accelerate/{launch.config}", "extra": list(launch.extra),
                     "ran": ran, "seconds": row["seconds"], "rc": row["rc"], "timed_out": row["timed_out"],
                     "steps": info.get("global_step"), "seconds_per_step": info.get("seconds_per_step"),
                     "world_size": info.get("world_size"),
                     "error": None if ran else error_line(Path(row["log"]))})


def error_line(log: Path) -> str:
    """The line of a failed launch's log that says why: rlvr's own one-line error, else the last exception line,
    else the last line."""
    try:
        lines = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return "(no log)"
    for pattern in (r": error: ", r"^[\w.]*(Error|Exception)\b.*:"):
        found = [line for line in lines if re.search(pattern, line) and "ChildFailedError" not in line]
        if found:
            return found[0][:400]
    return (lines[-1] if lines else "(empty log)")[:400]


def launches_report(rows: list[dict[str, Any]]) -> str:
    out = ["| config | recipe arguments | ran | steps | s/step | seconds | why not |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| `{r['config']}` | `{' '.join(r['extra']) or '(as the recipe)'}` | {'yes' if r['ran'] else 'no'} | "
                   f"{r['steps'] if r['steps'] is not None else '-'} | {r['seconds_per_step'] if r['seconds_per_step'] is not None else '-'} | "
                   f"{r['seconds']} | {(r['error'] or '').replace('|', '/')} |")
    return "\n".join(out) + "\n"


def rehearsal_grpo_recipe(run: Run) -> Path:
    """``recipes/quickstart_gpu.yaml`` at rehearsal sizes (the GRPO rows of ``rlvr bench`` take a recipe), written
    where :func:`speed_args` names it."""
    import yaml

    recipe = yaml.safe_load((ROOT / "recipes" / "quickstart_gpu.yaml").read_text(encoding="utf-8"))
    recipe.update(model_name_or_path=str(run.tiny), per_device_train_batch_size=4, num_generations=2,
                  max_completion_length=4)
    path = run.work / "grpo_rehearsal.yaml"
    path.write_text(yaml.safe_dump(recipe), encoding="utf-8")
    return path


def bench_on_cpu(argv: list[str]) -> int:
    """``rlvr bench --gpu`` run by its own code with the device resolved to the CPU (rehearsals only)."""
    import rlvr.device
    from rlvr.cli import main

    resolve = rlvr.device.resolve_device
    rlvr.device.resolve_device = lambda requested="auto", *a, **k: resolve(
        "cpu" if str(requested).startswith("cuda") else requested, *a, **k)
    return main(argv)


# --------------------------------------------------------------------------------------------------- the job
def execute(args: argparse.Namespace) -> int:
    """Run the job's phases with nvidia-smi sampled, then write its files into ``--out`` whatever happened."""
    if args.work.exists():
        shutil.rmtree(args.work)
    args.work.mkdir(parents=True)
    tiny = tiny_model() if args.rehearse else None
    run = Run(args.job, args.work, args.rehearse, tiny, args.budget)
    described = machine(args.rehearse, ROOT)
    state: dict[str, Any] = {}
    status, message = "ok", None
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        with GpuSamples(args.work / "nvidia_smi.csv") as samples:
            try:
                steps(run, args, state)
            except (JobError, KeyboardInterrupt) as exc:
                status, message = "failed", f"{exc or 'interrupted'} (at {run.elapsed():.0f} s)"
            except Exception as exc:  # noqa: BLE001 - a fault of this runner: its files still say where it stopped
                status, message = "failed", f"{type(exc).__name__}: {exc} (at {run.elapsed():.0f} s)"
                state["traceback"] = traceback.format_exc()
            finally:
                for proc in list(run.running):
                    stop(proc)
    finally:
        signal.signal(signal.SIGTERM, previous)
    result = {"job": args.job, "status": status, "message": message, "rehearsal": args.rehearse,
              "seconds": round(run.elapsed(), 1), "budget_s": run.budget, "machine": described,
              "gpu_samples": samples.note, "plan": plan_of(args.job, args.budget), "phases": run.phases,
              **{k: state[k] for k in ("tuning", "verdicts", "launches", "traceback") if k in state},
              "seeds": seeds_brief(state.get("seeds"))}
    files = outputs(run, args, state, result)
    names = bundle(args.out, files)
    print(f"[gpu_jobs] {args.job}: {status} in {run.elapsed():.0f} s; {len(names)} files in {args.out}: "
          f"{', '.join(names)}", flush=True)
    if status != "ok":
        print(f"gpu_jobs {args.job}: error: {message}", file=sys.stderr)
        return 1
    return 0


def seeds_brief(seeds: dict[str, Any] | None) -> dict[str, Any] | None:
    """The seeds' outcomes without their summaries (those go to summaries.json)."""
    if not seeds:
        return None
    runs = {label: {k: v for k, v in run.items() if k != "summary"} for label, run in seeds["runs"].items()}
    return {**seeds, "runs": runs}


def _interrupted(signum: int, frame: Any) -> None:
    raise JobError(f"stopped by signal {signum}")


def steps(run: Run, args: argparse.Namespace, state: dict[str, Any]) -> None:
    plan = PLANS[args.job]
    if args.job in ("speed", "fsdp"):
        prepare(run)
        return speed(run, state) if args.job == "speed" else launches(run, state)
    overrides = None
    if "claims" in plan:
        state["tuning"] = {**json.loads(args.tuning.read_text(encoding="utf-8")), "from_file": str(args.tuning)}
        overrides = state["tuning"]["overrides"]
    check_fields(run, plan, overrides)
    prepare(run)
    if "tuning" in plan:
        tune(run, plan["tuning"], state)
    else:
        claims(run, plan["claims"], overrides, state)


def prepare(run: Run) -> None:
    """The job's first phase (:data:`PREPARE_CODE`): the embedded model converted, once per machine."""
    [row] = run.parallel("prepare", [("prepare", [PY, "-c", PREPARE_CODE])], PREPARE_DEADLINE)
    if not finished(row):
        raise JobError(f"the embedded model could not be prepared: {why(row)}")


def check_fields(run: Run, plan: dict[str, Any], overrides: list[str] | None) -> None:
    """Every grid candidate at its GPU values (or the recorded overrides) read by the recipe parser for a CUDA device
    before any command starts: an unknown field, a bad value or a batch that does not divide fails here, in seconds
    (``bf16`` off, so that the check needs no GPU)."""
    import contextlib
    import io

    from rlvr.device import Device
    from rlvr.train.recipe import parse_recipe

    tuning, claim = plan.get("tuning"), plan.get("claims")
    recipe = (tuning or claim).recipe
    grid = [] if tuning is None else [*tuning.rl_grid, *tuning.control_grid, *tuning.rft_grid]
    for items in [overrides] if overrides is not None else [c.split(",") for c in grid]:
        argv = ["--config", str(ROOT / "recipes" / f"{recipe}.yaml"), "--bf16", "false"]
        for key, value in (item.split("=", 1) for item in recipe_items(recipe, items)):
            argv += [f"--{key}", value]
        errors = io.StringIO()
        try:
            with contextlib.redirect_stderr(errors):
                parse_recipe(argv, prog="gpu_jobs", device=Device("cuda", "bfloat16"))
        except (ValueError, SystemExit) as exc:
            said = (errors.getvalue().strip().splitlines() or [str(exc)])[-1]
            raise JobError(f"recipe {recipe} does not take {','.join(items)!r}: {said}") from None


def outputs(run: Run, args: argparse.Namespace, state: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The files a job returns (at most 8): job.json, commands.sh, nvidia_smi.csv, log.txt and the job's own."""
    env = {k: v for k, v in child_env(3).items() if k in ("OMP_NUM_THREADS", "HF_HUB_OFFLINE", "TOKENIZERS_PARALLELISM")}
    files: dict[str, Any] = {"commands.sh": commands_sh(args.job, run.phases, env),
                             "nvidia_smi.csv": args.work / "nvidia_smi.csv", "log.txt": log_tails(run.phases)}
    head = (f"# gpu_jobs {args.job}: {result['status']}{' (rehearsal)' if args.rehearse else ''}\n\n"
            f"{result['machine']['device']}, {result['machine']['date_utc']} UTC, {result['seconds']} s"
            f"{'; ' + result['message'] if result['message'] else ''}.\n")
    if args.job == "speed":
        files["bench.json"] = dumps(state.get("bench", {}))
        files["verdicts.json"] = dumps({"rule": RULE, "levers": state.get("verdicts", [])})
        files["report.md"] = head + "\n" + speed_report(state.get("verdicts", []))
    elif args.job == "fsdp":
        files["report.md"] = (head + f"\nTwo GRPO steps of `{LAUNCH_RECIPE.relative_to(ROOT)}` under each launcher config, "
                              "one process:\n\n" + launches_report(state.get("launches", [])))
    else:
        parts = [head]
        if "tuning" in state and ("claims" in PLANS[args.job] or state["tuning"].get("rl")):
            files["tuning.json"] = dumps(state["tuning"])
            parts.append("## Tuning\n\n" + tuning_report(state["tuning"]))
        if "seeds" in state:
            files["summaries.json"] = dumps(state["seeds"])
            parts.append("## The three seeds (`scripts/quickstart_seeds.py`)\n\n" + state.get("seeds_report", "(not run)"))
            for label in state["seeds"]["runs"]:
                md = run.work / label / "quickstart.md"
                parts.append(f"## {label}: quickstart.md\n\n" + (md.read_text(encoding="utf-8") if md.is_file() else "(none)"))
        files["report.md"] = "\n".join(parts)
        result["runs_tarball"] = runs_tarball(args.work / "runs.tar.gz", args.work)
        files["runs.tar.gz"] = args.work / "runs.tar.gz"
    return {"job.json": dumps(result), **files}


def plan_of(job: str, budget: int = BUDGET_S) -> dict[str, Any]:
    """The job's phases and deadlines (seconds from its start; a seeds job's moved by ``budget``)."""
    plan = PLANS[job]
    if job == "speed":
        return dict(plan)
    if job == "fsdp":
        return {"recipe": str(LAUNCH_RECIPE.relative_to(ROOT)), "steps": LAUNCH_STEPS,
                **{x.label: {"config": x.config, "extra": list(x.extra), "deadline": x.deadline} for x in plan["launches"]}}
    out: dict[str, Any] = {}
    if "tuning" in plan:
        t = plan["tuning"]
        out.update(recipe=t.recipe, tuning_set=t.tuning_set, warm_start=t.warm_deadline, rl_grid=t.rl_deadline,
                   arms_grid=t.arms_deadline, rl_candidates=list(t.rl_grid), control_candidates=list(t.control_grid),
                   rft_candidates=list(t.rft_grid))
    if "claims" in plan:
        c = plan["claims"]
        out.update(recipe=c.recipe, seeds=c.deadline_at(budget), seeds_min_s=c.min_s, grpo_reserve_s=c.reserve_s)
    return out


def tiny_model() -> str:
    from rlvr.paths import cache_dir
    from rlvr.train.tiny import build_tiny_model

    return build_tiny_model(cache_dir("test-models") / "tiny-quickstart")


# ------------------------------------------------------------------------------------------------ command line
def check(args: argparse.Namespace) -> None:
    """Every mistake in how the job was asked for, as one sentence (ValueError), before anything runs."""
    if args.budget is None:
        args.budget = BUDGET_S
    elif "claims" not in PLANS[args.job]:
        raise ValueError(f"--budget is for the jobs that run seeds (rl, molecules), not {args.job}")
    elif not BUDGET_S <= args.budget <= MAX_BUDGET_S:
        raise ValueError(f"--budget {args.budget}: give {BUDGET_S}-{MAX_BUDGET_S} seconds (above {BUDGET_S} the job "
                         "outlasts one device command: run it detached, docs/results/gpu.md)")
    args.work = (args.work or ROOT / "outputs" / "gpu-jobs" / args.job).resolve()
    args.out = (args.out or ROOT / "outputs" / "gpu-jobs" / f"{args.job}-results").resolve()
    if args.out == args.work or args.work in args.out.parents:
        raise ValueError(f"--out {args.out} is inside --work {args.work}; choose another --out")
    for name, path in (("--out", args.out), ("--work", args.work)):
        if path.exists() and not path.is_dir():
            raise ValueError(f"{name} {path} is a file; name a folder")
        if path.is_dir() and any(path.iterdir()) and not args.overwrite:
            raise ValueError(f"{name} {path} is not empty; pass --overwrite to replace what the job writes there")
    if args.tuning is not None and "claims" not in PLANS[args.job]:
        raise ValueError(f"--tuning is for the jobs that run seeds (rl, molecules), not {args.job}")
    if "claims" in PLANS[args.job]:
        args.tuning = (args.tuning or RESULTS / f"{args.job}-tune" / "tuning.json").resolve()
        check_tuning(args)
    if not args.rehearse and not args.dry_run and not cuda_visible():
        raise ValueError("no CUDA GPU is visible here; run the job on the GPU machine (docs/results/gpu.md), "
                         "or pass --rehearse for the CPU rehearsal")


def check_tuning(args: argparse.Namespace) -> None:
    """The choice a seeds job runs with: a complete tuning.json of its recipe, from a GPU run (a rehearsal's for a
    rehearsal)."""
    recipe = PLANS[args.job]["claims"].recipe
    if not args.tuning.is_file():
        raise ValueError(f"--tuning {args.tuning}: no such file; run `bash scripts/gpu_jobs.sh {args.job}-tune` first and "
                         f"keep its tuning.json at docs/results/gpu/{args.job}-tune/ (docs/results/gpu.md), or name it")
    try:
        recorded = json.loads(args.tuning.read_text(encoding="utf-8"))
        made_by, rehearsal, overrides = recorded["recipe"], recorded["rehearsal"], recorded["overrides"]
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"--tuning {args.tuning} is not a tuning.json of scripts/gpu_jobs.sh") from None
    if made_by != recipe or not overrides or not all(isinstance(o, str) and "=" in o for o in overrides):
        raise ValueError(f"--tuning {args.tuning} holds no complete choice for recipe {recipe}")
    if bool(rehearsal) != args.rehearse:
        raise ValueError(f"--tuning {args.tuning} comes from a {'rehearsal' if rehearsal else 'GPU run'}; "
                         f"this is a {'rehearsal' if args.rehearse else 'GPU run'}")


def cuda_visible() -> bool:
    code = "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"
    return subprocess.run([PY, "-c", code], capture_output=True, env=child_env(1), timeout=120).returncode == 0


def dry_run(args: argparse.Namespace) -> dict[str, Any]:
    """The commands the job would run, choice-dependent values as ``<...>`` placeholders."""
    run = Run(args.job, args.work, args.rehearse, "<tiny model>" if args.rehearse else None)
    plan, phases = PLANS[args.job], [["prepare", [[PY, "-c", PREPARE_CODE]]]]
    if args.job == "fsdp":
        phases += [[x.label, [launch_argv(run, x)]] for x in plan["launches"]]
    if args.job == "speed":
        for name in plan:
            levers = None if name.endswith("levers") else ["<the levers that passed>"]
            phases.append([name, [bench_argv(run, *speed_args(run, name, levers), "--json", str(args.work / f"{name}.json"))]])
    if "tuning" in plan:
        t = plan["tuning"]
        phases.append(["warm_start", [tune_argv(run, t, "warm_start", args.work / "tune" / "warm_start")]])
        both = [("control", t.control_grid), ("rft", t.rft_grid)]
        for phase, arms in (("rl_grid", [("rl", t.rl_grid)]), ("control_rft_grid", both)):
            phases.append([phase, [
                tune_argv(run, t, arm, args.work / "tune" / f"{arm}{i}", ",".join(
                    [*(["<chosen RL shape>"] if arm == "control" else []), shrink(c) if args.rehearse else c]),
                    "<warm-started model>") + (["--rl-run", "<chosen RL run>"] if arm == "rft" else [])
                for arm, grid in arms for i, c in enumerate(grid)]])
    if "claims" in plan:
        chosen = json.loads(args.tuning.read_text(encoding="utf-8"))["overrides"]
        phases.append(["seeds", [quickstart_argv(run, plan["claims"], s, chosen, 0.0) for s in SEEDS]])
    return {"job": args.job, "plan": plan_of(args.job, args.budget), "phases": phases}


class OneLineParser(argparse.ArgumentParser):
    """Usage mistakes as one line on stderr, exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench-on-cpu"]:
        return bench_on_cpu(argv[1:])
    parser = OneLineParser(prog="gpu_jobs", description=__doc__.splitlines()[0])
    parser.add_argument("job", choices=JOBS, help="the job (in order of priority)")
    parser.add_argument("--out", type=Path, help="folder for the job's files (at most 8), e.g. \"$OUT\" on the GPU "
                                                 "machine (default outputs/gpu-jobs/JOB-results)")
    parser.add_argument("--work", type=Path, help="folder for the runs themselves (default outputs/gpu-jobs/JOB)")
    parser.add_argument("--rehearse", action="store_true", help="the same steps on CPU with the tiny model")
    parser.add_argument("--tuning", type=Path, help="rl, molecules: the tuning.json of JOB-tune, whose choice the seeds "
                                                    "run with (default docs/results/gpu/JOB-tune/tuning.json)")
    parser.add_argument("--budget", type=int, help=f"rl, molecules: the job's seconds, files written (default {BUDGET_S}, "
                                                  f"at most {MAX_BUDGET_S}); the seeds' deadline moves with it")
    parser.add_argument("--overwrite", action="store_true", help="replace what an earlier run left in --out and --work")
    parser.add_argument("--dry-run", action="store_true", help="print the commands the job would run, run nothing")
    args = parser.parse_args(argv)
    try:
        check(args)
    except ValueError as exc:
        print(f"gpu_jobs {args.job}: error: {exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        print(json.dumps(dry_run(args), indent=2))
        return 0
    return execute(args)


if __name__ == "__main__":
    sys.exit(main())
