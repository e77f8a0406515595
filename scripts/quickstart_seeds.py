"""Summarise several ``rlvr quickstart`` runs (e.g. one per seed) as Markdown tables.

    python scripts/quickstart_seeds.py outputs/qs-seed0 outputs/qs-seed1 outputs/qs-seed2

Where the runs' recipe declared a primary pooled over seeds (``pooled_test``), that test leads, over the reactions or
molecules as units, with its secondaries Holm-corrected (:mod:`rlvr.quickstart.pooled`). Reads the stages each run had (the base model, the warm start, then its arms: ``rl``, ``control``, ``rft``, ...)
from its ``summary.json`` (summaries written before arms were data are read too). Prints each run's primary
test (declared in its recipe, with the arm ahead and its power) and the seeds pooled over tasks on the primary
test's pair (each task's mean change across the runs; exact sign test: the unit is the task); the declared
secondaries with their Holm-adjusted p; then per run and split exact match at each stage with its standard
error and the treated arm's McNemar tests against every other stage (uncorrected there); each arm's budget
(optimizer steps, trained completions and tokens, generated tokens, minutes); pass@1 / pass@k, retention and
KL where the run measured them; the training-reward trend (descriptive); each run's time; then what the
treated arm's answers get wrong: no answer, a species wrong, every count scaled by one wrong number of runs n,
or at least one coefficient x n miscomputed. Runs made with ``--eval-every N`` add the RL stage against its
step budget (``--budget-plot PATH`` draws it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from rlvr.answer import answer_text
from rlvr.checkers.stoich_parse import AnswerError, formula_key, parse_bag_answer
from rlvr.eval.layouts import against_common_answers, common_answers, task_group
from rlvr.eval.stats import pooled_task_sign_test, sign_test_p_value
from rlvr.eval.suites import SPLIT_GROUPS
from rlvr.task import answer_key, load_tasks
from rlvr.quickstart.claims import LEGACY_PRIMARY, is_tuning_split, label
from rlvr.quickstart.pooled import PooledDesign, pooled_claims, render_pooled
from rlvr.quickstart.scores import from_legacy, per_task_correct
from rlvr.quickstart.step_scan import em_change_in_se, plot_budget, trend_summary
from rlvr.quickstart.trend import reward_trend
from rlvr.train.plots import load_log_history

SPLITS = ("in", "cross", "out")
#: the folders stages were scored into before arms were data
LEGACY_FOLDERS = {"base": "eval_before", "rl": "eval_after"}


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}"


def _p(p: float | None) -> str:
    if p is None:
        return "–"
    return f"{p:.2g}" if p >= 1e-3 else f"{p:.0e}"


def normalized(summary: dict) -> dict:
    """A ``summary.json`` in today's shape: split rows with ``stages`` and ``tests``, the run's ``stages`` and
    ``treated`` arm, the primary test's ``reference`` and ``treated`` (older summaries: converted)."""
    out = dict(summary)
    out["splits"] = {k: from_legacy(v) for k, v in (summary.get("splits") or {}).items()}
    if "stages" not in out:
        seen = [s for row in out["splits"].values() for s in row["stages"]]
        out["stages"] = [s for s in ("base", "warm", "rl", "control") if s in seen]
    out.setdefault("treated", "rl")
    primary = dict(out.get("primary") or {})
    if primary and "reference" not in primary and primary.get("stage") in LEGACY_PRIMARY:
        primary["reference"], primary["treated"] = LEGACY_PRIMARY[primary["stage"]]
    out["primary"] = primary or None
    return out


def stage_dir(folder: Path, stage: str) -> Path:
    """The folder a run scored ``stage`` into (``eval_<stage>``; older runs: ``eval_before``, ``eval_after``)."""
    own = folder / f"eval_{stage}"
    legacy = folder / LEGACY_FOLDERS.get(stage, own.name)
    return own if own.is_dir() or not legacy.is_dir() else legacy


