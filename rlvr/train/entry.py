"""The training entry point shared by ``rlvr train``, ``python -m rlvr.train`` and ``scripts/train.py``.

All three run unchanged under ``accelerate launch`` or ``torchrun`` (one process per rank).
"""
from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from rlvr.registry import get_family
from rlvr.train.config import TaskArguments
from rlvr.train.data import eval_set_specs
from rlvr.train.recipe import parse_recipe, sets_sft_keys
from rlvr.train.runner import train

USAGE = """usage: rlvr train --config RECIPE.yaml [--KEY VALUE ...]

Train with TRL GRPO or RLOO on rlvr task families. A recipe is a YAML file of TaskArguments
(rlvr: algorithm, families, task_options, eval_splits, reward_funcs, curriculum, console, ...),
GRPOConfig or RLOOConfig (TRL/transformers training options) and ModelConfig (model_name_or_path,
use_peft, lora_*) fields; any field can be overridden on the command line. The console shows a
progress bar and one line every few steps (--console full: TRL's whole metrics dict every step);
every metric goes to OUTPUT_DIR/metrics.jsonl (and TensorBoard with report_to: tensorboard).
RECIPE may also be a recipe name (e.g. quickstart, grpo/stoich_t1_formula) looked up in ./recipes.
--plugin MODULE_OR_FILE (repeatable) imports a module that registers task families first, so a
recipe can train on them (docs/writing-a-family.md).

Multi-process: accelerate launch --config_file recipes/accelerate/ddp.yaml -m rlvr.train --config ...
Full option list: rlvr train --config RECIPE.yaml --help
"""


def find_recipe(name: str) -> str:
    """A recipe path: ``name`` itself if it exists, else ``recipes/<name>[.yaml]`` (cwd, then repo root),
    else ``name`` relative to the repository (``recipes/grpo/...yaml`` from any folder)."""
    if os.path.isfile(name):
        return name
    repo = Path(__file__).resolve().parents[2]
    roots = [Path.cwd() / "recipes", repo / "recipes"]
    for root in roots:
        for candidate in (root / name, root / f"{name}.yaml"):
            if candidate.is_file():
                return str(candidate)
    if (repo / name).is_file():
        return str(repo / name)
    raise FileNotFoundError(f"recipe {name!r} not found (looked in {[str(r) for r in roots]})")


def _setup_logging() -> None:
    rank = int(os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0")) or 0)
    logging.basicConfig(
        level=logging.INFO if rank == 0 else logging.WARNING,
        format=f"%(asctime)s [rank{rank}] %(name)s: %(message)s",
        datefmt="%H:%M:%S",
    )


def prepare_argv(argv: Sequence[str] | None, usage: str) -> list[str] | None:
    """Common start of the recipe entry points: print ``usage`` for no/help args (returns None),
    resolve ``--config NAME`` to a recipe path, and set up per-rank logging."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args in (["-h"], ["--help"]):
        print(usage)
        return None
    if "--config" in args:
        i = args.index("--config")
        if i + 1 >= len(args):
            raise ValueError("--config needs a recipe path or name")
        args[i + 1] = find_recipe(args[i + 1])
    _setup_logging()
    return args


def check_families(task_args: TaskArguments) -> None:
    """Every family the recipe trains or evaluates on is registered (``KeyError`` naming it otherwise);
    called before any model is converted or loaded, so a misspelt family fails in seconds."""
    for mix in [task_args.mix(), *(spec["mix"] for spec in eval_set_specs(task_args).values())]:
        for component in mix:
            get_family(component.family)


def run_callbacks(task_args: TaskArguments, training_args: Any) -> list[Any]:
    """The console and metrics-log callbacks of the recipe's ``console`` mode (see :func:`rlvr.train.progress.console_callbacks`)."""
    from rlvr.train.progress import console_callbacks  # imports transformers

    return console_callbacks(task_args.console, training_args.output_dir, int(training_args.max_steps),
                             float(training_args.logging_steps))


def main(argv: Sequence[str] | None = None, prog: str = "rlvr train") -> int:
    """Parse a recipe (+ overrides), train, print a one-line JSON summary on the main process."""
    args = prepare_argv(argv, USAGE)
    if args is None:
        return 0
    if sets_sft_keys(args):
        raise ValueError("this recipe has a supervised warm start (sft_* keys): run it with `rlvr sft`, which runs the "
                         "warm start and then the RL")
    recipe = parse_recipe(args, prog=prog)
    task_args, training_args, model_args = recipe.task, recipe.training, recipe.model
    check_families(task_args)
    result = train(task_args, training_args, model_args, callbacks=run_callbacks(task_args, training_args),
                   adapter=recipe.adapter)
    if int(os.environ.get("RANK", "0") or 0) == 0:
        summary = {k: result.to_dict()[k] for k in ("output_dir", "algorithm", "global_step", "world_size", "seconds", "seconds_per_step")}
        summary["train_reward"] = result.last_train_log.get("reward")
        print(json.dumps(summary))
    if result.world_size > 1:
        # everything is saved; skip interpreter teardown, where freeing the gloo process group can
        # deadlock a rank (GIL held in its destructor while a gloo worker thread waits for the GIL)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
    return 0
