"""Run an evaluation: draw the fixed eval set, generate (resumably), verify, tabulate, plot."""
from __future__ import annotations

import importlib.metadata
import json
import logging
import math
import os
import platform
import shutil
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from tqdm.auto import tqdm

from rlvr.api import verify
from rlvr.eval.backends import Backend, make_backend
from rlvr.eval.config import EvalConfig, EvalConfigError
from rlvr.eval.eval_set import load_eval_set, task_split
from rlvr.eval.plots import write_plots
from rlvr.eval.report import answered_share, render_report, summarize, task_info
from rlvr.eval.store import RESULTS_FILE, RUN_FILE, VERDICTS_FILE, VerdictLog, load_verdict_log, write_json
from rlvr.eval.suites import SPLIT_GROUPS, eval_set_digest, export_eval_set, task_digest
from rlvr.task import Task

log = logging.getLogger(__name__)

REPORT_FILE = "report.md"
EVAL_SET_FILE = "eval_set.jsonl"
#: version of the results.json layout
RESULTS_FORMAT = 1

_PACKAGES = ("rlvr-chem", "rdkit", "numpy", "torch", "transformers", "peft", "trl", "accelerate", "vllm", "matplotlib")


@dataclass
class EvalResult:
    """The outcome of :func:`run_eval`: the results.json content plus where it was written."""

    config: EvalConfig
    out_dir: Path
    results: dict[str, Any]
    report: str = ""
    paths: dict[str, str] = field(default_factory=dict)

    @property
    def summary(self) -> dict[str, float]:
        """Flat ``{metric path: value}`` (what ``rlvr eval compare`` compares)."""
        return self.results.get("summary", {})

    @property
    def records(self) -> list[dict[str, Any]]:
        """Per-task records (task info and every rollout's verdict)."""
        return self.results.get("tasks", [])


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages that can change results (None when absent)."""
    out: dict[str, str | None] = {"python": platform.python_version(), "platform": platform.platform()}
    for name in _PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def _check_run_file(out: Path, config: EvalConfig) -> None:
    run_path = out / RUN_FILE
    current = {"generation": config.generation_key()}
    if run_path.exists():
        try:
            previous = json.loads(run_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise EvalConfigError(f"{run_path} is corrupt ({exc}); use --overwrite or another --out") from exc
        before = previous.get("generation", {})
        diffs = [
            f"{k}: {before.get(k)!r} -> {v!r}" for k, v in current["generation"].items() if before.get(k) != v
        ]
        if diffs:
            raise EvalConfigError(
                f"{out} holds results of a different configuration ({'; '.join(diffs)}); "
                "rerun with the same arguments to resume, or use --overwrite or another --out"
            )
        return
    write_json(run_path, current)


def distributed_env() -> tuple[int, int]:
    """``(rank, world_size)`` from the environment set by ``torchrun`` / ``accelerate launch``."""
    try:
        world = int(os.environ.get("WORLD_SIZE", "1"))
        rank = int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0, 1
    if world < 1 or not 0 <= rank < world:
        return 0, 1
    return rank, world


def _load_all_logs(out: Path, own: Path) -> dict[str, dict[str, Any]]:
    done: dict[str, dict[str, Any]] = {}
    for path in sorted(out.glob("verdicts*.jsonl")):
        done.update(load_verdict_log(path, repair=path == own))
    return done


def run_eval(
    config: EvalConfig,
    *,
    backend: Backend | None = None,
    on_batch: Callable[[int, int], None] | None = None,
    rank: int | None = None,
    world_size: int | None = None,
    wait_timeout: float = 6 * 3600.0,
) -> EvalResult:
    """Evaluate ``config`` and write results.json, report.md, plots and the eval set into the out dir.

    Completed tasks are appended to the verdict log after every batch; a rerun with the same
    generation settings reuses them and generates only what is missing (the backend is not even
    built when nothing is). ``backend`` overrides the one ``config`` names. Before generating, the
    number of completions is logged with the backend's upper bound on the time
    (:meth:`~rlvr.eval.backends.base.Backend.estimate_seconds`) when it gives one.
    ``on_batch(done, total)`` is called after each batch.

    Under ``torchrun`` / ``accelerate launch`` (or with ``rank``/``world_size``), each rank generates
    every ``world_size``-th task into its own ``verdicts.rank<R>.jsonl``; rank 0 then waits (at most
    ``wait_timeout`` seconds) for the other ranks' shares and writes the report. Other ranks return a
    result without tables (``results["partial"]`` is True).
    """
    t_start = time.time()
    env_rank, env_world = distributed_env()
    rank = env_rank if rank is None else int(rank)
    world = env_world if world_size is None else int(world_size)
    out = config.out_dir()
    out.mkdir(parents=True, exist_ok=True)
    if config.overwrite:
        if world > 1:
            raise EvalConfigError("--overwrite is not supported with several processes; clear --out first")
        for path in out.glob("verdicts*.jsonl"):
            path.unlink()
        for name in (RUN_FILE, RESULTS_FILE, REPORT_FILE):
            (out / name).unlink(missing_ok=True)
        shutil.rmtree(out / "plots", ignore_errors=True)
    pairs, set_info = load_eval_set(config)
    tasks = [t for _, t in pairs]
    digests = {t.id: task_digest(t) for t in tasks}
    _check_run_file(out, config)
    verdict_path = out / (VERDICTS_FILE if world == 1 else f"verdicts.rank{rank}.jsonl")
    done = _load_all_logs(out, verdict_path)
    stale = [tid for tid in digests if tid in done and done[tid].get("digest") != digests[tid]]
    if stale:
        raise EvalConfigError(
            f"{out}: {len(stale)} task(s) changed since they were scored (e.g. {stale[0]}): the task generators "
            "differ from the run that wrote this out dir; use --overwrite or another --out"
        )
    stale_k = [tid for tid in digests if tid in done and len(done[tid].get("rollouts", [])) != config.samples]
    if stale_k:
        raise EvalConfigError(f"{out}: records with a different number of samples; use --overwrite or another --out")
    pending = [t for i, t in enumerate(tasks) if t.id not in done and i % world == rank]
    n_resumed = sum(1 for i, t in enumerate(tasks) if t.id in done and i % world == rank)
    if n_resumed:
        log.info("resuming %s: %d of %d tasks already scored", out, n_resumed, len(tasks))
    own_backend = False
    backend_info: dict[str, Any] = {"backend": config.backend}
    gen_seconds = verify_seconds = 0.0
    n_generated = 0
    estimate: float | None = None
    if pending:
        if backend is None:
            backend = make_backend(config)
            own_backend = True
        if config.sort_by_length:  # less padding per batch; records are written back in task order
            pending = [pending[i] for i in backend.batching_order(pending)]
        backend_info = backend.describe()
        try:
            estimate = _estimate(backend, pending, config)
            log.info("%s", _plan_message(config, len(pending), estimate))
            gen_seconds, verify_seconds, n_generated = _generate_pending(
                config, backend, pending, verdict_path, done, on_batch
            )
        finally:
            if own_backend:
                backend.close()
    elif backend is not None:
        backend_info = backend.describe()
    if world > 1:
        if rank != 0:
            return EvalResult(config=config, out_dir=out, results={
                "partial": True, "rank": rank, "world_size": world, "completions_generated_this_run": n_generated,
            }, paths={"verdicts": str(verdict_path)})
        done = _wait_for_ranks(out, verdict_path, tasks, wait_timeout)
    records = [_task_record(options, task, done[task.id]) for options, task in pairs]
    summary = summarize(records, config.samples)
    cumulative_gen = sum(float(done[t.id].get("gen_seconds", 0.0)) for t in tasks)
    tokens = [r["n_tokens"] for t in tasks for r in done[t.id]["rollouts"] if r.get("n_tokens") is not None]
    previous = {}
    if (out / RESULTS_FILE).exists():
        try:
            previous = json.loads((out / RESULTS_FILE).read_text(encoding="utf-8")).get("model_info") or {}
        except json.JSONDecodeError:
            previous = {}
    results = {
        "format": RESULTS_FORMAT,
        "config": config.to_dict(),
        "model": config.model if config.backend not in ("oracle", "copy-input") else None,
        "adapter": config.adapter,
        "backend": config.backend,
        "model_info": backend_info if pending else (previous or backend_info),
        "seed": config.seed,
        "samples": config.samples,
        "eval_set": {
            **set_info, "seed": config.seed, "digest": eval_set_digest(tasks), "n_tasks": len(tasks),
            "version": f"{set_info['suite']}/v{set_info['suite_version']}+{eval_set_digest(tasks)}",
        },
        "packages": package_versions(),
        "command": sys.argv,
        "timing": {
            "wall_seconds": round(time.time() - t_start, 3),
            "generation_seconds_this_run": round(gen_seconds, 3),
            "verify_seconds_this_run": round(verify_seconds, 3),
            "generation_seconds_total": round(cumulative_gen, 3),
            "completions_generated_this_run": n_generated,
            "generation_estimate_seconds_this_run": round(estimate, 3) if estimate is not None else None,
            "tasks_resumed": n_resumed,
            "tokens_generated_total": sum(tokens) if tokens else None,
            "mean_tokens_per_completion": round(sum(tokens) / len(tokens), 1) if tokens else None,
            "tokens_per_second": round(sum(tokens) / cumulative_gen, 2) if tokens and cumulative_gen > 0 else None,
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
        "summary": summary,
        "tasks": records,
    }
    report = render_report(results)
    paths = {"out": str(out), "results": str(out / RESULTS_FILE), "report": str(out / REPORT_FILE),
             "verdicts": str(verdict_path), "eval_set": str(out / EVAL_SET_FILE)}
    if config.plots and answered_share(records) != 0:  # nothing answered: all-zero plots say nothing (the report says why)
        plot_paths = write_plots(results, out / "plots")
        paths.update({f"plot:{Path(p).stem}": p for p in plot_paths})
        if plot_paths:
            report += "\n## Plots\n\n" + "\n".join(f"![{Path(p).stem}](plots/{Path(p).name})" for p in plot_paths) + "\n"
    results["report_paths"] = paths
    export_eval_set(tasks, out / EVAL_SET_FILE)
    write_json(out / RESULTS_FILE, results)
    (out / REPORT_FILE).write_text(report, encoding="utf-8")
    return EvalResult(config=config, out_dir=out, results=results, report=report, paths=paths)


def _wait_for_ranks(out: Path, own: Path, tasks: Sequence[Task], timeout: float) -> dict[str, dict[str, Any]]:
    """Rank 0: poll every rank's verdict log until every task is scored."""
    deadline = time.time() + timeout
    while True:
        done = _load_all_logs(out, own)
        missing = sum(1 for t in tasks if t.id not in done)
        if not missing:
            return done
        if time.time() > deadline:
            raise TimeoutError(f"{missing} task(s) still unscored by the other ranks after {timeout:.0f} s")
        log.info("waiting for other ranks: %d task(s) left", missing)
        time.sleep(2.0)


