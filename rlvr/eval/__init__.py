"""``rlvr eval``: score checkpoints on fixed, versioned eval sets and tabulate the papers' metrics.

Python API::

    from rlvr.eval import EvalConfig, run_eval, before_after_table
    before = run_eval(EvalConfig(model="default", suite="stoich", limit=8, out="runs/before"))
    after = run_eval(EvalConfig(model="default", adapter="runs/train/adapter", suite="stoich", limit=8, out="runs/after"))
    print(before_after_table(before, after))

The names below resolve on first use, so the family modules' report layouts can import the table
helpers (:mod:`rlvr.eval.tables`, :mod:`rlvr.eval.plots`) without loading the runner and its
backends. Heavy dependencies (torch, transformers, peft, vllm) load only when a model backend is built.
"""
from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module that defines it
_EXPORTS = {
    "compare_files": "rlvr.eval.compare", "compare_results": "rlvr.eval.compare",
    "BACKENDS": "rlvr.eval.config", "EvalConfig": "rlvr.eval.config", "EvalConfigError": "rlvr.eval.config",
    "before_after_table": "rlvr.eval.report", "render_report": "rlvr.eval.report",
    "split_summary": "rlvr.eval.report", "summarize": "rlvr.eval.report",
    "EvalResult": "rlvr.eval.runner", "load_eval_set": "rlvr.eval.runner", "run_eval": "rlvr.eval.runner",
    "load_results": "rlvr.eval.store",
    "SUITE_VERSION": "rlvr.eval.suites", "Suite": "rlvr.eval.suites", "builtin_suites": "rlvr.eval.suites",
    "export_eval_set": "rlvr.eval.suites", "get_suite": "rlvr.eval.suites",
    "SuiteEntry": "rlvr.registry",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rlvr.eval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


__all__ = sorted(_EXPORTS)
