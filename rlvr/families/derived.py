"""Answers derived from a family's own oracle answer, for the conformance checks.

The shared hostile corpus (:mod:`rlvr.families.hostile`) writes bad values only under the keys of the
built-in families, so a new family's checker may never see one under its own keys. These answers
take the structure of the family's oracle answer instead:

- :func:`key_steps`: every integer or decimal number of a JSON answer (under each key, or the answer
  itself) moved by one unit of its last written digit, one at a time;
- :func:`own_hostile_answers`: every value of a JSON answer (under each key, the first and last item
  of a list, the answer itself) replaced, one at a time, by a value a policy can write but no
  checker may accept or raise on: ``"x"``, ``""``, ``null``, booleans, ``Infinity``, ``NaN``, a list, a
  nested object, a 5,001-digit number, a negative number, ``1e308``; by a value of another type that
  Python compares equal to the truth or that ``int()`` maps onto it (``true`` for 1, ``1`` for
  ``true``, ``2.5`` for 2); and every key written twice, once with a wrong value and once with the
  right one, in both orders (a checker that keeps one of a repeated key's values takes the hedge).
  An answer that is not JSON (``{2}H2O``) gets each of its first numbers replaced by a hostile token.

Each derived answer is wrong: the conformance checks require a wrong verdict (not ``ok``, not
``checker_error``, not ``timeout``) for every one of them.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: digits of the runaway number (past Python's 4,300-digit int/str conversion limit)
HUGE = "9" * 5_001
#: JSON texts put in place of any value (those equal to the value are skipped)
HOSTILE_VALUES = ('"x"', '""', "null", "true", "false", "Infinity", "-Infinity", "NaN", "[]", "{}", HUGE,
                  "-" + HUGE, "1e308", "-1")
#: the values put in place of one item of a list
HOSTILE_ITEMS = ('"x"', "null", "true", "NaN", "Infinity", "[]", "{}", HUGE)
#: tokens put in place of a number of an answer that is not JSON
HOSTILE_TOKENS = ("x", "null", "true", "NaN", "Infinity", "[]", "{}", "1e999", HUGE)
#: at most this many values (or numbers of a text answer) are replaced
MAX_PLACES = 16
_SLOT = "\u0000rlvr-derived-slot\u0000"
_SLOT_JSON = json.dumps(_SLOT)

#: keys and list positions from the answer's root to one value
Place = tuple


def _body(completion: str) -> tuple[int, int] | None:
    match = _ANSWER.search(completion)
    return None if match is None else (match.start(1), match.end(1))


def parse_json(body: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``body`` is one JSON value, else ``(False, None)``."""
    try:
        return True, json.loads(body)
    except (ValueError, RecursionError):
        return False, None


def json_places(value: Any, path: Place = (), depth: int = 3) -> Iterator[Place]:
    """Paths to the values of ``value``: itself, each member of an object, the first and last item of a list."""
    yield path
    if depth == 0:
        return
    if isinstance(value, dict):
        for key, member in value.items():
            yield from json_places(member, (*path, key), depth - 1)
    elif isinstance(value, list) and value:
        for i in dict.fromkeys((0, len(value) - 1)):
            yield from json_places(value[i], (*path, i), depth - 1)


def value_at(value: Any, path: Place) -> Any:
    for step in path:
        value = value[step]
    return value


def _set(value: Any, path: Place, new: Any) -> Any:
    """A copy of ``value`` with ``new`` at ``path``."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _set(value[head], rest, new)}
    return [_set(v, rest, new) if i == head else v for i, v in enumerate(value)]


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def with_raw(root: Any, path: Place, raw: str) -> str:
    """The JSON text of ``root`` with the value at ``path`` written as ``raw`` (any text)."""
    return _dumps(_set(root, path, _SLOT)).replace(_SLOT_JSON, raw, 1)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _wrong(value: Any) -> Any:
    """A value of the same type as ``value`` that differs from it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value[:-1] if value else [0]
    if isinstance(value, dict):
        return {}
    return 0