def _verified_records(batch: Sequence[Task], completions: Sequence[Sequence[Any]], gen: float
                      ) -> tuple[list[dict[str, Any]], float]:
    """One batch's verdict-log records, in task order, and the seconds their verdicts took."""
    t1 = time.perf_counter()
    records = []
    for task, outs in zip(batch, completions):
        rollouts = []
        for comp in outs:
            verdict = verify(task, comp.text)
            rollouts.append({
                "completion": comp.text, "n_tokens": comp.n_tokens, "reward": float(verdict.reward),
                "correct": bool(verdict.correct), "reason": verdict.reason,
                "metrics": _jsonable(verdict.metrics),
            })
        records.append({
            "task_id": task.id, "digest": task_digest(task), "rollouts": rollouts,
            "gen_seconds": round(gen / len(batch), 4),
        })
    return records, time.perf_counter() - t1


def _generate_pending(
    config: EvalConfig,
    backend: Backend,
    pending: Sequence[Task],
    verdict_path: Path,
    done: dict[str, dict[str, Any]],
    on_batch: Callable[[int, int], None] | None,
) -> tuple[float, float, int]:
    """Generate and verify ``pending`` batch by batch, appending each batch's records to the verdict log.

    Where the backend decodes on an accelerator (``Backend.overlap_verification``), a batch's verdicts are
    computed on a worker thread while the next batch decodes; the log still receives whole batches in order.
    """
    gen_total = verify_total = 0.0
    n_generated = 0
    samples = config.samples
    total = len(pending)
    queued: tuple[Future, int] | None = None
    with VerdictLog(verdict_path) as vlog, tqdm(
        total=total * samples, disable=not config.progress, desc=f"eval {config.suite if not config.tasks_file else 'tasks'}",
        unit="completion", dynamic_ncols=True,
    ) as bar, ThreadPoolExecutor(max_workers=1, thread_name_prefix="rlvr-verify") as pool:

        def record(verified: tuple[list[dict[str, Any]], float], end: int) -> None:
            nonlocal verify_total
            new_records, seconds = verified
            verify_total += seconds
            vlog.append(new_records)
            for rec in new_records:
                done[rec["task_id"]] = rec
            bar.update(len(new_records) * samples)
            if on_batch is not None:
                on_batch(end, total)

        try:
            for start in range(0, total, config.batch_size):
                batch = list(pending[start:start + config.batch_size])
                t0 = time.perf_counter()
                completions = backend.generate(batch, samples)  # with overlap, the previous batch is verified meanwhile
                gen = time.perf_counter() - t0
                if start == 0 and total > len(batch):
                    log.info("first batch: %.1f s for %d completions; about %s for the remaining %d", gen,
                             len(batch) * samples, _duration(gen * (total - len(batch)) / len(batch)),
                             (total - len(batch)) * samples)
                gen_total += gen
                n_generated += len(batch) * samples
                end = min(start + len(batch), total)
                if queued is not None:
                    previous, queued = queued, None
                    record(previous[0].result(), previous[1])
                if backend.overlap_verification:
                    queued = (pool.submit(_verified_records, batch, completions, gen), end)
                else:
                    record(_verified_records(batch, completions, gen), end)
        finally:  # a failure in the next batch keeps the verdicts already computed
            if queued is not None and queued[0].exception() is None:
                record(queued[0].result(), queued[1])
    return gen_total, verify_total, n_generated


