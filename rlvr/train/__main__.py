"""``python -m rlvr.train --config RECIPE.yaml`` (also under ``accelerate launch -m rlvr.train``)."""
import sys

from rlvr.errors import run_reporting
from rlvr.train.entry import main

if __name__ == "__main__":
    prog = "python -m rlvr.train"
    sys.exit(run_reporting(prog, lambda: main(prog=prog)))
