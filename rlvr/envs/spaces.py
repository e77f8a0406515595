"""A Gymnasium ``Text`` space for chat text: any printable Unicode string (plus whitespace) of bounded length.

Gymnasium's :class:`~gymnasium.spaces.Text` defines membership by an explicit character set. Prompts and
completions may contain any printable Unicode character (arrows, subscripts, Greek letters, ...), and an
explicit set of the ~55,000 printable BMP characters costs about 20 MB and 0.7 s per space. So
:class:`ChatText` keeps ``Text``'s sampling over ASCII printable characters (every sample is a member)
but defines membership as: a ``str`` of ``min_length..max_length`` characters, each printable
(:meth:`str.isprintable`) or whitespace. ``character_set`` reports the sampling alphabet only, so
``flatten``/``unflatten`` (one-hot encodings over that alphabet) are defined for sampled strings, not
for arbitrary Unicode text; text environments have no use for them.
"""
from __future__ import annotations

import string
from typing import Any

from gymnasium.spaces import Text

#: ASCII printable characters, the sampling alphabet (includes space, tab and newline)
SAMPLING_CHARSET = string.printable


class ChatText(Text):
    """Text space whose members are printable Unicode strings (see the module docstring)."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=SAMPLING_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        """True for a ``str`` within the length bounds whose characters are printable or whitespace."""
        if not isinstance(x, str) or not self.min_length <= len(x) <= self.max_length:
            return False
        return "".join(x.split()).isprintable()

    def __repr__(self) -> str:
        return f"ChatText({self.min_length}, {self.max_length}, charset=printable unicode)"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ChatText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )

    __hash__ = None  # type: ignore[assignment]  # mutable (seedable) like every gymnasium space
