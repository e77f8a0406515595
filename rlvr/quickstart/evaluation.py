"""The quickstart's evaluations: the fixed eval set, one greedy evaluation per stage, the base model's cache.

Every stage scores the same tasks (written once to ``eval_tasks.jsonl``), greedily, on the device the command
resolved; each stage's per-split scores and slim per-task records go to ``<output_dir>/<stage>/``.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rlvr.datasets import Mixture
from rlvr.eval.config import EvalConfig
from rlvr.eval.runner import EvalResult, run_eval
from rlvr.files import atomic_open
from rlvr.quickstart import eval_cache
from rlvr.quickstart.plan import Plan
from rlvr.quickstart.scores import SplitScore, StageResult, score_records, slim_records


def say(text: str) -> None:
    """A phase line on the console (stdout, flushed, so it interleaves with the progress bars)."""
    print(f"[rlvr quickstart] {text}", flush=True)


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON at ``path``, atomically."""
    with atomic_open(path) as fh:
        fh.write(json.dumps(data, indent=2, default=str) + "\n")


def write_eval_tasks(path: Path, specs: dict[str, dict[str, Any]], seed: int) -> tuple[Path, dict[str, int]]:
    """Write the fixed eval set as a task JSONL: ``size`` tasks of each spec's mixture on its split
    (``specs`` as :func:`rlvr.train.data.eval_set_specs` gives them). Returns the path and the sizes by set.

    The mixture's prompt options give the tasks the prompts the model is trained with.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path) as fh:
        for spec in specs.values():
            mixture = Mixture(list(spec["mix"]), spec["split"], seed)
            for i in range(int(spec["size"])):
                fh.write(mixture.task_at(i).to_json() + "\n")
    return path, {name: int(spec["size"]) for name, spec in specs.items()}


def evaluate(model: str, adapter: str | None, tasks_file: Path, out: Path, *, max_new_tokens: int,
             batch_size: int, device: str = "auto", dtype: str = "auto") -> EvalResult:
    """Greedy evaluation of ``model`` (+ ``adapter``, merged into the weights) on ``tasks_file`` with :mod:`rlvr.eval`."""
    config = EvalConfig(
        model=model, adapter=adapter, tasks_file=str(tasks_file), out=str(out), backend="transformers",
        max_new_tokens=max_new_tokens, batch_size=batch_size, samples=1, device=device, dtype=dtype,
        plots=False, overwrite=True,
    )
    return run_eval(config)


@dataclass
class Evaluator:
    """Scores models on the run's fixed eval set and keeps each stage's wall time in ``seconds``."""

    plan: Plan
    tasks_file: Path
    sizes: dict[str, int]
    seconds: dict[str, float] = field(default_factory=dict)

    @classmethod
    def for_plan(cls, plan: Plan) -> "Evaluator":
        """Write the plan's eval set into its output folder and get ready to score it."""
        tasks_file, sizes = write_eval_tasks(plan.out / "eval_tasks.jsonl", plan.specs, plan.recipe.task.eval_seed)
        return cls(plan=plan, tasks_file=tasks_file, sizes=sizes)

    @property
    def n_tasks(self) -> int:
        """Tasks per evaluation."""
        return sum(self.sizes.values())

    def stage(self, name: str, what: str, model_path: str, adapter: str | None = None) -> StageResult:
        """Evaluate one model greedily; write ``<name>/scores.json`` and ``<name>/records.json``."""
        per_set = ", ".join(f"{k} {n}" for k, n in self.sizes.items())
        say(f"evaluating {what} on {self.n_tasks} tasks ({per_set}), greedy")
        t0 = time.time()
        device = self.plan.options.device
        res = evaluate(model_path, adapter, self.tasks_file, self.plan.out / name, max_new_tokens=self.plan.new_tokens,
                            batch_size=self.plan.options.eval_batch_size, device=device.name, dtype=self.plan.eval_dtype)
        self.seconds[name] = round(time.time() - t0, 1)
        result = StageResult(score_records(res.records, self.plan.reward_mode), slim_records(res.records, self.plan.reward_mode))
        self._write(name, result)
        return result

    def _write(self, name: str, result: StageResult) -> None:
        write_json(self.plan.out / name / "scores.json", {k: asdict(v) for k, v in result.scores.items()})
        write_json(self.plan.out / name / "records.json", result.records)

    def cache_key(self, model: str) -> str:
        """The base-answer cache's key: the model, the task file and every setting that changes an answer."""
        device = self.plan.options.device
        return eval_cache.cache_key(model, self.tasks_file, {
            "max_new_tokens": self.plan.new_tokens, "batch_size": self.plan.options.eval_batch_size,
            "reward_mode": self.plan.reward_mode, "backend": "transformers", "device": device.kind, "dtype": self.plan.eval_dtype})

    def base(self, model: str) -> tuple[StageResult, str | None]:
        """The base model's scores: from the previous run in the folder (``skip_before``), from the cache an
        earlier run on this machine wrote (``base_cache``), or evaluated (and cached). Returns the result and
        the cache folder it was read from (None when evaluated or reused)."""
        options, folder = self.plan.options, self.plan.out / "eval_before"
        if options.skip_before and (folder / "scores.json").is_file() and (folder / "records.json").is_file():
            say("reusing the base model's scores from the previous run")
            scores = json.loads((folder / "scores.json").read_text())
            return StageResult({k: SplitScore(**v) for k, v in scores.items()},
                               json.loads((folder / "records.json").read_text())), None
        key = self.cache_key(model)
        entry = eval_cache.load_entry(key) if options.base_cache else None
        if entry is None:
            result = self.stage("eval_before", "the base model", model)
            if options.base_cache:
                eval_cache.save_entry(key, {k: asdict(v) for k, v in result.scores.items()}, result.records)
            return result, None
        cached_from = str(eval_cache.entry_dir(key))
        say(f"the base model's answers on these {self.n_tasks} tasks: read from the cache an earlier run on this machine "
            f"wrote ({cached_from}; --no-base-cache to evaluate again)")
        result = StageResult({k: SplitScore(**v) for k, v in entry[0].items()}, entry[1])
        self._write("eval_before", result)
        self.seconds["eval_before"] = 0.0
        return result, cached_from
