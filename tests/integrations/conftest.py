"""Shared pieces of the framework integration tests: a local tokenizer, mixed right/wrong answers, verifiers
traces, and NeMo-Gym's own environment (Python >= 3.12) driven from here."""
from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

import rlvr
from rlvr.task import Task

#: the families every integration test mixes (one stoichiometry, one molecular-structure family)
MIX = "stoich.t2,mol.count"
ROOT = Path(__file__).resolve().parents[2]
#: the script run in NeMo-Gym's environment
NEMO_GYM_DRIVER = Path(__file__).with_name("nemo_gym_driver.py")
#: rlvr's NeMo-Gym server folder
NEMO_GYM_SERVER = ROOT / "environments" / "nemo_gym" / "rlvr_chem"


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


@pytest.fixture(scope="session")
def verifiers_trace():
    """``trace(task, reply)``: a verifiers Trace of a ChemTask with a user node and a sampled reply, as a rollout leaves it."""
    vf = pytest.importorskip("verifiers.v1", reason="verifiers is not installed (bash scripts/install.sh --dev installs it)")
    from verifiers.v1.graph import MessageNode
    from verifiers.v1.state import state_cls

    def trace(task, reply: str):
        out = vf.Trace(
            task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
            state=state_cls(type(task))(),
            agent=vf.AgentInfo(config=vf.AgentConfig(), name="agent", trainable=False),
        )
        out.nodes.append(MessageNode(message=vf.UserMessage(content=task.data.prompt_text)))
        out.nodes.append(MessageNode(parent=0, message=vf.AssistantMessage(content=reply), sampled=True))
        return out

    return trace


@pytest.fixture(scope="session")
def nemo_gym_python() -> str:
    """NeMo-Gym's Python: ``$RLVR_NEMO_GYM_PYTHON`` or ``.venv-nemo-gym`` (scripts/nemo_gym_venv.sh builds it)."""
    path = Path(os.environ.get("RLVR_NEMO_GYM_PYTHON") or ROOT / ".venv-nemo-gym" / "bin" / "python")
    if not path.exists():
        pytest.skip(f"nemo_gym is not installed: NeMo-Gym needs Python >= 3.12 and its environment {path} is "
                    "missing (bash scripts/nemo_gym_venv.sh builds it; bash scripts/install.sh --dev runs that)")
    return str(path)


@pytest.fixture(scope="session")
def nemo_gym(nemo_gym_python):
    """``run(job) -> dict``: a job of ``nemo_gym_driver.py`` run in NeMo-Gym's environment, its printed JSON."""
    def run(job: dict) -> dict:
        proc = subprocess.run([nemo_gym_python, str(NEMO_GYM_DRIVER)], input=json.dumps(job), capture_output=True,
                              text=True, timeout=300, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout)

    return run
