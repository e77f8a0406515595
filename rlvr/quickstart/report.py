"""What ``rlvr quickstart`` reports: the result object, the per-split table and the printed report."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rlvr.eval.layouts import metric_note
from rlvr.quickstart.claims import Claims, is_tuning_split, render_claims
from rlvr.quickstart.kinds import render_by_kind
from rlvr.quickstart.scores import SplitScore, order_splits
from rlvr.quickstart.step_scan import render_budget

#: the score fields of the table, in order
TABLE_FIELDS = ("format_ok", "valid", "exact_match", "f1")


@dataclass
class QuickstartResult:
    """Every stage's scores, the paired tests, the arms' costs, and where everything was written."""

    output_dir: str
    before: dict[str, SplitScore]
    after: dict[str, SplitScore]
    train: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)
    table: str = ""
    splits: dict[str, Any] = field(default_factory=dict)
    warm: dict[str, SplitScore] | None = None
    base_cache: str | None = None
    budget: list[dict[str, Any]] = field(default_factory=list)
    claims: Claims | None = None
    by_kind: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    versus_common: dict[str, dict[str, Any]] = field(default_factory=dict)
    control: dict[str, SplitScore] | None = None
    arms: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``quickstart.json``)."""
        d = asdict(self)
        d["claims"] = self.claims.to_dict() if self.claims else {}
        return d


def _cell(attr: str, b: SplitScore | None, w: SplitScore | None, a: SplitScore | None, c: SplitScore | None) -> str:
    if b is None or a is None:
        return "–"
    vb, va = getattr(b, attr) * 100, getattr(a, attr) * 100
    mid = f"{getattr(w, attr) * 100:.1f} -> " if w is not None else ""
    control = f"; control {getattr(c, attr) * 100:.1f}" if c is not None else ""
    return f"{vb:.1f} -> {mid}{va:.1f} ({va - vb:+.1f}){control}"


