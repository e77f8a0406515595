"""Reading stoichiometry answers: bags of species, equations and coefficient lists.

Everything here is bounded (the answer text is already capped by :mod:`rlvr.answer`, bags are
capped at :data:`rlvr.chem.notation.MAX_TERMS` terms, coefficients at
:data:`rlvr.chem.notation.MAX_COEFFICIENT`) and never raises on model output: failures are
reported as :class:`AnswerError` carrying a reason code, which the checkers turn into a verdict.
What a written species is (its canonical identity, its molecules) is :mod:`rlvr.checkers.stoich_species`.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping, NamedTuple

# a written species' identity lives in stoich_species; its names stay importable from here too
from rlvr.checkers.stoich_species import (  # noqa: F401
    MAX_SPECIES_CHARS,
    FormulaKey,
    SpeciesPart,
    formula_key,
    formula_parts,
    smiles_written_parts,
    species_identity,
    species_parts,
)
from rlvr.chem.notation import (
    MAX_COEFFICIENT,
    MAX_TERMS,
    NotationError,
    parse_bag,
    parse_equation,
    read_coefficient,
)
from rlvr.reasons import Reason

#: Arrows that make an answer an equation (same set as :func:`rlvr.chem.notation.parse_equation`).
_ARROW_HINTS = ("->", "→", "⟶", ">")


def _has_arrow(text: str) -> bool:
    """Whether any of :data:`_ARROW_HINTS` occurs in ``text`` (``->`` contains ``>``)."""
    return ">" in text or "→" in text or "⟶" in text


_LIST_SPLIT = re.compile(r"[\s,;:]+")


class AnswerError(ValueError):
    """A completion's answer could not be read; ``reason`` is the verdict's reason code."""

    def __init__(self, reason: Reason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def clean_answer(text: str) -> str:
    """Strip code fences, surrounding backticks and one trailing full stop."""
    text = text.strip()
    if text.startswith("```"):  # drop an opening fence with its language tag (```json, ```smiles)
        text = text[3:]
        first, newline, rest = text.partition("\n")
        tag = first.strip()
        if newline and (not tag or (tag.isascii() and tag.isalpha() and tag.islower())):
            text = rest
    text = text.strip().strip("`").strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def _coefficient(value: Any, where: str) -> int:
    """A JSON coefficient: a positive integer (integral floats and digit strings accepted)."""
    if isinstance(value, bool):
        raise AnswerError(Reason.UNPARSABLE, f"coefficient of {where} is not a number")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        try:
            value = read_coefficient(value.strip())
        except NotationError:
            raise AnswerError(Reason.UNPARSABLE, f"coefficient of {where} is larger than {MAX_COEFFICIENT}") from None
    if not isinstance(value, int):
        raise AnswerError(Reason.UNPARSABLE, f"coefficient of {where} is not an integer")
    if value > MAX_COEFFICIENT:
        raise AnswerError(Reason.UNPARSABLE, f"coefficient of {where} is larger than {MAX_COEFFICIENT}")
    if value < 0:
        raise AnswerError(Reason.UNPARSABLE, f"coefficient of {where} is negative")
    return value


class JsonObject(list):
    """A decoded JSON object kept as its ``(key, value)`` pairs, so repeated keys are not lost."""


_NOT_JSON = object()
_JSON = json.JSONDecoder(object_pairs_hook=JsonObject)


def _try_json(text: str) -> Any:
    """Decode text that looks like a JSON object/array (objects as :class:`JsonObject`), else a sentinel."""
    if not text or text[0] not in "[{":
        return _NOT_JSON
    if text[0] == "{" and text[1:].lstrip(" \t\n\r")[:1] not in ('"', "}"):
        return _NOT_JSON  # a JSON object opens with a string key or closes at once (``{2}H2O`` is a bag)
    try:
        return _JSON.decode(text)
    except (ValueError, RecursionError):
        return _NOT_JSON


def json_terms(pairs: JsonObject | Mapping[Any, Any]) -> list[tuple[str, int]]:
    """Terms of a JSON object answer ``{species: coefficient}`` (keys must be strings; repeats kept)."""
    items = pairs.items() if isinstance(pairs, Mapping) else pairs
    items = list(items)
    if len(items) > MAX_TERMS:
        raise AnswerError(Reason.UNPARSABLE, f"more than {MAX_TERMS} species")
    terms = []
    for species, k in items:
        if not isinstance(species, str) or not species.strip():
            raise AnswerError(Reason.UNPARSABLE, "JSON keys must be species names")
        terms.append((species.strip(), _coefficient(k, "a species")))
    return terms


#: a bag written ``{k}A.{k}B`` with nothing else (no blank, comma, semicolon, backtick or brace in a
#: species; at most six digits a coefficient): :func:`parse_bag` splits it at each ``.{``
_PLAIN_BAG = re.compile(r"\{\d{1,6}\}[^{}\s,;`]+(?:\.\{\d{1,6}\}[^{}\s,;`]+)*")


def _plain_terms(text: str) -> list[tuple[str, int]] | None:
    """Terms of text that matches :data:`_PLAIN_BAG` (None past :data:`MAX_TERMS` terms)."""
    pieces = text[1:].split(".{")  # "k}species" each
    if len(pieces) > MAX_TERMS:
        return None
    terms = []
    for piece in pieces:
        k, _, species = piece.partition("}")
        terms.append((species, int(k)))
    return terms


def _plain_bag(text: str) -> list[tuple[str, int]] | None:
    """Terms of a bag written ``{k}A.{k}B`` with nothing else, as :func:`parse_bag` reads it; else None."""
    if _PLAIN_BAG.fullmatch(text) is None:
        return None
    return _plain_terms(text)


#: a plain bag with no arrow in it (what :func:`parse_bag_answer` reads as a bag)
_PLAIN_ANSWER_BAG = re.compile(_PLAIN_BAG.pattern.replace("`]", "`>→⟶]"))


def read_bag(text: str) -> list[tuple[str, int]]:
    """:func:`rlvr.chem.notation.parse_bag` (the same terms and errors), quicker on ``{k}A.{k}B`` text."""
    terms = _plain_bag(text)
    return terms if terms is not None else parse_bag(text)


def read_equation(text: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """:func:`rlvr.chem.notation.parse_equation` (the same sides and errors), quicker on ``A>>B`` text."""
    if text.count(">>") == 1 and ">" not in text.replace(">>", ""):
        left, right = text.split(">>")
        return read_bag(left), read_bag(right)
    return parse_equation(text)


def _bag_terms(text: str) -> list[tuple[str, int]]:
    try:
        return read_bag(text)
    except NotationError as exc:
        raise AnswerError(Reason.UNPARSABLE, str(exc)) from None


def parse_bag_answer(text: str) -> tuple[list[tuple[str, int]], str]:
    """Terms ``(species text, coefficient)`` of a bag answer and the form it was written in.

    Forms: ``json`` (``{"CH4": 2, "H2O": 4}``), ``bag`` (``{2}CH4.{4}H2O`` or ``2 CH4 + 4 H2O``)
    and ``equation`` (a whole equation; its right-hand side is the answer). Zero coefficients are
    rejected (a species that is not produced is simply left out).
    """
    text = clean_answer(text)
    if not text:
        raise AnswerError(Reason.UNPARSABLE, "empty answer")
    if _PLAIN_ANSWER_BAG.fullmatch(text) is not None:  # neither JSON nor an equation
        terms = _plain_terms(text)
        if terms is not None:
            if 0 in [k for _, k in terms]:
                raise AnswerError(Reason.UNPARSABLE, "zero coefficient (leave out species that are not there)")
            return terms, "bag"
    value = _try_json(text)
    if isinstance(value, JsonObject):
        terms, form = json_terms(value), "json"
    elif value is not _NOT_JSON:
        raise AnswerError(Reason.UNPARSABLE, "a JSON answer must be an object {species: coefficient}")
    elif _has_arrow(text):
        try:
            _, terms = read_equation(text)
        except NotationError as exc:
            raise AnswerError(Reason.UNPARSABLE, str(exc)) from None
        form = "equation"
    else:
        terms, form = _bag_terms(text), "bag"
    if not terms:
        raise AnswerError(Reason.UNPARSABLE, "empty answer")
    if 0 in [k for _, k in terms]:
        raise AnswerError(Reason.UNPARSABLE, "zero coefficient (leave out species that are not there)")
    return terms, form


class BalanceAnswer(NamedTuple):
    """A parsed balance answer in one of three forms.

    - ``list``: ``coefficients`` in question order;
    - ``equation``: ``left`` and ``right`` terms ``(species text, coefficient)``;
    - ``json``: ``terms`` ``(species text, coefficient)`` with sides implied by the question.
    """

    form: str
    coefficients: tuple[int, ...] = ()
    left: tuple[tuple[str, int], ...] = ()
    right: tuple[tuple[str, int], ...] = ()
    terms: tuple[tuple[str, int], ...] = ()


#: a character no coefficient list has (lists hold digits, separators and brackets)
_NOT_LIST_CHAR = re.compile(r"[^\d\s,;:\[\]()]")


def _coefficient_list(text: str) -> tuple[int, ...] | None:
    """``2, 1, 2`` / ``[2,1,2]`` / ``2 1 2`` / ``2:1:2`` -> (2, 1, 2); None if not such a list."""
    if _NOT_LIST_CHAR.search(text) is not None:  # some token would not be all digits
        return None
    body = text.strip()
    if body[:1] in "[(" and body[-1:] in "])":
        body = body[1:-1]
    tokens = [t for t in _LIST_SPLIT.split(body) if t]
    if not tokens or len(tokens) > MAX_TERMS:
        return None
    if not all(t.isascii() and t.isdigit() for t in tokens):
        return None
    values = []
    for t in tokens:
        if len(t) > 7 or int(t) > MAX_COEFFICIENT:
            raise AnswerError(Reason.UNPARSABLE, f"coefficient larger than {MAX_COEFFICIENT}")
        values.append(int(t))
    return tuple(values)


#: an equation of two plain bags, ``{k}A.{k}B>>{k}C``, with no other ``>`` (neither JSON nor a coefficient list)
_PLAIN_SIDE = _PLAIN_BAG.pattern.replace("`]", "`>]")
_PLAIN_EQUATION = re.compile(_PLAIN_SIDE + ">>" + _PLAIN_SIDE)


def parse_balance_answer(text: str) -> BalanceAnswer:
    """Read a balance answer: a coefficient list, a JSON list/object, or a balanced equation."""
    text = clean_answer(text)
    if not text:
        raise AnswerError(Reason.UNPARSABLE, "empty answer")
    if _PLAIN_EQUATION.fullmatch(text) is not None:
        left, right = text.split(">>")
        left_terms, right_terms = _plain_terms(left), _plain_terms(right)
        if left_terms is not None and right_terms is not None:
            return BalanceAnswer("equation", left=tuple(left_terms), right=tuple(right_terms))
    value = _try_json(text)
    if isinstance(value, JsonObject):
        return BalanceAnswer("json", terms=tuple(json_terms(value)))
    if isinstance(value, list):
        if len(value) > MAX_TERMS:
            raise AnswerError(Reason.UNPARSABLE, f"more than {MAX_TERMS} coefficients")
        return BalanceAnswer("list", coefficients=tuple(_coefficient(v, "a list entry") for v in value))
    if value is not _NOT_JSON:
        raise AnswerError(Reason.UNPARSABLE, "a JSON answer must be a list of coefficients or an object")
    coefficients = _coefficient_list(text)
    if coefficients is not None:
        return BalanceAnswer("list", coefficients=coefficients)
    if not _has_arrow(text) and " = " not in text:
        raise AnswerError(Reason.UNPARSABLE, "expected a balanced equation (with ->, >> or =) or the coefficient list")
    try:
        left, right = read_equation(text)
    except NotationError as exc:
        raise AnswerError(Reason.UNPARSABLE, str(exc)) from None
    return BalanceAnswer("equation", left=tuple(left), right=tuple(right))
