"""What ``rlvr quickstart`` reports: the result object, the per-split table and the printed report, over the
stages a run had (the base model, the warm start, then each arm)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Sequence

from rlvr.eval.layouts import metric_note
from rlvr.quickstart.claims import Claims, is_tuning_split, label, render_claims
from rlvr.quickstart.kinds import render_by_kind
from rlvr.quickstart.scores import SplitScore, order_splits
from rlvr.quickstart.step_scan import render_budget

#: the score fields of the table: (field, header)
TABLE_FIELDS = (("exact_match", "exact match %"), ("f1", "F1 %"), ("format_ok", "format ok %"))


@dataclass
class QuickstartResult:
    """Every stage's scores (``stages`` in run order; ``treated``: the arm the primary test is about), the paired
    tests, the arms' budgets, the measurements, and where everything was written."""

    output_dir: str
    stages: list[str]
    scores: dict[str, dict[str, SplitScore]]
    train: dict[str, Any]
    treated: str = "rl"
    seconds: dict[str, float] = field(default_factory=dict)
    table: str = ""
    splits: dict[str, Any] = field(default_factory=dict)
    base_cache: str | None = None
    budget: list[dict[str, Any]] = field(default_factory=list)
    claims: Claims | None = None
    by_kind: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    versus_common: dict[str, dict[str, Any]] = field(default_factory=dict)
    arms: dict[str, dict[str, Any]] = field(default_factory=dict)
    measures: dict[str, Any] = field(default_factory=dict)
    #: per eval set: tasks, distinct items (reactions, molecules), their noun and the split's pool
    eval_sets: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def before(self) -> dict[str, SplitScore]:
        """The base model's scores."""
        return self.scores["base"]

    @property
    def after(self) -> dict[str, SplitScore]:
        """The treated arm's scores."""
        return self.scores[self.treated]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``quickstart.json``)."""
        d = asdict(self)
        d["claims"] = self.claims.to_dict() if self.claims else {}
        return d


def render_table(scores: Mapping[str, Mapping[str, SplitScore]]) -> str:
    """A Markdown table: per split, exact match, F1 and format share of every stage in run order (percent,
    ``a / b / c``), the stages named in the header."""
    stages = list(scores)
    names = " / ".join(label(s) for s in stages)
    headers = ["split", "n", *(f"{title}: {names}" for _, title in TABLE_FIELDS)]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for split in order_splits(list(dict.fromkeys(s for by_split in scores.values() for s in by_split))):
        cells = [split, str(next((sc[split].n for sc in scores.values() if split in sc), 0))]
        for attr, _ in TABLE_FIELDS:
            cells.append(" / ".join(f"{100 * getattr(sc[split], attr):.1f}" if split in sc else "–" for sc in scores.values()))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _count(value: Any) -> str:
    """A token count as a whole number (TRL logs it as a float), or n/a."""
    return "n/a" if value is None else f"{int(round(float(value))):,}"


def arm_lines(arms: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per arm: what it trained on, its optimizer steps, trained and generated tokens, minutes."""
    lines = []
    for name, b in arms.items():
        if name == "rl":
            what = f"{b['steps']} steps x {b['prompts_per_step']} prompts x {b['completions_per_prompt']} completions"
        elif name == "rft":
            what = (f"kept {b['kept_rows']} of {b['sampled_completions']} completions sampled at temperature {b['temperature']:g} "
                    f"on RL's {b['sampled_prompts']} prompts; {b['steps']} steps x {b['rows_per_step']} rows")
        else:
            what = f"{b['steps']} steps x {b.get('rows_per_step', '?')} rows" + (f" (match: {b['match']})" if b.get("match") else "")
        lines.append(f"  {label(name)}: {what}; trained completions {b.get('trained_completions', 'n/a')}, trained tokens "
                     f"{_count(b.get('trained_tokens'))}, generated tokens {_count(b.get('generated_tokens'))}, "
                     f"{float(b.get('seconds') or 0) / 60:.1f} min"
                     + (f" ({float(b['sampling_seconds']) / 60:.1f} of them sampling)" if b.get("sampling_seconds") else "")
                     + skipped_note(b.get("skipped_steps")))
    if len(arms) > 1:
        lines.append("  matched: optimizer steps and rows per step (step- and row-matched); generation is not matched")
    return lines


def skipped_note(steps: Sequence[int] | None) -> str:
    """``; optimizer steps skipped for non-finite gradients: 13, 29`` for a stage that skipped some, else ``""``."""
    return f"; optimizer steps skipped for non-finite gradients: {', '.join(map(str, steps))}" if steps else ""


