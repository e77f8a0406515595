"""A hard deadline on a call (every verdict has one): :func:`call_with_deadline`.

One watchdog thread per process, started on first use and parked while nothing runs, scans the
threads that are inside a guarded call (every twentieth of the shortest deadline in use, 5 to 100
ms). When a call overruns its deadline, the watchdog raises :class:`DeadlineExceeded` inside that
thread (``PyThreadState_SetAsyncExc``), which interrupts pure-Python work (a runaway loop in a
checker) at its next bytecode. Arming and disarming a deadline is a few attribute reads and
writes, under a microsecond: no thread, process, timer or lock per call.

A call blocked inside C code (a stuck RDKit routine, ``time.sleep``) receives the exception only
when the C code returns; bounding those needs a separate process that can be killed, which the
reward server and :func:`rlvr.rewards.trl.make_async_reward` provide
(:mod:`rlvr.rewards.isolation`).

The deadline of a call comes from an explicit value, else the ``RLVR_VERDICT_TIMEOUT``
environment variable, else :data:`DEFAULT_TIMEOUT` (see :func:`resolve_timeout`). A guarded call
inside another one on the same thread runs under the outer deadline.
"""
from __future__ import annotations

import ctypes
import os
import threading
import time
import weakref
from functools import lru_cache
from typing import Any, Callable, TypeVar

T = TypeVar("T")
_monotonic = time.monotonic

#: seconds a verdict may take when nothing else says
DEFAULT_TIMEOUT = 5.0
#: environment variable overriding :data:`DEFAULT_TIMEOUT` (seconds; ``0`` or ``off``: no deadline)
ENV_VAR = "RLVR_VERDICT_TIMEOUT"
_OFF = ("", "0", "off", "none", "no", "false", "inf")


class DeadlineExceeded(BaseException):
    """Raised in a call that overran its deadline.

    A ``BaseException`` (like ``KeyboardInterrupt``), so a checker's ``except Exception`` cannot
    swallow it.
    """


def parse_timeout(value: Any) -> float | None:
    """Seconds as a positive float, or None (no deadline) for ``0``, a negative number, ``off``, ``none``.

    Raises ``ValueError`` for anything else that is not a number.
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _OFF:
            return None
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"a timeout must be seconds (a number) or 'off', got {value!r}") from None
    seconds = float(value)
    if seconds != seconds:  # NaN
        raise ValueError("a timeout must be seconds (a number) or 'off', got nan")
    return seconds if 0 < seconds < float("inf") else None


def resolve_timeout(value: Any = None) -> float | None:
    """The deadline in seconds: ``value`` if given, else ``$RLVR_VERDICT_TIMEOUT``, else :data:`DEFAULT_TIMEOUT`.

    None means no deadline (``value`` or the variable is ``0``, negative or ``off``).
    """
    if value is not None:
        return parse_timeout(value)
    raw = _environ_raw()
    if raw is None:
        return DEFAULT_TIMEOUT
    return _parse_env(raw)


@lru_cache(maxsize=16)
def _parse_env(raw: str | bytes) -> float | None:
    return parse_timeout(os.fsdecode(raw))


_ENVIRON_DATA = getattr(os.environ, "_data", None)
_ENV_KEY = os.environ.encodekey(ENV_VAR) if isinstance(_ENVIRON_DATA, dict) else ENV_VAR


def _environ_raw() -> str | bytes | None:
    """``$RLVR_VERDICT_TIMEOUT`` as stored by ``os.environ`` (read once per verdict, so without a KeyError on a miss)."""
    if isinstance(_ENVIRON_DATA, dict):
        return _ENVIRON_DATA.get(_ENV_KEY)
    return os.environ.get(ENV_VAR)  # pragma: no cover - not CPython's os.environ


def _async_exc_functions() -> tuple[Callable[..., int], Callable[..., int]] | None:
    """``PyThreadState_SetAsyncExc`` typed to raise (py_object) and to clear (NULL); None off CPython."""
    try:
        api = ctypes.pythonapi
        raise_fn = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(("PyThreadState_SetAsyncExc", api))
        clear_fn = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(("PyThreadState_SetAsyncExc", api))
    except (AttributeError, OSError):  # pragma: no cover - not CPython
        return None
    return raise_fn, clear_fn


class _Slot:
    """One thread's guarded-call state, read by the watchdog."""

    __slots__ = ("tid", "active", "expires", "firing", "fired", "lock", "__weakref__")

    def __init__(self, tid: int) -> None:
        self.tid = tid
        self.active = False  # inside a guarded call
        self.expires = 0.0
        self.firing = False  # the watchdog is deciding whether to fire (holding ``lock``)
        self.fired = False  # the exception was sent for the current call
        self.lock = threading.Lock()


