"""NeMo-Gym's data side of the rlvr resources server, without NeMo-Gym: sample rows and response text.

NeMo-Gym (Python >= 3.12) reads JSONL samples ``{"responses_create_params": {"input": [messages]},
..., "agent_ref": {...}}``; every other key of a sample reaches the resources server's ``/verify`` with
the model's response. ``rlvr export --format nemo-gym`` writes :func:`sample_row` lines, whose
``task_json`` the server (:mod:`rlvr.integrations.nemo_gym`) scores with :func:`rlvr.verify`.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlvr.task import Task

#: the resources server's name in NeMo-Gym configs (``resources_servers/rlvr_chem``)
SERVER_NAME = "rlvr_chem"
#: the agent that serves the samples (NeMo-Gym's ``simple_agent`` bound to the server)
AGENT_NAME = f"{SERVER_NAME}_simple_agent"


def sample_row(task: Task, index: int, agent: str = AGENT_NAME) -> dict[str, Any]:
    """One task as a NeMo-Gym sample: the chat prompt as Responses API input, the task record, the agent."""
    return sample_record(task.to_dict(), task.to_json(), index, agent)


def sample_record(record: Mapping[str, Any], task_json: str, index: int, agent: str = AGENT_NAME) -> dict[str, Any]:
    """:func:`sample_row` from a task record and its JSON (serialised once)."""
    messages = [{"role": str(m.get("role", "user")), "content": str(m.get("content", ""))} for m in record["prompt"]]
    return {
        "responses_create_params": {"input": messages},
        "task_json": task_json,
        "id": record["id"],
        "metadata": {"family": record["family"], "split": str(record["meta"].get("split", record["id"].split(":")[1])),
                     "index": int(index)},
        "agent_ref": {"type": "responses_api_agents", "name": agent},
    }


def response_text(response: Mapping[str, Any]) -> str:
    """The text of the last assistant message of a Responses API response (``output_text`` parts joined).

    Reasoning items and tool calls are skipped; a response without an assistant message is ``""``.
    """
    for item in reversed(list(response.get("output") or [])):
        if not isinstance(item, Mapping) or item.get("type") != "message" or item.get("role", "assistant") != "assistant":
            continue
        content = item.get("content")
        if isinstance(content, str):
            return content
        return "".join(str(part.get("text", "")) for part in content or []
                       if isinstance(part, Mapping) and part.get("type") == "output_text")
    return ""


__all__ = ["AGENT_NAME", "SERVER_NAME", "response_text", "sample_record", "sample_row"]
