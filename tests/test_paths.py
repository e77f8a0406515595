"""The cache and the cache files shipped with the package: a first use on an empty cache builds nothing."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from rlvr.paths import SHIPPED_CACHE, cache_file


def test_cache_file_seeds_from_the_shipped_copy_and_never_overwrites(tmp_path, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path))
    shipped = next(p for p in sorted(SHIPPED_CACHE.rglob("*")) if p.is_file())
    parts = shipped.relative_to(SHIPPED_CACHE).parts
    path = cache_file(*parts)
    assert path == tmp_path.joinpath(*parts) and path.read_bytes() == shipped.read_bytes()
    path.write_bytes(b"rebuilt locally")
    assert cache_file(*parts).read_bytes() == b"rebuilt locally"
    assert not cache_file("stoich", "not-shipped.json").exists()
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_first_use_on_an_empty_cache_builds_nothing(tmp_path):
    """Every family's first tasks come from the shipped files (rebuild them with scripts/build_shipped_cache.py)."""
    code = (
        "import rlvr\n"
        "for family in rlvr.list_families():\n"
        "    list(rlvr.sample(family, n=2))\n"
    )
    env = {**os.environ, "RLVR_CACHE": str(tmp_path)}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "building" not in proc.stderr, (
        "a shipped cache file no longer matches its inputs; run python scripts/build_shipped_cache.py\n" + proc.stderr)
    assert seconds < 60, seconds
