"""Dynamic sampling (as in DAPO) and frontier feedback for TRL's GRPO/RLOO trainers.

A group whose rewards all agree has zero advantage and carries no policy gradient. With
``dynamic_sampling`` on, after each generation batch the trainer replaces such groups by groups of
fresh prompts (drawn from the task sampler's own row range, the same split) before the update, in at
most ``max_rounds`` extra generation rounds of at most ``max_groups`` groups each; a group it could not
fill stays as it was. With ``fixed_size`` every round generates exactly ``max_groups`` groups, however few
are missing (the spare ones are dropped), so every round has the same shape: what a compiled, fixed-shape
generation on a GPU needs to avoid compiling again for each round size. Every round is taken by every process together (the number of groups to
replace is the maximum over processes), so multi-process runs stay in step.

The same hook feeds the frontier sampler (:mod:`rlvr.frontier`): every graded completion of the
generation batch, gathered from all processes in rank order, so every process holds the same
history and draws the same tasks.

Built on TRL's trainer as a subclass: :meth:`_calculate_rewards` (the gathered rewards of a batch)
and :meth:`_generate_and_score_completions` (the batch handed to the loss).

The hook also keeps the run's prompt stream: every group it generated for (drawn and fresh, in order) as its
task record in ``rlvr_prompt_log``, which :func:`rlvr.train.runner.train` writes to ``prompts.jsonl`` (what a
rejection-sampling arm samples again), and counts the completion tokens generated (``rlvr/generated_tokens``,
cumulative, this process).

Logged per step: ``dynamic/zero_std_groups`` (groups of the drawn batch with no reward spread),
``dynamic/replaced``, ``dynamic/unfilled``, ``dynamic/extra_groups`` (groups generated to replace
them), ``dynamic/rounds``, ``rlvr/reward_drawn`` (mean reward of the batch as drawn, before any
replacement: the training-reward curve that selection does not inflate) and the frontier's
``frontier/*`` cell rates. TRL's own ``reward`` averages every batch generated in the step.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, fields
from typing import Any, Mapping

from rlvr.answer import completion_text
from rlvr.api import verify
from rlvr.datasets import task_row
from rlvr.frontier import TaskSampler, difficulty_cell
from rlvr.rewards.scoring import load_task

log = logging.getLogger(__name__)

#: [B, L] tensors whose padding sits on the left (prompts); every other [B, L] tensor is right-padded
_LEFT_PADDED = ("prompt_ids", "prompt_mask")
#: per-row tensors a generation batch may carry that dynamic sampling knows how to merge
_KNOWN = {"prompt_ids", "prompt_mask", "completion_ids", "completion_mask", "advantages", "num_items_in_batch",
          "old_per_token_logps", "ref_per_token_logps", "sampling_per_token_logps", "importance_sampling_ratio",
          "tool_mask"}


@dataclass
class DynamicSamplingConfig:
    """Recipe key ``dynamic_sampling``: ``{enabled, max_rounds, max_groups, fixed_size}``.

    ``max_rounds``: extra generation rounds per batch (0 = only count zero-variance groups);
    ``max_groups``: at most this many fresh groups per round (None: as many as there are to replace);
    ``fixed_size``: every round generates exactly ``max_groups`` groups (needs ``max_groups``).
    """

    enabled: bool = True
    max_rounds: int = 1
    max_groups: int | None = None
    fixed_size: bool = False

    def __post_init__(self) -> None:
        if int(self.max_rounds) < 0:
            raise ValueError(f"dynamic_sampling: max_rounds must be >= 0, got {self.max_rounds}")
        if self.max_groups is not None and int(self.max_groups) < 1:
            raise ValueError(f"dynamic_sampling: max_groups must be >= 1, got {self.max_groups}")
        if self.fixed_size and self.max_groups is None:
            raise ValueError("dynamic_sampling: fixed_size needs max_groups (the number of groups every round generates)")

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any] | bool | None) -> "DynamicSamplingConfig | None":
        """None when off; ``true`` means the defaults."""
        if config in (None, False):
            return None
        if config is True:
            return cls()
        keys = ", ".join(f.name for f in fields(cls))
        if not isinstance(config, Mapping):
            raise ValueError(f"dynamic_sampling must be true/false or a mapping {{{keys}}}")
        unknown = sorted(set(config) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"dynamic_sampling: unknown key(s) {unknown}; allowed: {keys}")
        cfg = cls(**dict(config))
        return cfg if cfg.enabled else None


def zero_std_groups(rewards: Any, group: int) -> list[int]:
    """Indices of the groups (consecutive runs of ``group`` rows) whose rewards are all equal."""
    import torch

    grouped = rewards.view(-1, group)
    spread = torch.nan_to_num(grouped, nan=0.0)
    same = (spread.max(dim=1).values - spread.min(dim=1).values).abs() < 1e-6
    return [int(i) for i in torch.nonzero(same).flatten().tolist()]


def merge_groups(batch: Mapping[str, Any], fresh: Mapping[str, Any], replace: Mapping[int, int], group: int,
                 pad_token_id: int) -> dict[str, Any]:
    """``batch`` with each group ``g`` of ``replace`` swapped for group ``replace[g]`` of ``fresh``.

    Both are local generation batches of TRL (rows grouped by ``group``); prompts stay left-padded and
    completions right-padded, padding columns no row uses are dropped; ``num_items_in_batch`` is left
    for the caller to recompute (it is a sum over processes).
    """
    import torch

    unknown = sorted((set(batch) | set(fresh)) - _KNOWN)
    if unknown:
        raise ValueError(f"dynamic sampling cannot merge generation batches carrying {unknown}")
    out: dict[str, Any] = {}
    n_rows = int(batch["advantages"].shape[0])
    for key, value in batch.items():
        if key == "num_items_in_batch":
            continue
        other = fresh.get(key)
        if other is None:
            raise ValueError(f"dynamic sampling: the fresh batch has no {key!r}")
        pad = pad_token_id if key in ("prompt_ids", "completion_ids") else 0
        if value.dim() == 2:
            width = max(value.shape[1], other.shape[1])
            value, other = (_pad(t, width, pad, left=key in _LEFT_PADDED) for t in (value, other))
        rows = []
        for g in range(n_rows // group):
            src, at = (other, replace[g]) if g in replace else (value, g)
            rows.append(src[at * group:(at + 1) * group])
        out[key] = torch.cat(rows, dim=0)
    return _trim(out)


def _pad(tensor: Any, width: int, value: int, *, left: bool) -> Any:
    import torch.nn.functional as F

    missing = width - tensor.shape[1]
    if missing <= 0:
        return tensor
    return F.pad(tensor, (missing, 0) if left else (0, missing), value=value)


def _trim(batch: dict[str, Any]) -> dict[str, Any]:
    """Drop padding columns that no row uses (left of the prompts, right of the completions)."""
    prompt_used = batch["prompt_mask"].sum(dim=0) > 0
    first = int(prompt_used.nonzero().min()) if prompt_used.any() else 0
    completion_used = batch["completion_mask"].sum(dim=0) > 0
    last = int(completion_used.nonzero().max()) + 1 if completion_used.any() else 1
    for key, value in batch.items():
        if value.dim() != 2:
            continue
        batch[key] = value[:, first:] if key in _LEFT_PADDED else value[:, :last]
    return batch


def observe_batch(sampler: TaskSampler, inputs: list[Mapping[str, Any]], prompts: list[Any],
                  completions: list[Any], rewards: Any, gather: Any) -> None:
    """Grade this process's rows, gather ``(cell, success)`` from every process in rank order, feed the sampler."""
    local: list[tuple[str, float]] = []
    for row, completion, reward in zip(inputs, completions, rewards):
        try:
            task = load_task(row["task_json"])
        except Exception:  # noqa: BLE001 - a row without a readable task teaches the sampler nothing
            continue
        correct = bool(verify(task, completion_text(completion) or "").correct) \
            if sampler.config.success == "correct" else False
        local.append((difficulty_cell(task), sampler.is_success(correct, float(reward))))
    for cell, success in gather(local):
        sampler.policy.observe_outcome(cell, success)


