#!/usr/bin/env python3
"""Train with TRL GRPO/RLOO on rlvr tasks: ``[accelerate launch ...] scripts/train.py --config RECIPE.yaml``.

A thin wrapper around :func:`rlvr.train.entry.main` (the same as ``rlvr train``).
"""
import sys

from rlvr.train.entry import main

if __name__ == "__main__":
    sys.exit(main(prog="scripts/train.py"))
