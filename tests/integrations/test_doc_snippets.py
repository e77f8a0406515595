"""The Python snippets docs/integrations.md marks ``# runnable`` run as written, and print what their comments say.

Each runs in a fresh interpreter in an empty folder. A ``print(value)  # literal`` line becomes
``assert value == literal``; other comments are prose. A snippet whose framework is not installed skips
(and so fails under ``RLVR_REQUIRE_INTEGRATIONS=1``).
"""
from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


def runnable_snippets() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    return [b for b in blocks if b.startswith("# runnable")]


def with_print_checks(code: str) -> tuple[str, int]:
    """The snippet with each ``print(x)  # literal`` line made ``assert (x) == literal``, and how many there are."""
    out, checks = [], 0
    for line in code.splitlines():
        statement, marker, comment = line.partition("  # ")
        try:
            call = ast.parse(statement.strip(), mode="eval").body
            expected = ast.literal_eval(comment.strip())
        except (SyntaxError, ValueError):
            call = None
        if marker and isinstance(call, ast.Call) and getattr(call.func, "id", "") == "print" and len(call.args) == 1:
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}assert ({ast.unparse(call.args[0])}) == {expected!r}, {statement.strip()!r}")
            checks += 1
        else:
            out.append(line)
    return "\n".join(out), checks


def _imports(code: str) -> set[str]:
    tree = ast.parse(code)
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    return {name.split(".")[0] for name in names}


SNIPPETS = runnable_snippets()


def test_the_page_has_runnable_snippets_for_the_frameworks():
    joined = "\n".join(SNIPPETS)
    assert len(SNIPPETS) >= 6 and "reasoning_gym" in joined and "skyrl_gym" in joined
    reasoning = next(s for s in SNIPPETS if "reasoning_gym.create_dataset" in s)
    assert len([line for line in reasoning.splitlines() if line.strip() and not line.startswith("#")]) < 10
    code, checks = with_print_checks("print(1 + 1)  # 2\nprint('x')  # prose, not a literal\nx = 3  # 3\n"
                                     "for i in [1]:\n    print(i)  # 1")
    assert checks == 2 and code.splitlines()[0] == "assert (1 + 1) == 2, 'print(1 + 1)'"
    assert code.splitlines()[-1] == "    assert (i) == 1, 'print(i)'"


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_runnable_snippet_runs_as_written(snippet, tmp_path):
    for name in sorted(_imports(snippet)):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed (bash scripts/install.sh --dev installs it)")
    code, _ = with_print_checks(snippet)
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
