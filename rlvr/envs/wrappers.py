"""Wrappers for the text environments: chat-template observations and per-family task statistics.

Gymnasium's own :class:`gymnasium.wrappers.RecordEpisodeStatistics` works unchanged on these
environments (``info["episode"]`` with return, length and time at the end of each episode);
:class:`TaskStatistics` adds what is specific to verifiable tasks (solve rate, turns, reasons per family).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Mapping

import gymnasium as gym

from rlvr.envs.spaces import ChatText


def render_chat_template(
    template: str,
    messages: list[Mapping[str, Any]],
    *,
    add_generation_prompt: bool = True,
    **kwargs: Any,
) -> str:
    """Render a Jinja chat template (as in ``tokenizer.chat_template``) in a sandbox, like transformers does."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise ValueError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    return env.from_string(template).render(messages=list(messages), add_generation_prompt=add_generation_prompt, **kwargs)


class ChatTemplateObservation(gym.Wrapper):
    """Observations become the whole conversation rendered with a chat template, ready to tokenise.

    Give either a ``tokenizer`` (its ``apply_chat_template``) or a Jinja ``chat_template`` string
    (rendered with :func:`render_chat_template`; ``template_kwargs`` such as ``bos_token`` are passed
    to the template). The conversation is ``info["messages"]`` of the wrapped environment, so in
    multi-turn mode the observation after a wrong answer is the full dialogue ending with the
    feedback and the generation prompt. ``info["raw_observation"]`` keeps the unwrapped observation.
    """

    def __init__(
        self,
        env: gym.Env,
        tokenizer: Any = None,
        chat_template: str | None = None,
        *,
        add_generation_prompt: bool = True,
        template_kwargs: Mapping[str, Any] | None = None,
        max_observation_chars: int = 1 << 22,
    ) -> None:
        super().__init__(env)
        if (tokenizer is None) == (chat_template is None):
            raise ValueError("give exactly one of `tokenizer` or `chat_template`")
        self.tokenizer = tokenizer
        self.chat_template = chat_template
        self.add_generation_prompt = add_generation_prompt
        self.template_kwargs = dict(template_kwargs or {})
        self.observation_space = ChatText(int(max_observation_chars))

    def render_messages(self, messages: list[Mapping[str, Any]]) -> str:
        """The conversation as one templated string."""
        if self.tokenizer is not None:
            return self.tokenizer.apply_chat_template(
                list(messages), tokenize=False, add_generation_prompt=self.add_generation_prompt, **self.template_kwargs
            )
        return render_chat_template(
            self.chat_template, messages, add_generation_prompt=self.add_generation_prompt, **self.template_kwargs
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        info["raw_observation"] = obs
        return self.render_messages(info["messages"]), info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["raw_observation"] = obs
        if terminated or truncated:  # nothing left to generate: the final reply, untemplated
            return obs, reward, terminated, truncated, info
        return self.render_messages(info["messages"]), reward, terminated, truncated, info


class TaskStatistics(gym.Wrapper):
    """Per-family statistics of finished episodes: solve rate, mean turns, mean return, reason counts.

    The final step's ``info["task_stats"]`` holds the episode's own numbers; :meth:`summary` returns
    the running aggregate (bounded: counters only).
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self._n: Counter = Counter()
        self._solved: Counter = Counter()
        self._turns: Counter = Counter()
        self._return: defaultdict = defaultdict(float)
        self._reasons: defaultdict = defaultdict(Counter)

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            family = info.get("family", "?")
            solved = bool(info.get("solved", info.get("correct", False)))
            turns = int(info.get("turn", 1))
            ret = float(info.get("episode_return", reward))
            self._n[family] += 1
            self._solved[family] += int(solved)
            self._turns[family] += turns
            self._return[family] += ret
            self._reasons[family][str(info.get("reason", "?"))] += 1
            info["task_stats"] = {"family": family, "solved": solved, "turns": turns, "return": ret}
        return obs, reward, terminated, truncated, info

    def summary(self) -> dict[str, dict[str, Any]]:
        """``{family: {episodes, solve_rate, mean_turns, mean_return, reasons}}`` over finished episodes."""
        out = {}
        for family, n in sorted(self._n.items()):
            out[family] = {
                "episodes": n,
                "solve_rate": self._solved[family] / n,
                "mean_turns": self._turns[family] / n,
                "mean_return": self._return[family] / n,
                "reasons": dict(self._reasons[family].most_common()),
            }
        return out
