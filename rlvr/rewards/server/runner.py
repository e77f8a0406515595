"""Running the reward application under uvicorn: one process, N worker processes, or a background thread."""
from __future__ import annotations

import inspect
import ipaddress
import os
import socket
import threading
import time
from typing import Any

from rlvr.failure_log import DEBUG_ENV_VAR
from rlvr.rewards.server.app import CONFIG_ENV_VAR, create_app
from rlvr.rewards.server.protocol import ServerConfig

_FACTORY = "rlvr.rewards.server.app:app_from_env"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names the loopback interface (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_socket(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free one), inheritable by worker processes.

    Raises ``ValueError`` naming the address when it cannot be bound.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ValueError(f"cannot resolve host {host!r}: {exc.strerror}") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def _uvicorn_config(app: Any, config: ServerConfig, **options: Any) -> Any:
    import uvicorn

    debug = config.log_level == "debug"
    if debug:  # tracebacks of checker failures in this process and its scoring processes (inherited)
        os.environ[DEBUG_ENV_VAR] = "1"
    return uvicorn.Config(app, log_level=config.log_level, access_log=debug, lifespan="on",
                          timeout_graceful_shutdown=5, server_header=False,
                          headers=[("server", "rlvr-reward-server/2")], **options)


def serve(config: ServerConfig | None = None, sock: socket.socket | None = None) -> None:
    """Serve until SIGINT or SIGTERM: one process, or ``config.workers`` uvicorn worker processes.

    ``sock``: an already listening socket (default: :func:`bind_socket` on ``config.host:config.port``).
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    config = config or ServerConfig()
    sock = sock or bind_socket(config.host, config.port)
    try:
        if config.workers > 1:
            os.environ[CONFIG_ENV_VAR] = config.to_json()  # read by each worker's app factory
            uv_config = _uvicorn_config(_FACTORY, config, factory=True, workers=config.workers)
            if "target" in inspect.signature(Multiprocess).parameters:  # older uvicorn takes the worker entry point
                Multiprocess(uv_config, target=uvicorn.Server(uv_config).run, sockets=[sock]).run()
            else:
                Multiprocess(uv_config, sockets=[sock]).run()
        else:
            server = uvicorn.Server(_uvicorn_config(create_app(config), config))
            try:
                server.run(sockets=[sock])
            except KeyboardInterrupt:  # uvicorn re-raises the SIGINT it handled
                return
            if not server.started:
                raise RuntimeError("the reward server failed to start (see the log above)")
    finally:
        sock.close()


class RewardServer:
    """A single-worker reward server on a background thread (tests, notebooks).

    Binds at construction (``server_address`` holds the real port when ``port=0``);
    :meth:`start_background` starts it and waits until it answers; stop with :meth:`shutdown`
    then :meth:`server_close`.
    """

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        if self.config.workers != 1:
            raise ValueError("RewardServer runs one worker in this process; use serve() for several")
        self.socket = bind_socket(self.config.host, int(self.config.port))
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def server_address(self) -> tuple[str, int]:
        """``(host, port)`` actually bound."""
        host, port = self.socket.getsockname()[:2]
        return host, port

    @property
    def url(self) -> str:
        """Base URL (``http://host:port``), with the real port when bound to port 0."""
        host, port = self.server_address
        return f"http://{host}:{port}"

    def serve_forever(self) -> None:
        """Serve in this thread until :meth:`shutdown`."""
        import uvicorn

        self._server = uvicorn.Server(_uvicorn_config(create_app(self.config), self.config))
        self._server.run(sockets=[self.socket])

    def _run(self) -> None:
        try:
            self._server.run(sockets=[self.socket])
        except SystemExit:  # uvicorn exits when the application fails to start; start_background reports it
            pass

    def start_background(self, wait: float = 180.0) -> threading.Thread:
        """Serve on a daemon thread; returns once the server is ready (``RuntimeError`` if it fails to start)."""
        import uvicorn

        self._server = uvicorn.Server(_uvicorn_config(create_app(self.config), self.config))
        self._thread = threading.Thread(target=self._run, name="rlvr-reward-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + wait
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.shutdown()
                raise RuntimeError("the reward server did not start (see the log)")
            time.sleep(0.02)
        return self._thread

    def shutdown(self, wait: float = 30.0) -> None:
        """Stop serving (waits for the server thread)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=wait)

    def server_close(self) -> None:
        """Close the listening socket."""
        self.socket.close()


__all__ = ["RewardServer", "bind_socket", "is_loopback", "serve"]
