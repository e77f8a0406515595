"""``rlvr features``: list the MolecularIQ features, or compute them for a molecule."""
from __future__ import annotations

import argparse
import json
import sys

from rlvr.commands.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "features",
        help="list molecular features (keys, definitions) or compute them for a SMILES",
        description=(
            "Without --smiles: a table of every feature (category, count key, index key, definition). "
            "With --smiles: every feature value of that molecule; index values are atom positions in "
            "the SMILES as given (heavy atoms, 0-based, left to right)."
        ),
    )
    p.add_argument("--smiles", help="compute the features of this molecule")
    p.add_argument("--category", help="only this category (graph_topology, composition, functional_groups, ...)")
    p.add_argument("--key", action="append", metavar="KEY", help="only these keys (repeatable; with --smiles)")
    p.add_argument("--nonzero", action="store_true", help="with --smiles: hide zero counts and empty lists")
    p.add_argument("--convention", default="rlvr", choices=["rlvr", "moleculariq"],
                   help="with --smiles: the meaning of the keys (moleculariq: the benchmark's, see docs/features.md)")
    p.add_argument("--json", action="store_true", help="machine-readable JSON output")
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


def run(args: argparse.Namespace) -> int:
    _check_category(args.category)
    if args.smiles is None:
        if args.key:
            raise UsageError("--key needs --smiles (rlvr features --smiles SMILES --key KEY)")
        return _listing(args)
    return _values(args)
