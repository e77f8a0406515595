"""rlvr families as a verifiers (0.4, ``verifiers.v1``) taskset: unlimited tasks, rlvr's verdict as the reward.

verifiers resolves a taskset id to an importable module exporting one ``Taskset`` subclass in
``__all__``; the ``rlvr-chem-env`` package (``environments/rlvr_chem_env``) re-exports this module's
:class:`ChemTaskset`, so after ``pip install -e environments/rlvr_chem_env``::

    vf-eval rlvr-chem-env --env.agent.harness.id null -n 20 --model <model> \\
        --env.taskset.mix "stoich.t2,mol.count@hard" --env.taskset.split test_out
    vf-validate rlvr-chem-env -n 20 --runtime.type subprocess   # gold + noop checks, no model

Tasks are generated lazily from ``Mixture(mix, split, seed).task_at(i)`` for i = 0, 1, ... (the
same rows as ``rlvr.datasets.build_stream``): the taskset is infinite unless ``num_tasks`` bounds
it, so bound a run with ``-n``. The reward ``correct`` is ``rlvr.verify``'s reward of the last
reply (``reward_mode`` picks a shaped mode); ``answered`` is a metric (a readable answer block).
"""
from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import verifiers.v1 as vf

import rlvr
from rlvr.datasets import Mixture
from rlvr.reasons import answered as has_answer
from rlvr.rewards.scoring import load_task, score
from rlvr.task import Task

#: the taskset id of the installed environment package (``environments/rlvr_chem_env``)
TASKSET_ID = "rlvr-chem-env"


class ChemTaskData(vf.TaskData):
    """One rlvr task as verifiers task data: the chat prompt plus the full task record."""

    task_json: str
    """The rlvr task record (``Task.to_json()``), ground truth included; never shown to the model."""
    family: str


class ChemTaskConfig(vf.TaskConfig):
    """Scoring knobs, under ``--env.taskset.task.*``."""

    reward_mode: str | None = None
    """A checker reward mode (e.g. ``shaped``, or ``f1`` for stoichiometry); None: each family's default."""


class ChemTask(vf.Task[ChemTaskData, vf.State, ChemTaskConfig]):
    """Scores the final reply with :func:`rlvr.verify`; one turn per episode."""

    @property
    def key(self) -> str:
        """The rlvr task id: durable and unique (``family:split:seed:index:config``)."""
        return self.data.id or self.hash

    @property
    def rlvr_task(self) -> Task:
        return load_task(self.data.task_json)

    @vf.stop
    async def single_turn(self, trace: vf.Trace) -> bool:
        """The question is answered in one reply."""
        return trace.num_turns >= 1

    @vf.reward(weight=1.0)
    async def correct(self, trace: vf.Trace) -> float:
        """rlvr's verifier reward of the last reply, in [0, 1]."""
        return float(score(self.rlvr_task, trace.last_reply, self.config.reward_mode).reward)

    @vf.metric
    async def answered(self, trace: vf.Trace) -> float:
        """1.0 when the last reply has a readable answer block (right or wrong)."""
        return float(has_answer(score(self.rlvr_task, trace.last_reply, self.config.reward_mode)))

    async def validate(self, runtime: vf.Runtime) -> bool:
        """Gold check (``vf-validate``): rlvr's worked solution earns the full reward."""
        task = self.rlvr_task
        return float(score(task, rlvr.oracle_completion(task), self.config.reward_mode).reward) == 1.0


class ChemTasksetConfig(vf.TasksetConfig):
    """Which tasks load, under ``--env.taskset.*``."""

    mix: str = "stoich.t1,stoich.t2,mol.count,mol.index"
    """A family or weighted mixture, ``"fam[@split][:weight],..."`` (as ``rlvr export --family``)."""
    split: str = "train"
    seed: int = 0
    num_tasks: int | None = None
    """Stop after this many tasks; None: unlimited (bound runs with ``-n``)."""
    task: ChemTaskConfig = ChemTaskConfig()


def task_data(task: Task) -> ChemTaskData:
    """verifiers task data for an rlvr task (system message, user message, record)."""
    system = next((m["content"] for m in task.prompt if m.get("role") == "system"), None)
    return ChemTaskData(id=task.id, name=task.id, prompt=task.user_text, system_prompt=system,
                        task_json=task.to_json(), family=task.family)


class ChemTaskset(vf.Taskset[ChemTask, ChemTasksetConfig]):
    """rlvr tasks of a family mixture, generated lazily in index order."""

    INFINITE = True

    def __init__(self, config: ChemTasksetConfig) -> None:
        super().__init__(config)
        if config.num_tasks is not None and config.num_tasks < 0:
            raise ValueError(f"num_tasks must be >= 0, got {config.num_tasks}")
        self.INFINITE = config.num_tasks is None
        try:  # validate the mixture now, not at the first task
            self._mixture = Mixture(config.mix, config.split, config.seed)
        except (KeyError, ValueError) as exc:
            raise ValueError(f"taskset mix {config.mix!r} (split {config.split!r}): {exc.args[0]}") from None

    def load(self) -> Iterator[ChemTask]:
        indices = itertools.count() if self.config.num_tasks is None else range(self.config.num_tasks)
        for index in indices:
            yield ChemTask(task_data(self._mixture.task_at(index)), self.config.task)


def load_environment(**taskset_options: Any) -> vf.Env:
    """A single-agent chat environment (``null`` harness) over :class:`ChemTaskset`.

    ``taskset_options`` are :class:`ChemTasksetConfig` fields (``mix``, ``split``, ``seed``,
    ``num_tasks``, ``task={"reward_mode": ...}``). Needs the ``rlvr-chem-env`` package installed.
    """
    config = vf.resolve_env_config({"taskset": {"id": TASKSET_ID, **taskset_options},
                                    "agent": {"harness": {"id": "null"}}})
    return vf.load_environment(config)


__all__ = ["ChemTaskset"]