def fresh_inputs(sampler: TaskSampler, n_groups: int, group: int, rank: int) -> list[dict[str, Any]]:
    """``n_groups`` fresh prompts from the sampler's replacement rows, each repeated ``group`` times."""
    rows = [task_row(task) for task in sampler.fresh(n_groups, namespace=f"resample-rank{rank}")]
    return [dict(row) for row in rows for _ in range(group)]


class SamplingHooks:
    """Mixin for a TRL GRPO/RLOO trainer class: frontier feedback and dynamic sampling.

    Set ``rlvr_sampler`` (the training stream's :class:`~rlvr.frontier.TaskSampler`) and
    ``rlvr_dynamic`` (a :class:`DynamicSamplingConfig` or None) on the instance before training.
    """

    rlvr_sampler: TaskSampler | None = None
    rlvr_dynamic: DynamicSamplingConfig | None = None
    rlvr_prompt_log: list[str] | None = None
    rlvr_generated_tokens: int = 0
    _rlvr_rewards: Any = None

    def _log_generation(self, inputs: list[Mapping[str, Any]], batch: Mapping[str, Any], group: int) -> None:
        """Keep one task record per generated group and count the completion tokens generated."""
        if self.rlvr_prompt_log is not None:
            self.rlvr_prompt_log += [str(row.get("task_json", "")) for row in inputs[::group]]
        mask = batch.get("completion_mask")
        if mask is not None:
            self.rlvr_generated_tokens += int(mask.sum().item())

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):  # noqa: D102 - TRL hook
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._rlvr_rewards = rewards_per_func
        if self.rlvr_sampler is not None and self.model.training:
            from accelerate.utils import gather_object

            start = self.accelerator.process_index * len(prompts)
            local = self._weighted_rewards()[start:start + len(prompts)].tolist()
            observe_batch(self.rlvr_sampler, inputs, prompts, completions, local, gather_object)
        return rewards_per_func

    def _weighted_rewards(self) -> Any:
        """Total reward per completion of the last scored batch (TRL's reward weights applied, NaN skipped)."""
        rewards = self._rlvr_rewards
        return (rewards * self.reward_weights.to(rewards.device).unsqueeze(0)).nansum(dim=1)

    def _generate_and_score_completions(self, inputs):  # noqa: D102 - TRL hook
        batch = super()._generate_and_score_completions(inputs)
        if not self.model.training:
            return batch
        metrics = self._metrics["train"]
        group = int(self.num_generations)
        self._log_generation(inputs, batch, group)
        rank, n_local = self.accelerator.process_index, len(inputs)
        drawn = self._weighted_rewards()
        metrics["rlvr/reward_drawn"].append(float(drawn.nanmean().item()))
        if self.rlvr_sampler is not None:
            for key, value in self.rlvr_sampler.metrics().items():
                if not key.startswith("frontier/rate/"):
                    metrics[key].append(value)
        if self.rlvr_dynamic is None:
            metrics["rlvr/generated_tokens"].append(float(self.rlvr_generated_tokens))
            return batch
        if n_local % group:
            raise ValueError(f"dynamic sampling needs whole groups on every process: {n_local} rows per process is "
                             f"not a multiple of num_generations {group}")
        zero = zero_std_groups(drawn[rank * n_local:(rank + 1) * n_local], group)
        metrics["dynamic/zero_std_groups"].append(float(self._global_max(len(zero), total=True)))
        replace: dict[int, tuple[int, int]] = {}
        pool: list[Any] = []
        rounds = extra = 0
        todo = list(zero)
        while rounds < self.rlvr_dynamic.max_rounds:
            need = self._global_max(len(todo))
            if need == 0:
                break
            if self.rlvr_dynamic.fixed_size:
                need = int(self.rlvr_dynamic.max_groups)
            elif self.rlvr_dynamic.max_groups is not None:
                need = min(need, int(self.rlvr_dynamic.max_groups))
            asked = fresh_inputs(self.rlvr_sampler, need, group, rank)
            fresh = super()._generate_and_score_completions(asked)
            self._log_generation(asked, fresh, group)
            rounds += 1
            extra += need
            fresh_rewards = self._weighted_rewards()[rank * need * group:(rank + 1) * need * group]
            flat = set(zero_std_groups(fresh_rewards, group))
            for g in range(need):
                if g not in flat and todo:
                    replace[todo.pop(0)] = (len(pool), g)
            pool.append(fresh)
        metrics["dynamic/rounds"].append(float(rounds))
        metrics["dynamic/extra_groups"].append(float(self._global_max(extra, total=True)))
        metrics["dynamic/replaced"].append(float(self._global_max(len(replace), total=True)))
        metrics["dynamic/unfilled"].append(float(self._global_max(len(todo), total=True)))
        for index, fresh in enumerate(pool):
            mapping = {g: at for g, (p, at) in replace.items() if p == index}
            if mapping:
                batch = {**merge_groups(batch, fresh, mapping, group, self._pad_id()),
                         "num_items_in_batch": batch["num_items_in_batch"]}
        if replace or pool:
            mask = batch["completion_mask"] if batch.get("tool_mask") is None else batch["completion_mask"] * batch["tool_mask"]
            batch["num_items_in_batch"] = self.accelerator.gather(mask.sum()).sum()
        metrics["rlvr/generated_tokens"].append(float(self.rlvr_generated_tokens))
        return batch

    def _pad_id(self) -> int:
        tokenizer = getattr(self, "_tokenizer", None) or getattr(self, "processing_class", None)
        pad = getattr(tokenizer, "pad_token_id", None)
        return int(pad) if pad is not None else 0

    def _global_max(self, value: int, *, total: bool = False) -> int:
        """The maximum (or with ``total`` the sum) of ``value`` over processes."""
        import torch

        gathered = self.accelerator.gather(torch.tensor([int(value)], device=self.accelerator.device))
        return int(gathered.sum().item() if total else gathered.max().item())
