"""Fixtures for the environment tests: wrong answers built from a task's own ground truth."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from rlvr.task import Task


def wrong_completions(task: Task) -> list[str]:
    """A few answers that are wrong in different ways (never the right one)."""
    gt = task.ground_truth
    fam = task.family
    if fam == "stoich.balance":
        coefs = [int(k) for k in gt["coefficients"]]
        plus = list(coefs)
        plus[0] += 1
        return [f"<answer>{', '.join(map(str, plus))}</answer>", f"<answer>{', '.join(['1'] * len(coefs))}</answer>"
                if any(k != 1 for k in coefs) else f"<answer>{', '.join(['2'] * len(coefs))}</answer>",
                "no answer here"]
    if fam.startswith("stoich."):
        from rlvr.chem.notation import format_bag

        key = "products" if "products" in gt else "byproducts"
        bag = {s: int(k) for s, k in gt[key].items()}
        first = next(iter(bag))
        plus = dict(bag)
        plus[first] += 1
        dropped = dict(list(bag.items())[:-1]) or {"Xe": 1}
        return [f"<answer>{format_bag(plus)}</answer>", f"<answer>{format_bag(dropped)}</answer>", "<answer>{1}</answer>"]
    if fam == "mol.gen":
        return ['<answer>{"smiles": "C"}</answer>', '<answer>{"smiles": "CC.CC"}</answer>', '<answer>{"smiles": "C1CC"}</answer>',
                "<answer>{}</answer>"]
    # mol.count / mol.index: one value off, then every value off, then a key missing
    def off(v: Any) -> Any:
        if isinstance(v, list):
            return sorted(set(v) ^ {0}) if v != [0] else [1]
        if isinstance(v, bool):
            return not v
        if isinstance(v, int):
            return v + 1
        return str(v) + "X"

    keys = list(gt)
    one = dict(gt)
    one[keys[0]] = off(gt[keys[0]])
    every = {k: off(v) for k, v in gt.items()}
    missing = {k: v for k, v in gt.items() if k != keys[-1]}
    return [f"<answer>{json.dumps(x)}</answer>" for x in (one, every, missing)]


def tokens(text: str) -> set[str]:
    """Whitespace tokens stripped of surrounding punctuation."""
    return {t.strip(",.;:()[]'\"`") for t in text.split()} - {""}


def strip_header(feedback: str) -> str:
    return re.sub(r"^Not correct \(attempt \d+ of \d+\)\.\n?", "", feedback)


@pytest.fixture(scope="session")
def families() -> list[str]:
    import rlvr

    names = rlvr.list_families()
    if not names:
        pytest.fail("no task families registered")
    return names


@pytest.fixture(scope="session")
def helpers():
    """The helper functions above (conftest modules are not importable under --import-mode=importlib)."""
    from types import SimpleNamespace

    return SimpleNamespace(wrong_completions=wrong_completions, tokens=tokens, strip_header=strip_header)