def render_table(before: dict[str, SplitScore], after: dict[str, SplitScore],
                 warm: dict[str, SplitScore] | None = None, control: dict[str, SplitScore] | None = None) -> str:
    """A Markdown table: per split, format / valid / EM / F1 before -> (after the warm start ->) after (percent),
    and the control arm's score beside it when the run has one."""
    headers = ["split", "n", "format ok %", "valid %", "exact match %", "F1 %"]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for split in order_splits(list(dict.fromkeys([*before, *after]))):
        b, a = before.get(split), after.get(split)
        w, c = (warm or {}).get(split), (control or {}).get(split)
        cells = [split, str((a or b).n)] + [_cell(attr, b, w, a, c) for attr in TABLE_FIELDS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _headline(qs: QuickstartResult) -> list[str]:
    t = qs.train
    ws = t.get("warm_start") or {}
    algo = str(t.get("algorithm", "grpo")).upper()
    stages = (f"warm start ({ws.get('steps')} SFT steps on verified worked solutions, loss {ws.get('first_loss', 0):.2f} -> "
              f"{ws.get('last_loss', 0):.2f}), then " if ws else "")
    columns = "base -> after the warm start -> after " + algo if ws else "base -> after " + algo
    return [
        "# rlvr quickstart", "",
        f"{stages}{algo} + LoRA on {', '.join(t['family'])} ({t['options'][0] if t['options'] else {}}), "
        f"{t['steps']} steps at {t['seconds_per_step']:.1f} s/step; rewards {t['reward_funcs']} (mode {t['reward_mode']}).",
        *_arms_lines(qs.arms), "",
        *(render_claims(qs.claims) + [""] if qs.claims else []),
        f"columns: {columns}" + ("; the control arm (more SFT) after ';'" if qs.control else ""), "",
        qs.table, "",
        metric_note(t["family"][0]) + ". Greedy decoding, the same tasks at every stage.", "",
        f"figure: {qs.output_dir}/quickstart.png (train curves; scores per split)",
    ]


def _arms_lines(arms: dict[str, dict[str, Any]]) -> list[str]:
    """The two arms' budgets side by side: the declared match, steps, rows, tokens and minutes."""
    if "control" not in arms:
        return []
    rl, control = arms["rl"], arms["control"]
    return [f"control arm: {control['steps']} SFT steps x {control['rows_per_step']} fresh verified worked solutions "
            f"from the warm start (match: {control['match']}); RL {rl['steps']} steps x {rl['prompts_per_step']} prompts "
            f"x {rl['completions_per_prompt']} completions. Minutes: RL {rl['seconds'] / 60:.1f}, control "
            f"{control['seconds'] / 60:.1f}; trained tokens: RL {_count(rl.get('tokens'))}, control {_count(control.get('tokens'))}"]


def _count(value: Any) -> str:
    """A token count as a whole number (TRL logs it as a float), or n/a."""
    return "n/a" if value is None else f"{int(round(float(value))):,}"


def _split_lines(qs: QuickstartResult, algo: str) -> list[str]:
    lines = ["", "paired tests per split (the same tasks at every stage; exact McNemar on exact match, exact",
             "Wilcoxon signed-rank on per-task reward; p uncorrected here, Holm-corrected in summary.json's secondary;",
             "valid* / train* sets are for tuning, listed last):"]
    for split, row in sorted(qs.splits.items(), key=lambda kv: is_tuning_split(kv[0])):
        mid = f" -> {100 * row['em_warm']:.1f}" if "em_warm" in row else ""
        lines.append(
            f"  {split}: exact match {100 * row['em_before']:.1f}{mid} -> {100 * row['em_after']:.1f} % "
            f"(± {100 * row['em_se_after']:.1f} SE, n = {row['n']}); base -> final +{row['gained']} / -{row['lost']}, "
            f"p = {row['p_value']:.3g}; reward {row['reward_before']:.3f} -> {row['reward_after']:.3f}, p = {row['reward_p_value']:.3g}")
        if "p_value_rl" in row:
            lines.append(
                f"      {algo} alone (warm start -> final): exact match +{row['gained_rl']} / -{row['lost_rl']}, "
                f"p = {row['p_value_rl']:.3g}; reward {row['reward_warm']:.3f} -> {row['reward_after']:.3f} "
                f"({row['better_rl']} tasks up, {row['worse_rl']} down), p = {row['reward_p_value_rl']:.3g}")
        if "p_value_vs_control" in row:
            lines.append(
                f"      {algo} against the control (control -> final): exact match {100 * row['em_control']:.1f} -> "
                f"{100 * row['em_after']:.1f} %, +{row['gained_vs_control']} / -{row['lost_vs_control']}, "
                f"p = {row['p_value_vs_control']:.3g}; reward {row['reward_control']:.3f} -> {row['reward_after']:.3f}, "
                f"p = {row['reward_p_value_vs_control']:.3g}")
    lines.append(f"  machine-readable: {qs.output_dir}/summary.json")
    return lines


def _train_lines(qs: QuickstartResult) -> list[str]:
    t, lines = qs.train, []
    if "train_reward_trend" in t:
        lines += ["", f"train reward ({t['trend_metric']}): first quarter {t['train_reward_first_quarter']} -> last quarter "
                      f"{t['train_reward_last_quarter']} ({t['train_reward_trend']:+.3f}, {t['quarter_steps']} steps each; "
                      "descriptive only: steps are autocorrelated and the drawn tasks get harder as the model improves)"]
    if "dynamic_zero_std_groups_total" in t:
        lines.append(f"dynamic sampling: {t['dynamic_zero_std_groups_total']:.0f} groups without reward spread, "
                     f"{t.get('dynamic_replaced_total', 0):.0f} replaced by fresh prompts "
                     f"({t.get('dynamic_extra_groups_total', 0):.0f} extra groups generated)")
    if qs.base_cache:
        lines.append(f"base model: answers read from the cache an earlier run on this machine wrote ({qs.base_cache})")
    return lines


def _kind_lines(qs: QuickstartResult) -> list[str]:
    lines: list[str] = []
    if qs.by_kind:
        lines += ["", "exact match per kind of question (held-out sets, right / scored; the last column answers every "
                  "question of a kind with its most common true answer on these tasks, an optimistic baseline that reads "
                  "nothing but the kind):", "", render_by_kind(qs.by_kind)]
    if qs.versus_common:
        lines += ["", "against that baseline, task by task (held-out sets; + where only the model is right, - where only "
                  "the baseline is; exact sign test):"]
        lines += [f"  {stage}: +{row['up']} / -{row['down']}, p = {row['p']:.3g}" for stage, row in qs.versus_common.items()]
    return lines


def report_markdown(qs: QuickstartResult) -> str:
    """The quickstart report (what the command prints at the end)."""
    algo = str(qs.train.get("algorithm", "grpo")).upper()
    lines = _headline(qs) + _kind_lines(qs)
    if qs.splits:
        lines += _split_lines(qs, algo)
    lines += _train_lines(qs)
    if qs.budget:
        ref = "warm start" if qs.warm else "base"
        lines += ["", f"the RL stage against its step budget ({ref} -> the checkpoint at each budget; --eval-every):", "",
                  render_budget(qs.budget)]
    lines += ["", "seconds: " + ", ".join(f"{k} {v}" for k, v in qs.seconds.items()), f"output: {qs.output_dir}"]
    return "\n".join(lines) + "\n"
