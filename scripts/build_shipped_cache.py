"""Build the cache files that ship with rlvr (``rlvr/data/cache``), so a first use on a new machine is fast.

Every family's first task needs a reaction corpus (minutes to build from the RDKit wheel's molecule
files and the reaction templates), a molecule pool split by clusters (a minute), value frequencies
and per-split reaction pools (seconds each); the molecular families read the embedded pool's
feature table (``rlvr/chem/molecules/tables.py``, a few minutes on every core) instead of computing
every feature of each molecule they draw. Their file names carry a hash of every input, so a
shipped file is used only where a fresh build would write the same bytes (same RDKit version,
templates, molecule files, solvers); elsewhere they are built on first use as before.

Run after changing the corpus or pool builders, the templates, the molecule solvers or the RDKit
pin (tests/test_paths.py fails when the shipped files no longer match):

    python scripts/build_shipped_cache.py
    python scripts/build_shipped_cache.py --only molecules   # after a solver change: molecule files only
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

#: cache entries that are build inputs or per-user data, never shipped
SKIP = ("logs", "models", "test-models", os.path.join("stoich", "user"))


def _warm(only: str | None) -> None:
    """Generate one task of every family, split and encoding: every default cache file gets built."""
    import rlvr
    from rlvr.chem.molecules import tables
    from rlvr.generators.molecules.splits import load_split_pool
    from rlvr.generators.stoich.corpus import get_corpus
    from rlvr.registry import get_family, list_families

    if only in (None, "molecules"):
        t0 = time.perf_counter()
        path = tables.build_table(load_split_pool().smiles)
        print(f"feature table {path.name}  {time.perf_counter() - t0:6.1f} s", flush=True)
    if only in (None, "stoich"):
        get_corpus("embedded")
        get_corpus("classic")
    for name in list_families():
        if only is not None and not name.startswith("mol." if only == "molecules" else "stoich."):
            continue
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
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["molecules", "stoich"],
                        help="rebuild only this part of the shipped cache (the rest is left as it is)")
    args = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]
    root = repo / "rlvr" / "data" / "cache"
    target = root / args.only if args.only else root
    with tempfile.TemporaryDirectory(prefix="rlvr-cache-") as tmp:
        os.environ["RLVR_CACHE"] = tmp
        if target.exists():
            shutil.rmtree(target)  # rebuild from the inputs, not from the previous shipped files
        _warm(args.only)
        files = sorted(p for p in Path(tmp).rglob("*") if p.is_file() and _shippable(p.relative_to(tmp))
                       and (args.only is None or p.relative_to(tmp).parts[0] == args.only))
        for path in files:
            dest = root / path.relative_to(tmp)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
    total = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    print(f"{len(files)} files, {total / 1e6:.2f} MB in {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
