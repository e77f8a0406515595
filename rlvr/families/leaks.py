"""Does the prompt give the answer away? Two measures over a family's conformance set, each held to the
family's best model-free baseline plus :data:`MARGIN`:

- **shown**: the share of tasks whose prompt (its system and user messages; a few-shot demonstration's
  answer is another task's) holds the right answer as written: the oracle's answer block body, or the body
  of one of the family's renderings, not inside a longer word or number. A bare number is left to the copy
  policies (small numbers fill any text);
- **copied**: for every *copy policy*, the share of tasks it answers right. A copy policy takes the number,
  or the chemical word (a formula, a SMILES, a bag such as ``{2}H2O.{1}CO2``), at one position of the
  question (the last user message; each of the first and last :data:`POSITIONS`), and answers it, bare
  (``<answer>3</answer>``) or, where the oracle answers a JSON object, under each of its keys
  (``{"count": 3}``). A policy is held to the larger of the baseline and its own most common answer given to
  every task (a constant copied from fixed text is no leak).

The baseline: the family's most common true answer given to every task (the share of tasks whose ground
truth is the most common one), or the best of its declared ``baselines`` (``copy-input``; without one, the
question given back), whichever scores more. Stoichiometry shows why the rule is a margin, not zero: an
open-book Type 1 prompt shows the reference reaction, whose right side is the answer when the factor is 1
and nothing is left over, and a balancing task's equation is its own answer when every coefficient is 1 (the
family's ``copy-input`` baseline scores those tasks).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Callable, Iterable

from rlvr.api import oracle_completion
from rlvr.chem.formula import is_formula
from rlvr.families.contract import ConformanceError, answer_body, shown
from rlvr.families.promises import declared_renderings
from rlvr.families.timing import timed_verify
from rlvr.registry import get_family
from rlvr.task import Task, answer_key

#: how far copying from the prompt may beat the family's best baseline (a share of the tasks)
MARGIN = 0.10
#: positions copied from each end of a question's numbers and of its chemical words
POSITIONS = 8
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)")
_BARE_NUMBER = re.compile(r"\s*[-+]?\d+(?:\.\d+)?\s*")
_CHEMICAL = set("0123456789()[]=#@+\\/{}.>%")
_TRIM = ",;:!?\"'`"
_ORDINALS = {0: "first", 1: "second", 2: "third", -1: "last", -2: "second-to-last", -3: "third-to-last"}


def _ordinal(position: int) -> str:
    if position in _ORDINALS:
        return _ORDINALS[position]
    return f"{position + 1}th" if position >= 0 else f"{-position}th-to-last"


def prompt_text(task: Task) -> str:
    """The text of the prompt's system and user messages (assistant turns are other tasks' answers)."""
    return "\n".join(str(m.get("content", "")) for m in task.prompt if m.get("role") != "assistant")


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0


def chemical_words(text: str) -> list[str]:
    """The words of ``text`` that are chemistry: with a capital letter, and a formula or written with digits
    or SMILES punctuation (``C2H6O``, ``CC(=O)O``, ``{2}H2O.{1}CO2``), stripped of surrounding punctuation."""
    out = []
    for raw in text.split():
        word = raw.strip(_TRIM)
        if word.endswith(".") and not word.endswith(".."):
            word = word[:-1].strip(_TRIM)
        while word.startswith("(") and word.count("(") > word.count(")"):
            word = word[1:]
        while word.endswith(")") and word.count(")") > word.count("("):
            word = word[:-1]
        if word.startswith("(") and word.endswith(")") and _balanced(word[1:-1]):
            word = word[1:-1]  # a word in parentheses, not a formula's group such as (NH4)2SO4
        if word and len(word) <= 300 and any(c.isupper() for c in word) and (
                any(c in _CHEMICAL for c in word) or is_formula(word)):
            out.append(word)
    return out


def shows(text: str, body: str) -> bool:
    """Whether ``body`` occurs in ``text`` other than inside a longer word or number."""
    start = text.find(body)
    while start >= 0:
        end = start + len(body)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() and body[:1].isalnum()) and not (after.isalnum() and body[-1:].isalnum()):
            return True
        start = text.find(body, start + 1)
    return False


def baseline(family: str, tasks: list[Task]) -> tuple[float, str]:
    """The family's best model-free score on ``tasks`` and its name: its most common true answer given to every
    task, or one of its ``baselines`` (without any, the question given back)."""
    counts = Counter(answer_key(task) for task in tasks)
    best = (counts.most_common(1)[0][1] / len(tasks), "the most common answer")
    spec = get_family(family)
    declared: dict[str, Callable[[Task], str]] = dict(spec.baselines) or {
        "copy-input": lambda task: "<answer>" + task.user_text.strip() + "</answer>"}
    for name, make in declared.items():
        right = 0
        for task in tasks:
            try:
                right += timed_verify(task, make(task)).correct
            except Exception:  # noqa: BLE001 - a baseline that cannot answer a task scores nothing on it
                continue
        best = max(best, (right / len(tasks), f"the {name} baseline"))
    return best


def _keyed(oracle: str, token: str) -> str | None:
    """``token`` under every key of the oracle's JSON object answer (a number as a JSON number), or None."""
    body = answer_body(oracle)
    try:
        value = json.loads(body) if body is not None else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or not value:
        return None
    copied: Any = token
    if _BARE_NUMBER.fullmatch(token):
        try:
            copied = json.loads(token)
        except ValueError:  # 007: not a JSON number
            pass
    return "<answer>" + json.dumps({key: copied for key in value}) + "</answer>"


