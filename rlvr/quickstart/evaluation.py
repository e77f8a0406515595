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
from rlvr.quickstart.scores import SplitScore, StageResult, score_records, set_group, slim_records
from rlvr.registry import get_family
from rlvr.task import Task
from rlvr.train.data import check_eval_pools


def say(text: str) -> None:
    """A phase line on the console (stdout, flushed, so it interleaves with the progress bars)."""
    print(f"[rlvr quickstart] {text}", flush=True)


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON at ``path``, atomically."""
    with atomic_open(path) as fh:
        fh.write(json.dumps(data, indent=2, default=str) + "\n")


@dataclass(frozen=True)
class EvalSetInfo:
    """One written eval set: its ``size`` in tasks, the distinct ``items`` (reactions, molecules: what varies
    independently) they are about, the items' ``noun``, and the ``pool`` its split draws from (None: unknown)."""

    name: str
    split: str
    group: str
    size: int
    items: int
    noun: str
    pool: int | None

    def describe(self) -> str:
        """``300 tasks, 300 distinct reactions (pool 612)``."""
        pool = f" (pool {self.pool})" if self.pool is not None else ""
        return f"{self.size} tasks, {self.items} distinct {self.noun}s{pool}"


@dataclass(frozen=True)
class EvalSetIndex:
    """Each eval set's :class:`EvalSetInfo`, and per task id its set's group and its unit (``family|item``: tasks
    about one reaction or molecule share it)."""

    sets: dict[str, EvalSetInfo]
    groups: dict[str, str]
    units: dict[str, str]


@dataclass(frozen=True)
class WrittenSets(EvalSetIndex):
    """What :func:`write_eval_tasks` wrote: the file, and the sets' :class:`EvalSetIndex`."""

    path: Path


def _task_identity(task: Task) -> str:
    """What makes two tasks the same question: family, prompt and ground truth."""
    return json.dumps([task.family, task.prompt, task.ground_truth], sort_keys=True, default=str)


@dataclass(frozen=True)
class DrawnSets(EvalSetIndex):
    """What :func:`draw_eval_tasks` drew: the tasks in file order, and the sets' :class:`EvalSetIndex`."""

    tasks: list[Task]


def draw_eval_tasks(specs: dict[str, dict[str, Any]], seed: int) -> DrawnSets:
    """Draw the fixed eval set without writing it: ``size`` distinct tasks of each spec's mixture on its split
    (``specs`` as :func:`rlvr.train.data.eval_set_specs` gives them), rows in order with exact repeats skipped.

    A set larger than its split's pool of items is refused (:func:`rlvr.train.data.check_eval_pools`), and so is
    one whose mixture cannot give ``size`` distinct tasks in ``4 x size + 64`` rows. The mixture's prompt options
    give the tasks the prompts the model is trained with.
    """
    pools = check_eval_pools(specs)
    tasks: list[Task] = []
    sets: dict[str, EvalSetInfo] = {}
    groups: dict[str, str] = {}
    units: dict[str, str] = {}
    for name, spec in specs.items():
        mixture = Mixture(list(spec["mix"]), spec["split"], seed)
        size, seen, items, nouns = int(spec["size"]), set(), set(), set()
        row = 0
        while len(seen) < size:
            if row >= 4 * size + 64:
                raise ValueError(f"eval set {name!r}: only {len(seen)} distinct tasks in its first {row} rows; "
                                 f"use size <= {len(seen)}")
            task = mixture.task_at(row)
            row += 1
            identity = _task_identity(task)
            if identity in seen or task.id in groups:
                continue
            seen.add(identity)
            family = get_family(task.family)
            unit = f"{task.family}|{family.item_key(task)}"
            items.add(unit)
            nouns.add(family.item_noun)
            groups[task.id], units[task.id] = set_group(name), unit
            tasks.append(task)
        sets[name] = EvalSetInfo(name=name, split=str(spec["split"]), group=set_group(name), size=size,
                                 items=len(items), noun=nouns.pop() if len(nouns) == 1 else "item", pool=pools[name])
    return DrawnSets(tasks=tasks, sets=sets, groups=groups, units=units)


def write_eval_tasks(path: Path, specs: dict[str, dict[str, Any]], seed: int) -> WrittenSets:
    """Write the fixed eval set (:func:`draw_eval_tasks`) as a task JSONL, atomically; a refused set writes nothing."""
    drawn = draw_eval_tasks(specs, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path) as fh:
        for task in drawn.tasks:
            fh.write(task.to_json() + "\n")
    return WrittenSets(path=path, sets=drawn.sets, groups=drawn.groups, units=drawn.units)


def evaluate(model: str, adapter: str | None, tasks_file: Path, out: Path, *, max_new_tokens: int,
             batch_size: int, device: str = "auto", dtype: str = "auto", samples: int = 1,
             temperature: float | None = None, top_p: float = 1.0, seed: int = 0, overwrite: bool = True,
             draw: str = "multinomial", decoding: str = "dynamic") -> EvalResult:
    """Evaluation of ``model`` (+ ``adapter``, merged into the weights) on ``tasks_file`` with :mod:`rlvr.eval`:
    greedy by default; ``samples`` completions per task at ``temperature`` / ``top_p`` (seeded; ``draw``:
    :mod:`rlvr.generation.draw`) otherwise; ``decoding``: :data:`rlvr.generation.decoding.DECODINGS`. Without
    ``overwrite``, the verdicts a run with the same settings left in ``out`` are kept and only the rest generated."""
    config = EvalConfig(
        model=model, adapter=adapter, tasks_file=str(tasks_file), out=str(out), backend="transformers",
        max_new_tokens=max_new_tokens, batch_size=batch_size, samples=samples, device=device, dtype=dtype,
        temperature=temperature, top_p=top_p, seed=seed, plots=False, overwrite=overwrite, draw=draw,
        decoding=decoding,
    )
    return run_eval(config)