def _estimate(backend: Backend, pending: Sequence[Task], config: EvalConfig) -> float | None:
    """The backend's upper bound on the generation time, or None (unknown, or its calibration failed)."""
    try:
        seconds = backend.estimate_seconds(pending, config.samples, config.batch_size)
    except Exception as exc:  # noqa: BLE001 - an estimate must never stop an evaluation
        log.warning("could not estimate the generation time (%s: %s)", type(exc).__name__, exc)
        return None
    return float(seconds) if seconds is not None and math.isfinite(seconds) and seconds >= 0 else None


def _plan_message(config: EvalConfig, n_tasks: int, estimate: float | None) -> str:
    """``generating N completions (...) with MODEL, ...`` and when it should be done."""
    samples = config.samples
    plan = (f"generating {n_tasks * samples} completions ({n_tasks} tasks x {samples} sample{'s' if samples > 1 else ''}) "
            f"with {_backend_label(config)}, up to {config.max_new_tokens} new tokens each, in batches of {config.batch_size}")
    if estimate is None:
        return plan + "; the time left is estimated after the first batch"
    return plan + f": at most about {_duration(estimate)} (calibrated on the first batch, every completion counted at the token limit)"


def _backend_label(config: EvalConfig) -> str:
    if config.backend in ("oracle", "copy-input"):
        return f"the {config.backend} backend"
    return f"{config.model}{' + ' + config.adapter if config.adapter else ''} ({config.backend})"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return json.loads(json.dumps(value, default=str))


def _task_record(options: dict[str, Any], task: Task, done: dict[str, Any]) -> dict[str, Any]:
    split = task_split(task)
    return {
        "id": task.id,
        "family": task.family,
        "split": split,
        "split_group": SPLIT_GROUPS.get(split, split),
        "options": options,
        "info": task_info(task),
        "digest": done.get("digest"),
        "rollouts": done["rollouts"],
        "gen_seconds": done.get("gen_seconds"),
    }
