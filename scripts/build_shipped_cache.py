"""Build the cache files that ship with rlvr (``rlvr/data/cache``), so a first use on a new machine is fast.

Every family's first task needs a reaction corpus (minutes to build from the RDKit wheel's molecule
files and the reaction templates), a molecule pool split by clusters (a minute), value frequencies
and per-split reaction pools (seconds each). Their file names carry a hash of every input, so a
shipped file is used only where a fresh build would write the same bytes (same RDKit version,
templates, molecule files, solvers); elsewhere they are built on first use as before.

Run after changing the corpus or pool builders, the templates, the molecule solvers or the RDKit
pin (tests/test_paths.py fails when the shipped files no longer match):

    python scripts/build_shipped_cache.py
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

#: cache entries that are build inputs or per-user data, never shipped
SKIP = ("logs", "models", "test-models", os.path.join("stoich", "user"))


def _warm() -> None:
    """Generate one task of every family, split and encoding: every default cache file gets built."""
    import rlvr
    from rlvr.generators.stoich.corpus import get_corpus
    from rlvr.registry import get_family, list_families

    get_corpus("embedded")
    get_corpus("classic")
    for name in list_families():
        spec = get_family(name)
        variants = [{"encoding": "formula"}, {"encoding": "smiles"}] if "encoding" in spec.options else [{}]
        for split in spec.splits:
            for options in variants:
                t0 = time.perf_counter()
                rlvr.generate(name, split=split, seed=0, index=0, **options)
                print(f"{name:18s} {split:12s} {options}  {time.perf_counter() - t0:6.1f} s", flush=True)


def _shippable(rel: Path) -> bool:
    text = str(rel)
    if any(text == s or text.startswith(s + os.sep) for s in SKIP):
        return False
    return not (rel.parts[0] == "stoich" and rel.name.startswith("pool-"))  # the corpus builder's molecule list


def main() -> int:
    repo = Path(__file__).resolve().parents[1]
    target = repo / "rlvr" / "data" / "cache"
    with tempfile.TemporaryDirectory(prefix="rlvr-cache-") as tmp:
        os.environ["RLVR_CACHE"] = tmp
        if target.exists():
            shutil.rmtree(target)  # rebuild from the inputs, not from the previous shipped files
        _warm()
        files = sorted(p for p in Path(tmp).rglob("*") if p.is_file() and _shippable(p.relative_to(tmp)))
        for path in files:
            dest = target / path.relative_to(tmp)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
    total = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    print(f"{len(files)} files, {total / 1e6:.2f} MB in {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
