"""``rlvr eval``: score checkpoints on fixed, versioned eval sets and tabulate the papers' metrics.

Python API::

    from rlvr.eval import EvalConfig, run_eval, before_after_table
    before = run_eval(EvalConfig(model="default", suite="stoich", limit=8, out="runs/before"))
    after = run_eval(EvalConfig(model="default", adapter="runs/train/adapter", suite="stoich", limit=8, out="runs/after"))
    print(before_after_table(before, after))

Heavy dependencies (torch, transformers, peft, vllm) load only when a model backend is built.
"""
from __future__ import annotations

from rlvr.eval.compare import compare_files, compare_results
from rlvr.eval.config import BACKENDS, EvalConfig, EvalConfigError
from rlvr.eval.report import before_after_table, render_report, split_summary, summarize
from rlvr.eval.runner import EvalResult, load_eval_set, load_results, run_eval
from rlvr.eval.suites import SUITE_VERSION, Suite, SuiteEntry, builtin_suites, export_eval_set, get_suite

__all__ = [
    "BACKENDS", "EvalConfig", "EvalConfigError", "EvalResult", "SUITE_VERSION", "Suite", "SuiteEntry",
    "before_after_table", "builtin_suites", "compare_files", "compare_results", "export_eval_set", "get_suite",
    "load_eval_set", "load_results", "render_report", "run_eval", "split_summary", "summarize",
]
