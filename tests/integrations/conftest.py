"""Shared pieces of the framework integration tests: a local tokenizer and mixed right/wrong answers."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

import rlvr
from rlvr.task import Task

#: the families every integration test mixes (one stoichiometry, one molecular-structure family)
MIX = "stoich.t2,mol.count"


@dataclass(frozen=True)
class Answer:
    """One response to a task and the reward ``rlvr.verify`` gives it."""

    task: Task
    text: str
    reward: float


def mixed_answers(tasks: list[Task]) -> list[Answer]:
    """For every task: its worked solution, another task's solution (well formed, wrong here) and prose.

    The expected rewards come from :func:`rlvr.verify`; the batch always holds both 1.0 and 0.0,
    so an adapter stuck at one value cannot pass a test built on it.
    """
    answers = []
    for i, task in enumerate(tasks):
        other = next(t for t in tasks[i + 1:] + tasks[:i] if t.family == task.family and t.id != task.id)
        for text in (rlvr.oracle_completion(task), rlvr.oracle_completion(other), "I am not sure, maybe 3."):
            answers.append(Answer(task, text, float(rlvr.verify(task, text).reward)))
    rewards = {a.reward for a in answers}
    assert 1.0 in rewards and 0.0 in rewards, rewards
    return answers


@pytest.fixture(scope="session")
def mix() -> str:
    """The families every integration test mixes."""
    return MIX


@pytest.fixture(scope="session")
def answers():
    """:func:`mixed_answers` (conftest helpers reach tests through fixtures)."""
    return mixed_answers


@pytest.fixture(scope="session")
def tokenizer_dir() -> str:
    """The embedded default model's folder (tokenizer and ChatML template; built locally, no hub)."""
    pytest.importorskip("transformers")
    from rlvr.models import ensure_default_model

    return str(ensure_default_model())


@pytest.fixture(scope="session")
def tokenizer(tokenizer_dir):
    """That model's tokenizer, configured as rlvr's trainers use it."""
    from transformers import AutoTokenizer

    from rlvr.models import configure_tokenizer

    return configure_tokenizer(AutoTokenizer.from_pretrained(tokenizer_dir))