def _equal_but_other_type(value: Any) -> list[str]:
    """Texts of values that ``==`` or ``int()`` maps onto ``value`` without being its type."""
    if isinstance(value, bool):
        return [str(int(value))]
    if _is_int(value):
        out = [f"{value}.5"]
        if value in (0, 1):
            out.append("true" if value else "false")
        return out
    return []


def _replacements(value: Any, item: bool) -> list[str]:
    """JSON texts to put in place of ``value`` (an item of a list: a shorter set), none equal to it."""
    out = list(HOSTILE_ITEMS if item else HOSTILE_VALUES) + _equal_but_other_type(value)
    if not item:
        out += [_dumps([_wrong(value), value]), _dumps({"value": value})]  # a hedge in a list, a wrapped value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append(_dumps(-(abs(value) + 1)))
    own = _dumps(value)
    return [raw for raw in dict.fromkeys(out) if raw != own]


def _repeated_keys(root: Any, path: Place) -> list[str]:
    """The object holding ``path`` with that key written twice, a wrong value and the right one, both orders."""
    key, value = path[-1], value_at(root, path)
    first, second = _dumps(_wrong(value)), _dumps(value)
    pair = f"{{}}, {_dumps(key)}: {{}}"
    return [with_raw(root, path, pair.format(a, b)) for a, b in ((first, second), (second, first))]


def _text_answers(body: str) -> list[str]:
    out = []
    for match in list(_NUMBER.finditer(body))[:MAX_PLACES]:
        for token in HOSTILE_TOKENS:
            out.append(body[:match.start()] + token + body[match.end():])
    return out


def own_hostile_answers(completion: str) -> list[str]:
    """Wrong answers in the structure of the correct ``completion`` (a family's oracle answer): see the
    module docstring. Empty when ``completion`` has no answer block."""
    span = _body(completion)
    if span is None:
        return []
    start, end = span
    body = completion[start:end]
    is_json, root = parse_json(body)
    if not is_json:
        bodies = _text_answers(body)
    else:
        bodies = []
        for path in list(json_places(root))[:MAX_PLACES]:
            item = bool(path) and isinstance(path[-1], int)
            bodies += [with_raw(root, path, raw) for raw in _replacements(value_at(root, path), item)]
            if path and isinstance(path[-1], str):
                bodies += _repeated_keys(root, path)
    return [completion[:start] + b + completion[end:] for b in dict.fromkeys(bodies) if b != body]


def step_number(text: str, delta: int) -> str | None:
    """``text`` (digits, maybe one decimal point) moved by ``delta`` units of its last written digit,
    written with as many decimals (None below zero): ``46.1`` +1 -> ``46.2``, ``3`` -1 -> ``2``."""
    decimals = len(text.split(".", 1)[1]) if "." in text else 0
    units = int(text.replace(".", "")) + delta
    if units < 0:
        return None
    digits = str(units).rjust(decimals + 1, "0")
    return digits if not decimals else f"{digits[:-decimals]}.{digits[-decimals:]}"


def key_steps(completion: str) -> list[str]:
    """Each number of a JSON answer (under any key, not inside a list), one at a time, moved by one unit
    of its last written digit either way (never below zero). Empty when the answer is not JSON."""
    span = _body(completion)
    if span is None:
        return []
    start, end = span
    is_json, root = parse_json(completion[start:end])
    if not is_json:
        return []
    out = []
    for path in list(json_places(root))[:MAX_PLACES]:
        if any(isinstance(step, int) for step in path):
            continue  # an item of a list: which changes are wrong is the family's to say (its perturb hook)
        value = value_at(root, path)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            continue
        text = _dumps(value)
        if not _NUMBER.fullmatch(text):
            continue  # 1e+20, inf: no last written digit
        for delta in (-1, 1):
            new = step_number(text, delta)
            if new is not None:
                out.append(completion[:start] + with_raw(root, path, new) + completion[end:])
    return list(dict.fromkeys(out))


__all__ = ["HOSTILE_ITEMS", "HOSTILE_TOKENS", "HOSTILE_VALUES", "HUGE", "MAX_PLACES", "json_places", "key_steps",
           "own_hostile_answers", "parse_json", "step_number", "value_at", "with_raw"]
