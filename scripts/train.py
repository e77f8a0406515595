#!/usr/bin/env python3
"""Train with TRL GRPO/RLOO on rlvr tasks: ``[accelerate launch ...] scripts/train.py --config RECIPE.yaml``.

A thin wrapper around :func:`rlvr.train.entry.main` (the same as ``rlvr train``).
"""
import sys

from rlvr.errors import run_reporting
from rlvr.train.entry import main

if __name__ == "__main__":
    sys.exit(run_reporting("scripts/train.py", lambda: main(prog="scripts/train.py")))
