"""Choose a quickstart recipe's values on its tuning set: train one arm from a warm-started model, score it.

    python scripts/tune_arms.py --warm outputs/quickstart/warm_start/merged --arm control \
        --try control_learning_rate=3e-5 --try control_learning_rate=1e-4 --out outputs/tune-control
    python scripts/tune_arms.py --warm outputs/quickstart/warm_start/merged --arm rl \
        --try learning_rate=3e-5 --try learning_rate=1e-4,max_steps=36 --out outputs/tune-rl
    python scripts/tune_arms.py --warm outputs/quickstart/warm_start/merged --arm rft --rl-run outputs/tune-rl/try0 \
        --try rft.learning_rate=1e-4 --out outputs/tune-rft
    python scripts/tune_arms.py --recipe quickstart_plateau --arm warm_start --seed 1 \
        --set 'plateau={"stop": false}' --out outputs/plateau-seed1

Each ``--try`` is one candidate: recipe fields (``KEY=VALUE``, comma-separated) on top of the recipe
(``--recipe``, default ``quickstart``). Every candidate starts from the same warm-started model (the merged
folder an earlier ``rlvr quickstart`` wrote), trains the arm the quickstart would train (``rl``: the
recipe's GRPO/RLOO stage; ``control``: its SFT control arm, as many steps as ``max_steps``; ``rft``: its RFT
control arm on the prompt stream and step count of an RL run (``--rl-run``: a ``tune_arms.py --arm rl`` try or a
quickstart folder); ``warm``: nothing, the reference the arms start from); ``warm_start`` makes that model: the
recipe's warm start from its base model, trained with ``--seed`` into ``OUT/tryN/warm_start/merged`` (``--warm``
is not read); with the recipe's ``plateau`` (or ``--set plateau=...``) it records the tuning set's curve.
``--set KEY=VALUE`` overrides a recipe field for every candidate (JSON values welcome); ``rft.KEY=VALUE`` in a
``--try`` sets one key of the recipe's ``rft`` mapping. Each is scored greedily
on the tuning set only (``--tuning-set NAME[:SIZE]``: a recipe's tuning set such as ``train_tune``, or a
``valid*``/``train*`` split; default ``valid:100``; ``--tuning-options JSON`` adds generator options, e.g.
``'{"coef_in": [6, 10]}'`` for valid reactions at out-of-range coefficients; in the recipe's prompts and eval
seed): no test split is
scored, so the choice never sees a split a claim is tested on. Prints one line per candidate (exact match,
reward, minutes) and writes ``tuning.json`` into ``--out``. ``--against RUN`` (an earlier try, e.g. the recipe as
written: ``OUT/try0``, or one stage folder ``eval_NAME``) pairs each candidate with that run's greedy answers on the
same tuning tasks: the difference in exact match, its paired SE, the reactions or molecules it gains and loses, their
exact sign test, and whether it beats the run by more than its paired SE (the rule for declaring a second recipe).
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
from rlvr.eval.stats import mean_se, paired_exact_test  # noqa: E402
from rlvr.eval.store import VERDICTS_FILE, load_verdict_log  # noqa: E402
from rlvr.files import atomic_open  # noqa: E402
from rlvr.quickstart.arm_run import ArmContext, ArmRun  # noqa: E402
from rlvr.quickstart.arms import ARMS  # noqa: E402
from rlvr.quickstart.claims import is_tuning_split  # noqa: E402
from rlvr.quickstart.evaluation import Evaluator, draw_eval_tasks  # noqa: E402
from rlvr.quickstart.plan import Plan, QuickstartOptions, make_plan  # noqa: E402
from rlvr.quickstart.training import RLShape, warm_start  # noqa: E402
from rlvr.train.config import recipe_mapping  # noqa: E402
from rlvr.train.entry import find_recipe  # noqa: E402
from rlvr.train.runner import PROMPT_STREAM  # noqa: E402


def candidate_argv(spec: str, recipe: str) -> list[str]:
    """``a=1,b=2`` -> ``["--a", "1", "--b", "2"]`` (empty for the recipe as written); ``rft.KEY=V`` items merge
    into one ``--rft`` mapping on top of the recipe's; one line and exit 2 otherwise."""
    nested = {}
    plain = []
    for item in (i for i in spec.split(",") if i.strip()):
        key, _, value = item.partition("=")
        if key.strip().startswith("rft."):
            nested[key.strip()[4:]] = value.strip()
        else:
            plain.append(item)
    try:
        argv = lever_argv(",".join(plain), option="--try")
    except UsageError as exc:
        raise SystemExit(f"error: {exc}") from None
    if nested:
        own = recipe_mapping(["--config", find_recipe(recipe)]).get("rft") or {}
        argv += ["--rft", json.dumps({**own, **nested})]
    return argv