def _headline(qs: QuickstartResult) -> list[str]:
    t = qs.train
    ws = t.get("warm_start") or {}
    plateau = ws.get("plateau")
    stages = (f"warm start ({ws.get('steps')} SFT steps on verified worked solutions, loss {ws.get('first_loss') or 0:.2f} -> "
              f"{ws.get('last_loss') or 0:.2f}{'; plateau step ' + str(plateau.get('plateau_step')) if plateau else ''}"
              f"{skipped_note(ws.get('skipped_steps'))}), then "
              if ws else "")
    options = t["options"][0] if t.get("options") else {}
    rl = f", RL {t['steps']} steps at {t['seconds_per_step']:.1f} s/step" if "steps" in t else ""
    return [
        "# rlvr quickstart", "",
        f"{stages}{', '.join(label(a) for a in qs.arms)} on {', '.join(t['family'])} ({options}){rl}; rewards "
        f"{t['reward_funcs']} (mode {t['reward_mode']}).", "", "arms (each from the warm start):", *arm_lines(qs.arms), "",
        *(render_claims(qs.claims) + [""] if qs.claims else []),
        qs.table, "",
        metric_note(t["family"][0]) + ". Greedy decoding, the same tasks at every stage.", "",
        f"figure: {qs.output_dir}/quickstart.png (train curves; scores per split)",
    ]


def _split_lines(qs: QuickstartResult) -> list[str]:
    lines = ["", "paired tests per split (the same tasks at every stage; exact McNemar on exact match, exact",
             "Wilcoxon signed-rank on per-task reward; p uncorrected here, Holm-corrected in summary.json's secondary;",
             "valid* / train* sets are for tuning, listed last):"]
    for split, row in sorted(qs.splits.items(), key=lambda kv: is_tuning_split(kv[0])):
        ems = " | ".join(f"{label(s)} {100 * v['em']:.1f}" for s, v in row["stages"].items())
        lines.append(f"  {split} (n = {row['n']}): exact match % {ems}")
        for test in row["tests"].values():
            ref, treated = test["reference"], test["treated"]
            if ref == "base" and treated != qs.treated:  # base -> each control: in summary.json only
                continue
            r_ref, r_tr = row["stages"][ref].get("reward"), row["stages"][treated].get("reward")
            reward = f"{r_ref:.3f} -> {r_tr:.3f}" if r_ref is not None and r_tr is not None else "n/a"
            lines.append(f"      {label(ref)} -> {label(treated)}: exact match +{test['gained']} / -{test['lost']}, "
                         f"p = {test['p_value']:.3g}; reward {reward} ({test['better']} up, {test['worse']} down), "
                         f"p = {test['reward_p_value']:.3g}")
    lines.append(f"  machine-readable: {qs.output_dir}/summary.json")
    return lines


def measure_lines(measures: Mapping[str, Any]) -> list[str]:
    """pass@1 / pass@k per stage, retention per stage, and each arm's KL from the warm start."""
    lines: list[str] = []
    if "pass_at_k" in measures:
        m = measures["pass_at_k"]
        k = m["samples"]
        cells = "; ".join(f"{label(s)} {100 * v['pass@1']:.1f} / {100 * v[f'pass@{k}']:.1f}" for s, v in m["stages"].items())
        lines += ["", f"pass@1 / pass@{k} % at temperature {m['temperature']:g} on {m['set']} (n = "
                      f"{next(iter(m['stages'].values()))['n']}): {cells}"]
    if "retention" in measures:
        m = measures["retention"]
        cells = "; ".join(f"{label(s)} {100 * v['em']:.1f}" for s, v in m["stages"].items())
        lines.append(f"retention ({', '.join(m['families'])} {m['split']}, greedy exact match %): {cells}")
    if "kl" in measures:
        m = measures["kl"]
        cells = "; ".join(f"{label(s)} {v['kl_per_sequence']:.3f} per completion ({v['kl_per_token']:.4f} per token)"
                          for s, v in m["stages"].items())
        lines.append(f"KL from the warm start on the arm's own samples of {m['split']} prompts: {cells}")
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


def _set_lines(qs: QuickstartResult) -> list[str]:
    """One line: each eval set's tasks and the distinct reactions or molecules they are about (what a test counts)."""
    if not qs.eval_sets:
        return []
    parts = [f"{name} {s['size']} tasks / {s['items']} {s['noun']}s" + (f" (pool {s['pool']})" if s.get("pool") else "")
             for name, s in qs.eval_sets.items()]
    return ["", "eval sets (tasks / distinct items; no task twice): " + "; ".join(parts)]


def report_markdown(qs: QuickstartResult, budget_stages: Sequence[str] = ("warm", "base")) -> str:
    """The quickstart report (what the command prints at the end)."""
    lines = _headline(qs) + _set_lines(qs) + measure_lines(qs.measures) + _kind_lines(qs)
    if qs.splits:
        lines += _split_lines(qs)
    lines += _train_lines(qs)
    if qs.budget:
        ref = next((label(s) for s in budget_stages if s in qs.stages), "base")
        lines += ["", f"the RL stage against its step budget ({ref} -> the checkpoint at each budget; --eval-every):", "",
                  render_budget(qs.budget)]
    lines += ["", "seconds: " + ", ".join(f"{k} {v}" for k, v in qs.seconds.items()), f"output: {qs.output_dir}"]
    return "\n".join(lines) + "\n"
