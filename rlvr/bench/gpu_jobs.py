"""What the prepared GPU jobs compute and write, apart from running them (``scripts/gpu_jobs.py``; the page is
docs/results/gpu.md): the rehearsal sizes, each speed lever's verdict, the reports, the machine's description,
nvidia-smi samples, and the bundle of at most :data:`MAX_FILES` files a job returns.
"""
from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import subprocess
import tarfile
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from rlvr.files import atomic_open, atomic_path

#: the files a job may return from the GPU machine
MAX_FILES = 8
#: the largest tarball of a job's text outputs (the machine returns files of up to 16 MiB)
TAR_LIMIT = 15 * 2**20
#: recipe fields a rehearsal sets first (with ``model_name_or_path`` = the tiny model): a few tasks, steps, tokens
REHEARSAL_SETS = ("max_completion_length=8", "sft_steps=1", "sft_train_size=2", "sft_batch_size=2", "max_steps=1",
                  "per_device_train_batch_size=4", "num_generations=2", "report_to=none")
_TINY_EVAL = ["--eval-tasks", "4", "--eval-batch", "4", "--max-new-tokens", "4"]
#: ``rlvr bench --gpu`` eval sizes: the lever rows (the quickstart's GPU eval batch), and the throwaway eval row of
#: a GRPO-only run (``rlvr bench`` always measures one)
EVAL_SIZES = {"gpu": ["--eval-tasks", "512", "--eval-batch", "256"], "rehearsal": _TINY_EVAL}
GRPO_EVAL_SIZES = {"gpu": ["--eval-tasks", "64", "--eval-batch", "64"], "rehearsal": _TINY_EVAL}
#: the decision rule the verdicts apply
RULE = ("an eval lever becomes the CUDA default where its completions/s is higher than the default (eager) path's "
        "and its exact match is within one paired SE of it (|EM change| <= paired SE), in the lever run and again in "
        "the confirmation run; a GRPO lever where its completions/s per step is higher in both (bench scores no "
        "exact match for a GRPO step, whose completions are sampled)")
GPU_QUERY = "timestamp,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,temperature.gpu"
_TEXT = {".json", ".jsonl", ".md", ".csv", ".txt"}
_MODEL_FILES = {"tokenizer.json", "tokenizer_config.json", "config.json", "generation_config.json",
                "adapter_config.json", "special_tokens_map.json", "vocab.json", "merges.txt", "eval_set.jsonl"}


def pairs(spec: str) -> list[tuple[str, str]]:
    """``a=1,b=2`` -> ``[("a", "1"), ("b", "2")]``."""
    return [(k.strip(), v.strip()) for k, _, v in (item.partition("=") for item in spec.split(",") if item.strip())]