class Watchdog:
    """Interrupts guarded calls that overrun their deadline (one per process: :func:`watchdog`).

    The watchdog scans every ``deadline / 20`` seconds of the shortest deadline in use, within
    ``[min_tick, max_tick]`` (10 scans a second for the default 5 s), so a call ends at most that
    much past its deadline (plus the interpreter's 5 ms thread switch interval).

    Args:
        min_tick, max_tick: bounds of the seconds between scans while some call may be running.
        idle_after: seconds without a running call after which the thread parks until the next call.
    """

    def __init__(self, min_tick: float = 0.005, max_tick: float = 0.1, idle_after: float = 1.0) -> None:
        self.min_tick = min_tick
        self.max_tick = max_tick
        self.idle_after = idle_after
        self._functions = _async_exc_functions()
        #: whether this interpreter lets the watchdog interrupt a thread (CPython)
        self.enabled = self._functions is not None
        self._reset()
        os.register_at_fork(after_in_child=self._after_fork)

    def _reset(self) -> None:
        self._local = threading.local()
        self._slots: weakref.WeakSet[_Slot] = weakref.WeakSet()
        self._registry_lock = threading.Lock()
        self._wakeup = threading.Event()
        self._parked = True
        self._shortest = float("inf")  # the shortest deadline armed since the thread last parked
        self._thread: threading.Thread | None = None

    def _after_fork(self) -> None:
        # only the forking thread survives; its slot keeps working with a fresh lock, the watchdog restarts lazily
        tid = threading.get_ident()
        survivors = [s for s in list(self._slots) if s.tid == tid]
        local = self._local
        self._reset()
        self._local = local
        for slot in survivors:
            slot.lock = threading.Lock()
            self._slots.add(slot)

    # ------------------------------------------------------------------ the guarded call
    def call(self, seconds: float | None, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)``, raising :class:`DeadlineExceeded` if it runs past ``seconds`` (None: no limit)."""
        if seconds is None or not self.enabled:
            return fn(*args, **kwargs)
        try:
            slot = self._local.slot
        except AttributeError:
            slot = self._register()
        if slot.active:  # nested: the outer deadline governs
            return fn(*args, **kwargs)
        slot.expires = _monotonic() + seconds
        slot.active = True
        if seconds < self._shortest:
            self._shortest = seconds
        if self._parked:
            self._wake()
        try:
            try:
                result = fn(*args, **kwargs)
            finally:
                slot.active = False
                if slot.firing:  # the watchdog is deciding right now: wait for its decision
                    with slot.lock:
                        pass
            if slot.fired:  # fired as fn returned: drop the exception if it is still pending
                self._settle(slot)
        except DeadlineExceeded:
            slot.active = False
            with slot.lock:  # no decision in flight
                pass
            self._settle(slot)
            raise DeadlineExceeded(f"call exceeded its deadline of {seconds:g} s") from None
        return result

    def _settle(self, slot: _Slot) -> None:
        slot.fired = False
        assert self._functions is not None
        self._functions[1](slot.tid, None)

    def _register(self) -> _Slot:
        slot = _Slot(threading.get_ident())
        self._local.slot = slot
        with self._registry_lock:
            self._slots.add(slot)
        return slot

    # ------------------------------------------------------------------ the watchdog thread
    def _wake(self) -> None:
        with self._registry_lock:
            if self._thread is None or not self._thread.is_alive():
                thread = threading.Thread(target=self._run, name="rlvr-deadline-watchdog", daemon=True)
                try:
                    thread.start()
                except RuntimeError:  # interpreter shutting down: calls run without a watchdog
                    return
                self._thread = thread
            self._parked = False
            self._wakeup.set()

    def _scan(self) -> bool:
        """Fire on every overdue call; whether any call is running."""
        busy = False
        now = time.monotonic()
        with self._registry_lock:
            slots = list(self._slots)
        for slot in slots:
            if not slot.active:
                continue
            busy = True
            if slot.fired or now < slot.expires:
                continue
            with slot.lock:
                # the guarded thread clears ``active`` then reads ``firing``; this sets ``firing`` then
                # reads ``active``: under the GIL one of the two sees the other, so no stray exception
                slot.firing = True
                now = time.monotonic()
                if slot.active and not slot.fired and now >= slot.expires:
                    slot.fired = True
                    assert self._functions is not None
                    self._functions[0](slot.tid, DeadlineExceeded)
                slot.firing = False
        return busy

    def _tick(self) -> float:
        return min(self.max_tick, max(self.min_tick, self._shortest / 20))

    def _run(self) -> None:
        last_busy = time.monotonic()
        while True:
            time.sleep(self._tick())
            if self._scan():
                last_busy = time.monotonic()
                continue
            if time.monotonic() - last_busy < self.idle_after:
                continue
            self._wakeup.clear()
            self._parked = True
            if self._scan():  # a call armed while parking: stay awake
                self._parked = False
                continue
            self._shortest = float("inf")  # at worst a call armed just now is watched at max_tick
            self._wakeup.wait()
            last_busy = time.monotonic()


_WATCHDOG = Watchdog()


def watchdog() -> Watchdog:
    """This process's watchdog (one thread, shared by every guarded call)."""
    return _WATCHDOG


#: ``call_with_deadline(seconds, fn, *args, **kwargs)``: ``fn(*args, **kwargs)`` under a deadline of
#: ``seconds`` (None: none), raising :class:`DeadlineExceeded` past it (:meth:`Watchdog.call` of this process)
call_with_deadline = _WATCHDOG.call


__all__ = ["DEFAULT_TIMEOUT", "ENV_VAR", "DeadlineExceeded", "Watchdog", "call_with_deadline", "parse_timeout",
           "resolve_timeout", "watchdog"]
