"""An Atropos (``atroposlib`` 0.4) environment serving rlvr tasks and scoring rollouts with :func:`rlvr.verify`.

:class:`ChemAtroposEnv` is an ``atroposlib.envs.base.BaseEnv``: ``setup`` builds the task mixture,
``get_next_item`` hands out its tasks in index order (the rows of ``rlvr.datasets.build_stream``),
``collect_trajectories`` asks the inference server for ``group_size`` completions of the chat prompt
and ``score`` turns a group of completions into a ``ScoredDataGroup`` whose ``scores`` are rlvr's
rewards (tokens and masks from the environment's tokenizer, completion tokens unmasked). Run it as
Atropos runs any environment::

    python -m rlvr.integrations.atropos serve --env.mix "stoich.t2,mol.count" --openai.base_url http://localhost:9001/v1 ...
    python -m rlvr.integrations.atropos process --env.total_steps 8 --env.data_path_to_save_groups groups.jsonl ...

Options (``--env.*``): the ``BaseEnvConfig`` fields plus :class:`ChemAtroposConfig`'s ``mix``,
``split``, ``task_seed``, ``reward_mode``, ``eval_split``, ``eval_size``.
"""
from __future__ import annotations

import time
from typing import Any, Optional, TypedDict

from atroposlib.envs.base import APIServerConfig, BaseEnv, BaseEnvConfig, ScoredDataGroup
from atroposlib.utils.tokenize_for_trainer import tokenize_for_trainer
from pydantic import Field

from rlvr.api import prepare
from rlvr.datasets import Mixture
from rlvr.registry import DEFAULT_MIX
from rlvr.rewards.scoring import load_task, score
from rlvr.task import Task


class ChemItem(TypedDict):
    """One task as an Atropos item: its id, chat prompt and task record."""

    id: str
    messages: list[dict[str, str]]
    task_json: str


class ChemAtroposConfig(BaseEnvConfig):
    """``BaseEnvConfig`` plus which rlvr tasks the environment serves and how they are scored."""

    mix: str = Field(default=DEFAULT_MIX, description="rlvr family mixture, 'fam[@split][:weight],...'")
    split: str = Field(default="train", description="the split every family draws from (unless '@split')")
    task_seed: int = Field(default=0, description="rlvr generator seed")
    reward_mode: Optional[str] = Field(default=None, description="checker reward mode (None: each family's)")
    eval_split: Optional[str] = Field(default=None, description="split of the evaluation tasks (None: no evaluation)")
    eval_size: int = Field(default=64, description="evaluation tasks (the mixture's first rows on eval_split)")


