"""One function call in a fresh Python process: :func:`call_in_fresh_process`.

A process that has already trained and evaluated models runs the next one slower than a fresh process does: on 2 CPU
cores, the same greedy evaluation of 750 tasks took 310 s at the end of a ``rlvr quickstart`` run and 248 s in a
fresh process, with the same completions (``docs/results/confirm.md``). ``rlvr quickstart`` therefore trains and
measures each arm in a fresh process. The call, its arguments and its result travel by pickle; the child is started
with ``spawn`` (nothing of the parent's memory is inherited), imports the same ``--plugin`` modules (a family
registered by code in the parent, not by a plugin, is unknown there), logs like the parent, runs torch with the
parent's thread count (another count sums floats in another order, so a KL or a near-tied greedy token could differ
from the same call in the parent), and leaves Ctrl-C to the parent, which ends it. It never outlives the parent: a
parent ended by a signal Python cannot catch (``SIGTERM``'s default, ``SIGKILL``, the out-of-memory killer) leaves
no orphan training on, since the child watches the parent's sentinel and exits when it fires. An exception in the
child is raised again in the parent, with the child's traceback as its cause; a child that dies without a result
(killed, out of memory) is a ``RuntimeError`` naming its exit code. A script that calls this must guard its entry
point with ``if __name__ == "__main__":``.
"""
from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Callable, Sequence

from rlvr.rewards.isolation import load_plugins

#: seconds a child gets to end after ``terminate`` before it is killed
_TERMINATE_SECONDS = 10.0


class ChildTraceback(Exception):
    """The traceback of an exception raised in the child process: the cause of the exception raised again."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return f"\n\n(in the child process)\n{self.text}"


@dataclass(frozen=True)
class LogSetup:
    """The parent's root logging level and format, which the child sets up the same way."""

    level: int
    format: str | None
    datefmt: str | None

    @classmethod
    def of_parent(cls) -> "LogSetup":
        """This process's root logger: its level and its first handler's format."""
        root = logging.getLogger()
        formatter = next((h.formatter for h in root.handlers if h.formatter is not None), None)
        return cls(root.level, getattr(formatter, "_fmt", None), getattr(formatter, "datefmt", None))

    def apply(self) -> None:
        """Set this process's root logger up the same way."""
        if self.format is not None:
            logging.basicConfig(level=self.level, format=self.format, datefmt=self.datefmt)
        else:
            logging.getLogger().setLevel(self.level)


def torch_threads() -> int | None:
    """This process's torch intra-op thread count, None when it has not imported torch."""
    torch = sys.modules.get("torch")
    return int(torch.get_num_threads()) if torch is not None else None


#: the exit code of a child whose parent ended before it did
PARENT_GONE_EXIT = 75


def _exit_with_parent() -> None:
    """Start a daemon thread that ends this process as soon as its parent has ended, however it ended: it waits
    on the parent's sentinel (:func:`multiprocessing.parent_process`), which becomes ready when the parent's end of
    the pipe closes."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(PARENT_GONE_EXIT)  # no result can reach a parent that is gone

    threading.Thread(target=watch, name="rlvr-parent-watch", daemon=True).start()


def _child(conn: Connection, fn: Callable[..., Any], args: tuple[Any, ...], plugins: tuple[str, ...],
           log: LogSetup, threads: int | None) -> None:
    """The child's whole life: set up, make the call, send back ``("ok", result)`` or ``("error", exc, tb)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which ends this process
    _exit_with_parent()
    log.apply()
    if threads is not None:
        import torch  # the parent had imported it

        torch.set_num_threads(threads)
    try:
        load_plugins(plugins)
        message: tuple[Any, ...] = ("ok", fn(*args))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent, which raises it
        message = ("error", exc, traceback.format_exc())
    try:
        conn.send(message)
    except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception still ends in a clear error
        error = message[1] if message[0] == "error" else exc
        conn.send(("error", RuntimeError(f"{type(error).__name__}: {error}"),
                   message[2] if message[0] == "error" else traceback.format_exc()))
    finally:
        conn.close()


def call_in_fresh_process(fn: Callable[..., Any], *args: Any, plugins: Sequence[str] = (),
                          name: str = "rlvr child") -> Any:
    """``fn(*args)`` in a fresh ``spawn`` process, and its result (module doc). ``fn`` is a module-level function;
    ``fn``, ``args`` and the result must pickle (objects shared between arguments stay shared in the child).
    ``plugins``: ``--plugin`` modules or files the child imports first. ``name`` names the process in errors."""
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(send, fn, args, tuple(plugins), LogSetup.of_parent(), torch_threads()),
                          name=name)
    try:
        process.start()  # pickles the call first: an argument that does not pickle raises here, nothing started
    except BaseException:
        receive.close()
        raise
    finally:
        send.close()
    try:
        try:
            message = receive.recv()
        except EOFError:
            process.join()
            raise RuntimeError(f"the {name} process ended without a result (exit code {process.exitcode})") from None
        process.join()
    except BaseException:  # an interrupt or an error here: the child does not outlive the call
        _end(process)
        raise
    finally:
        receive.close()
    if message[0] == "ok":
        return message[1]
    raise message[1] from ChildTraceback(message[2])


def _end(process: Any) -> None:
    """Terminate ``process``, and kill it if it has not ended within :data:`_TERMINATE_SECONDS`."""
    if process.is_alive():
        process.terminate()
        process.join(_TERMINATE_SECONDS)
    if process.is_alive():
        process.kill()
        process.join()


__all__ = ["ChildTraceback", "call_in_fresh_process", "torch_threads"]
