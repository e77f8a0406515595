"""Text notations for bags of species and equations.

- Stoichiometric notation (ChemAlgebra eq. 6/7): ``{2}H2O.{1}CH4`` (formulas or SMILES).
- Plain notation: ``2 H2O + CH4`` (``+`` with spaces around it, so SMILES charges like ``[N+]`` are safe).
- Equations: two bags separated by ``>>``, ``>``, ``->``, ``→`` or `` = ``.

Parsers raise :class:`NotationError`; they are linear in the input and capped in size.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

MAX_TERMS = 200
MAX_COEFFICIENT = 1_000_000
#: digits a coefficient may have (leading zeros aside) before it is read as a number at all
MAX_COEFFICIENT_DIGITS = len(str(MAX_COEFFICIENT))


class NotationError(ValueError):
    """Text that is not a bag or equation in any accepted notation."""


def format_bag(bag: Mapping[str, int] | Iterable[tuple[str, int]]) -> str:
    """``{"H2O": 2, "CH4": 1}`` -> ``{2}H2O.{1}CH4`` (order kept)."""
    items = bag.items() if isinstance(bag, Mapping) else bag
    return ".".join(f"{{{int(k)}}}{species}" for species, k in items)


def format_plain(bag: Mapping[str, int] | Iterable[tuple[str, int]]) -> str:
    """``{"H2O": 2, "CH4": 1}`` -> ``2 H2O + CH4``."""
    items = bag.items() if isinstance(bag, Mapping) else bag
    return " + ".join(species if int(k) == 1 else f"{int(k)} {species}" for species, k in items)


def format_equation(reactants: Sequence[str], products: Sequence[str], coefficients: Sequence[int]) -> str:
    """Stoichiometric equation ``{2}H2.{1}O2>>{2}H2O``."""
    n = len(reactants)
    left = format_bag(list(zip(reactants, coefficients[:n])))
    right = format_bag(list(zip(products, coefficients[n:])))
    return f"{left}>>{right}"


_SEPARATORS = re.compile(r"\s+\+\s+|\.(?=\s*\{)|\s*[;,\n]\s*")
_BRACED = re.compile(r"^\{\s*(\d+)\s*\}\s*(\S.*)$", re.S)
_SPACED = re.compile(r"^(\d+)\s*[*x×·]?\s+(\S.*)$", re.S)
_GLUED = re.compile(r"^(\d+)(?=[A-Z\[(])(\S.*)$", re.S)
_BLANK_RUN = re.compile(r"[^\S\n]+")


def read_coefficient(digits: str) -> int:
    """ASCII ``digits`` as a coefficient in ``0..MAX_COEFFICIENT``; :class:`NotationError` otherwise.

    The length is checked before conversion, so a runaway digit string (thousands of digits, past
    Python's int/str conversion limit) costs nothing and raises no other error.
    """
    if not digits.isascii() or not digits.isdigit():
        raise NotationError(f"coefficient {digits[:20]!r} is not a whole number")
    significant = digits.lstrip("0") or "0"
    if len(significant) > MAX_COEFFICIENT_DIGITS:
        raise NotationError(f"coefficient of {len(significant)} digits too large")
    k = int(significant)
    if k > MAX_COEFFICIENT:
        raise NotationError(f"coefficient {k} too large")
    return k


def _term(token: str) -> tuple[str, int]:
    for pattern in (_BRACED, _SPACED, _GLUED):
        m = pattern.match(token)
        if m:
            k = read_coefficient(m.group(1))
            species = m.group(2).strip()
            if not species or " " in species:
                raise NotationError(f"cannot read term {token!r}")
            return species, k
    if " " in token or "{" in token or "}" in token:
        raise NotationError(f"cannot read term {token!r}")
    return token, 1


def parse_bag(text: str) -> list[tuple[str, int]]:
    """Parse a bag in stoichiometric or plain notation into (species text, coefficient) terms, in order.

    Repeated species are kept as separate terms (callers decide whether to merge).
    """
    if not isinstance(text, str):
        raise NotationError("bag must be text")
    text = text.strip().strip("`").strip()
    if not text:
        raise NotationError("empty bag")
    # squeeze blank runs first: the separator regex backtracks quadratically on long runs
    text = _BLANK_RUN.sub(" ", text)
    tokens = [t.strip() for t in _SEPARATORS.split(text) if t and t.strip()]
    if not tokens:
        raise NotationError("empty bag")
    if len(tokens) > MAX_TERMS:
        raise NotationError(f"more than {MAX_TERMS} terms")
    return [_term(t) for t in tokens]


_ARROWS = (">>", "->", "→", "⟶", ">")  # ">>" first: "{1}CN->>{1}X" ends its left side with the anion CN-


def parse_equation(text: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """Split an equation into (left terms, right terms)."""
    if not isinstance(text, str):
        raise NotationError("equation must be text")
    for arrow in _ARROWS:
        if arrow in text:
            parts = text.split(arrow)
            if arrow == ">" and len(parts) == 3 and not parts[1].strip():  # a>>b written with spaces
                parts = [parts[0], parts[2]]
            if len(parts) != 2:
                raise NotationError(f"expected one {arrow!r} in equation")
            return parse_bag(parts[0]), parse_bag(parts[1])
    if " = " in text:
        left, _, right = text.partition(" = ")
        if " = " in right:
            raise NotationError("expected one '=' in equation")
        return parse_bag(left), parse_bag(right)
    raise NotationError("no reaction arrow (use ->, >> or =)")
