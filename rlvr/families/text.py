"""Phrasing helpers shared by the families' feedback writers."""
from __future__ import annotations

from typing import Any, Sequence

#: lists in feedback name at most this many items
MAX_ITEMS = 12


def names(items: Sequence[Any]) -> str:
    """``a, b, c`` (at most :data:`MAX_ITEMS`, then ``and N more``)."""
    items = [str(x) for x in items]
    shown = ", ".join(items[:MAX_ITEMS])
    return shown + (f" and {len(items) - MAX_ITEMS} more" if len(items) > MAX_ITEMS else "")


def count(n: int, one: str, many: str) -> str:
    """``1 species is`` / ``3 species are``: a number with the singular or plural phrase."""
    return f"{n} {one if n == 1 else many}"
