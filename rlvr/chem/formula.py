"""Molecular formulas: parsing (Hill or conventional, groups, hydrates, charges) and Hill-order printing.

Species identity in the formula encoding is (element counts, charge): ``C2H6O`` and ``CH3CH2OH``
are the same species, ``Fe+2`` and ``Fe+3`` are not.

Charge notation follows RDKit's ``CalcMolFormula``: a sign followed by an optional magnitude at
the end (``MnO4-``, ``Fe+2``, ``Cr2O7-2``, ``H+``). A caret form (``Fe^2+``, ``SO4^2-``) is also
accepted. ``Fe2+`` is read as RDKit reads it: two iron atoms, charge +1.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from rdkit import Chem

_PT = Chem.GetPeriodicTable()
ELEMENTS: frozenset[str] = frozenset(
    _PT.GetElementSymbol(z) for z in range(1, 119)
) | {"D", "T"}

_TOKEN = re.compile(r"([A-Z][a-z]?)|(\d+)|([\(\[\{])|([\)\]\}])|(\s+)")
_CARET_CHARGE = re.compile(r"\^(\d*)([+-])$")
_RDKIT_CHARGE = re.compile(r"([+-])(\d*)$")
_HYDRATE_SPLIT = re.compile(r"[.·•*]")
#: a plain formula (element symbols with counts, nothing else): read without the general tokenizer
_PLAIN = re.compile(r"(?:[A-Z][a-z]?\d*)+")
_PLAIN_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)")
#: longer formula text is rejected unread
MAX_FORMULA_CHARS = 500
_MAX_COUNT = 10_000


class FormulaError(ValueError):
    """The text is not a chemical formula."""


@dataclass(frozen=True)
class Formula:
    """Element counts plus net charge; hashable, compared by value."""

    counts: tuple[tuple[str, int], ...]
    charge: int = 0

    @classmethod
    def of(cls, counts: Mapping[str, int], charge: int = 0) -> "Formula":
        clean = {el: int(n) for el, n in counts.items() if n}
        if any(n < 0 for n in clean.values()):
            raise FormulaError(f"negative atom count in {dict(counts)}")
        return cls(tuple(sorted(clean.items())), int(charge))

    def as_dict(self) -> dict[str, int]:
        return dict(self.counts)

    def vector(self) -> dict[str, int]:
        """Element counts with the charge under the key ``"charge"`` (for conservation checks)."""
        out = dict(self.counts)
        if self.charge:
            out["charge"] = self.charge
        return out

    @property
    def n_atoms(self) -> int:
        return sum(n for _, n in self.counts)

    def hill(self) -> str:
        """Hill-order string with an RDKit-style charge suffix (``C2H6O``, ``MnO4-``, ``Fe+2``)."""
        return hill_formula(self.as_dict(), self.charge)

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.hill()

    def __add__(self, other: "Formula") -> "Formula":
        c = Counter(self.as_dict())
        c.update(other.as_dict())
        return Formula.of(c, self.charge + other.charge)

    def scaled(self, k: int) -> "Formula":
        return Formula.of({el: n * k for el, n in self.counts}, self.charge * k)


def hill_formula(counts: Mapping[str, int], charge: int = 0) -> str:
    """Hill order: C then H then the rest alphabetically; without carbon, all alphabetically."""
    counts = {el: n for el, n in counts.items() if n}
    if "C" in counts:
        order = ["C"] + (["H"] if "H" in counts else []) + sorted(e for e in counts if e not in ("C", "H"))
    else:
        order = sorted(counts)
    text = "".join(el + (str(counts[el]) if counts[el] != 1 else "") for el in order)
    if charge:
        sign = "+" if charge > 0 else "-"
        text += sign + (str(abs(charge)) if abs(charge) != 1 else "")
    return text


def _split_charge(text: str) -> tuple[str, int]:
    """Split a trailing charge: caret form (``^2+``) or RDKit form (``+2``, ``-``)."""
    m = _CARET_CHARGE.search(text)
    if m:
        magnitude = int(m.group(1)) if m.group(1) else 1
        return text[: m.start()], magnitude if m.group(2) == "+" else -magnitude
    m = _RDKIT_CHARGE.search(text)
    if m:
        magnitude = int(m.group(2)) if m.group(2) else 1
        return text[: m.start()], magnitude if m.group(1) == "+" else -magnitude
    return text, 0


def _parse_group(body: str, original: str) -> Counter:
    stack: list[Counter] = [Counter()]
    closers: list[str] = []
    last: Counter | str | None = None  # what a following number multiplies
    pos = 0
    pairs = {"(": ")", "[": "]", "{": "}"}
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if not m:
            raise FormulaError(f"unexpected character {body[pos]!r} in formula {original!r}")
        el, num, open_, close, space = m.groups()
        pos = m.end()
        if space:
            continue
        if el:
            if el not in ELEMENTS:
                raise FormulaError(f"unknown element {el!r} in formula {original!r}")
            stack[-1][el] += 1
            last = el
        elif num:
            n = int(num)
            if n > _MAX_COUNT:
                raise FormulaError(f"count {n} too large in formula {original!r}")
            if last is None:
                raise FormulaError(f"number without an atom or group in formula {original!r}")
            if isinstance(last, str):
                stack[-1][last] += n - 1
            else:
                for k, v in last.items():
                    stack[-1][k] += v * (n - 1)
            last = None
        elif open_:
            stack.append(Counter())
            closers.append(pairs[open_])
            last = None
        elif close:
            if not closers or closers.pop() != close:
                raise FormulaError(f"unbalanced brackets in formula {original!r}")
            group = stack.pop()
            stack[-1].update(group)
            last = group
    if closers:
        raise FormulaError(f"unclosed bracket in formula {original!r}")
    return stack[0]


def plain_formula(text: str, charge: int = 0) -> Formula | None:
    """The formula of plain text such as ``C2H6O`` with ``charge``, else None.

    Plain text is element symbols each followed by an optional count (known elements, counts 1
    to the cap): what :func:`parse_formula` reads as ``Formula(counts, charge)`` when ``charge`` is
    written after it. Anything else (groups, charges, hydrates, spaces, unknown symbols, zero or
    huge counts) gives None.
    """
    if _PLAIN.fullmatch(text) is None:
        return None
    counts: dict[str, int] = {}
    for el, num in _PLAIN_TOKEN.findall(text):
        if el not in ELEMENTS:
            return None
        if num:
            n = int(num)
            if n == 0 or n > _MAX_COUNT:
                return None
        else:
            n = 1
        counts[el] = counts.get(el, 0) + n
    return Formula(tuple(sorted(counts.items())), charge)


@lru_cache(maxsize=65536)
def parse_formula(text: str) -> Formula:
    """Parse a formula such as ``C2H6O``, ``CH3COOH``, ``Ca3(PO4)2``, ``K4[Fe(CN)6]``, ``CuSO4.5H2O``, ``Cr2O7-2``."""
    if not isinstance(text, str):
        raise FormulaError(f"formula must be a string, got {type(text).__name__}")
    original = text
    text = text.strip()
    if not text:
        raise FormulaError("empty formula")
    if len(text) > MAX_FORMULA_CHARS:
        raise FormulaError("formula too long")
    plain = plain_formula(text)
    if plain is not None:
        return plain
    body, charge = _split_charge(text)
    total: Counter = Counter()
    for part in _HYDRATE_SPLIT.split(body):
        part = part.strip()
        if not part:
            raise FormulaError(f"empty component in formula {original!r}")
        m = re.match(r"^(\d+)\s*(?=[A-Z(\[{])", part)
        mult = 1
        if m:
            mult = int(m.group(1))
            part = part[m.end():]
        group = _parse_group(part, original)
        if not group:
            raise FormulaError(f"no atoms in formula {original!r}")
        for el, n in group.items():
            total[el] += n * mult
    if not total:
        raise FormulaError(f"no atoms in formula {original!r}")
    return Formula.of(total, charge)


def is_formula(text: str) -> bool:
    """Whether ``text`` parses as a formula."""
    try:
        parse_formula(text)
        return True
    except FormulaError:
        return False


def same_formula(a: str, b: str) -> bool:
    """Whether two formula strings have the same composition and charge (False if either does not parse)."""
    try:
        return parse_formula(a.strip()) == parse_formula(b.strip())
    except ValueError:  # FormulaError
        return False


def formula_weight(formula: Formula) -> float:
    """Average molecular weight (g/mol) of a composition, as RDKit's ``MolWt`` computes it."""
    return float(sum(_PT.GetAtomicWeight(el) * n for el, n in formula.counts))
