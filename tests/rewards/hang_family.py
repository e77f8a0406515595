"""A test-only family, ``test.hang``, whose checker hangs when asked to (loaded with ``--plugin`` / ``imports=``).

A completion containing ``loop`` spins forever in Python; ``sleep`` blocks for an hour inside C
(``time.sleep``, like a stuck native routine: an in-process deadline cannot interrupt it); ``native``
blocks for an hour in libc's ``sleep`` through ctypes (C code holding no Python frame at all);
``raise`` raises ``RuntimeError`` (a checker bug); ``crash`` kills the process; anything else is right
when it says ``ok``. Importing the module registers it.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import time
from dataclasses import dataclass
from typing import Any

from rlvr.registry import FamilySpec, register_family
from rlvr.task import Task, Verdict

NAME = "test.hang"


@dataclass(frozen=True)
class HangConfig:
    """No options."""


def generate(config: HangConfig, split: str, seed: int, index: int) -> Task:
    return Task(id=f"{NAME}:{split}:{seed}:{index}:x", family=NAME,
                prompt=[{"role": "user", "content": "Say ok."}], ground_truth={"answer": "ok"}, meta={})


def check(task: Task, completion: Any, **options: Any) -> Verdict:
    text = completion if isinstance(completion, str) else str(completion)
    if "loop" in text:
        n = 0
        while True:  # a runaway pure-Python checker; even a catch-all cannot keep the deadline out
            try:
                n += 1
            except Exception:  # noqa: BLE001
                pass
    if "sleep" in text:
        time.sleep(3600)
    if "native" in text:
        ctypes.CDLL(ctypes.util.find_library("c")).sleep(3600)
    if "raise" in text:
        raise RuntimeError("a checker bug")
    if "crash" in text:
        os._exit(1)
    ok = "ok" in text
    return Verdict(reward=float(ok), correct=ok, metrics={}, reason="ok" if ok else "wrong_value")


def oracle(task: Task) -> str:
    return "<answer>ok</answer>"


SPEC = FamilySpec(name=NAME, config_cls=HangConfig, generator=generate, check=check, oracle=oracle, splits=("train",))
register_family(SPEC, replace=True)
