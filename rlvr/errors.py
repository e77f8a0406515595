"""How rlvr's entry points report errors (the command line, ``python -m rlvr.train``, ``scripts/train.py``): a
user's mistake in one line, anything else in one line plus a log.

A mistake of the user's is a ``UsageError`` (:mod:`rlvr.commands.errors`) or one of the exceptions the library raises for bad
input (``ValueError``, a ``TypeError`` naming an unknown option or keyword, a ``KeyError`` with a
message, missing / existing / wrong-kind paths): it is
printed as ``PROG: error: <message>`` and the command exits with 2. Any other exception is
unexpected: one line names it and the file holding its full traceback, and the command exits with 1.
"""
from __future__ import annotations

import datetime as _dt
import os
import re
import sys
import traceback
from typing import Callable

from rlvr.paths import cache_dir

#: exit code of a user mistake (argparse's too)
USAGE_EXIT = 2
#: exit code of an unexpected error
INTERNAL_EXIT = 1


#: the TypeErrors rlvr raises for a caller's bad option or argument; any other TypeError is a bug
_USER_TYPE_ERROR = re.compile(r"unknown option|unexpected keyword argument|options? of no family|must be |must have ")


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _path_message(exc: OSError) -> str | None:
    name = exc.filename
    if exc.errno is None or name is None:  # raised with a message of ours
        return _one_line(exc.args[0]) if exc.args and isinstance(exc.args[0], str) else None
    if isinstance(exc, FileNotFoundError):
        return f"no such file or folder: {name}"
    if isinstance(exc, IsADirectoryError):
        return f"{name} is a folder; give a file"
    if isinstance(exc, NotADirectoryError):
        return f"{name}: a part of this path is a file, not a folder"
    if isinstance(exc, PermissionError):
        return f"permission denied: {name}"
    if isinstance(exc, FileExistsError):
        return f"{name} exists; pass --overwrite to replace it"
    return None


def user_message(exc: BaseException) -> str | None:
    """The one-line message of a user mistake, or None when ``exc`` is unexpected."""
    if isinstance(exc, (FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError)):
        return _path_message(exc)
    if isinstance(exc, UnicodeDecodeError):
        return f"a file is not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, ValueError):  # the library's bad-value errors
        return _one_line(str(exc)) or type(exc).__name__
    if isinstance(exc, TypeError):  # unknown options are the user's; "unsupported operand" and the like are bugs
        message = _one_line(str(exc))
        return message if _USER_TYPE_ERROR.search(message) else None
    if isinstance(exc, KeyError):
        # KeyError('unknown task family ...') is a message; KeyError('x') from a dict lookup is a bug
        message = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else ""
        return _one_line(message) if " " in message.strip() else None
    return None


def write_traceback(prog: str, exc: BaseException) -> str | None:
    """Write ``exc``'s traceback under ``$RLVR_CACHE/logs``; returns the path (None if it could not)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        folder = cache_dir("logs")
        name = re.sub(r"[^\w.]+", "-", prog).strip("-")
        path = folder / f"{name}-{stamp}-{os.getpid()}.txt"
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        path.write_text(f"{prog} {' '.join(sys.argv[1:])}\n\n{text}", encoding="utf-8")
        return str(path)
    except OSError:
        return None


def print_line(text: str) -> None:
    """Write ``text`` and its newline to stderr in one write: ranks of one launch sharing a pipe cannot splice lines."""
    sys.stderr.write(f"{text}\n")
    sys.stderr.flush()


def report_error(prog: str, exc: BaseException, debug_hint: str = "--debug shows it") -> int:
    """Print ``exc`` as one line on stderr and return the exit code (2 for a user mistake, else 1)."""
    message = user_message(exc)
    if message is not None:
        print_line(f"{prog}: error: {message}")
        return USAGE_EXIT
    where = write_traceback(prog, exc)
    detail = _one_line(str(exc))[:300]
    log = f"traceback in {where}; " if where else ""
    print_line(f"{prog}: unexpected error: {type(exc).__name__}{': ' + detail if detail else ''} ({log}{debug_hint})")
    return INTERNAL_EXIT


def run_reporting(prog: str, entry: Callable[[], int | None], *, debug: bool | None = None,
                  debug_hint: str = "RLVR_DEBUG=1 shows it") -> int:
    """Run an entry point (a subcommand of the command line; ``python -m rlvr.train`` and ``scripts/train.py``, the
    forms ``accelerate launch`` starts) with one error contract: a mistake in one line and exit 2, anything else in
    one line plus a traceback file and exit 1, an interrupt 130, a closed output pipe 0. ``debug`` (default:
    ``RLVR_DEBUG`` set) lets the exception through."""
    if debug is None:
        debug = os.environ.get("RLVR_DEBUG", "") not in ("", "0")
    try:
        return int(entry() or 0)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `rlvr features | head`
        sys.stderr.close()
        return 0
    except Exception as exc:  # noqa: BLE001 - every error ends in one line (or a traceback in debug mode)
        if debug:
            raise
        return report_error(prog, exc, debug_hint=debug_hint)
