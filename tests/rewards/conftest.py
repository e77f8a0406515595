"""The test-only ``test.hang`` family (``hang_family.py``), registered in this process by a fixture."""
from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

from rlvr.registry import unregister_family

HANG_PLUGIN = Path(__file__).with_name("hang_family.py")


@contextmanager
def _hang_family() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("rlvr_test_hang_family", HANG_PLUGIN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # registers test.hang
    try:
        yield module
    finally:
        unregister_family(module.NAME)


@pytest.fixture(scope="module")
def hang() -> Iterator[ModuleType]:
    """``test.hang`` registered for the whole test module."""
    with _hang_family() as module:
        yield module


@pytest.fixture
def hang_in_process() -> Iterator[ModuleType]:
    """``test.hang`` registered in this process for one test."""
    with _hang_family() as module:
        yield module