@dataclass
class Evaluator:
    """Scores models on the run's fixed eval set and keeps each stage's wall time in ``seconds``."""

    plan: Plan
    tasks_file: Path
    sets: dict[str, EvalSetInfo]
    groups: dict[str, str] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @classmethod
    def for_plan(cls, plan: Plan, specs: dict[str, dict[str, Any]] | None = None, name: str = "eval_tasks") -> "Evaluator":
        """Write the plan's eval set (or ``specs``' sets, to ``<name>.jsonl``) into its output folder and get ready
        to score it; ``seconds`` is shared with every evaluator of the run that writes into it."""
        written = write_eval_tasks(plan.out / f"{name}.jsonl", plan.specs if specs is None else specs,
                                   plan.recipe.task.eval_seed)
        return cls(plan=plan, tasks_file=written.path, sets=written.sets, groups=written.groups, units=written.units)

    @property
    def sizes(self) -> dict[str, int]:
        """Tasks per eval set."""
        return {name: info.size for name, info in self.sets.items()}

    def regroup(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``records`` with each task's ``split_group`` set to its eval set's group (:func:`set_group`)."""
        for rec in records:
            rec["split_group"] = self.groups.get(rec["id"], rec.get("split_group"))
        return records

    def sample(self, name: str, what: str, model_path: str, adapter: str | None, *, samples: int,
               temperature: float, top_p: float = 1.0, tasks_file: Path | None = None,
               max_new_tokens: int | None = None, folder: Path | None = None) -> EvalResult:
        """``samples`` completions per task of ``tasks_file`` (default this evaluator's) at ``temperature``,
        seeded by the recipe's seed and drawn as its ``sampling_draw`` says; records with every rollout in
        ``<name>/`` (or ``folder``: an earlier sampling there with the same settings is read back, not repeated);
        time in ``seconds[name]``."""
        tasks = tasks_file or self.tasks_file
        say(f"sampling {what}: {samples} completions per task at temperature {temperature:g}")
        t0 = time.time()
        device = self.plan.options.device
        res = evaluate(model_path, adapter, tasks, folder or self.plan.out / name,
                       max_new_tokens=max_new_tokens or self.plan.new_tokens,
                       batch_size=max(1, self.plan.options.eval_batch_size // samples), device=device.name,
                       dtype=self.plan.eval_dtype, samples=samples, temperature=temperature, top_p=top_p,
                       seed=int(getattr(self.plan.recipe.training, "seed", 0) or 0), overwrite=folder is None,
                       draw=self.plan.recipe.task.sampling_draw, decoding=self.decoding)
        self.seconds[name] = round(time.time() - t0, 1)
        return res

    @property
    def decoding(self) -> str:
        """How every generation of the run decodes: ``compact`` with the recipe's ``compact_decoding``, else
        transformers' own ``generate`` (``dynamic``)."""
        return "compact" if getattr(self.plan.recipe.task, "compact_decoding", False) else "dynamic"

    @property
    def n_tasks(self) -> int:
        """Tasks per evaluation."""
        return sum(self.sizes.values())

    def stage(self, name: str, what: str, model_path: str, adapter: str | None = None,
              max_new_tokens: int | None = None) -> StageResult:
        """Evaluate one model greedily (at most ``max_new_tokens``, default the plan's); write ``<name>/scores.json``
        and ``<name>/records.json``."""
        per_set = "; ".join(f"{k}: {info.describe()}" for k, info in self.sets.items())
        say(f"evaluating {what} on {self.n_tasks} tasks ({per_set}), greedy")
        t0 = time.time()
        device = self.plan.options.device
        res = evaluate(model_path, adapter, self.tasks_file, self.plan.out / name,
                       max_new_tokens=max_new_tokens or self.plan.new_tokens,
                       batch_size=self.plan.options.eval_batch_size, device=device.name, dtype=self.plan.eval_dtype,
                       decoding=self.decoding)
        self.seconds[name] = round(time.time() - t0, 1)
        records = self.regroup(list(res.records))
        result = StageResult(score_records(records, self.plan.reward_mode), slim_records(records, self.plan.reward_mode))
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
            "reward_mode": self.plan.reward_mode, "backend": "transformers", "device": device.kind, "dtype": self.plan.eval_dtype,
            "groups": "eval-set", **({"decoding": "compact"} if self.decoding == "compact" else {})})

    def base(self, model: str) -> tuple[StageResult, str | None]:
        """The base model's scores: from the previous run in the folder (``skip_before``), from the cache an
        earlier run on this machine wrote (``base_cache``), or evaluated (and cached). Returns the result and
        the cache folder it was read from (None when evaluated or reused)."""
        options, folder = self.plan.options, self.plan.out / "eval_before"
        if options.skip_before and (folder / "scores.json").is_file() and (folder / "records.json").is_file():
            say("reusing the base model's scores from the previous run")
            scores = json.loads((folder / "scores.json").read_text())
            return StageResult({k: SplitScore(**v) for k, v in scores.items()},
                               self.regroup(json.loads((folder / "records.json").read_text()))), None
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
        result = StageResult({k: SplitScore(**v) for k, v in entry[0].items()}, self.regroup(entry[1]))
        self._write("eval_before", result)
        self.seconds["eval_before"] = 0.0
        return result, cached_from
