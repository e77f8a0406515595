"""``-k <family>`` on the family tests: a family that is not registered, or whose provider failed to
import, fails the run with one line (pytest would otherwise report every test "deselected" and exit 5,
with the provider's import warning never shown)."""
from __future__ import annotations

import re

import pytest

#: a word of a ``-k`` expression that names a task family (``group.short``)
FAMILY_WORD = re.compile(r"(?<![\w.])([a-z][a-z0-9_]*\.[a-z0-9_]+)(?![\w.])")


def family_words(expression: str) -> list[str]:
    """The words of a ``-k`` expression that look like family names (``mol.count``; not ``test_x.py``)."""
    return [w for w in dict.fromkeys(FAMILY_WORD.findall(expression or "")) if not w.endswith(".py")]


def missing_family(word: str) -> str | None:
    """The registry's one line when no family is called ``word`` (unknown, or its provider failed), else None."""
    from rlvr.registry import get_family

    try:
        get_family(word)
    except KeyError as exc:
        return str(exc.args[0]) if exc.args else f"unknown task family {word!r}"
    return None


def _matches(word: str, item: pytest.Item) -> bool:
    lowered = word.lower()
    return any(lowered in str(keyword).lower() for keyword in item.keywords)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Before ``-k`` deselects anything: a family word that selects no collected test and names no
    registered family ends the run with the registry's reason."""
    missing = []
    for word in family_words(config.getoption("keyword", "")):
        why = None if any(_matches(word, item) for item in items) else missing_family(word)
        if why is not None:
            missing.append(f"-k {word!r} selects no test: {why}")
    if missing:
        raise pytest.UsageError("; ".join(missing))
