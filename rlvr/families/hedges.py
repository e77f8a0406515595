"""Hedged answers: several candidates around the truth in one completion, for the conformance checks.

A checker that accepts an answer listing several values when any of them is right hands a policy a
free win: list the neighbours of your guess. These answers are derived from the family's own answer
structure, the correct answer (the oracle's) and wrong ones next to it (its minimal perturbations),
in groups: each group lists the same candidates in one form, with the right one first, last and (given
two wrong ones) in the middle. The forms:

- the whole answer joined by each separator a model might use (:data:`SEPARATORS`: spaces, commas,
  "or", semicolons, slashes, new lines), written as a list (and as a JSON list of strings when the
  answer is not JSON), and in several answer blocks;
- under each key of a JSON answer, the right value and wrong ones (those the perturbations put there,
  or one unit off) as a list, written raw with a separator (``{"count": 2 or 3}``, what a pattern-matching
  reader takes) and as one string joined by a separator (``{"count": "2 or 3"}``).

A checker may read a positional rule (rlvr reads the *last* answer block, MolecularIQ's cascade the
last JSON object, RDKit the first word of a SMILES): one position of a group may score 1.0. A checker
that accepts the right candidate in two positions of a group takes the hedge: it rewards listing
candidates over choosing one.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Sequence

from rlvr.families.derived import json_places, parse_json, step_number, value_at, with_raw

_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)
#: how a model joins candidates in one answer
SEPARATORS = (" ", ", ", " or ", "; ", " / ", "\n")
#: at most this many wrong candidates are combined with the right answer
MAX_WRONG = 2
#: at most this many keys of a JSON answer get hedged values
MAX_KEYS = 8


def _span(completion: str) -> tuple[int, int] | None:
    match = _ANSWER.search(completion)
    return None if match is None else (match.start(1), match.end(1))


def _orders(right: str, wrong: Sequence[str]) -> list[list[str]]:
    """Wrong then right, right then wrong, and right between two wrong ones."""
    out = [[wrong[0], right], [right, wrong[0]]]
    if len(wrong) > 1:
        out.append([wrong[0], right, wrong[1]])
    return out


def _whole(body: str, wrong: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Groups of answer bodies listing the right ``body`` with the ``wrong`` ones, one group per form."""
    orders = _orders(body, wrong)
    forms = [(f"joined by {separator!r}", [separator.join(order) for order in orders]) for separator in SEPARATORS]
    forms.append(("as a list", ["[" + ", ".join(order) + "]" for order in orders]))
    if not parse_json(body)[0]:
        forms.append(("as a JSON list of strings", [json.dumps(order) for order in orders]))
    forms.append(("in several answer blocks", ["</answer> <answer>".join(order) for order in orders]))
    return forms


def _neighbours(value: Any) -> list[Any]:
    """Values one unit off a number (never below zero), none for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return []
    text = json.dumps(value)
    if not re.fullmatch(r"\d+(?:\.\d+)?", text):
        return []
    return [json.loads(new) for new in (step_number(text, -1), step_number(text, 1)) if new is not None]


def _unquoted(text: str) -> str:
    """A JSON string's content, any other JSON text as written."""
    value = json.loads(text)
    return value if isinstance(value, str) else text


def _candidates(root: Any, path: tuple, others: Sequence[Any]) -> list[Any]:
    """Wrong values for the value at ``path``: those the wrong answers put there, then its numeric neighbours."""
    right, out = value_at(root, path), []
    for other in others:
        try:
            value = value_at(other, path)
        except (KeyError, IndexError, TypeError):
            continue
        if value != right and value not in out:
            out.append(value)
    return out + [v for v in _neighbours(right) if v not in out]


def _under_keys(body: str, wrong_bodies: Sequence[str]) -> list[tuple[str, list[str]]]:
    """Groups of hedged values under each key of a JSON object answer, one group per key and form."""
    is_json, root = parse_json(body)
    if not is_json or not isinstance(root, dict):
        return []
    others = [value for ok, value in map(parse_json, wrong_bodies) if ok]
    groups = []
    for path in [p for p in json_places(root) if p and isinstance(p[-1], str)][:MAX_KEYS]:
        candidates = _candidates(root, path, others)[:MAX_WRONG]
        if not candidates:
            continue
        right = value_at(root, path)
        texts = [json.dumps(v, ensure_ascii=False) for v in (right, *candidates)]
        orders = _orders(texts[0], texts[1:])
        plain = [[_unquoted(t) for t in order] for order in orders]
        key = "/".join(map(str, path))
        groups.append((f"under {key!r} as a list", [with_raw(root, path, "[" + ", ".join(o) + "]") for o in orders]))
        for separator in SEPARATORS[:4]:
            groups.append((f"under {key!r} joined by {separator!r}",
                           [with_raw(root, path, separator.join(o)) for o in orders]))
            groups.append((f"under {key!r} as one string joined by {separator!r}",
                           [with_raw(root, path, json.dumps(separator.join(o), ensure_ascii=False)) for o in plain]))
    return groups


def hedge_groups(completion: str, wrong: Iterable[str]) -> list[tuple[str, list[str]]]:
    """Hedged completions of the correct ``completion``, grouped by form: each group lists the same
    candidates (the right answer and wrong ones taken from ``wrong``, completions of the same task such
    as its minimal perturbations) with the right one first, last and, given two wrong ones, in the
    middle. Empty when ``completion`` has no answer block or no wrong answer differs from it."""
    span = _span(completion)
    if span is None:
        return []
    start, end = span
    body = completion[start:end]
    wrong_bodies: list[str] = []
    for other in wrong:
        other_span = _span(other)
        text = None if other_span is None else other[other_span[0]:other_span[1]]
        if text is not None and text != body and text not in wrong_bodies:
            wrong_bodies.append(text)
    if not wrong_bodies:
        return []
    groups = _whole(body, wrong_bodies[:MAX_WRONG]) + _under_keys(body, wrong_bodies)
    return [(form, [completion[:start] + b + completion[end:] for b in bodies]) for form, bodies in groups]


def hedged_answers(completion: str, wrong: Iterable[str]) -> list[str]:
    """Every completion of :func:`hedge_groups`, once."""
    return list(dict.fromkeys(c for _, group in hedge_groups(completion, wrong) for c in group))


__all__ = ["MAX_KEYS", "MAX_WRONG", "SEPARATORS", "hedge_groups", "hedged_answers"]
