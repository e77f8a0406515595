"""``scripts/bench_draw.py`` times both draws, alone and in sampled generation with the embedded model, and refuses
a row count it cannot split into groups of 8."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_draw.py"), *argv], capture_output=True,
                          text=True, timeout=600)


def test_a_tiny_run_prints_the_draw_alone_and_one_generation_line():
    done = _run("--rows", "8", "--new-tokens", "2", "--repeats", "1", "--dtypes", "float32")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith(("draw alone", "generation"))]
    assert len(lines) == 2 and "8 rows x 49152 tokens" in lines[0] and "block_race" in lines[0]
    assert lines[1].startswith("generation, float32, 8 completions x 2 tokens: multinomial ")


def test_a_row_count_that_is_not_a_multiple_of_8_is_one_line():
    done = _run("--rows", "12")
    assert done.returncode == 2 and "--rows must be a multiple of 8" in done.stderr.splitlines()[-1]
