"""Scoring in child processes that are killed and replaced when a verdict hangs in C code.

The in-process deadline (:mod:`rlvr.deadline`) interrupts a runaway pure-Python checker; a checker
stuck inside a C routine (RDKit, a blocking call) can only be stopped by ending its process. A
:class:`ScorerProcess` runs jobs item by item in a child process that writes the index and start
time of the item it is on into shared memory. The parent watches that: an item still running
``timeout + grace`` seconds after it started (the in-process deadline would have ended it by then
if it could) gets the caller's *lost* value, the child is killed and replaced, and the job goes on
from where it was. A child that dies (a segfault) is handled the same way. Completed results come
back in batches every :data:`FLUSH_SECONDS`, so little finished work is redone.

A job is three picklable parts (module-level functions, passed by reference): ``prepare(payload)
-> items`` runs once in the child (decoding, validation: its exceptions reach the caller), and
``item_fn(item) -> result`` runs per item. Child processes use the ``spawn`` start method, so a
script that creates them must guard its entry point with ``if __name__ == "__main__":``.
"""
from __future__ import annotations

import importlib
import importlib.util
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from rlvr.deadline import ENV_VAR
from rlvr.failure_log import FailureLog
from rlvr.module_files import file_module_name, import_file
from rlvr.registry import register_module

log = logging.getLogger(__name__)
#: hung or crashed items: one line per kind, then a count at most once a minute
_LOST = FailureLog(log, what="scoring process")

#: seconds between the child's batches of finished results
FLUSH_SECONDS = 0.2
#: progress index while the child is idle / preparing a job
_IDLE, _PREPARING = -1.0, -2.0
_POLL_SECONDS = 0.05


def import_plugin(spec: str) -> None:
    """Import a module by dotted name, or a ``.py`` file by path: one that calls ``register_family``, or
    a family module exposing ``FAMILIES`` (registered here, as :func:`rlvr.registry.register_module` does)."""
    if spec.endswith(".py") or os.sep in spec or "/" in spec:
        path = Path(spec).expanduser().resolve()
        if not path.is_file():
            raise FileNotFoundError(f"plugin file {spec} does not exist")
        name = file_module_name(path, "rlvr_plugin")
        if name in sys.modules:
            return
        try:
            module = import_file(path, name)
        except ImportError as exc:
            raise ValueError(f"cannot import plugin file {spec}") from exc
    else:
        module = importlib.import_module(spec)
    register_module(module)


def check_plugin(spec: str) -> None:
    """Raise ``ValueError`` naming ``spec`` if it is neither an existing ``.py`` file nor an importable module."""
    if spec.endswith(".py") or os.sep in spec or "/" in spec:
        if not Path(spec).expanduser().is_file():
            raise ValueError(f"plugin file {spec} does not exist")
        return
    try:
        found = importlib.util.find_spec(spec)
    except (ImportError, ValueError):
        found = None
    if found is None:
        raise ValueError(f"plugin module {spec!r} cannot be imported")


class PluginError(ValueError):
    """A ``--plugin`` that cannot be loaded; its message names the plugin and the error, in one line."""


def load_plugins(specs: Sequence[str], flag: str = "--plugin") -> None:
    """Import every plugin (:func:`check_plugin`, then :func:`import_plugin`); any error of the user's module
    becomes a :class:`PluginError` naming the plugin (``flag`` is how the user named it)."""
    for spec in specs:
        try:
            check_plugin(spec)
            import_plugin(spec)
        except Exception as exc:  # noqa: BLE001 - any error of the user's module ends in one line
            raise PluginError(f"{flag} {spec}: {type(exc).__name__}: {exc}") from None


def _warm_up() -> None:
    """Import the family providers (and RDKit with them) before the first job, so no item pays for it.

    Best effort: a provider that fails to import fails the requests of its families, not the process.
    """
    from rlvr.registry import list_families

    try:
        list_families()
    except Exception:  # noqa: BLE001
        log.exception("importing the task families failed; their requests will fail")


