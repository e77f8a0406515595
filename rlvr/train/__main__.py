"""``python -m rlvr.train --config RECIPE.yaml`` (also under ``accelerate launch -m rlvr.train``)."""
import sys

from rlvr.train.entry import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m rlvr.train"))
