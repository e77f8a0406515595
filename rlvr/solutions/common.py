"""Shared pieces of the worked-solution writers: styles, length bounds, trace assembly, number formatting.

A writer turns a task into a :class:`Trace` (lines of reasoning, some marked as detail) plus the
text of the final answer; :func:`render` joins them into a completion ending in
``<answer>...</answer>`` within a character budget.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Literal

Style = Literal["brief", "terse", "detailed"]
#: ``brief``: the fewest lines that still show the computation (for small models and short RL completions;
#: a family without a brief form writes terse); ``terse``: the essential steps; ``detailed``: also checks
STYLES: tuple[str, ...] = ("brief", "terse", "detailed")

#: default character budget of a whole completion (reasoning + answer block) per style
DEFAULT_MAX_CHARS: dict[str, int] = {"brief": 2500, "terse": 2500, "detailed": 6000}


class SolutionError(ValueError):
    """A worked solution could not be written (unsupported task, too long, or it failed verification)."""


@dataclass(frozen=True)
class SolutionOptions:
    """How a trace is rendered: ``style`` (brief/terse/detailed) and the completion's character budget."""

    style: str = "terse"
    max_chars: int | None = None

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"unknown solution style {self.style!r}; use one of {list(STYLES)}")
        if self.max_chars is not None and int(self.max_chars) < 64:
            raise ValueError(f"max_chars must be at least 64, got {self.max_chars}")

    @property
    def budget(self) -> int:
        return int(self.max_chars) if self.max_chars is not None else DEFAULT_MAX_CHARS[self.style]

    @property
    def detailed(self) -> bool:
        return self.style == "detailed"

    @property
    def brief(self) -> bool:
        return self.style == "brief"


@dataclass
class Trace:
    """Lines of reasoning; lines added with ``detail=True`` appear only in the detailed style."""

    lines: list[tuple[str, bool]] = field(default_factory=list)

    def add(self, text: str, *, detail: bool = False) -> "Trace":
        self.lines.append((text, detail))
        return self

    def extend(self, texts: Iterable[str], *, detail: bool = False) -> "Trace":
        for text in texts:
            self.add(text, detail=detail)
        return self

    def text(self, detailed: bool) -> str:
        return "\n".join(t for t, is_detail in self.lines if detailed or not is_detail)


def answer_block(answer: str) -> str:
    return f"<answer>{answer}</answer>"


def render(trace: Trace, answer: str, options: SolutionOptions, *, what: str = "task") -> str:
    """Join reasoning and answer within the budget: a detailed trace over budget falls back to terse.

    Raises :class:`SolutionError` when even the terse trace does not fit.
    """
    if "<answer>" in trace.text(True).lower():
        raise SolutionError(f"{what}: reasoning must not contain an answer tag")
    budget = options.budget
    tail = "\n" + answer_block(answer)
    for detailed in ((True, False) if options.detailed else (False,)):
        body = trace.text(detailed).strip()
        text = (body + tail) if body else answer_block(answer)
        if len(text) <= budget:
            return text
    raise SolutionError(
        f"{what}: worked solution needs {len(text)} characters, over the budget of {budget} "
        f"(raise max_chars or use a smaller task)"
    )


def frac(x: Fraction | int) -> str:
    """``3``, ``5/2``, ``-1/3``."""
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def var_names(n: int) -> list[str]:
    """Coefficient variable names: a, b, c, ... (x1, x2, ... beyond 26)."""
    if n <= 26:
        return [chr(ord("a") + i) for i in range(n)]
    return [f"x{i + 1}" for i in range(n)]


def term(k: int | Fraction, var: str) -> str:
    """``a``, ``2a``, ``-3b``, ``(1/2)a``-style monomials for equations."""
    k = Fraction(k)
    if k == 1:
        return var
    if k.denominator != 1:
        return f"({frac(k)}){var}"
    return f"{k.numerator}{var}"


def join_sum(parts: list[str]) -> str:
    return " + ".join(parts) if parts else "0"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
