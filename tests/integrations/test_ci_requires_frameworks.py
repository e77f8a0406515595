"""``RLVR_REQUIRE_INTEGRATIONS=1`` (``.ci/run``) turns a skipped integration into a failure (tests/conftest.py).

A folder on ``PYTHONPATH`` holds a ``verl`` package whose import fails, as on a machine without verl;
pytest collects the real verl test module with and without the variable.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

VERL_TEST = Path(__file__).resolve().parent / "test_verl.py"


@pytest.fixture(scope="module")
def without_verl(tmp_path_factory) -> Path:
    """A PYTHONPATH entry under which ``import verl`` fails."""
    folder = tmp_path_factory.mktemp("no_verl")
    (folder / "verl").mkdir()
    (folder / "verl" / "__init__.py").write_text('raise ModuleNotFoundError("verl is hidden for this check")\n')
    return folder


def _collect(without_verl: Path, require: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "RLVR_REQUIRE_INTEGRATIONS"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(without_verl), env.get("PYTHONPATH", "")]))
    if require is not None:
        env["RLVR_REQUIRE_INTEGRATIONS"] = require
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "--co", "-p", "no:cacheprovider", str(VERL_TEST)],
                          cwd=VERL_TEST.parents[2], env=env, capture_output=True, text=True, timeout=120)


def test_a_missing_framework_skips_locally_with_its_reason(without_verl):
    proc = _collect(without_verl, None)
    assert proc.returncode in (0, 5), proc.stdout[-2000:]  # 5: nothing collected
    assert "SKIPPED" in proc.stdout and "verl is not installed" in proc.stdout


@pytest.mark.parametrize("value", ["0", ""])
def test_zero_or_empty_keeps_the_skip(without_verl, value):
    assert "SKIPPED" in _collect(without_verl, value).stdout


def test_a_missing_framework_fails_when_integrations_are_required(without_verl):
    proc = _collect(without_verl, "1")
    assert proc.returncode != 0
    assert "RLVR_REQUIRE_INTEGRATIONS is set, so this skip is a failure" in proc.stdout
    assert "SKIPPED" not in proc.stdout
