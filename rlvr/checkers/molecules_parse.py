"""Reading a molecular answer: the ``(key, value)`` pairs of a completion's answer block.

Extraction follows the cascade of MolecularIQ appendix B.2.3 (:func:`rlvr.answer.extract_json_answer`).
JSON objects keep repeated keys (so duplicates can be judged); tag text without a JSON object is
read as ``"key": value`` pairs or ``key: value`` lines and, for generation only, as a bare SMILES
token. Answer keys are then resolved to the asked keys (:mod:`rlvr.checkers.molecules_keys`).
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Sequence

from rlvr.answer import extract_json_answer
from rlvr.chem.molecules.keys import SMILES_KEY
from rlvr.checkers.molecules_keys import canonical_key
from rlvr.reasons import Reason

class _Pairs(dict):
    """A JSON object that remembers every (key, value) pair, duplicates included."""

    __slots__ = ("pairs",)


def _pairs_hook(pairs: list[tuple[str, Any]]) -> _Pairs:
    obj = _Pairs(pairs)
    obj.pairs = list(pairs)
    return obj


_KV = re.compile(r"""["'`]?([A-Za-z][^:=\n;{}\[\]"'`]{0,120}?)["'`]?\s*[:=]\s*(\[[^\]]{0,4000}\]|"[^"\n]{0,600}"|'[^'\n]{0,600}'|[^,;\n]{0,600})""")
_INT = re.compile(r"[+-]?\d{1,12}")


def _coerce_text_value(raw: str) -> Any:
    text = raw.strip()
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        if not inner:
            return []
        parts = [p for p in re.split(r"[,\s;]+", inner) if p]
        if all(_INT.fullmatch(p) for p in parts):
            return [int(p) for p in parts]
        return text  # not an integer list: left as text (wrong type later)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if _INT.fullmatch(text):
        return int(text)
    return text


def parse_text_answer(body: str) -> list[tuple[str, Any]] | None:
    """``key: value`` pairs from answer-tag text without a JSON object (None if there are none).

    First tries the text wrapped in braces as JSON (``"ring_count": 2`` as in the paper's prompt),
    then ``key: value`` / ``key = value`` pieces separated by commas, semicolons or line breaks.
    Integer tokens become ints and ``[1, 2]`` integer lists; everything else stays a string.
    """
    text = body.strip()
    if not text:
        return None
    decoder = json.JSONDecoder(object_pairs_hook=_pairs_hook)
    try:
        obj = decoder.decode("{" + text.rstrip(",") + "}")
        if isinstance(obj, _Pairs):
            return obj.pairs
    except (ValueError, RecursionError):  # ValueError covers JSONDecodeError and >4300-digit integers
        pass
    pairs = [(m.group(1).strip(), _coerce_text_value(m.group(2))) for m in _KV.finditer(text)]
    return pairs or None


def answer_pairs(completion: Any, *, allow_bare_smiles: bool) -> tuple[list[tuple[str, Any]] | None, str]:
    """(pairs, source) of the answer; pairs is None with a reason code as source when nothing usable."""
    value, source = extract_json_answer(completion, object_pairs_hook=_pairs_hook)
    if source in ("not_text", "no_answer"):
        return None, Reason.NO_ANSWER
    if source == "too_long":
        return None, Reason.TOO_LONG
    if isinstance(value, _Pairs):
        return value.pairs, source
    if isinstance(value, dict):  # pragma: no cover - the hook always builds _Pairs
        return list(value.items()), source
    if source == "tag_text" and isinstance(value, str):
        pairs = parse_text_answer(value)
        if pairs is not None:
            return pairs, "tag_text"
        token = value.strip().strip("`'\"")
        if allow_bare_smiles and token and not any(c.isspace() for c in token):
            return [(SMILES_KEY, token)], "tag_bare"
    return None, Reason.UNPARSABLE


def resolve_keys(pairs: Iterable[tuple[str, Any]], asked: Sequence[str]) -> tuple[dict[str, list[Any]], list[str]]:
    """Group answer values by the asked key they name; keys naming nothing asked go to ``unknown``."""
    found: dict[str, list[Any]] = {}
    unknown: list[str] = []
    for raw_key, value in pairs:
        key = canonical_key(raw_key, asked) if isinstance(raw_key, str) else None
        if key is None:
            unknown.append(str(raw_key)[:80])
            continue
        found.setdefault(key, []).append(value)
    return found, unknown


__all__ = ["answer_pairs", "parse_text_answer", "resolve_keys"]
