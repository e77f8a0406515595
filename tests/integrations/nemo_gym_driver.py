"""Runs in NeMo-Gym's own environment (``.venv-nemo-gym``, Python >= 3.12): NeMo-Gym's code on rlvr's server.

Reads a job from stdin, ``{"configs": [paths of server config files], "samples": [sample rows],
"responses": [[sample index, text], ...], "reward_mode": mode or null}``, and prints one JSON object:

- ``version``: the installed nemo-gym;
- ``servers``: ``{path: {entry: null or error}}``, each top-level entry of each config file validated
  as NeMo-Gym validates server instances (``maybe_get_server_instance_config``);
- ``offending``: the samples NeMo-Gym's data validation (``compute_sample_metrics``) rejects;
- ``verify``: for each response, the HTTP status and JSON body of ``POST /verify`` on the FastAPI app
  that ``ChemResourcesServer.setup_webserver`` builds, the sample's fields plus the response as a
  Responses API object with one assistant message.
"""
from __future__ import annotations

import json
import sys
from importlib.metadata import version

from fastapi.testclient import TestClient
from nemo_gym.config_types import BaseServerConfig, maybe_get_server_instance_config
from nemo_gym.server_utils import ServerClient
from nemo_gym.train_data_utils import compute_sample_metrics
from omegaconf import OmegaConf

from rlvr.integrations.nemo_gym import ChemResourcesServer, ChemResourcesServerConfig


def response(text: str) -> dict:
    """A Responses API response whose output is one assistant message with ``text``."""
    message = {"id": "msg_0", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": []}]}
    return {"id": "resp_0", "created_at": 0.0, "model": "policy", "object": "response", "output": [message],
            "parallel_tool_calls": False, "tool_choice": "none", "tools": []}


def main() -> None:
    job = json.load(sys.stdin)
    servers = {}
    for path in job["configs"]:
        config = OmegaConf.load(path)
        found = (maybe_get_server_instance_config(name, config[name]) for name in config)
        servers[path] = {name: None if instance is not None else str(error)
                         for name, (instance, error) in zip(config, found)}
    offending = [i for i, sample in enumerate(job["samples"]) if compute_sample_metrics(json.dumps(sample))[1]]
    client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=0),
                          global_config_dict=OmegaConf.create({}))
    server_config = ChemResourcesServerConfig(host="127.0.0.1", port=0, entrypoint="app.py",
                                              reward_mode=job.get("reward_mode"))
    server = ChemResourcesServer(config=server_config, server_client=client)
    results = []
    with TestClient(server.setup_webserver()) as http:
        for index, text in job["responses"]:
            reply = http.post("/verify", json={**job["samples"][index], "response": response(text)})
            results.append({"status": reply.status_code, "body": reply.json()})
    json.dump({"version": version("nemo-gym"), "servers": servers, "offending": offending, "verify": results},
              sys.stdout)


if __name__ == "__main__":
    main()
