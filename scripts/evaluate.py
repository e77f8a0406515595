#!/usr/bin/env python3
"""Evaluate a model on the rlvr eval suites: the same as ``rlvr eval ARGS``.

    python scripts/evaluate.py --model default --suite stoich --limit 8 --out runs/eval
    python scripts/evaluate.py compare runs/before/results.json runs/after/results.json
"""
import sys

from rlvr.cli import main

if __name__ == "__main__":
    sys.exit(main(["eval", *sys.argv[1:]]))
