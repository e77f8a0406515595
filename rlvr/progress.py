"""Progress bars on stderr for the steps that take more than a few seconds (builds, exports).

A bar shows on a terminal (with rate and ETA) and stays silent when stderr is a file or a pipe, so
logs and tests see only the one-line phase messages the callers log.
"""
from __future__ import annotations

import sys
from typing import Iterable, Iterator, TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")


def progress(items: Iterable[T], desc: str, *, total: int | None = None, unit: str = "it",
             show: bool | None = None) -> Iterator[T]:
    """``items`` with a progress bar labelled ``desc`` (``show``: None = when stderr is a terminal)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    disable = (not sys.stderr.isatty()) if show is None else not show
    with tqdm(items, desc=desc, total=total, unit=unit, file=sys.stderr, disable=disable, dynamic_ncols=True,
              mininterval=0.5, leave=False) as bar:
        yield from bar


def progress_bar(total: int | None, desc: str, *, unit: str = "it", show: bool | None = None) -> tqdm:
    """A bar to ``update()`` by hand (a context manager), same display rules as :func:`progress`."""
    disable = (not sys.stderr.isatty()) if show is None else not show
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=disable, dynamic_ncols=True,
                mininterval=0.5)
