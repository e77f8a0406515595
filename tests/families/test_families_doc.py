"""docs/families.md lists the families this repository ships: a row for every family of a built-in provider
(``rlvr.registry.PROVIDERS``), none for a family that is not one, and the README links to the page (the table
lives there, so a new family's row never counts against the README's length)."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

from rlvr.registry import PROVIDERS

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "families.md"


def table_families() -> list[str]:
    """The family names of the page's table, in order (the first cell of each row)."""
    return re.findall(r"^\| `([^`]+)` \|", PAGE.read_text(encoding="utf-8"), flags=re.M)


def built_in_families() -> set[str]:
    """Every family a built-in provider module defines."""
    return {spec.name for module in set(PROVIDERS.values()) for spec in importlib.import_module(module).FAMILIES}


def test_every_built_in_family_has_one_row_and_every_row_is_one():
    rows = table_families()
    assert len(rows) == len(set(rows)), f"a family with two rows in {PAGE.name}: {rows}"
    assert set(rows) == built_in_families()


def test_the_readme_links_to_the_page_and_holds_no_family_table():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "](docs/families.md)" in readme
    assert "| family | the model sees |" not in readme
