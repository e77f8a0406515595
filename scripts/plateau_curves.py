"""The warm start's plateau over several seeds: each seed's tuning-set curve, their mean, and the step counts.

    python scripts/plateau_curves.py outputs/plateau-seed0 outputs/plateau-seed1 outputs/plateau-seed2

Each folder is a ``scripts/tune_arms.py --arm warm_start`` output whose recipe has ``plateau`` (``tuning.json``
holds the curve: exact match on the tuning set every ``every`` SFT steps). Prints a table of the curves and their
mean at the steps every seed scored, then per seed and for the mean: the *plateau step* (the next scored step gains
at most ``min_gain``) and the *settled step* (no later scored step gains more than ``min_gain``;
:mod:`rlvr.quickstart.plateau`).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlvr.quickstart.plateau import mean_plateau  # noqa: E402


def curve_of(folder: Path) -> tuple[list[tuple[int, float]], float, str]:
    """The first plateau curve in a tune_arms output folder, its min_gain and its set; SystemExit(2) with one line
    when the folder holds none."""
    path = folder / "tuning.json"
    rows = json.loads(path.read_text()) if path.is_file() else []
    found = next((r["plateau"] for r in rows if "plateau" in r), None)
    if found is None:
        raise SystemExit(f"error: {path} holds no plateau curve (run scripts/tune_arms.py --arm warm_start with plateau)")
    return [(int(s), float(em)) for s, em in found["curve"]], float(found["min_gain"]), str(found["set"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="tune_arms.py --arm warm_start output folders, one per seed")
    args = parser.parse_args(argv)
    loaded = [curve_of(folder) for folder in args.runs]
    curves = [c for c, _, _ in loaded]
    min_gain, where = loaded[0][1], loaded[0][2]
    found = mean_plateau(curves, min_gain)
    steps = sorted({s for c in curves for s, _ in c})
    print("| SFT steps | " + " | ".join(f.name for f in args.runs) + f" | mean | ({where} exact match %)")
    print("|---" * (len(args.runs) + 2) + "|")
    mean = dict(found["mean_curve"])
    for step in steps:
        cells = [f"{100 * dict(c)[step]:.0f}" if step in dict(c) else "–" for c in curves]
        print(f"| {step} | " + " | ".join(cells) + f" | {100 * mean[step]:.1f} |" if step in mean else
              f"| {step} | " + " | ".join(cells) + " | – |")
    print()
    for folder, p, settled in zip(args.runs, found["per_seed"], found["per_seed_settled"]):
        print(f"{folder.name}: plateau step {p}, settled step {settled}")
    print(f"mean of {len(curves)}: plateau step {found['plateau_step']} (the next {where} point gains at most "
          f"{100 * min_gain:g} points), settled step {found['settled_step']} (no later point gains more)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
