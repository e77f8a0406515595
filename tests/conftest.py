"""Under ``RLVR_REQUIRE_INTEGRATIONS=1`` (set by ``.ci/run``) a test skipped for a missing framework fails.

Locally a test whose framework is not installed skips, with its reason in pytest's ``-ra`` summary.
In CI the test install provides every framework, so such a skip means an integration did not run:
the skip is turned into a failure that names the reason. The rule covers every skip in
``tests/integrations/`` and, elsewhere, every skip whose reason names one of :data:`FRAMEWORKS`;
skips for optional extras CI does not install (rxnmapper, vLLM, a busy port) stay skips.
"""
from __future__ import annotations

import gc
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

#: the variable that makes a missing framework a failure
REQUIRE_VARIABLE = "RLVR_REQUIRE_INTEGRATIONS"
#: modules the test install provides; a skip naming one of them is a missing integration
FRAMEWORKS = ("verl", "openrlhf", "verifiers", "rlvr_chem_env", "tensordict", "trl", "transformers",
              "accelerate", "peft", "torch", "requests", "reasoning_gym", "skyrl_gym", "atroposlib", "nemo_gym")
_INTEGRATIONS = Path(__file__).resolve().parent / "integrations"
_NAMES = re.compile(r"(?<![\w-])(" + "|".join(FRAMEWORKS) + r")(?![\w-])")


def integrations_required() -> bool:
    """Whether this run treats a skipped integration as a failure."""
    return os.environ.get(REQUIRE_VARIABLE, "").strip() not in ("", "0")


def _skip_reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def is_missing_integration(path: str | os.PathLike[str], reason: str) -> bool:
    """Whether a skip of the test file at ``path`` with ``reason`` means a framework did not run."""
    resolved = Path(path).resolve()
    return resolved.is_relative_to(_INTEGRATIONS) or bool(_NAMES.search(reason))


def _fail_if_required(report: pytest.CollectReport | pytest.TestReport, path: str) -> None:
    if not (report.skipped and integrations_required()) or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    if is_missing_integration(path, reason):
        report.outcome = "failed"
        report.longrepr = f"{REQUIRE_VARIABLE} is set, so this skip is a failure: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """A test module skipped at import (``pytest.importorskip`` at the top)."""
    outcome = yield
    _fail_if_required(outcome.get_result(), str(collector.path))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A test skipped by a fixture or in its body."""
    outcome = yield
    _fail_if_required(outcome.get_result(), str(item.path))


class GraphCounter:
    """A ``torch.compile`` backend that runs each graph as traced and counts the graphs compiled."""

    def __init__(self) -> None:
        self.graphs = 0

    def __call__(self, graph, example_inputs):  # noqa: ANN001, ANN204
        self.graphs += 1
        return graph.forward

    def __deepcopy__(self, memo):  # noqa: ANN001, ANN204 - transformers deep-copies its compile config
        return self


_R = TypeVar("_R")


@pytest.fixture
def cpu_seconds() -> Callable[..., tuple[Any, float]]:
    """``measure(call, *args)`` returns ``(call(*args), seconds)``: the CPU seconds of this thread alone, with the cyclic
    garbage collector paused, so that neither other jobs and threads nor a full collection of the heap that earlier
    tests left behind is billed to the call being timed."""
    def measure(call: Callable[..., _R], *args: Any, **kwargs: Any) -> tuple[_R, float]:
        enabled = gc.isenabled()
        gc.disable()
        start = time.thread_time()
        try:
            result = call(*args, **kwargs)
        finally:
            seconds = time.thread_time() - start
            if enabled:
                gc.enable()
        return result, seconds
    return measure


@pytest.fixture
def graph_counter():
    """A fresh :class:`GraphCounter`, with torch's compilation caches cleared first (no graph of an earlier test
    is reused or counted)."""
    import torch

    torch._dynamo.reset()
    return GraphCounter()


@pytest.fixture(scope="session")
def tiny_gqa_model() -> str:
    """A tiny random causal LM with grouped key/value heads (4 query heads over 2), as SmolLM2 has (9 over 3); its
    output layer untied, so its greedy texts differ between prompts."""
    from rlvr.paths import cache_dir
    from rlvr.train.tiny import build_tiny_model

    return build_tiny_model(cache_dir("test-models") / "tiny-eval-gqa", num_heads=4, num_kv_heads=2,
                            tie_embeddings=False)
