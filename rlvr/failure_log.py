"""Bounded logging of checker failures: one line per (family, kind), then a count at most once a minute.

A checker that raises on some input raises on every similar input, and a training run sends it
millions: logging each one (with its traceback) fills a disk in days and drowns real errors. A
:class:`FailureLog` writes the first failure of each ``(family, kind)`` (``kind``: the exception type
name, ``timeout``, ...) as one warning line, counts the following ones, and writes the count as one
more line at most every ``interval_s`` seconds. Tracebacks go to the debug level only: visible with
``--log-level debug`` or ``RLVR_DEBUG=1`` (which turns the ``rlvr`` loggers to debug on stderr).
The table of keys is bounded (:data:`MAX_KEYS`); past it new keys are counted under ``(other, other)``.
"""
from __future__ import annotations

import logging
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

#: environment variable that turns on tracebacks (debug level) for the ``rlvr`` loggers
DEBUG_ENV_VAR = "RLVR_DEBUG"
#: seconds between two count lines of one key
DEFAULT_INTERVAL_S = 60.0
#: distinct (family, kind) keys remembered
MAX_KEYS = 256
_OTHER = ("other", "other")
_debug_lock = threading.Lock()
_debug_done: list[bool] = []  # set once RLVR_DEBUG has been applied in this process


def debug_requested() -> bool:
    """Whether ``$RLVR_DEBUG`` asks for tracebacks (any value but empty, ``0``, ``false``, ``no``, ``off``)."""
    return os.environ.get(DEBUG_ENV_VAR, "").strip().lower() not in ("", "0", "false", "no", "off")


def apply_debug_env() -> None:
    """Under ``$RLVR_DEBUG``, set the ``rlvr`` logger to debug with a stderr handler (once per process)."""
    with _debug_lock:
        if _debug_done or not debug_requested():
            return
        _debug_done.append(True)
        root = logging.getLogger("rlvr")
        root.setLevel(logging.DEBUG)
        if not root.handlers and not logging.getLogger().handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            root.addHandler(handler)


@dataclass
class _Entry:
    last_line: float
    pending: int = 0
    total: int = 1


@dataclass
class FailureLog:
    """Rate-limited failure lines for ``logger`` (thread-safe; one instance per logging site)."""

    logger: logging.Logger
    what: str = "checker"
    interval_s: float = DEFAULT_INTERVAL_S
    clock: Callable[[], float] = time.monotonic
    _entries: dict = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, family: str, kind: str, detail: str = "", exc: BaseException | None = None) -> None:
        """Count one failure of ``family``'s checker of ``kind``; log a line when one is due.

        ``detail`` (the first message, cut to 200 characters) goes on the first line only; ``exc``'s
        traceback is logged at debug level each time debug is on.
        """
        apply_debug_env()
        key = (str(family)[:80], str(kind)[:80])
        now = self.clock()
        line: tuple | None = None
        with self._lock:
            entry = self._entries.get(key)
            if entry is None and len(self._entries) >= MAX_KEYS:
                key, entry = _OTHER, self._entries.get(_OTHER)
            if entry is None:
                self._entries[key] = _Entry(now)
                line = ("%s for %s: %s%s (further ones are counted, one line at most every %g s)",
                        self.what, key[0], key[1], f": {detail[:200]}" if detail else "", self.interval_s)
            else:
                entry.pending += 1
                entry.total += 1
                if now - entry.last_line >= self.interval_s:
                    line = ("%s for %s: %s %d more times in the last %.0f s (%d in all)", self.what, key[0],
                            key[1], entry.pending, now - entry.last_line, entry.total)
                    entry.pending, entry.last_line = 0, now
        if line is not None:
            self.logger.warning(*line)
        if exc is not None and self.logger.isEnabledFor(logging.DEBUG):
            self.logger.debug("%s for %s raised", self.what, key[0], exc_info=(type(exc), exc, exc.__traceback__))

    def flush(self) -> None:
        """Log the counts not yet written (e.g. at shutdown)."""
        with self._lock:
            due = [(k, e.pending, e.total) for k, e in self._entries.items() if e.pending]
            for key, _, _ in due:
                self._entries[key].pending = 0
                self._entries[key].last_line = self.clock()
        for (family, kind), pending, total in due:
            self.logger.warning("%s for %s: %s %d more times (%d in all)", self.what, family, kind, pending, total)

    def totals(self) -> dict[tuple[str, str], int]:
        """Failures counted so far, by ``(family, kind)``."""
        with self._lock:
            return {k: e.total for k, e in self._entries.items()}


__all__ = ["DEBUG_ENV_VAR", "DEFAULT_INTERVAL_S", "MAX_KEYS", "FailureLog", "apply_debug_env", "debug_requested"]
