"""Answer extraction, in one place: length caps, ``</think>`` handling, ``<answer>`` blocks, JSON.

All functions are linear in the completion length and never raise on any string.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rlvr.reasons import Reason

#: Completions longer than this (characters) are rejected before any parsing.
MAX_COMPLETION_CHARS = 100_000
#: The answer itself (the text inside the chosen block) is capped to this many characters.
MAX_ANSWER_CHARS = 8_000

_ANSWER_OPEN = "<answer>"
_ANSWER_CLOSE = "</answer>"
_THINK_CLOSE = "</think>"


@dataclass(frozen=True)
class Extraction:
    """The outcome of extracting an answer: ``text`` is None when nothing usable was found."""

    text: str | None
    reason: Reason = Reason.OK  # OK | NO_ANSWER | TOO_LONG | NOT_TEXT
    source: str = "tag"  # tag | json | raw


def completion_text(completion: Any) -> str | None:
    """Normalise a completion: a string, a chat message, or a list of messages (last assistant turn)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        content = completion.get("content")
        return content if isinstance(content, str) else None
    if isinstance(completion, (list, tuple)):
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                content = message.get("content")
                if isinstance(content, str):
                    return content
        return None
    return None


def strip_think(text: str) -> str:
    """Drop everything up to and including the last ``</think>``; an unclosed ``<think>`` leaves no answer."""
    idx = text.rfind(_THINK_CLOSE)
    if idx >= 0:
        return text[idx + len(_THINK_CLOSE):]
    open_idx = text.find("<think>")
    if open_idx >= 0:  # reasoning never closed: only the text before it can count
        return text[:open_idx]
    return text


def extract_tagged(text: str) -> str | None:
    """Content of the last complete ``<answer>...</answer>`` block, or None (case-insensitive)."""
    lower = text.lower()
    close = lower.rfind(_ANSWER_CLOSE)
    if close < 0:
        return None
    open_ = lower.rfind(_ANSWER_OPEN, 0, close)
    if open_ < 0:
        return None
    return text[open_ + len(_ANSWER_OPEN):close].strip()


def answer_text(completion: Any, max_chars: int = MAX_COMPLETION_CHARS) -> tuple[str | None, Reason]:
    """:func:`extract_answer` as a plain pair ``(text, reason)`` (for hot paths that need no :class:`Extraction`)."""
    text = completion if type(completion) is str else completion_text(completion)
    if text is None:
        return None, Reason.NOT_TEXT
    if len(text) > max_chars:
        return None, Reason.TOO_LONG
    body = extract_tagged(strip_think(text))
    if body is None:
        return None, Reason.NO_ANSWER
    if len(body) > MAX_ANSWER_CHARS:
        return None, Reason.TOO_LONG
    return body, Reason.OK


def extract_answer(completion: Any, *, max_chars: int = MAX_COMPLETION_CHARS) -> Extraction:
    """The answer inside the last ``<answer>`` block after any ``</think>``."""
    body, reason = answer_text(completion, max_chars)
    if body is None:
        return Extraction(None, reason)
    return Extraction(body, Reason.OK, "tag")


_DECODER = json.JSONDecoder()


def _last_json_object(text: str, limit: int = 64, decoder: json.JSONDecoder = _DECODER) -> Any:
    """The last parseable JSON object in ``text`` (tries at most ``limit`` opening braces from the end)."""
    pos = len(text)
    for _ in range(limit):
        pos = text.rfind("{", 0, pos)
        if pos < 0:
            return None
        try:
            value, _end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):  # ValueError: JSONDecodeError or a >4300-digit integer
            continue
        if isinstance(value, dict):
            return value
    return None


@lru_cache(maxsize=16)
def _decoder_with(object_pairs_hook: Any) -> json.JSONDecoder:
    """A JSON decoder with ``object_pairs_hook`` (decoders keep no state between calls; one per hook)."""
    return json.JSONDecoder(object_pairs_hook=object_pairs_hook)


def extract_json_answer(
    completion: Any, *, max_chars: int = MAX_COMPLETION_CHARS, object_pairs_hook: Any = None
) -> tuple[Any, str]:
    """The JSON answer by the cascade of MolecularIQ appendix B.2.3.

    1. the last ``<answer>`` block containing a JSON object;
    2. the tag content without JSON (returned as a string, source ``tag_text``);
    3. the last JSON object anywhere after ``</think>``;
    4. nothing.
    Returns ``(value, source)``; ``value`` is None with source ``no_answer``/``too_long``/``not_text``.
    ``object_pairs_hook`` is passed to the JSON decoder (e.g. to see duplicated keys).
    """
    decoder = _DECODER if object_pairs_hook is None else _decoder_with(object_pairs_hook)
    text = completion_text(completion)
    if text is None:
        return None, Reason.NOT_TEXT
    if len(text) > max_chars:
        return None, Reason.TOO_LONG
    visible = strip_think(text)
    body = extract_tagged(visible)
    if body is not None:
        if len(body) > MAX_ANSWER_CHARS:
            return None, Reason.TOO_LONG
        stripped = _strip_code_fence(body)
        try:
            value = decoder.decode(stripped)
            return value, "tag_json"
        except (ValueError, RecursionError):  # ValueError: JSONDecodeError or a >4300-digit integer
            pass
        value = _last_json_object(stripped, decoder=decoder)
        if value is not None:
            return value, "tag_json"
        return body, "tag_text"
    value = _last_json_object(visible, decoder=decoder)
    if value is not None:
        return value, "json"
    return None, Reason.NO_ANSWER


_FENCE_OPEN = re.compile(r"^```[a-zA-Z]*")


def _strip_code_fence(text: str) -> str:
    """Remove a surrounding Markdown code fence (linear time)."""
    text = text.strip()
    if text.startswith("```"):
        text = _FENCE_OPEN.sub("", text, count=1)
        if text.endswith("```"):
            text = text[:-3]
    return text.strip()