def set_argv(items: list[str]) -> list[str]:
    """``--set KEY=VALUE`` items as recipe arguments; one line and exit 2 on an item without ``=``."""
    out: list[str] = []
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SystemExit(f"error: --set {item!r} must look like KEY=VALUE")
        out += [f"--{key.strip()}", value]
    return out


def rl_run(plan: Plan, folder: Path | None) -> ArmRun:
    """The RL arm an SFT or RFT candidate is matched to: an earlier RL run's steps and prompt stream (``folder``:
    a try of ``--arm rl`` or a quickstart output folder), else the recipe's step budget and shape."""
    shape = RLShape.of(plan.recipe.training)
    steps = int(plan.recipe.training.max_steps)
    stream = None
    if folder is not None:
        info = folder / "train" / "run_info.json"
        if not info.is_file():
            raise SystemExit(f"error: --rl-run {folder} holds no RL run (train/run_info.json)")
        steps, stream = int(json.loads(info.read_text())["global_step"]), str(folder / "train" / PROMPT_STREAM)
    return ArmRun("rl", None, {"steps": steps, "prompts_per_step": shape.prompts,
                               "completions_per_prompt": shape.completions_per_prompt,
                               "trained_completions": steps * shape.completions, "prompt_stream": stream})


def greedy_answers(folder: Path) -> dict[str, bool]:
    """Each task's greedy right/wrong in a scored run: ``folder`` is one stage (``eval_NAME``, holding a verdict log)
    or a try holding exactly one; one line and a non-zero exit otherwise, or on a log whose records hold no answer."""
    logs = [folder / VERDICTS_FILE] if (folder / VERDICTS_FILE).is_file() else sorted(folder.glob(f"eval_*/{VERDICTS_FILE}"))
    if len(logs) != 1:
        found = "none" if not logs else ", ".join(str(log.parent.name) for log in logs)
        raise SystemExit(f"error: --against {folder} must hold one scored stage (eval_*/{VERDICTS_FILE}); found {found}")
    records = load_verdict_log(logs[0], repair=False)
    if not records:
        raise SystemExit(f"error: --against {logs[0]} holds no verdicts")
    try:
        return {tid: bool(rec["rollouts"][0]["correct"]) for tid, rec in records.items()}
    except (KeyError, IndexError, TypeError):
        raise SystemExit(f"error: --against {logs[0]} is not an evaluation's verdict log (a record without "
                         f"rollouts[0].correct)") from None


def paired_against(reference: dict[str, bool], candidate: dict[str, bool], run: Path) -> dict:
    """A candidate's greedy answers against a reference run's on the same tasks: the difference in exact match
    (candidate - reference), its paired SE, the tasks gained and lost with their exact sign test, and ``beats``:
    ahead by more than one paired SE."""
    ids = sorted(reference)
    diff, se, n = mean_se(float(candidate[t]) - float(reference[t]) for t in ids)
    test = paired_exact_test([reference[t] for t in ids], [candidate[t] for t in ids])
    return {"run": str(run), "n": n, "diff": diff, "se": se, "gained": test.gained, "lost": test.lost,
            "p_value": test.p_value, "beats": diff > se}