def _render(form: str, oracle: str, token: str) -> str | None:
    return f"<answer>{token}</answer>" if form == "bare" else _keyed(oracle, token)


def _tokens(question: str) -> dict[str, list[str]]:
    return {"number": _NUMBER.findall(question), "chemical word": chemical_words(question)}


def _positions(count: int) -> list[int]:
    return [p for p in (*range(POSITIONS), *range(-POSITIONS, 0)) if -count <= p < count]


def _fail(family: str, what: str, right: int, total: int, base: tuple[float, str], example: str) -> ConformanceError:
    return ConformanceError(
        f"{family}: the prompt gives the answer away: {what} {right} of {total} conformance tasks "
        f"({100 * right / total:.0f} %), more than {base[1]} ({100 * base[0]:.0f} %) plus {100 * MARGIN:.0f} points; "
        f"e.g. {example}. A question must not hold its own answer (a hint, an example that is the answer, a number "
        f"that encodes it)")


def check_shown(family: str, tasks: list[Task], base: tuple[float, str]) -> int:
    """The share of tasks whose prompt shows the right answer as written is at most ``base`` plus :data:`MARGIN`;
    returns how many tasks show it."""
    hits = []
    for task in tasks:
        oracle = oracle_completion(task)
        bodies = [answer_body(c) for c in [oracle, *declared_renderings(task)]]
        text = prompt_text(task)
        found = next((b for b in bodies if b and b.strip() and not _BARE_NUMBER.fullmatch(b) and shows(text, b.strip())),
                     None)
        if found is not None:
            hits.append((task, found.strip()))
    if len(hits) > (base[0] + MARGIN) * len(tasks):
        task, body = hits[0]
        raise _fail(family, "the right answer as written is in the prompt of", len(hits), len(tasks), base,
                    f"{task.id} shows {shown(body)}")
    return len(hits)


def check_copies(family: str, tasks: list[Task], base: tuple[float, str]) -> int:
    """No copy policy (module docstring) is right on more tasks than the larger of ``base`` and its own most
    common answer given to every task, plus :data:`MARGIN`; returns how many policies were scored."""
    answers: dict[tuple[str, int, str], list[tuple[Task, str, str]]] = {}
    oracles = {task.id: oracle_completion(task) for task in tasks}
    for task in tasks:
        for kind, tokens in _tokens(task.user_text).items():
            for position in _positions(len(tokens)):
                for form in ("bare", "keyed"):
                    completion = _render(form, oracles[task.id], tokens[position])
                    if completion is not None:
                        answers.setdefault((kind, position, form), []).append((task, tokens[position], completion))
    verdicts: dict[tuple[str, str], bool] = {}

    def right(task: Task, completion: str) -> bool:
        key = (task.id, completion)
        if key not in verdicts:
            verdicts[key] = bool(timed_verify(task, completion).correct)
        return verdicts[key]

    for (kind, position, form), rows in answers.items():
        hits = [(task, completion) for task, _, completion in rows if right(task, completion)]
        if len(hits) <= (base[0] + MARGIN) * len(tasks):
            continue
        token = Counter(token for _, token, _ in rows).most_common(1)[0][0]
        constant = [_render(form, oracles[task.id], token) for task in tasks]
        fixed = sum(right(task, c) for task, c in zip(tasks, constant) if c is not None)
        best = max(base, (fixed / len(tasks), f"answering its most common copy, {token!r}, to every task"))
        if len(hits) > (best[0] + MARGIN) * len(tasks):
            where = "under each key of the answer" if form == "keyed" else "as the answer"
            raise _fail(family, f"copying the {_ordinal(position)} {kind} of the question {where} is right on", len(hits),
                        len(tasks), best, f"{hits[0][0].id}: {shown(hits[0][1])}")
    return len(answers)


def check_prompt_leaks(family: str, tasks: Iterable[Task]) -> tuple[int, int]:
    """:func:`check_shown` and :func:`check_copies` on ``tasks`` (a family's conformance set) against its
    :func:`baseline`; returns (tasks that show their answer, copy policies scored)."""
    tasks = list(tasks)
    base = baseline(family, tasks)
    return check_shown(family, tasks, base), check_copies(family, tasks, base)


__all__ = ["MARGIN", "POSITIONS", "baseline", "check_copies", "check_prompt_leaks", "check_shown", "chemical_words",
           "prompt_text", "shows"]
