"""The ASGI application (Starlette): routes, token check, body limits; scoring happens in a child process.

Each application instance (one per HTTP worker process) owns one
:class:`~rlvr.rewards.isolation.ScorerProcess`, started with the application (lifespan) and
used by one request at a time; a verdict stuck past its deadline costs that process, never the batch.
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import logging
import os
from contextlib import asynccontextmanager
from typing import AsyncIterator

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rlvr.failure_log import FailureLog
from rlvr.rewards.isolation import ScorerProcess
from rlvr.rewards.server.protocol import (
    RequestError,
    ServerConfig,
    assemble,
    lost_item,
    prepare_request,
    score_item,
)

log = logging.getLogger(__name__)
#: failed requests: one line per exception type, then a count at most once a minute (traceback at debug)
_FAILED = FailureLog(log, what="reward request")

#: environment variable carrying the :class:`ServerConfig` (JSON) to worker processes
CONFIG_ENV_VAR = "RLVR_REWARD_SERVER_CONFIG"
_DRAIN_LIMIT = 1 << 20  # an oversized body up to this size is read and discarded before answering 413
_ENDPOINTS = "endpoints: POST /get_reward, GET /health"


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """``{"error", "status"}`` with ``status``; the connection closes (the body may be unread)."""
    return JSONResponse({"error": message, "status": status}, status_code=status,
                        headers={"connection": "close", **(headers or {})})


def _full_path(request: Request) -> str:
    query = request.scope.get("query_string", b"")
    return request.url.path + (f"?{query.decode('latin-1')}" if query else "")


async def _drain(request: Request) -> None:
    """Read and discard a body of at most :data:`_DRAIN_LIMIT` bytes, so the client sees the answer, not a reset."""
    try:
        length = int(request.headers.get("content-length", "0"))
    except ValueError:
        return
    if 0 < length <= _DRAIN_LIMIT:
        try:
            async for _ in request.stream():
                pass
        except (ClientDisconnect, RuntimeError):
            pass


async def read_body(request: Request, limit: int) -> bytes:
    """The request body within ``limit`` bytes, or :class:`RequestError` (411, 400, 413)."""
    if request.headers.get("transfer-encoding", "").lower() == "chunked":
        raise RequestError(411, "chunked bodies are not accepted: send Content-Length")
    raw = request.headers.get("content-length")
    if raw is None:
        raise RequestError(411, "Content-Length is required")
    try:
        length = int(raw)
    except ValueError:
        raise RequestError(400, f"invalid Content-Length {raw!r}") from None
    if length < 0:
        raise RequestError(400, f"invalid Content-Length {raw!r}")
    if length > limit:
        await _drain(request)
        raise RequestError(413, f"request body of {length} bytes exceeds the limit of {limit} bytes")
    return await request.body()


def authorized(request: Request, token: str | None) -> bool:
    """Whether the request carries the token (always True without one).

    Accepted: ``Authorization: Bearer <token>``, or HTTP Basic auth whose password is the token (any
    user name), which is what ``requests`` sends from a ``~/.netrc`` entry for the host.
    """
    if not token:
        return True
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    scheme, value = scheme.lower(), value.strip()
    if scheme == "basic":
        try:
            value = base64.b64decode(value, validate=True).decode("utf-8").partition(":")[2]
        except (binascii.Error, UnicodeDecodeError):
            return False
    elif scheme != "bearer":
        return False
    return hmac.compare_digest(value.encode("utf-8", "surrogateescape"), token.encode("utf-8"))


class RewardApp:
    """The state one worker's application holds: its config and its scoring process."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.scorer = ScorerProcess(config.timeout, imports=config.imports)
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(self.scorer.start)
        try:
            yield
        finally:
            await run_in_threadpool(self.scorer.close)

    async def health(self, request: Request) -> Response:
        c = self.config
        return JSONResponse({"status": "ok", "reward_mode": c.reward_mode, "max_body_bytes": c.max_body_bytes,
                             "max_items": c.max_items, "timeout": c.timeout, "token_required": bool(c.token),
                             "pid": os.getpid()})

    async def get_reward(self, request: Request) -> Response:
        c = self.config
        if not authorized(request, c.token):
            await _drain(request)
            return error_response(401, "missing or wrong token: send `Authorization: Bearer <token>`",
                                  {"www-authenticate": "Bearer"})
        try:
            body = await read_body(request, c.max_body_bytes)
            content_type = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
            if content_type and content_type != "application/json" and not content_type.endswith("+json"):
                raise RequestError(415, f"Content-Type must be application/json, got {content_type!r}")
            async with self._lock:
                summaries = await run_in_threadpool(self.scorer.run, prepare_request,
                                                    (body, c.max_items, c.reward_mode), score_item, lost_item)
        except RequestError as exc:
            return error_response(exc.status, exc.message)
        except ClientDisconnect:
            return Response(status_code=499)
        except ValueError as exc:  # e.g. an unknown reward mode
            return error_response(422, str(exc))
        except Exception as exc:  # noqa: BLE001 - answer 500 rather than drop the connection
            _FAILED.record("/get_reward", type(exc).__name__, str(exc), exc)
            return error_response(500, f"internal error: {type(exc).__name__}: {exc}")
        return JSONResponse(assemble(summaries))

    async def not_found(self, request: Request, exc: Exception) -> Response:
        await _drain(request)
        return error_response(404, f"unknown path {_full_path(request)!r}; {_ENDPOINTS}")

    async def not_allowed(self, request: Request, exc: Exception) -> Response:
        await _drain(request)
        path = request.url.path
        if path == "/get_reward" and request.method in ("GET", "HEAD"):
            return error_response(405, "use POST for /get_reward")
        if path == "/" and request.method in ("GET", "HEAD"):
            return error_response(404, f"unknown path {_full_path(request)!r}; {_ENDPOINTS}")
        return error_response(405, "use POST /get_reward")

    async def http_error(self, request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        if status == 404:
            return await self.not_found(request, exc)
        if status == 405:
            return await self.not_allowed(request, exc)
        detail = exc.detail if isinstance(exc, HTTPException) else str(exc)
        return error_response(status, str(detail))


def create_app(config: ServerConfig | None = None) -> Starlette:
    """The Starlette application serving ``config`` (default: :class:`ServerConfig`)."""
    state = RewardApp(config or ServerConfig())
    routes = [
        Route("/health", state.health, methods=["GET"]),
        Route("/healthz", state.health, methods=["GET"]),
        Route("/get_reward", state.get_reward, methods=["POST"]),
        Route("/", state.get_reward, methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=state.lifespan, exception_handlers={HTTPException: state.http_error})
    app.state.reward = state
    return app


def app_from_env() -> Starlette:
    """The application of a worker process, configured by ``$RLVR_REWARD_SERVER_CONFIG`` (uvicorn factory)."""
    raw = os.environ.get(CONFIG_ENV_VAR)
    return create_app(ServerConfig.from_json(raw) if raw else None)


__all__ = ["CONFIG_ENV_VAR", "RewardApp", "app_from_env", "authorized", "create_app", "error_response", "read_body"]
