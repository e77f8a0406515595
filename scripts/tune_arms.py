"""Choose a quickstart recipe's values on its tuning set: train one arm from a warm-started model, score it.

    python scripts/tune_arms.py --warm outputs/quickstart/warm_start/merged --arm control \
        --try control_learning_rate=3e-5 --try control_learning_rate=1e-4 --out outputs/tune-control
    python scripts/tune_arms.py --warm outputs/quickstart/warm_start/merged --arm rl \
        --try learning_rate=3e-5 --try learning_rate=1e-4,max_steps=36 --out outputs/tune-rl

Each ``--try`` is one candidate: recipe fields (``KEY=VALUE``, comma-separated) on top of the recipe
(``--recipe``, default ``quickstart``). Every candidate starts from the same warm-started model (the merged
folder an earlier ``rlvr quickstart`` wrote), trains the arm the quickstart would train (``rl``: the
recipe's GRPO/RLOO stage; ``control``: its control arm, as many steps as ``max_steps``; ``warm``: nothing, the
reference both arms start from); ``warm_start`` makes that model: the recipe's warm start from its base model,
trained with ``--seed`` into ``OUT/tryN/warm_start/merged`` (``--warm`` is not read). Each is scored greedily
on the tuning set only (``--tuning-set NAME[:SIZE]``: a recipe's tuning set such as ``train_tune``, or a
``valid*``/``train*`` split; default ``valid:100``; in the recipe's prompts and eval seed): no test split is
scored, so the choice never sees a split a claim is tested on. Prints one line per candidate (exact match,
reward, minutes) and writes ``tuning.json`` into ``--out``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlvr.commands.bench import lever_argv  # noqa: E402
from rlvr.commands.errors import UsageError  # noqa: E402
from rlvr.device import resolve_device  # noqa: E402
from rlvr.files import atomic_open  # noqa: E402
from rlvr.quickstart.claims import is_tuning_split  # noqa: E402
from rlvr.quickstart.evaluation import Evaluator  # noqa: E402
from rlvr.quickstart.plan import QuickstartOptions, make_plan  # noqa: E402
from rlvr.quickstart.training import rl_stage, train_control, trained_adapter, warm_start  # noqa: E402


def candidate_argv(spec: str) -> list[str]:
    """``a=1,b=2`` -> ``["--a", "1", "--b", "2"]`` (empty for the recipe as written); one line and exit 2 otherwise."""
    try:
        return lever_argv(spec, option="--try")
    except UsageError as exc:
        raise SystemExit(f"error: {exc}") from None


def score(args: argparse.Namespace, spec: str, index: int) -> dict:
    """Train one candidate from the warm-started model and score it on the tuning sets."""
    out = args.out / f"try{index}"
    name, _, size = args.tuning_set.partition(":")
    overrides = [*candidate_argv(spec), "--seed", str(args.seed), "--save_strategy", "no", "--report_to", "none"]
    options = QuickstartOptions(recipe=args.recipe, output_dir=str(out), overrides=overrides,
                                device=resolve_device(args.device))
    # a recipe's own tuning set by its name (e.g. the molecules recipe's train_tune), else a split by its name
    own = make_plan(options).specs.get(name, {})
    tuning = {name: {"split": own.get("split", name), "size": int(size or own.get("size", 100))}}
    options.overrides = [*overrides, "--eval_sets", json.dumps(tuning)]
    plan = make_plan(options)
    plan.specs = {n: s for n, s in plan.specs.items() if is_tuning_split(s["split"])}
    if not plan.specs:
        raise SystemExit(f"--tuning-set {args.tuning_set!r} is not a tuning split (valid* or train*)")
    if args.arm != "warm_start":
        plan.recipe.model.model_name_or_path = str(args.warm)
    out.mkdir(parents=True, exist_ok=True)
    evaluator = Evaluator.for_plan(plan)
    t0 = time.time()
    if args.arm == "warm_start":  # the warm start itself, from the base model; scored on the tuning set only
        stage, _ = warm_start(plan, evaluator)
        if stage is None:
            raise SystemExit(f"error: recipe {args.recipe!r} has no warm start (sft_steps: 0)")
    elif args.arm == "warm":  # the reference both arms start from, untrained
        stage = evaluator.stage("eval_warm", "the warm-started model", str(args.warm))
    elif args.arm == "control":
        result, _ = train_control(plan, int(plan.recipe.training.max_steps))
        stage = evaluator.stage("eval_control", "the control arm", str(args.warm), result.adapter_dir)
    else:
        rl_stage(plan, evaluator)
        stage = evaluator.stage("eval_after", "the RL arm", str(args.warm), trained_adapter(plan))
    train_minutes = round((time.time() - t0 - sum(evaluator.seconds.get(k, 0.0)
                                                  for k in ("eval_warm", "eval_control", "eval_after"))) / 60, 2)
    if args.arm == "warm_start":
        print(f"[tune] warm-started model: {plan.recipe.model.model_name_or_path}", flush=True)
    return {"try": spec or "(recipe)", "arm": args.arm, "seed": args.seed, "train_minutes": train_minutes,
            "scores": {name: {"n": s.n, "exact_match": s.exact_match, "reward": s.reward, "format_ok": s.format_ok}
                       for name, s in stage.scores.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=Path, help="the warm-started model (a quickstart's warm_start/merged); "
                                                   "not with --arm warm_start")
    parser.add_argument("--arm", choices=["rl", "control", "warm", "warm_start"], required=True,
                        help="rl or control: train that arm and score it; warm: score the warm-started model itself; "
                             "warm_start: train the recipe's warm start from its base model and score it")
    parser.add_argument("--try", dest="tries", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE]",
                        help="one candidate (repeatable); none: the recipe as written")
    parser.add_argument("--recipe", default="quickstart")
    parser.add_argument("--tuning-set", default="valid:100",
                        help="NAME[:SIZE] scored: one of the recipe's tuning sets (e.g. train_tune) or a split "
                             "(valid* or train*; size default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.arm != "warm_start" and not (args.warm and (args.warm / "config.json").is_file()):
        print(f"error: --warm {args.warm} holds no model (config.json)", file=sys.stderr)
        return 2
    if (args.out / "tuning.json").exists():
        print(f"error: {args.out / 'tuning.json'} exists (choose another --out)", file=sys.stderr)
        return 2
    rows = []
    for i, spec in enumerate(args.tries or [""]):
        rows.append(score(args, spec, i))
        cells = ", ".join(f"{k} EM {100 * v['exact_match']:.0f} % reward {v['reward']:.3f} (n {v['n']})"
                          for k, v in rows[-1]["scores"].items())
        print(f"[tune] {args.arm} {rows[-1]['try']}: {cells}; {rows[-1]['train_minutes']} train min", flush=True)
    with atomic_open(args.out / "tuning.json") as fh:
        fh.write(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