def primary_table(runs: list[tuple[str, dict]]) -> str:
    """Per run: the recipe's declared primary test, the arm ahead, the difference detectable at 80 % power, and
    the secondaries below alpha after Holm's correction."""
    lines = ["| seed | primary test (declared in the recipe) | +/− of n | p | significant | ahead | detectable at 80 % power "
             "| secondary tests with Holm p < alpha |", "|---|---|---|---|---|---|---|---|"]
    for name, summary in runs:
        p = summary.get("primary")
        if not p:
            continue
        strong = [f"{s['name']} ({_p(s['p_holm'])})" for s in summary.get("secondary", [])
                  if s.get("p_holm") is not None and s["p_holm"] < p["alpha"]]
        power = p.get("power") or {}
        detect = "–" if power.get("detectable_difference") is None else f"{100 * power['detectable_difference']:.1f} points"
        ahead = label(p["ahead"]) if p.get("ahead") else ("tie" if "ahead" in p else "–")
        lines.append(f"| {summary.get('seed', name)} | {label(p['reference'])} → {label(p['treated'])} / {p['test']} / {p['split']} "
                     f"| +{p['up']} −{p['down']} of {p['n']} | {_p(p['p_value'])} | {'yes' if p['significant'] else 'no'} at "
                     f"{p['alpha']:g} | {ahead} | {detect} | {', '.join(strong) or 'none'} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def secondary_table(runs: list[tuple[str, dict]]) -> str:
    """Every declared secondary of every run: +/−, p, Holm p, the stage ahead (``seed0 / seed1 / ...``)."""
    names = list(dict.fromkeys(s["name"] for _, summary in runs for s in summary.get("secondary", [])))
    if not names:
        return ""
    lines = ["| secondary test | +/− | p | Holm p | ahead |", "|---|---|---|---|---|"]
    for test in names:
        cells = [next((s for s in summary.get("secondary", []) if s["name"] == test), None) for _, summary in runs]
        def join(f):  # noqa: ANN001 - one cell per run
            return " / ".join("–" if c is None else f(c) for c in cells)
        counts = join(lambda c: f"+{c['up']} −{c['down']}")
        ahead = join(lambda c: label(c["ahead"]) if c.get("ahead") else "tie")
        lines.append(f"| {test} | {counts} | {join(lambda c: _p(c['p_value']))} | {join(lambda c: _p(c['p_holm']))} | {ahead} |")
    return "\n".join(lines)


def stage_correct(folder: Path, stage: str, group: str) -> dict[str, bool] | None:
    """``{task id: right}`` of one stage's answers (``warm``, ``rl``, ``control``, ``step18``, ...) on a split group,
    from the run's ``eval_<stage>/records.json``; None when the run has no such file."""
    path = stage_dir(folder, stage) / "records.json"
    if not path.is_file():
        return None
    return per_task_correct(json.loads(path.read_text())).get(group, {})


def pooled_rows(folders: list[Path], group: str = "in", stages: list[str] | None = None,
                reference: str = "warm") -> dict | None:
    """Seeds pooled over tasks, ``reference`` (a stage: ``warm``, ``control``, ...) -> each run's stage (``stages``,
    default ``rl``) on ``group``: :func:`rlvr.eval.stats.pooled_task_sign_test` over the runs' records (None unless
    every run has both)."""
    before = [stage_correct(f, reference, group) for f in folders]
    after = [stage_correct(f, st, group) for f, st in zip(folders, stages or ["rl"] * len(folders))]
    if len(folders) < 2 or any(m is None for m in before + after):
        return None
    t = pooled_task_sign_test(before, after)  # type: ignore[arg-type]
    if t.n_tasks == 0:  # the runs share no task of this split group
        return None
    return {"n_tasks": t.n_tasks, "runs": t.runs, "improved": t.improved, "worsened": t.worsened,
            "mean_change": t.mean_change, "p_value": t.p_value}


def pooled_line(pooled: dict | None, split: str = "test_in", reference: str = "warm start", treated: str = "RL") -> str:
    """One sentence for the pooled-over-tasks test (empty without one)."""
    if not pooled:
        return ""
    return (f"seeds pooled over tasks ({split}, {reference} -> {treated}, {pooled['runs']} runs, {pooled['n_tasks']} tasks; "
            f"secondary): {pooled['improved']} tasks improved on average, {pooled['worsened']} got "
            f"worse, mean change {100 * pooled['mean_change']:+.1f} points, exact sign test p = {_p(pooled['p_value'])}")


def results_table(runs: list[tuple[str, dict]]) -> str:
    """One row per run and split: exact match at every stage (± SE) and the treated arm's exact McNemar test
    against every other stage (+/−, p uncorrected)."""
    lines = []
    for name, summary in runs:
        stages, treated = summary["stages"], summary["treated"]
        refs = [s for s in stages if s != treated]
        if not lines:
            lines = ["| seed | split | n | " + " | ".join(f"EM % {label(s)}" for s in stages) + " | "
                     + " | ".join(f"{label(r)} → {label(treated)}: +/−, p" for r in refs) + " |",
                     "|---" * (3 + len(stages) + len(refs)) + "|"]
        for split in [k for k in SPLITS if k in summary["splits"]] + sorted(set(summary["splits"]) - set(SPLITS)):
            row = summary["splits"][split]
            ems = [f"{_pct(row['stages'][s]['em'])} ± {_pct(row['stages'][s]['em_se'])}" if s in row["stages"] else "–"
                   for s in stages]
            tests = []
            for ref in refs:
                t = row["tests"].get(f"{ref}->{treated}")
                tests.append(f"+{t['gained']} −{t['lost']}, {_p(t['p_value'])}" if t else "–")
            lines.append(f"| {summary.get('seed', name)} | {split} | {row['n']} | " + " | ".join(ems + tests) + " |")
    return "\n".join(lines)


def arms_table(runs: list[tuple[str, dict]]) -> str:
    """Per run and arm what it spent: optimizer steps, trained completions, trained and generated tokens, minutes."""
    lines = ["| seed | arm | steps | trained completions | trained tokens | generated tokens | minutes |",
             "|---|---|---|---|---|---|---|"]
    count = lambda v: "–" if v is None else f"{int(round(float(v))):,}"  # noqa: E731
    for name, summary in runs:
        for arm, b in (summary.get("arms") or {}).items():
            lines.append(f"| {summary.get('seed', name)} | {label(arm)} | {b.get('steps', '–')} | {count(b.get('trained_completions', b.get('rows')))} "
                         f"| {count(b.get('trained_tokens', b.get('tokens')))} | {count(b.get('generated_tokens'))} "
                         f"| {float(b.get('seconds') or 0) / 60:.1f} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def measures_table(runs: list[tuple[str, dict]]) -> str:
    """pass@1 / pass@k, retention exact match and KL from the warm start, per stage (``seed0 / seed1 / ...``)."""
    with_any = [s for _, s in runs if any(k in s for k in ("pass_at_k", "retention", "kl"))]
    if not with_any:
        return ""
    stages = list(dict.fromkeys(st for s in with_any for st in s.get("stages", [])))
    k = next((s["pass_at_k"]["samples"] for s in with_any if "pass_at_k" in s), None)
    cols = (["pass@1 %", f"pass@{k} %"] if k else []) + ["retention EM %", "KL per completion"]
    lines = ["| stage | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for st in stages:
        def cell(part: str, key: str, scale: float = 100.0, fmt: str = ".0f") -> str:
            vals = [((s.get(part) or {}).get("stages") or {}).get(st, {}).get(key) for s in with_any]
            return " / ".join("–" if v is None else f"{scale * v:{fmt}}" for v in vals)
        row = ([cell("pass_at_k", "pass@1"), cell("pass_at_k", f"pass@{k}")] if k else [])
        row += [cell("retention", "em"), cell("kl", "kl_per_sequence", 1.0, ".2f")]
        lines.append(f"| {label(st)} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def kind_table(runs: list[tuple[str, dict]]) -> str:
    """Right answers per kind of question (summary.json's ``by_kind``: the held-out sets) at every stage,
    ``seed0 / seed1 / ...`` (empty when no run has kinds)."""
    kinds = sorted({kind for _, s in runs for kind in (s.get("by_kind") or {})})
    if not kinds:
        return ""
    stages = list(dict.fromkeys(st for _, s in runs for cells in (s.get("by_kind") or {}).values() for st in cells
                                if st != "most common answer")) + ["most common answer"]
    lines = ["| kind of question | n | " + " | ".join(stages) + " |", "|---" * (len(stages) + 2) + "|"]
    for kind in kinds:
        cells = [(s.get("by_kind") or {}).get(kind, {}) for _, s in runs]
        n = " / ".join(str(next(iter(c.values()))[1]) if c else "–" for c in cells)
        row = [" / ".join(str(c[st][0]) if st in c else "–" for c in cells) for st in stages]
        lines.append(f"| {kind} | {n} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def reading_table(folders: list[Path], treated: str = "rl") -> str:
    """Reading or guessing, per kind of question (held-out sets, final answers, ``seed0 / seed1 / ...``): right
    answers where the true answer is the kind's most common one, and where it is not; then per run the final
    model against the most-common-answer baseline, task by task (exact sign test on the tasks where exactly
    one of them is right), and with several runs the same comparison pooled over tasks. Empty where the tasks'
    layouts name no kinds."""
    per_run = []
    pooled_maps: list[tuple[dict[str, bool], dict[str, bool]]] = []
    for folder in folders:
        tasks = [t for t in load_tasks(folder / "eval_tasks.jsonl") if not is_tuning_split(str(t.meta.get("split", "")))]
        truth = {t.id: answer_key(t) for t in tasks}
        kinds = {t.id: task_group(t) for t in tasks}
        common = common_answers(tasks)  # the report's most-common-answer baseline, task by task
        right = {}
        for line in (stage_dir(folder, treated) / "verdicts.jsonl").read_text().splitlines():
            record = json.loads(line)
            right[record["task_id"]] = bool(record["rollouts"][0]["correct"])
        # per task: is the baseline (the kind's most common answer) right?
        baseline = {i: truth[i] == common[kind] for i, kind in kinds.items() if kind is not None and i in right}
        cells: dict[str, Counter] = {}
        for i, modal in baseline.items():
            cell = cells.setdefault(kinds[i], Counter())
            cell["modal" if modal else "other"] += 1
            cell["modal_right" if modal else "other_right"] += right[i]
        per_run.append((cells, *against_common_answers(tasks, right)))
        pooled_maps.append((baseline, {i: right[i] for i in baseline}))
    kinds = sorted({k for cells, _, _ in per_run for k in cells})
    if not kinds:
        return ""
    lines = ["| kind of question | right when the truth is its most common answer | right when it is not |", "|---|---|---|"]
    for kind in kinds:
        cs = [cells.get(kind, Counter()) for cells, _, _ in per_run]
        lines.append(f"| {kind} | " + " / ".join(f"{c['modal_right']}/{c['modal']}" for c in cs) + " | "
                     + " / ".join(f"{c['other_right']}/{c['other']}" for c in cs) + " |")
    for (_, up, down), folder in zip(per_run, folders):
        lines.append(f"\n{folder.name}: final model against the most-common-answer baseline (held-out tasks): "
                     f"+{up} / −{down}, exact sign test p = {_p(sign_test_p_value(up, down))}")
    if len(pooled_maps) > 1:
        t = pooled_task_sign_test([b for b, _ in pooled_maps], [a for _, a in pooled_maps])
        lines.append(f"\nseeds pooled over tasks, final model against the most-common-answer baseline ({t.runs} runs, "
                     f"{t.n_tasks} held-out tasks): {t.improved} tasks better on average, {t.worsened} worse, "
                     f"exact sign test p = {_p(t.p_value)}")
    return "\n".join(lines)


def trend_table(runs: list[tuple[str, dict]]) -> str:
    """Per run: the training-reward trend (first quarter -> last quarter, 95 % interval) and dynamic sampling."""
    lines = ["| seed | train reward, first quarter → last quarter | difference (descriptive) | groups without spread / replaced |",
             "|---|---|---|---|"]
    for name, summary in runs:
        t = summary.get("train_reward") or {}
        if "train_reward_trend" not in t:
            continue
        groups = (f"{t.get('dynamic_zero_std_groups_total', 0):.0f} / {t.get('dynamic_replaced_total', 0):.0f}"
                  if "dynamic_zero_std_groups_total" in t else "–")
        lines.append(f"| {summary.get('seed', name)} | {t['train_reward_first_quarter']:.3f} → {t['train_reward_last_quarter']:.3f} "
                     f"| {t['train_reward_trend']:+.3f} | {groups} |")
    return "\n".join(lines)


def times_table(runs: list[tuple[str, dict]]) -> str:
    """Seconds per phase of each run (every phase any run timed, in the order the first run timed them)."""
    phases = list(dict.fromkeys(p for _, summary in runs for p in summary.get("seconds", {})))
    lines = ["| seed | " + " | ".join(phases) + " |", "|---" * (len(phases) + 1) + "|"]
    for name, summary in runs:
        sec = summary.get("seconds", {})
        lines.append(f"| {summary.get('seed', name)} | " + " | ".join(f"{sec[p]:.0f}" if p in sec else "–" for p in phases) + " |")
    return "\n".join(lines)


def error_kind(task: dict, rollout: dict) -> str:
    """``right`` or the checker's reason (``no_answer``, ``unparsable``, ...) from the verdict record; for a
    wrong product bag that parses: ``species`` (a species wrong), ``scaled`` (every count the reaction's
    coefficient times one wrong n) or ``arithmetic`` (some coefficient x n miscomputed)."""
    if rollout["correct"]:
        return "right"
    if rollout["reason"] in ("no_answer", "unparsable") or "products" not in task["ground_truth"]:
        return rollout["reason"]  # not a product bag (molecule counts): the checker's reason code
    text, _ = answer_text(rollout["completion"])
    try:
        terms, _form = parse_bag_answer(text or "")
    except AnswerError:
        return "unparsable"
    got: Counter = Counter()
    for species, count in terms:
        key = formula_key(species)
        if key is None:
            return "species"
        got[key] += count
    truth = {formula_key(k): v for k, v in task["ground_truth"]["products"].items()}
    if set(got) != set(truth):
        return "species"
    reaction = task["meta"]["reaction"]
    written = {**reaction.get("reagents", {}), **reaction["products"]}  # reagents (catalysts) pass through
    per_run = {formula_key(k): v for k, v in written.items()}
    ratios = {got[k] / per_run[k] for k in truth if k in per_run}
    return "scaled" if len(ratios) == 1 else "arithmetic"


def errors_table(runs: list[tuple[str, Path]], treated: str = "rl") -> str:
    """Counts of each kind of final answer per split, ``seed0 / seed1 / ...``: a column for ``right`` and one for
    each kind some answer has."""
    kinds = ("right", "no_answer", "unparsable", "species", "scaled", "arithmetic")
    per_run: list[dict[str, Counter]] = []
    for _name, folder in runs:
        tasks = {}
        for line in (folder / "eval_tasks.jsonl").read_text().splitlines():
            task = json.loads(line)
            tasks[task["id"]] = task
        counts: dict[str, Counter] = {}
        for line in (stage_dir(folder, treated) / "verdicts.jsonl").read_text().splitlines():
            record = json.loads(line)
            task = tasks[record["task_id"]]
            split = task["meta"]["split"].removeprefix("test_")
            counts.setdefault(split, Counter())[error_kind(task, record["rollouts"][0])] += 1
        per_run.append(counts)
    seen = {kind for run in per_run for counts in run.values() for kind in counts}
    # "right", then only the kinds some answer has: stoichiometry's classes, other reason codes (molecules:
    # wrong_value, missing_key, ...)
    kinds = ("right", *(k for k in kinds[1:] if k in seen), *sorted(seen - set(kinds)))
    lines = ["| split | " + " | ".join(kinds) + " |", "|---" * (len(kinds) + 1) + "|"]
    extra = sorted({split for run in per_run for split in run} - set(SPLITS))  # e.g. the valid tuning set
    for split in [*(k for k in SPLITS if any(k in run for run in per_run)), *extra]:
        cells = [" / ".join(str(run.get(split, Counter())[k]) for run in per_run) for k in kinds]
        lines.append(f"| {split} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def budget_table(runs: list[tuple[str, dict]], folders: list[Path] | None = None) -> str:
    """Runs with ``budget`` rows (``rlvr quickstart --eval-every N``): per step budget and run, the RL stage
    alone on ``test_in`` (McNemar on exact match, Wilcoxon on reward; uncorrected) and the exact-match change on
    every split in standard errors; with several runs whose ``folders`` hold the answers, a ``pooled`` row per
    budget: seeds pooled over tasks (:func:`pooled_rows`; the unit is the task)."""
    lines = ["| GRPO steps | GRPO min | seed | in: EM % warm → budget | in: EM +/−, p (McNemar) "
             "| in: reward up/down, p (Wilcoxon) | EM change / SE: in, cross, out | train reward trend |",
             "|---|---|---|---|---|---|---|---|"]
    rows = [(row["steps"], summary.get("seed", name), row) for name, summary in runs for row in summary.get("budget", [])]
    for steps in sorted({r[0] for r in rows}):
        at = sorted((r for r in rows if r[0] == steps), key=lambda r: str(r[1]))
        for _, seed, row in at:
            s = row["splits"]["in"]
            changes = ", ".join("–" if (c := em_change_in_se(row["splits"].get(k, {}))) is None else f"{c:+.1f}"
                                for k in SPLITS)
            t = row.get("train_reward") or {}
            trend = f"{t['train_reward_trend']:+.2f}" if "train_reward_trend" in t else "–"
            lines.append(f"| {steps} | {row['train_minutes']:.1f} | {seed} | {_pct(s['em_warm'])} → {_pct(s['em_after'])} "
                         f"| +{s['gained_rl']} −{s['lost_rl']}, {_p(s['p_value_rl'])} "
                         f"| {s['better_rl']} / {s['worse_rl']}, {_p(s['reward_p_value_rl'])} | {changes} | {trend} |")
        pooled = None
        if folders and len(at) > 1 and len(at) == len(runs):  # every run scored this budget
            stages = ["rl" if steps == summary.get("steps") else f"step{steps}" for _, summary in runs]
            pooled = pooled_rows(folders, "in", stages)
        if pooled:
            lines.append(f"| {steps} | | pooled over tasks | | {pooled['improved']} tasks up, {pooled['worsened']} down "
                         f"({pooled['n_tasks']} tasks), sign test {_p(pooled['p_value'])} | | | |")
    return "\n".join(lines) if rows else ""


def fill_budget_trends(summary: dict, folder: Path) -> None:
    """Give each budget row without one the training-reward trend over its steps, from the run's log
    history (``<folder>/train/trainer_state.json``; rows of runs made before the quickstart stored it)."""
    rows = [row for row in summary.get("budget", []) if not row.get("train_reward")]
    state = folder / "train" / "trainer_state.json"
    if not rows or not state.is_file():
        return
    history = load_log_history(state)
    for row in rows:
        row["train_reward"] = trend_summary(reward_trend(history, up_to=row["steps"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="quickstart output folders (each with summary.json)")
    parser.add_argument("--budget-plot", type=Path, help="PNG of the RL stage against its step budget (runs made with --eval-every)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --budget-plot file")
    args = parser.parse_args(argv)
    if args.budget_plot and args.budget_plot.exists() and not args.overwrite:
        print(f"error: --budget-plot {args.budget_plot} exists (pass --overwrite to replace it)", file=sys.stderr)
        return 2
    loaded = []
    for folder in args.runs:
        path = folder / "summary.json"
        if not path.is_file():
            print(f"error: {path} not found (run rlvr quickstart --output-dir {folder} first)", file=sys.stderr)
            return 2
        loaded.append((folder.name, normalized(json.loads(path.read_text()))))
        fill_budget_trends(loaded[-1][1], folder)
    treated = loaded[0][1]["treated"]
    declared = loaded[0][1].get("pooled_test")
    if declared:  # the recipe declared a primary pooled over seeds: it leads
        try:
            claims = pooled_claims(PooledDesign.from_summary(declared), list(args.runs))
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print("\n".join(render_pooled(claims)), end="\n\n")
    first = loaded[0][1].get("primary") or {"split": "test_in", "reference": "warm", "treated": treated}
    pooled = pooled_line(pooled_rows(list(args.runs), SPLIT_GROUPS.get(first["split"], first["split"]), [first["treated"]] * len(loaded),
                                     reference=first["reference"]), first["split"], label(first["reference"]), label(first["treated"]))
    for table in (primary_table(loaded), pooled, secondary_table(loaded), results_table(loaded), arms_table(loaded),
                  measures_table(loaded)):
        if table:
            print(table, end="\n\n")
    kinds = kind_table(loaded)
    if kinds:
        print(kinds, end="\n\n")
        print(reading_table(list(args.runs), treated), end="\n\n")
    print(trend_table(loaded), end="\n\n")
    print(times_table(loaded), end="\n\n")
    print(errors_table([(name, folder) for (name, _), folder in zip(loaded, args.runs)], treated))
    budget = budget_table(loaded, list(args.runs))
    if budget:
        print("\n" + budget)
    if args.budget_plot:
        with_budget = [(f"seed {s.get('seed', name)}", s["budget"]) for name, s in loaded if s.get("budget")]
        if not with_budget:
            print("error: --budget-plot: no run has budget rows (run rlvr quickstart with --eval-every N)", file=sys.stderr)
            return 2
        print(f"\nfigure: {plot_budget(with_budget, args.budget_plot)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
