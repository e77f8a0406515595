"""A NeMo-Gym (0.4, Python >= 3.12) resources server whose ``/verify`` scores with :func:`rlvr.verify`.

NeMo-Gym's agent sends each sample's model response to ``POST /verify`` with the sample's own fields;
rlvr's samples (``rlvr export --format nemo-gym``, :mod:`rlvr.integrations.nemo_gym_data`) carry the
task record as ``task_json``, and :class:`ChemResourcesServer` answers with rlvr's reward plus
``correct``, ``answered`` and ``reason``. ``environments/nemo_gym/rlvr_chem`` is the server folder
NeMo-Gym runs (``app.py``, ``configs/rlvr_chem.yaml``, ``data/example.jsonl``); docs/integrations.md
gives the commands.
"""
from __future__ import annotations

from typing import Optional

from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig, BaseRunRequest, BaseVerifyRequest, BaseVerifyResponse, SimpleResourcesServer,
)
from pydantic import ConfigDict

from rlvr.integrations.nemo_gym_data import SERVER_NAME, response_text
from rlvr.reasons import answered
from rlvr.rewards.scoring import load_task, score


class ChemResourcesServerConfig(BaseResourcesServerConfig):
    """The server's config; ``reward_mode`` picks a checker reward mode (None: each family's default)."""

    name: str = SERVER_NAME
    reward_mode: Optional[str] = None


class ChemRunRequest(BaseRunRequest):
    """A sample: the Responses API parameters plus the rlvr task record."""

    model_config = ConfigDict(extra="allow")

    task_json: str


class ChemVerifyRequest(ChemRunRequest, BaseVerifyRequest):
    """A sample with the model's response."""


class ChemVerifyResponse(BaseVerifyResponse):
    """The request, rlvr's reward, and whether the answer was right, readable, and why."""

    model_config = ConfigDict(extra="allow")

    correct: bool
    answered: bool
    reason: str


class ChemResourcesServer(SimpleResourcesServer):
    """Scores the last assistant message of a response against the sample's rlvr task."""

    config: ChemResourcesServerConfig

    async def verify(self, body: ChemVerifyRequest) -> ChemVerifyResponse:
        task = load_task(body.task_json)
        text = response_text(body.response.model_dump(mode="json"))
        verdict = score(task, text, self.config.reward_mode)
        return ChemVerifyResponse(**body.model_dump(), reward=float(verdict.reward), correct=bool(verdict.correct),
                                  answered=answered(verdict), reason=str(verdict.reason))


__all__ = ["ChemResourcesServer", "ChemResourcesServerConfig", "ChemRunRequest", "ChemVerifyRequest",
           "ChemVerifyResponse"]

if __name__ == "__main__":
    ChemResourcesServer.run_webserver()