def _child_main(conn: Connection, progress: Any, timeout: float | None, imports: Sequence[str]) -> None:
    """The child's loop: one job at a time until ``None`` or the parent goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which ends this process
    os.environ[ENV_VAR] = "off" if timeout is None else repr(timeout)
    try:
        for spec in imports:
            import_plugin(spec)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it
        _send(conn, ("failed", f"{type(exc).__name__}: {exc}"))
        return
    _warm_up()
    if not _send(conn, ("ready", os.getpid())):  # the parent stopped waiting (it was ended or gave up on this start)
        return
    monotonic = time.monotonic
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        prepare, payload, item_fn, skip = message
        progress[1] = monotonic()
        progress[0] = _PREPARING
        try:
            items = prepare(payload)
            done: list[tuple[int, Any]] = []
            flushed = monotonic()
            for i, item in enumerate(items):
                if i in skip:
                    continue
                now = monotonic()
                progress[1] = now  # start time first: the parent reads index, time, index
                progress[0] = i
                done.append((i, item_fn(item)))
                if now - flushed > FLUSH_SECONDS:
                    if not _send(conn, ("partial", done)):
                        return
                    done, flushed = [], now
            progress[0] = _IDLE
            reply: tuple = ("done", done, len(items))
        except Exception as exc:  # noqa: BLE001 - the job's error goes back to the caller
            progress[0] = _IDLE
            reply = ("error", _picklable(exc))
        if not _send(conn, reply):
            return


def _send(conn: Any, message: tuple) -> bool:
    """Send to the parent; False when it has closed its end (it replaced this process after a deadline)."""
    try:
        conn.send(message)
        return True
    except (BrokenPipeError, ConnectionResetError, EOFError):
        return False


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(exc).__name__}: {exc}")


class ScorerProcess:
    """One child process scoring jobs item by item; killed and replaced when an item hangs or crashes it.

    Args:
        timeout: the per-verdict deadline in seconds (None: none, and no hang detection); the child
            applies it in-process, the parent kills an item still running ``timeout + grace`` seconds.
        grace: seconds the parent allows past ``timeout`` before it decides the item is stuck in C code.
        imports: plugin modules or ``.py`` files the child imports at start (e.g. custom families).
        start_timeout: seconds to wait for a child to start (imports, RDKit).
    """

    def __init__(self, timeout: float | None, *, grace: float | None = None, imports: Iterable[str] = (),
                 start_timeout: float = 180.0) -> None:
        self.timeout = timeout
        self.grace = grace if grace is not None else (max(1.0, 0.5 * timeout) if timeout else 1.0)
        self.imports = tuple(imports)
        self.start_timeout = start_timeout
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._process: Any = None
        self._conn: Connection | None = None
        self._progress: Any = None
        self._epoch = 0  # bumped by close(): a job running then stops instead of restarting the child
        #: children replaced after a hang or a crash
        self.restarts = 0

    # ------------------------------------------------------------------ lifecycle
    @property
    def pid(self) -> int | None:
        """The current child's process id (None before start)."""
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        """Start the child and wait until it is ready (idempotent); ``RuntimeError`` if it cannot start."""
        if self._process is not None and self._process.is_alive():
            return
        parent_conn, child_conn = self._ctx.Pipe()
        progress = self._ctx.RawArray("d", 2)
        progress[0] = _IDLE
        process = self._ctx.Process(target=_child_main, args=(child_conn, progress, self.timeout, self.imports),
                                    name="rlvr-scorer", daemon=True)
        process.start()
        child_conn.close()
        self._process, self._conn, self._progress = process, parent_conn, progress
        if not parent_conn.poll(self.start_timeout):
            self._kill()
            raise RuntimeError(f"the scoring process did not start within {self.start_timeout:g} s")
        try:
            message = parent_conn.recv()
        except (EOFError, OSError):
            message = ("failed", f"it exited with code {process.exitcode}")
        if message[0] != "ready":
            self._kill()
            raise RuntimeError(f"the scoring process failed to start: {message[1]}")

    def close(self, wait: float = 2.0) -> None:
        """Stop the child: politely when idle, by force if a job is still running after ``wait`` seconds."""
        self._epoch += 1
        if not self._lock.acquire(timeout=wait):
            process = self._process
            if process is not None and process.is_alive():
                process.kill()  # the running job sees the crash and stops
            return
        try:
            if self._process is None:
                return
            try:
                assert self._conn is not None
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self._process.join(timeout=wait)
            self._kill()
        finally:
            self._lock.release()

    def _kill(self) -> None:
        if self._process is not None:
            if self._process.is_alive():
                self._process.kill()
            self._process.join(timeout=10)
        if self._conn is not None:
            self._conn.close()
        self._process = self._conn = self._progress = None

    def __enter__(self) -> "ScorerProcess":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ jobs
    def run(self, prepare: Callable[[Any], Sequence[Any]], payload: Any, item_fn: Callable[[Any], Any],
            lost: Callable[[str], Any]) -> list[Any]:
        """``[item_fn(item) for item in prepare(payload)]`` computed in the child.

        An item that hangs past the deadline gets ``lost("timeout")``, one that kills the child
        ``lost("crash")``; exceptions of ``prepare`` and ``item_fn`` are raised here.
        """
        with self._lock:
            epoch = self._epoch
            results: dict[int, Any] = {}
            lost_items: dict[int, str] = {}
            idle_crashes = 0
            while True:
                if self._epoch != epoch:
                    raise RuntimeError("the scoring process was stopped")
                self.start()
                assert self._conn is not None
                try:
                    self._conn.send((prepare, payload, item_fn, frozenset(results) | frozenset(lost_items)))
                    outcome, value = self._collect(results)
                except (OSError, EOFError):  # the child went away before it took the job
                    outcome, value = "crash", int(_IDLE)
                if outcome == "done":
                    n = value
                    break
                if outcome == "error":
                    raise value
                self._kill()
                self.restarts += 1
                if value == _IDLE and idle_crashes < 2:  # died between jobs (killed from outside): start afresh
                    idle_crashes += 1
                    continue
                if value < 0:
                    raise RuntimeError(f"the scoring process {'hung' if outcome == 'timeout' else 'died'} "
                                       "while reading the request")
                _LOST.record("a job item", "hung past its deadline" if outcome == "timeout" else "crashed",
                             f"item {value}; the scoring process was replaced")
                lost_items[value] = outcome
            for index, kind in lost_items.items():
                results[index] = lost(kind)
            return [results[i] for i in range(n)]

    def _collect(self, results: dict[int, Any]) -> tuple[str, Any]:
        """Gather the child's messages until the job ends: ``(done, n)``, ``(error, exc)``, ``(timeout|crash, index)``."""
        conn, process, progress = self._conn, self._process, self._progress
        assert conn is not None and process is not None and progress is not None
        while True:
            if conn.poll(_POLL_SECONDS):
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    return "crash", self._current_index(progress)
                kind = message[0]
                if kind == "partial":
                    results.update(message[1])
                elif kind == "done":
                    results.update(message[1])
                    return "done", message[2]
                elif kind == "error":
                    return "error", message[1]
                continue
            if not process.is_alive():
                return "crash", self._current_index(progress)
            if self.timeout is not None:
                stuck = self._stuck_index(progress)
                if stuck is not None:
                    return "timeout", stuck

    @staticmethod
    def _current_index(progress: Any) -> int:
        return int(progress[0])

    def _stuck_index(self, progress: Any) -> int | None:
        index, started, again = progress[0], progress[1], progress[0]
        if index != again or index == _IDLE:
            return None
        assert self.timeout is not None
        limit = self.timeout + self.grace
        if index == _PREPARING:
            limit = max(60.0, 4 * limit)  # decoding a 16 MiB body is slow, not stuck
        if time.monotonic() - started > limit:
            return int(index)
        return None


__all__ = ["FLUSH_SECONDS", "ScorerProcess", "check_plugin", "import_plugin"]