def check_same_tasks(plan: Plan, reference: dict[str, bool], run: Path) -> None:
    """End in one line, before anything is written into the plan's folder, when the plan's tuning set is not the
    one ``run`` scored (the task sets are drawn, not written, to compare their ids)."""
    ids = set(draw_eval_tasks(plan.specs, plan.recipe.task.eval_seed).groups)
    if ids != set(reference):
        raise SystemExit(f"error: --against {run} scored other tasks ({len(ids & set(reference))} of its "
                         f"{len(reference)} are in this tuning set of {len(ids)}): give the same recipe, --seed, "
                         f"--tuning-set and --tuning-options")


def checked_plan(options: QuickstartOptions) -> Plan:
    """:func:`make_plan`, its one-sentence errors on the recipe, a candidate or the tuning set's options (a
    ValueError or KeyError) ending the script in one line instead of a traceback."""
    try:
        return make_plan(options)
    except (ValueError, KeyError) as exc:
        raise SystemExit(f"error: {exc}") from None


def score(args: argparse.Namespace, spec: str, index: int) -> dict:
    """Train one candidate from the warm-started model and score it on the tuning sets."""
    out = args.out / f"try{index}"
    name, _, size = args.tuning_set.partition(":")
    overrides = [*set_argv(args.set), *candidate_argv(spec, args.recipe), "--seed", str(args.seed), "--save_strategy", "no",
                 "--report_to", "none"]
    options = QuickstartOptions(recipe=args.recipe, output_dir=str(out), overrides=overrides,
                                device=resolve_device(args.device))
    # a recipe's own tuning set by its name (e.g. the molecules recipe's train_tune), else a split by its name
    own = checked_plan(options).specs.get(name, {})
    tuning = {name: {"split": own.get("split", name), "size": int(size or own.get("size", 100))}}
    if args.tuning_options:  # e.g. valid reactions at out-of-range coefficients: {"coef_in": [6, 10]}
        tuning[name]["options"] = args.tuning_options
    # only the tuning set is scored: the measurements and the pooled test name the recipe's held-out sets
    options.overrides = [*overrides, "--eval_sets", json.dumps(tuning), "--pass_at_k", "null", "--pooled_test", "null"]
    plan = checked_plan(options)
    plan.specs = {n: s for n, s in plan.specs.items() if is_tuning_split(s["split"])}
    if not plan.specs:
        raise SystemExit(f"--tuning-set {args.tuning_set!r} is not a tuning split (valid* or train*)")
    if args.arm != "warm_start":
        plan.recipe.model.model_name_or_path = str(args.warm)
    if args.reference is not None:  # before anything is written into --out
        check_same_tasks(plan, args.reference, args.against)
    out.mkdir(parents=True, exist_ok=True)
    evaluator = Evaluator.for_plan(plan)
    t0 = time.time()
    extra: dict = {}
    stage_name = "eval_warm"  # the warm start's and the warm-started model's stage; an arm's is eval_<arm>
    if args.arm == "warm_start":  # the warm start itself, from the base model; scored on the tuning set only
        stage, info = warm_start(plan, evaluator)
        if stage is None:
            raise SystemExit(f"error: recipe {args.recipe!r} has no warm start (sft_steps: 0)")
        extra = {"plateau": info["plateau"]} if "plateau" in info else {}
    elif args.arm == "warm":  # the reference the arms start from, untrained
        stage = evaluator.stage(stage_name, "the warm-started model", str(args.warm))
    else:
        ctx = ArmContext(plan, evaluator, str(args.warm), shared=args.out / "shared")  # e.g. RFT's samples, once
        if args.arm != "rl":
            ctx.runs["rl"] = rl_run(plan, args.rl_run)
        run = ARMS[args.arm].train(ctx)
        stage_name = f"eval_{args.arm}"
        stage = evaluator.stage(stage_name, ARMS[args.arm].describes, str(args.warm), run.adapter)
        extra = {"budget": {k: v for k, v in run.budget.items() if k != "prompt_stream"}}
    evals = sum(v for k, v in evaluator.seconds.items() if k.startswith("eval_"))
    train_minutes = round((time.time() - t0 - evals) / 60, 2)
    if args.arm == "warm_start":
        print(f"[tune] warm-started model: {plan.recipe.model.model_name_or_path}", flush=True)
    if args.reference is not None:
        answers = greedy_answers(out / stage_name)
        extra["against"] = paired_against(args.reference, answers, args.against)
    return {"try": spec or "(recipe)", "arm": args.arm, "seed": args.seed, "train_minutes": train_minutes, **extra,
            "scores": {name: {"n": s.n, "exact_match": s.exact_match, "reward": s.reward, "format_ok": s.format_ok}
                       for name, s in stage.scores.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=Path, help="the warm-started model (a quickstart's warm_start/merged); "
                                                   "not with --arm warm_start")
    parser.add_argument("--arm", choices=[*ARMS, "warm", "warm_start"], required=True,
                        help="rl, control or rft: train that arm and score it; warm: score the warm-started model itself; "
                             "warm_start: train the recipe's warm start from its base model and score it")
    parser.add_argument("--rl-run", type=Path, help="control or rft: match this RL run (a --arm rl try folder or a "
                                                     "quickstart folder: its steps and, for rft, its prompt stream)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a recipe field for every candidate (repeatable; JSON values welcome)")
    parser.add_argument("--try", dest="tries", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE]",
                        help="one candidate (repeatable); none: the recipe as written")
    parser.add_argument("--recipe", default="quickstart")
    parser.add_argument("--tuning-set", default="valid:100",
                        help="NAME[:SIZE] scored: one of the recipe's tuning sets (e.g. train_tune) or a split "
                             "(valid* or train*; size default 100)")
    parser.add_argument("--tuning-options", type=json.loads, default=None, metavar="JSON",
                        help="generator options of the tuning set on top of the recipe's, e.g. '{\"coef_in\": [6, 10]}': "
                             "valid reactions at out-of-range coefficients, for tuning toward generalization")
    parser.add_argument("--against", type=Path, metavar="RUN",
                        help="pair each candidate with this earlier run on the same tuning tasks (a try folder, e.g. "
                             "OUT/try0 of the recipe as written, or one eval_NAME stage): difference, paired SE, sign test")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.arm != "warm_start" and not (args.warm and (args.warm / "config.json").is_file()):
        print(f"error: --warm {args.warm} holds no model (config.json)", file=sys.stderr)
        return 2
    if args.arm == "rft" and args.rl_run is None:
        print("error: --arm rft samples an RL run's prompt stream: give --rl-run", file=sys.stderr)
        return 2
    if (args.out / "tuning.json").exists():
        print(f"error: {args.out / 'tuning.json'} exists (choose another --out)", file=sys.stderr)
        return 2
    args.reference = greedy_answers(args.against) if args.against is not None else None
    rows = []
    for i, spec in enumerate(args.tries or [""]):
        rows.append(score(args, spec, i))
        cells = ", ".join(f"{k} EM {100 * v['exact_match']:.0f} % reward {v['reward']:.3f} (n {v['n']})"
                          for k, v in rows[-1]["scores"].items())
        if "plateau" in rows[-1]:
            curve = ", ".join(f"{s}: {100 * em:.0f}" for s, em in rows[-1]["plateau"]["curve"])
            cells += f"; plateau curve {curve}; plateau step {rows[-1]['plateau']['plateau_step']}"
        if "against" in rows[-1]:
            a = rows[-1]["against"]
            cells += (f"; against {a['run']}: {100 * a['diff']:+.1f} ± {100 * a['se']:.1f} points (paired SE, n {a['n']}), "
                      f"+{a['gained']} / -{a['lost']}, sign test p {a['p_value']:.2g}, "
                      f"{'ahead by more than its paired SE' if a['beats'] else 'not ahead by more than its paired SE'}")
        print(f"[tune] {args.arm} {rows[-1]['try']}: {cells}; {rows[-1]['train_minutes']} train min", flush=True)
    with atomic_open(args.out / "tuning.json") as fh:
        fh.write(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