class _ListChatTemplate:
    """A tokenizer whose ``apply_chat_template`` returns token ids, as ``tokenize_for_trainer`` expects.

    transformers 5 answers ``apply_chat_template(chat)`` with a ``BatchEncoding``; atroposlib 0.4 takes
    the ``len`` of its result as a token count, so the calls are made with ``return_dict=False``.
    """

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tokenizer, name)

    def apply_chat_template(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("return_dict", False)
        return self._tokenizer.apply_chat_template(*args, **kwargs)


def item_of(task: Task) -> ChemItem:
    """The Atropos item of an rlvr task."""
    return ChemItem(id=task.id, messages=[dict(m) for m in task.prompt], task_json=task.to_json())


class ChemAtroposEnv(BaseEnv):
    """rlvr tasks of a family mixture, scored by :func:`rlvr.verify` (one reward per completion)."""

    name = "rlvr_chem"
    env_config_cls = ChemAtroposConfig

    def __init__(self, config: ChemAtroposConfig, server_configs: Any, slurm: bool = False,
                 testing: bool = False) -> None:
        mixture = Mixture(config.mix, config.split, config.task_seed)  # a bad mix fails before any server work
        super().__init__(config, server_configs, slurm, testing)
        self.mixture = mixture
        self.iter = 0
        self.eval_items: list[ChemItem] = []
        self.percent_correct_buffer: list[float] = []

    @classmethod
    def config_init(cls) -> tuple[ChemAtroposConfig, list[APIServerConfig]]:
        config = ChemAtroposConfig(group_size=8, use_wandb=False, max_token_length=2048, wandb_name=cls.name)
        server = APIServerConfig(model_name="default", base_url="http://localhost:9001/v1", api_key="x")
        return config, [server]

    async def setup(self) -> None:
        """Start at the first task; build the evaluation tasks when ``eval_split`` is set."""
        self.iter = 0
        if self.config.eval_split is not None:
            evaluation = Mixture(self.config.mix, self.config.eval_split, self.config.task_seed)
            self.eval_items = [item_of(evaluation.task_at(i)) for i in range(int(self.config.eval_size))]

    async def get_next_item(self) -> ChemItem:
        """The mixture's next task (index order, so a run is the same on every machine)."""
        task = self.mixture.task_at(self.iter)
        self.iter += 1
        return item_of(task)

    def save_checkpoint(self, step: int, data: Optional[dict] = None) -> None:
        super().save_checkpoint(step, {**(data or {}), "iter": self.iter})

    async def collect_trajectories(self, item: ChemItem) -> tuple[Optional[ScoredDataGroup], list[Any]]:
        """``group_size`` completions of the item's prompt from the inference server, scored."""
        completions = await self.server.chat_completion(messages=item["messages"], n=self.config.group_size,
                                                        max_tokens=self.config.max_token_length, temperature=1.0)
        rollouts = [{"messages": [*item["messages"], {"role": "assistant", "content": choice.message.content or ""}],
                     "task_json": item["task_json"], "finish_reason": choice.finish_reason}
                    for choice in completions.choices]
        return await self.score(rollouts), []

    async def score(self, rollout_group_data: list[dict[str, Any]]) -> Optional[ScoredDataGroup]:
        """A ``ScoredDataGroup`` of rollouts ``{"messages", "task_json", "finish_reason"}``: rlvr's rewards.

        The last message of each rollout is the completion. None for an empty group.
        """
        if not rollout_group_data:
            return None
        tasks = [load_task(r["task_json"]) for r in rollout_group_data]
        completions = [r["messages"][-1]["content"] for r in rollout_group_data]
        if len(tasks) > 1:
            prepare(tasks, completions)
        tokenizer = _ListChatTemplate(self.tokenizer)
        group = ScoredDataGroup(tokens=[], masks=[], scores=[], messages=[])
        for task, completion, rollout in zip(tasks, completions, rollout_group_data):
            verdict = score(task, completion, self.config.reward_mode)
            tokens = tokenize_for_trainer(tokenizer, list(rollout["messages"]),
                                          finish_reason=rollout.get("finish_reason") or "")
            group["tokens"].append(tokens["tokens"])
            group["masks"].append(tokens["masks"])
            group["scores"].append(float(verdict.reward))
            group["messages"].append(list(rollout["messages"]))
            self.percent_correct_buffer.append(float(bool(verdict.correct)))
        return group

    async def evaluate(self, *args: Any, **kwargs: Any) -> None:
        """Greedy answers to the evaluation tasks, scored; logged with ``evaluate_log``."""
        if not self.eval_items:
            return
        start = time.time()
        rewards, samples = [], []
        for item in self.eval_items:
            completion = await self.server.chat_completion(messages=item["messages"], n=1, split="eval",
                                                           max_tokens=self.config.max_token_length, temperature=0.0)
            text = completion.choices[0].message.content or ""
            reward = float(score(load_task(item["task_json"]), text, self.config.reward_mode).reward)
            rewards.append(reward)
            samples.append({"messages": [*item["messages"], {"role": "assistant", "content": text}], "score": reward})
        metrics = {"eval/mean_reward": sum(rewards) / len(rewards)}
        await self.evaluate_log(metrics=metrics, samples=samples, start_time=start, end_time=time.time(),
                                generation_parameters={"temperature": 0.0, "max_tokens": self.config.max_token_length})

    async def wandb_log(self, wandb_metrics: Optional[dict] = None) -> None:
        metrics = dict(wandb_metrics or {})
        if self.percent_correct_buffer:
            metrics["train/percent_correct"] = sum(self.percent_correct_buffer) / len(self.percent_correct_buffer)
        self.percent_correct_buffer = []
        await super().wandb_log(metrics)


__all__ = ["ChemAtroposConfig", "ChemAtroposEnv", "ChemItem", "item_of"]

if __name__ == "__main__":
    ChemAtroposEnv.cli()
