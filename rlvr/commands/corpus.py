"""``rlvr corpus``: build, inspect and import reaction corpora for the stoichiometry tasks.

- ``rlvr corpus build [--small] [--rebuild]``: build (or load from cache) the embedded template corpus and
  the classic-equations corpus, printing counts and build time.
- ``rlvr corpus stats [--corpus SPEC] [--json]``: totals, per-class counts, per-split counts, build time.
- ``rlvr corpus import FILE [--tgt TGT] [--out BALANCED.txt]``: load a user file (reaction SMILES, or a
  ChemAlgebra src/tgt pair), rebalance it and print ChemAlgebra Table-1 style statistics; the result is
  cached so ``--option corpus=FILE`` in ``rlvr sample`` reuses it.

``--plugin MODULE_OR_FILE`` goes before or after the action.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rlvr.commands.common import add_out_args, open_out, out_path
from rlvr.commands.errors import UsageError
from rlvr.commands.plugins import add_plugin_arg


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("corpus", help="build, inspect and import stoichiometry reaction corpora", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    # before the action too: the entry point imports every --plugin of the command line before parsing
    # (rlvr.cli.main), so which parser holds the value does not matter
    add_plugin_arg(p)
    csub = p.add_subparsers(dest="corpus_command", metavar="ACTION")
    csub.required = True

    b = csub.add_parser("build", help="build (or load cached) embedded and classic corpora")
    b.add_argument("--small", action="store_true", help="the reduced corpus used by tests")
    b.add_argument("--rebuild", action="store_true", help="ignore the cache and rebuild")
    b.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_plugin_arg(b)
    b.set_defaults(func=run_build)

    s = csub.add_parser("stats", help="print corpus statistics")
    s.add_argument("--corpus", default="embedded", help="embedded | embedded-small | classic | classic-fresh | mixed | FILE")
    s.add_argument("--split-mode", default="hash", help="split mode for the per-split counts (hash, class, mw, ...)")
    s.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_plugin_arg(s)
    s.set_defaults(func=run_stats)

    i = csub.add_parser("import", help="load and rebalance a user reaction file, printing Table-1 statistics")
    i.add_argument("file", help="reaction SMILES file (reactants>reagents>products [columns...]) or a src file")
    i.add_argument("--tgt", help="target file of a ChemAlgebra src/tgt pair (default: the src file's tgt twin)")
    add_out_args(i, "FILE.balanced.txt", what="write the balanced reactions ({k}A.{k}B>{1}R>{k}C per line) to this file")
    i.add_argument("--no-solve", action="store_true", help="do not solve coefficients when whitelist rebalancing fails")
    i.add_argument("--roles", default="auto", choices=["auto", "rxnmapper", "heuristic", "given"],
                   help="sort the reactant field of reaction SMILES before rebalancing: species contributing no atom "
                        "to a product become reagents (auto: rxnmapper when installed, else an MCS heuristic; "
                        "given: keep the fields as written)")
    i.add_argument("--json", action="store_true", help="print the statistics as JSON")
    add_plugin_arg(i)
    i.set_defaults(func=run_import)


def _print_summary(summary: dict, splits: dict | None = None) -> None:
    print(f"corpus {summary['name']}  (content {summary['content_hash'][:16]})")
    print(f"  reactions {summary['reactions']}  species {summary['species']}  classes {summary['classes']}")
    print(f"  distinct reaction keys: SMILES {summary['distinct_smiles_keys']}, formula {summary['distinct_formula_keys']}")
    print(f"  usable: formula encoding {summary['valid_formula']}, SMILES encoding {summary['valid_smiles']}")
    print(f"  with byproducts {summary['with_byproducts']}, with reagents {summary['with_reagents']}, "
          f"non-unit coefficients {summary['non_unit_coefficients']}, stereo products {summary['stereo_products']}")
    mw = summary["product_mw"]
    print(f"  product MW min/median/max: {mw['min']} / {mw['median']} / {mw['max']}")
    build = summary.get("build") or {}
    if "build_seconds" in build:
        cpu = f", {build['build_cpu_seconds']} s CPU" if "build_cpu_seconds" in build else ""
        pool = f" (pool {build['pool_molecules']} molecules)" if "pool_molecules" in build else ""
        print(f"  build time: {build['build_seconds']} s wall{cpu}{pool}")
    for name, part in (build.get("parts") or {}).items():
        print(f"  part {name}: {part['reactions']} reactions")
    if "table" in build:
        print(build["table"])
    print(f"  per source: {summary['per_source']}")
    if splits:
        print(f"  per split: {splits}")
    print("  per class:")
    width = max((len(k) for k in summary["per_class"]), default=10)
    for cls, n in summary["per_class"].items():
        print(f"    {cls:{width}s} {n:6d}")


def run_build(args: argparse.Namespace) -> int:
    from rlvr.generators.stoich.corpus import load_classic, load_embedded

    t0 = time.perf_counter()
    embedded = load_embedded(small=args.small, rebuild=args.rebuild)
    t1 = time.perf_counter()
    classic = load_classic(rebuild=args.rebuild)
    t2 = time.perf_counter()
    out = {
        "embedded": embedded.summary(),
        "classic": classic.summary(),
        "seconds": {"embedded": round(t1 - t0, 2), "classic": round(t2 - t1, 2)},
    }
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    _print_summary(out["embedded"])
    print(f"  (this command took {out['seconds']['embedded']} s for it; cached builds load in well under a second)")
    _print_summary(out["classic"])
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from rlvr.generators.stoich.corpus import get_corpus
    from rlvr.generators.stoich.splits import SplitSpec, split_counts

    corpus = get_corpus(args.corpus)
    summary = corpus.summary()
    splits = split_counts(corpus, SplitSpec(mode=args.split_mode))
    if args.json:
        json.dump({**summary, "per_split": splits}, sys.stdout, indent=2)
        print()
        return 0
    _print_summary(summary, splits)
    return 0


def _nothing_loaded(file: str, stats: dict) -> UsageError:
    bad = ", ".join(f"{k} {v}" for k, v in (stats.get("bad_lines") or {}).items())
    dropped = ", ".join(f"{k} {v}" for k, v in (stats.get("dropped") or {}).items())
    seen = f"lines read: {stats.get('total', 0)}" + (f"; bad lines: {bad}" if bad else "") + (
        f"; dropped: {dropped}" if dropped else "")
    return UsageError(f"{file}: no balanced reaction could be made ({seen}); expected one reaction SMILES "
                      "'reactants>reagents>products' per line, or a ChemAlgebra src file with --tgt")


def run_import(args: argparse.Namespace) -> int:
    from rlvr.chem.roles import RolesUnavailable
    from rlvr.generators.stoich.loaders import load_reactions, load_user_corpus, write_reactions

    if not Path(args.file).is_file():
        raise UsageError(f"{args.file} is not a file" if Path(args.file).exists() else f"{args.file} does not exist")
    path = out_path(args.out, f"{Path(args.file).stem}.balanced.txt", args.overwrite)
    spec = f"{args.file}::{args.tgt}" if args.tgt else args.file
    solve = not args.no_solve
    t0 = time.perf_counter()
    try:
        corpus = load_user_corpus(spec, solve_coefficients=solve, roles=args.roles)  # cached, reused by `corpus=FILE`
    except RolesUnavailable as exc:
        raise UsageError(f"--roles rxnmapper: {exc} (pip install --no-deps rxnmapper rxn-chem-utils rxn-utils)") from exc
    seconds = time.perf_counter() - t0
    stats = corpus.stats.get("load", {})
    if len(corpus) == 0:
        raise _nothing_loaded(args.file, stats)
    if path is not None:
        kept, _ = load_reactions(spec, solve_coefficients=solve, roles=args.roles)
        with open_out(path) as fh:
            write_reactions(kept, fh)
    if args.json:
        json.dump({"load": stats, "reactions": len(corpus), "seconds": round(seconds, 2)}, sys.stdout, indent=2)
        print()
        return 0
    print(corpus.stats.get("table", ""))
    print(f"{len(corpus)} distinct balanced reactions in {seconds:.2f} s; use it with: "
          f"rlvr sample --family stoich.t2 -o corpus={spec}")
    if path is not None:
        print(f"wrote the balanced reactions to {path}", file=sys.stderr)
    return 0
