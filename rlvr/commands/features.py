"""``rlvr features``: list the MolecularIQ features, compute them for a molecule, or build a pool's
precomputed feature table (``rlvr features build-table``)."""
from __future__ import annotations

import argparse
import json
import sys

from rlvr.commands.common import add_out_args, positive_int
from rlvr.commands.errors import UsageError
from rlvr.commands.plugins import add_plugin_arg


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "features",
        help="list molecular features (keys, definitions) or compute them for a SMILES",
        description=(
            "Without --smiles: a table of every feature (category, count key, index key, definition). "
            "With --smiles: every feature value of that molecule; index values are atom positions in "
            "the SMILES as given (heavy atoms, 0-based, left to right). "
            "build-table: compute every feature of every molecule of a pool once, in parallel, into a "
            "parquet table that task generation reads instead of computing (docs/scale.md)."
        ),
    )
    p.add_argument("action", nargs="?", choices=["build-table"],
                   help="build-table: precompute the feature table of --pool (default: into the cache)")
    p.add_argument("--smiles", help="compute the features of this molecule")
    p.add_argument("--category", help="only this category (graph_topology, composition, functional_groups, ...)")
    p.add_argument("--key", action="append", metavar="KEY", help="only these keys (repeatable; with --smiles)")
    p.add_argument("--nonzero", action="store_true", help="with --smiles: hide zero counts and empty lists")
    p.add_argument("--convention", default="rlvr", choices=["rlvr", "moleculariq"],
                   help="with --smiles: the meaning of the keys (moleculariq: the benchmark's, see docs/features.md)")
    p.add_argument("--json", action="store_true", help="machine-readable JSON output")
    g = p.add_argument_group("build-table")
    g.add_argument("--pool", help="pool file (SMILES/CSV/TSV/parquet/JSON(L)) or 'default' (the embedded pool)")
    g.add_argument("--pool-column", help="the pool file's SMILES column (default: a recognised header)")
    g.add_argument("--num-proc", type=positive_int, help="worker processes (default: every core)")
    g.add_argument("--shards", metavar="PATH",
                   help="assemble the table from row shards computed elsewhere (a parquet file or folder "
                        "written with rlvr.chem.molecules.tables.feature_rows) instead of computing")
    add_out_args(g, "table-<key>.parquet",
                 what="where to write the table (default: the cache, where task generation reads it)")
    add_plugin_arg(p)
    p.set_defaults(func=run)


def _listing(args: argparse.Namespace) -> int:
    from rlvr.chem.molecules.features import FEATURES

    specs = [s for s in FEATURES.values() if not args.category or s.category == args.category]
    if args.json:
        rows = [
            {"name": s.name, "category": s.category, "count_key": s.count_key, "index_key": s.index_key,
             "value_type": s.value_type, "count_unit": s.count_unit, "definition": s.definition}
            for s in specs
        ]
        json.dump(rows, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    headers = ("category", "count key", "index key", "definition")
    rows = [(s.category, s.count_key or "-", s.index_key or "-", s.definition) for s in specs]
    widths = [min(44, max([len(h)] + [len(r[i]) for r in rows])) for i, h in enumerate(headers[:3])]
    line = "  ".join(h.ljust(w) for h, w in zip(headers[:3], widths)) + "  " + headers[3]
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3])
    print(f"\n{len(specs)} features, {sum(bool(s.count_key) + bool(s.index_key) for s in specs)} keys")
    return 0


def _values(args: argparse.Namespace) -> int:
    from rlvr.chem.molecules.features import molecule_features_with_status, spec_for_key

    report = molecule_features_with_status(args.smiles, args.key, convention=args.convention)
    values = report.values
    if args.category:
        def category(key: str) -> str:
            try:
                return spec_for_key(key).category
            except KeyError:  # a key only the moleculariq convention has: one of its functional groups
                return "functional_groups"
        values = {k: v for k, v in values.items() if category(k) == args.category}
    if args.nonzero:
        values = {k: v for k, v in values.items() if v not in (0, [], "")}
    if args.json:
        json.dump({"smiles": args.smiles, "values": values, "bounded": report.bounded}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    width = max((len(k) for k in values), default=0)
    for k, v in values.items():
        print(f"{k.ljust(width)}  {json.dumps(v)}")
    for name, reason in report.bounded.items():
        print(f"note: {name} hit its work bound ({reason}); the value is the best found", file=sys.stderr)
    return 0


def _check_category(category: str | None) -> None:
    from rlvr.chem.molecules.features import CATEGORIES

    if category and category not in CATEGORIES:
        raise UsageError(f"unknown category {category!r}; choose from {', '.join(CATEGORIES)}")


def _build_table(args: argparse.Namespace) -> int:
    import time

    from rlvr.chem.molecules import tables
    from rlvr.files import resolve_out
    from rlvr.generators.molecules.splits import load_split_pool

    if not args.pool:
        raise UsageError("build-table needs --pool FILE (or --pool default for the embedded pool)")
    if args.smiles or args.key:
        raise UsageError("build-table takes no --smiles or --key")
    pool = load_split_pool(None if args.pool == "default" else args.pool, column=args.pool_column)
    smiles = pool.smiles
    name = f"table-{tables.table_key(smiles)}.parquet"
    if args.out is not None:
        target = resolve_out(args.out, name, overwrite=args.overwrite)
    else:
        target = tables.cache_path(smiles)
        if target.exists() and not args.overwrite and tables.cached_table(smiles) is not None:
            print(f"up to date: {target} ({len(smiles)} molecules)")
            return 0
    t0 = time.perf_counter()
    if args.shards:
        path = tables.assemble_table(args.shards, smiles, target)
    else:
        path = tables.build_table(smiles, target, num_proc=args.num_proc)
    seconds = time.perf_counter() - t0
    column = tables.load_table(path).table.column("error")
    errors = len(column) - column.null_count
    print(f"{path}: {len(smiles)} molecules ({len(smiles) - errors} featurised) in {seconds:.1f} s, "
          f"{path.stat().st_size / 1e6:.2f} MB")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.action == "build-table":
        return _build_table(args)
    for flag in ("pool", "pool_column", "num_proc", "shards", "out"):
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} belongs to build-table (rlvr features build-table --pool FILE)")
    _check_category(args.category)
    if args.smiles is None:
        if args.key:
            raise UsageError("--key needs --smiles (rlvr features --smiles SMILES --key KEY)")
        return _listing(args)
    return _values(args)
