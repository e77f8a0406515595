"""An HTTP reward server speaking OpenRLHF's remote reward-model protocol (Starlette under uvicorn).

``POST /get_reward`` with JSON ``{"query": [...], "prompts": [...], "labels": [...]}`` (``labels[i]``
is the task record, e.g. the ``task_json`` column of ``rlvr export``; ``prompts`` is optional and
strips the prompt from each query) answers ``{"rewards": [...], "scores": [...], "extra_logs":
{"acc": [...], "answered": [...]}}``. ``GET /health`` answers ``{"status": "ok", ...}``.

Errors are JSON ``{"error": ...}`` with a 4xx status: 400 (body is not JSON), 401 (a token is
configured and the request lacks ``Authorization: Bearer <token>``), 404 (unknown path), 405 (wrong
method), 411 (no Content-Length), 413 (body over the size limit, or too many samples), 415 (not
JSON content type), 422 (JSON of the wrong shape, or a label that is not a task record). The
server binds to 127.0.0.1 by default, without a token.

Every verdict has a deadline (``ServerConfig.timeout``): a checker looping in Python is
interrupted in-process; one stuck in C code costs its scoring process, which is replaced, and the
sample gets reward 0. ``workers`` HTTP worker processes (uvicorn) each own one scoring process.

Modules: :mod:`~rlvr.rewards.server.protocol` (config, validation, the scoring job),
:mod:`~rlvr.rewards.server.app` (the ASGI app), :mod:`~rlvr.rewards.server.runner` (uvicorn).
"""
from __future__ import annotations

from rlvr.rewards.server.protocol import (
    DEFAULT_MAX_BODY,
    DEFAULT_MAX_ITEMS,
    TOKEN_ENV_VAR,
    RequestError,
    ServerConfig,
    parse_request,
)
from rlvr.rewards.server.runner import RewardServer, bind_socket, is_loopback, serve

__all__ = ["DEFAULT_MAX_BODY", "DEFAULT_MAX_ITEMS", "TOKEN_ENV_VAR", "RequestError", "RewardServer", "ServerConfig",
           "bind_socket", "is_loopback", "parse_request", "serve"]