def shrink(spec: str) -> str:
    """A grid candidate at rehearsal size: the same keys and learning rates, batch 4 and a twenty-fourth of the steps."""
    sizes = {"max_steps": lambda v: str(max(1, int(v) // 24)), "per_device_train_batch_size": lambda v: "4"}
    return ",".join(f"{k}={sizes.get(k, lambda v: v)(v)}" for k, v in pairs(spec))


# ----------------------------------------------------------------------------------------------- speed
def lever_verdicts(eval_result: dict[str, Any], grpo_result: dict[str, Any]) -> list[dict[str, Any]]:
    """One verdict per lever row of ``rlvr bench --gpu`` JSON results (eval rows against the default row of their
    batch size, GRPO rows against the recipe as written): faster, exact match within one paired SE, passes."""
    out: list[dict[str, Any]] = []
    rows = eval_result.get("eval", [])
    defaults = {r["batch_size"]: r for r in rows if not r.get("lever")}
    for r in rows:
        if not r.get("lever") or r["batch_size"] not in defaults:
            continue
        base, vs = defaults[r["batch_size"]], r["vs_default"]
        faster, within = r["completions_per_s"] > base["completions_per_s"], abs(vs["em_change"]) <= vs["paired_se"]
        out.append({"kind": "eval", "lever": r["lever"], "batch_size": r["batch_size"],
                    "completions_per_s": r["completions_per_s"], "default_completions_per_s": base["completions_per_s"],
                    "em": r.get("em"), "default_em": base.get("em"), "em_change": vs["em_change"],
                    "paired_se": vs["paired_se"], "texts_differ": vs["texts_differ"],
                    "verdicts_differ": vs["verdicts_differ"], "warmup_s": r.get("warmup_s"),
                    "faster": faster, "em_within_se": within, "passes": faster and within})
    base = grpo_result.get("grpo")
    for r in grpo_result.get("grpo_levers", []) if base else []:
        cps, base_cps = _per_s(r), _per_s(base)
        out.append({"kind": "grpo", "lever": r["lever"], "completions_per_step": r["completions_per_step"],
                    "completions_per_s": cps, "default_completions_per_s": base_cps, "mean_step_s": r["mean_step_s"],
                    "default_mean_step_s": base["mean_step_s"], "mean_generation_s": r["mean_generation_s"],
                    "faster": cps > base_cps, "em_within_se": None, "passes": cps > base_cps})
    return out


def _per_s(grpo: dict[str, Any]) -> float:
    return round(grpo["completions_per_step"] / grpo["mean_step_s"], 2) if grpo["mean_step_s"] > 0 else 0.0


def merge_verdicts(first: list[dict[str, Any]], again: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each lever's verdict of the lever run with its confirmation: ``adopt`` true (passed twice), false, or None
    (passed once; no confirmation ran)."""
    confirm = {(v["kind"], v["lever"], v.get("batch_size")): v for v in again}
    out = []
    for v in first:
        match = confirm.get((v["kind"], v["lever"], v.get("batch_size")))
        if not v["passes"]:
            adopt, reason = False, " and ".join(
                [*(["not faster than the default path"] if not v["faster"] else []),
                 *(["exact match moved by more than one paired SE"] if v["em_within_se"] is False else [])])
        elif match is None:
            adopt, reason = None, "passed in the lever run; no confirmation ran"
        else:
            adopt = bool(match["passes"])
            reason = "passed in the lever run and the confirmation" if adopt else "passed in the lever run, not in the confirmation"
        keep = ("completions_per_s", "default_completions_per_s", "em_change", "paired_se", "passes")
        out.append({**v, "confirm": {k: match.get(k) for k in keep} if match else None, "adopt": adopt, "reason": reason})
    return out


def speed_report(verdicts: list[dict[str, Any]]) -> str:
    lines = ["| lever | kind | batch (eval) or completions per step (GRPO) | completions/s: lever / default | EM % lever / default | EM change ± paired SE "
             "| texts differ | passes | confirmation | becomes default |", "|---|---|---|---|---|---|---|---|---|---|"]
    for v in verdicts:
        em = (f"{100 * v['em']:.1f} / {100 * v['default_em']:.1f}" if v.get("em") is not None else "–")
        change = (f"{100 * v['em_change']:+.1f} ± {100 * v['paired_se']:.1f}" if v.get("em_change") is not None else "–")
        texts = f"{100 * v['texts_differ']:.1f} %" if v.get("texts_differ") is not None else "–"
        confirm = v["confirm"]
        again = "–" if not confirm else f"{confirm['completions_per_s']} / {confirm['default_completions_per_s']}, " + (
            "passes" if confirm["passes"] else "fails")
        adopt = {True: "yes", False: "no", None: "unconfirmed"}[v["adopt"]]
        lines.append(f"| `{v['lever']}` | {v['kind']} | {v.get('batch_size', v.get('completions_per_step', '–'))} | "
                     f"{v['completions_per_s']} / {v['default_completions_per_s']} | {em} | {change} | {texts} | "
                     f"{'yes' if v['passes'] else 'no'} | {again} | {adopt} ({v['reason']}) |")
    return "\n".join(lines) + f"\n\nRule: {RULE}.\n"


# ------------------------------------------------------------------------------------------------ tuning
def tuning_report(tuning: dict[str, Any]) -> str:
    lines = [f"Tuning on `{tuning.get('tuning_set')}` from seed {tuning.get('seed')}'s warm start (recipe "
             f"`{tuning.get('recipe')}`); rule: {tuning.get('rule')}.", "",
             "| arm | candidate | EM % | reward | n | seconds | chosen |", "|---|---|---|---|---|---|---|"]
    for arm in ("rl", "control", "rft"):
        for row in (tuning.get(arm) or {}).get("candidates", []):
            s = row["score"]
            cells = (f"{100 * s['exact_match']:.1f} | {s['reward']:.3f} | {s['n']}" if s else "not finished | – | –")
            chosen = "yes" if row["candidate"] == tuning[arm]["chosen"] else ""
            lines.append(f"| {arm} | `{row['candidate']}` | {cells} | {row['seconds']} | {chosen} |")
    chosen = " ".join(tuning.get("overrides") or []) or "none (the tuning did not finish)"
    return "\n".join(lines) + f"\n\nOverrides passed to the claimed runs: `{chosen}`\n"


# ---------------------------------------------------------------------------------------------- machine
def machine(rehearse: bool, root: Path) -> dict[str, Any]:
    """The date, the accelerator (nvidia-smi), the software versions and the checkout's commit."""
    versions = {}
    for name in ("torch", "transformers", "trl", "peft", "accelerate"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    gpus = _run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"])
    commit = _run(["git", "-C", str(root), "rev-parse", "HEAD"])
    dirty = _run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"])
    return {"date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S"), "python": platform.python_version(),
            "cpus": os.cpu_count(), "versions": versions, "gpus": gpus.splitlines() if gpus else [],
            "device": ("cpu (rehearsal, tiny model)" if rehearse else (gpus.splitlines()[0] if gpus else "no GPU seen")),
            "commit": (commit.strip() + ("+changes" if dirty else "")) if commit else None}


def _run(argv: list[str]) -> str | None:
    if not shutil.which(argv[0]):
        return None
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


class GpuSamples:
    """``nvidia-smi`` sampled every ``interval`` seconds into a CSV while the block runs (a header alone without it)."""

    def __init__(self, path: Path, interval: int = 5) -> None:
        self.path, self.interval, self.proc, self.note = path, interval, None, "nvidia-smi not found: no samples"

    def __enter__(self) -> "GpuSamples":
        smi = shutil.which("nvidia-smi")
        if smi:
            with open(self.path, "w", encoding="utf-8") as fh:
                self.proc = subprocess.Popen([smi, f"--query-gpu={GPU_QUERY}", "--format=csv,nounits", "-l",
                                              str(self.interval)], stdout=fh, stderr=subprocess.DEVNULL)
            self.note = f"nvidia-smi every {self.interval} s"
        else:
            self.path.write_text(GPU_QUERY + "\n", encoding="utf-8")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


# ----------------------------------------------------------------------------------------------- bundle
def commands_sh(job: str, phases: list[dict[str, Any]], env: dict[str, str]) -> str:
    """Every command as it ran, in order; side-by-side commands end in ``&`` and are followed by ``wait``."""
    lines = ["#!/usr/bin/env bash", f"# gpu_jobs {job}: the commands as they ran, from the project root, with",
             "# " + " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env.items()))]
    for phase in phases:
        lines.append(f"# phase {phase['phase']}: started at {phase['start_s']} s, deadline {phase['deadline_s']} s")
        side = len(phase["commands"]) > 1
        for c in phase["commands"]:
            state = "stopped at the deadline" if c["timed_out"] else f"exit {c['rc']}"
            lines.append(f"{shlex.join(c['argv'])}{' &' if side else ''}  # {c['label']}: {state}, {c['seconds']} s")
        if side:
            lines.append("wait")
    return "\n".join(lines) + "\n"


def log_tails(phases: list[dict[str, Any]], chars: int = 20000) -> str:
    """Each command's console output, its last ``chars`` characters, under a line naming it."""
    parts = []
    for phase in phases:
        for c in phase["commands"]:
            try:
                text = Path(c["log"]).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            cut = f"[... {len(text) - chars} characters before ...]\n" if len(text) > chars else ""
            parts.append(f"===== {phase['phase']} / {c['label']}: rc {c['rc']}, {c['seconds']} s"
                         f"{', stopped at the deadline' if c['timed_out'] else ''}\n{cut}{text[-chars:]}")
    return "\n".join(parts)


def text_files(root: Path) -> list[Path]:
    """The runs' text outputs in the folders under ``root`` (scores, records, verdicts, summaries, reports, trainer
    logs), without models, tokenizers, checkpoints, command logs, copies of the eval tasks or ``root``'s own files."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if (len(rel) > 1 and path.is_file() and path.suffix in _TEXT and path.name not in _MODEL_FILES and rel[0] != "logs"
                and not any(part.startswith(("checkpoint-", ".")) for part in rel)):
            out.append(path)
    return out


def runs_tarball(target: Path, root: Path, limit: int = TAR_LIMIT) -> dict[str, Any]:
    """``target`` (.tar.gz) holding :func:`text_files` of ``root``; the largest files are left out until it fits."""
    files, dropped = text_files(root), []
    while True:
        with atomic_path(target) as tmp:
            with tarfile.open(tmp, "w:gz") as tar:
                for path in files:
                    tar.add(path, arcname=str(path.relative_to(root)))
        size = target.stat().st_size
        if size <= limit or not files:
            return {"files": len(files), "bytes": size, "left_out": dropped}
        largest = max(files, key=lambda p: p.stat().st_size)
        files.remove(largest)
        dropped.append(str(largest.relative_to(root)))


def bundle(out: Path, files: dict[str, str | Path]) -> list[str]:
    """Write ``files`` (name -> text, or a file to copy) into ``out``, each atomically; at most :data:`MAX_FILES`."""
    if len(files) > MAX_FILES:
        raise ValueError(f"{len(files)} files to return, at most {MAX_FILES}: {sorted(files)}")
    out.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        if isinstance(content, Path):
            with atomic_path(out / name) as tmp:
                shutil.copyfile(content, tmp)
        else:
            with atomic_open(out / name) as fh:
                fh.write(content)
    return sorted(files)


def dumps(value: Any) -> str:
    return json.dumps(value, indent=2, default=str) + "\n"
