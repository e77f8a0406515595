"""An HTTP reward server speaking OpenRLHF's remote reward-model protocol (stdlib only).

``POST /get_reward`` with JSON ``{"query": [...], "prompts": [...], "labels": [...]}`` (``labels[i]``
is the task record, e.g. the ``task_json`` column of ``rlvr export``; ``prompts`` is optional and
strips the prompt from each query) answers ``{"rewards": [...], "scores": [...], "extra_logs":
{"acc": [...], "answered": [...]}}``. ``GET /health`` answers ``{"status": "ok", ...}``.

Errors are JSON ``{"error": ...}`` with a 4xx status: 400 (body is not JSON), 404 (unknown path),
405 (wrong method), 411 (no Content-Length), 413 (body over the size limit), 415 (not JSON
content type), 422 (JSON of the wrong shape, or a label that is not a task record). The server binds to
127.0.0.1 by default; it has no authentication, so expose it only on trusted networks.
"""
from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rlvr.rewards.scoring import score_queries

log = logging.getLogger(__name__)

#: default request-body limit (bytes)
DEFAULT_MAX_BODY = 16 * 1024 * 1024
#: default cap on samples per request
DEFAULT_MAX_ITEMS = 8192
_DRAIN_LIMIT = 1 << 20  # an oversized body up to this size is read and discarded before answering 413


@dataclass(frozen=True)
class ServerConfig:
    """Where to listen and what to accept."""

    host: str = "127.0.0.1"
    port: int = 5000
    max_body_bytes: int = DEFAULT_MAX_BODY
    max_items: int = DEFAULT_MAX_ITEMS
    reward_mode: str | None = None


class RequestError(Exception):
    """A client error: HTTP status plus message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def parse_request(data: Any, max_items: int = DEFAULT_MAX_ITEMS) -> tuple[list[str], list[str] | None, list[Any]]:
    """Validate a decoded ``/get_reward`` body: ``(queries, prompts, labels)`` or :class:`RequestError` (422)."""
    if not isinstance(data, dict):
        raise RequestError(422, f"body must be a JSON object with `query`, `prompts`, `labels`; got {type(data).__name__}")
    queries = data.get("query", data.get("queries"))
    if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
        raise RequestError(422, "`query` must be a list of strings (prompt + response)")
    if len(queries) > max_items:
        raise RequestError(413, f"{len(queries)} samples in one request; the limit is {max_items}")
    prompts = data.get("prompts")
    if prompts is not None and (not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts)):
        raise RequestError(422, "`prompts` must be a list of strings")
    if prompts is not None and len(prompts) != len(queries):
        raise RequestError(422, f"`prompts` has {len(prompts)} entries for {len(queries)} queries")
    labels = data.get("labels")
    if not isinstance(labels, list):
        raise RequestError(422, "`labels` must be a list of task records (the task_json column of `rlvr export`)")
    if len(labels) != len(queries):
        raise RequestError(422, f"`labels` has {len(labels)} entries for {len(queries)} queries")
    return queries, prompts, labels


class _Handler(BaseHTTPRequestHandler):
    server_version = "rlvr-reward-server/1"
    protocol_version = "HTTP/1.1"
    server: "RewardServer"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.info("%s %s", self.address_string(), format % args)

    def _send(self, status: int, payload: dict[str, Any], *, close: bool = False) -> None:
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str) -> None:
        # close after any error: the body may be unread, so the connection is not reusable
        self._send(status, {"error": message, "status": status}, close=True)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if self.path.split("?", 1)[0] in ("/health", "/healthz"):
            self._send(200, {"status": "ok", "reward_mode": self.server.config.reward_mode,
                             "max_body_bytes": self.server.config.max_body_bytes})
        elif self.path.split("?", 1)[0] == "/get_reward":
            self._error(405, "use POST for /get_reward")
        else:
            self._error(404, f"unknown path {self.path!r}; endpoints: POST /get_reward, GET /health")

    def do_POST(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        if path not in ("/get_reward", "/"):
            self._drain_and_error(404, f"unknown path {self.path!r}; endpoints: POST /get_reward, GET /health")
            return
        try:
            body = self._read_body()
            content_type = self.headers.get("Content-Type", "application/json").split(";")[0].strip().lower()
            if content_type and content_type != "application/json" and not content_type.endswith("+json"):
                raise RequestError(415, f"Content-Type must be application/json, got {content_type!r}")
            try:
                data = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                raise RequestError(400, f"body is not valid JSON: {exc}") from None
            queries, prompts, labels = parse_request(data, self.server.config.max_items)
            try:
                result = score_queries(queries, prompts, labels, reward=self.server.config.reward_mode)
            except ValueError as exc:
                raise RequestError(422, str(exc)) from None
        except RequestError as exc:
            self._error(exc.status, exc.message)
            return
        except Exception as exc:  # noqa: BLE001 - answer 500 rather than drop the connection
            log.exception("reward request failed")
            self._error(500, f"internal error: {type(exc).__name__}: {exc}")
            return
        self._send(200, result)

    def do_PUT(self) -> None:  # noqa: N802
        self._drain_and_error(405, "use POST /get_reward")

    do_DELETE = do_PATCH = do_PUT  # noqa: N815

    def _drain_and_error(self, status: int, message: str) -> None:
        try:
            self._read_body()
        except RequestError:
            pass
        self._error(status, message)

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raise RequestError(411, "chunked bodies are not accepted: send Content-Length")
        raw = self.headers.get("Content-Length")
        if raw is None:
            raise RequestError(411, "Content-Length is required")
        try:
            length = int(raw)
        except ValueError:
            raise RequestError(400, f"invalid Content-Length {raw!r}") from None
        if length < 0:
            raise RequestError(400, f"invalid Content-Length {raw!r}")
        limit = self.server.config.max_body_bytes
        if length > limit:
            if length <= _DRAIN_LIMIT:  # read it so the client sees the 413 rather than a reset
                self.rfile.read(length)
            raise RequestError(413, f"request body of {length} bytes exceeds the limit of {limit} bytes")
        return self.rfile.read(length)


class RewardServer(ThreadingHTTPServer):
    """A threaded HTTP server scoring completions with :func:`rlvr.api.verify`."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        super().__init__((self.config.host, int(self.config.port)), _Handler)

    @property
    def url(self) -> str:
        """Base URL (``http://host:port``), with the real port when bound to port 0."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def start_background(self) -> threading.Thread:
        """Serve on a daemon thread (tests, notebooks); stop with ``shutdown()`` then ``server_close()``."""
        thread = threading.Thread(target=self.serve_forever, name="rlvr-reward-server", daemon=True)
        thread.start()
        return thread


def serve(config: ServerConfig | None = None) -> None:
    """Serve until interrupted."""
    server = RewardServer(config)
    log.info("rlvr reward server on %s", server.url)
    try:
        server.serve_forever()
    finally:
        server.server_close()


__all__ = ["DEFAULT_MAX_BODY", "RequestError", "RewardServer", "ServerConfig", "parse_request", "serve"]
