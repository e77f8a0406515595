"""The MolecularIQ report layout of the molecular families (their ``FamilyGroup.report`` hook).

Tables: overall and per task type (accuracy, success, pass@k, type validity), accuracy by pool
split, multitask load, Bertz complexity bin, SMILES presentation, feature category (single-feature
tasks) and per feature (key level). Summary paths start with ``molecules/``. Values are percentages.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from rlvr.eval.plots import grouped_bars, save
from rlvr.eval.stats import pass_at_k, pass_ks, success
from rlvr.eval.tables import collect, fmt, group_by, md_table, natural, pct, put, split_sort, task_answered
from rlvr.families.molecules.info import molecule_task_info
from rlvr.task import Task

Record = Mapping[str, Any]
Scored = tuple[Record, dict[str, float]]

#: the MolecularIQ task type of each family
TASK_TYPES = {"mol.count": "count", "mol.index": "index", "mol.gen": "generation"}
#: column order of task types
TYPE_ORDER = ("count", "index", "generation")


def key_results(rollout: Record, keys: Sequence[str]) -> dict[str, bool]:
    """Per-key correctness of a molecular rollout from its Verdict.metrics (empty when not reported)."""
    metrics = rollout.get("metrics") or {}
    for container in ("per_key", "keys", "key_correct", "per_key_correct", "results"):
        value = metrics.get(container)
        if isinstance(value, Mapping):
            out = {}
            for k, v in value.items():
                if isinstance(v, Mapping):
                    v = v.get("correct", v.get("ok"))
                if isinstance(v, (bool, int, float)):
                    out[str(k)] = bool(v)
            if out:
                return out
    out = {}
    for k in keys:
        v = metrics.get(k)
        if isinstance(v, (bool, int, float)):
            out[k] = bool(v)
    return out


def type_valid(rollout: Record) -> float | None:
    """1.0 / 0.0 when the verdict reports whether the answer had the right types, else None."""
    value = (rollout.get("metrics") or {}).get("type_valid")
    if isinstance(value, (bool, int, float)):
        return float(bool(value))
    return None


def molecule_task_scores(rec: Record, ks: Sequence[int]) -> dict[str, float]:
    """Accuracy (mean over rollouts), success, pass@k and type validity of one molecular task."""
    correct = [bool(r.get("correct")) for r in rec["rollouts"]]
    n, c = len(correct), sum(correct)
    scores = {"accuracy": c / n, "success": float(success(correct))}
    for k in ks:
        if k <= n:
            scores[f"pass@{k}"] = pass_at_k(n, c, k)
    tv = [t for t in (type_valid(r) for r in rec["rollouts"]) if t is not None]
    if tv:
        scores["type_valid"] = sum(tv) / len(tv)
    return scores


def _category_groups(scored: Sequence[Scored]) -> dict[str, list]:
    """Single-feature tasks (load 1) grouped by their feature's category (MolecularIQ tables C4-C7)."""
    groups: dict[str, list] = defaultdict(list)
    for rec, s in scored:
        info = rec["info"]
        if info.get("load") not in (1, None) or len(info.get("features") or []) != 1:
            continue
        cat = (info.get("feature_categories") or {}).get(info["features"][0])
        if cat:
            groups[cat].append((rec, s))
    return dict(groups)


def _feature_of_key(key: str, features: Sequence[str]) -> str:
    for f in sorted(features, key=len, reverse=True):
        if key == f or key.startswith(f + "_") or key.startswith(f):
            return f
    for suffix in ("_count", "_index"):
        if key.endswith(suffix):
            return key[: -len(suffix)]
    return key


def feature_key_results(records: Sequence[Record]) -> dict[str, tuple[list[float], str | None]]:
    """Per feature: key-level correctness over every rollout that asked it (all loads), and its category."""
    hits: dict[str, list[float]] = defaultdict(list)
    cats: dict[str, str | None] = {}
    for rec in records:
        info = rec["info"]
        keys = info.get("keys") or []
        features = info.get("features") or []
        categories = info.get("feature_categories") or {}
        for rollout in rec["rollouts"]:
            reported: dict[str, bool] = {}
            for k, v in key_results(rollout, keys).items():
                base = k.split("#", 1)[0]
                reported[base] = reported.get(base, True) and v
            if keys:  # every asked key counts; one the verdict does not report as right is wrong
                results = {k: bool(reported.get(k, False)) for k in keys}
            else:
                results = reported
            for key, ok in results.items():
                feature = (info.get("key_features") or {}).get(key) or _feature_of_key(key, features)
                hits[feature].append(float(ok))
                cats.setdefault(feature, categories.get(feature))
    return {f: (v, cats.get(f)) for f, v in hits.items()}


#: the axes of the summary: name -> record -> group
_AXES: dict[str, Callable[[Record], Any]] = {
    "type": lambda r: r["info"].get("task_type"),
    "split": lambda r: r["split_group"],
    "load": lambda r: r["info"].get("load"),
    "complexity": lambda r: r["info"].get("complexity_bin"),
    "presentation": lambda r: r["info"].get("presentation"),
}


class MoleculesLayout:
    """The ``molecules`` report layout (see the module docstring)."""

    name = "molecules"
    #: what the quickstart report's columns mean for these families (:func:`rlvr.eval.layouts.metric_note`)
    metric_note = ("format ok = the completion has an <answer> block holding one JSON object; exact match = every "
                   "asked key has exactly the right value (a count the right integer, an index answer the exact "
                   "set of atoms, a generated molecule meeting every constraint); no partial credit per key")

    def task_group(self, task: Task) -> str:
        """The question kind a task belongs to in per-kind tables: its asked feature(s), joined by ``+``."""
        return "+".join(task.meta.get("features") or sorted(task.ground_truth))

    def task_info(self, task: Task) -> dict[str, Any]:
        """Task type, load, complexity bin, presentation, features (with categories) and asked keys."""
        return molecule_task_info(task, TASK_TYPES.get(task.family, task.family.split(".", 1)[-1]))

    # ------------------------------------------------------------------ summary
    def summarize(self, records: Sequence[Record], samples: int) -> dict[str, float]:
        out: dict[str, float] = {}
        ks = pass_ks(samples)
        scored = [(r, molecule_task_scores(r, ks)) for r in records]

        def put_group(prefix: str, items: Sequence[Scored], full: bool) -> None:
            put(out, f"{prefix}/accuracy", pct(s["accuracy"] for _, s in items), se=True)
            if full:
                put(out, f"{prefix}/answered", pct(task_answered(r) for r, _ in items))
                put(out, f"{prefix}/success", pct(s["success"] for _, s in items), se=True)
                for k in ks:
                    put(out, f"{prefix}/pass@{k}", pct(s[f"pass@{k}"] for _, s in items))
                tv = [s["type_valid"] for _, s in items if "type_valid" in s]
                if tv:
                    put(out, f"{prefix}/type_valid", pct(tv))

        put_group("molecules/overall", scored, True)
        for axis, fn in _AXES.items():
            for k, items in group_by(scored, lambda item: fn(item[0])).items():
                put_group(f"molecules/{axis}/{k}", items, axis in ("type", "split"))
                if axis != "type":
                    for t, sub in group_by(items, lambda item: item[0]["info"].get("task_type") or "None").items():
                        put(out, f"molecules/{axis}/{k}/{t}/accuracy", pct(s["accuracy"] for _, s in sub), se=True)
        for cat, items in _category_groups(scored).items():
            put_group(f"molecules/category/{cat}", items, False)
        for feature, (hits, _) in feature_key_results(records).items():
            put(out, f"molecules/feature/{feature}/accuracy", pct(hits))
        return out

    def split_summary(self, summary: Mapping[str, float]) -> dict[str, dict[str, float]]:
        """Accuracy and answered rate per pool split (``molecules easy`` ...) and overall (``molecules all``)."""
        out: dict[str, dict[str, float]] = {}
        for key, value in summary.items():
            parts = key.split("/")
            if key.endswith(("_se", "_n")):
                continue
            if parts[:2] == ["molecules", "split"] and len(parts) == 4:
                out.setdefault(f"molecules {parts[2]}", {})[parts[3]] = value
            elif parts[:2] == ["molecules", "overall"] and len(parts) == 3:
                out.setdefault("molecules all", {})[parts[2]] = value
        return out

    # ------------------------------------------------------------------ markdown
    def render(self, records: Sequence[Record], samples: int) -> str:
        ks = pass_ks(samples)
        scored = [(r, molecule_task_scores(r, ks)) for r in records]
        parts = [f"## Molecular structure\n\nAccuracy: mean over {samples} rollout(s) per task, ± standard error across "
                 "tasks; success: at least 2 of 3 rollouts correct (>= 2/3 of K); pass@k: unbiased estimator.\n"]

        def row_for(label: Any, items: Sequence[Scored]) -> list[Any]:
            acc = pct(s["accuracy"] for _, s in items)
            row = [label, len(items), fmt(acc[0], acc[1]), fmt(pct(s["success"] for _, s in items)[0])]
            row += [fmt(pct(s[f"pass@{k}"] for _, s in items)[0]) for k in ks]
            tv = [s["type_valid"] for _, s in items if "type_valid" in s]
            row.append(fmt(pct(tv)[0]) if tv else "–")
            return row

        headers = ["", "n", "accuracy", "success"] + [f"pass@{k}" for k in ks] + ["type-valid"]
        by_type = group_by(scored, lambda item: item[0]["info"].get("task_type"))
        types = [t for t in TYPE_ORDER if t in by_type] + [t for t in by_type if t not in TYPE_ORDER]
        rows = [row_for(t, by_type[t]) for t in types] + [row_for("**all**", scored)]
        parts.append("### Overall and by task type (%)\n\n" + md_table(["Task type"] + headers[1:], rows))

        def axis_table(title: str, axis: str, fn: Callable[[Record], Any], items: Sequence[Scored] | None = None) -> None:
            groups = group_by(items if items is not None else scored, lambda item: fn(item[0]))
            if not groups:
                return
            rows = []
            for k in sorted(groups, key=lambda x: split_sort(str(x)) if axis == "Split" else natural(x)):
                sub = groups[k]
                row = [k]
                for t in types:
                    tsub = [s for s in sub if s[0]["info"].get("task_type") == t]
                    row.append(fmt(*pct(s["accuracy"] for _, s in tsub)[:2]) if tsub else "–")
                acc = pct(s["accuracy"] for _, s in sub)
                rows.append(row + [fmt(acc[0], acc[1]), len(sub)])
            parts.append(f"### Accuracy by {title} (%)\n\n" + md_table([axis] + types + ["all", "n"], rows))

        axis_table("pool split", "Split", _AXES["split"])
        axis_table("multitask load", "Load", _AXES["load"])
        axis_table("Bertz complexity bin", "Complexity", _AXES["complexity"])
        axis_table("SMILES presentation", "Presentation", _AXES["presentation"])
        cats = _category_groups(scored)
        if cats:
            axis_table("feature category (single-feature tasks)", "Category",
                       lambda r: (r["info"].get("feature_categories") or {}).get((r["info"].get("features") or [None])[0]),
                       [it for items in cats.values() for it in items])
        features = feature_key_results(records)
        if features:
            rows = []
            for feature, (hits, cat) in sorted(features.items(), key=lambda kv: (-pct(kv[1][0])[0], kv[0])):
                m = pct(hits)
                rows.append((feature, cat or "–", m[2], fmt(m[0], m[1])))
            parts.append("### Per feature (key-level, every load, %)\n\nA multitask answer is scored key by key here; "
                         "the task-level accuracy above needs every key right.\n\n"
                         + md_table(["Feature", "Category", "n", "accuracy"], rows))
        return "\n".join(parts)

    # ------------------------------------------------------------------ plots
    def plots(self, plt: Any, summary: Mapping[str, float], folder: Path) -> list[Path]:
        return [p for p in (self._splits_plot(plt, summary, folder), self._features_plot(plt, summary, folder)) if p]

    def _splits_plot(self, plt: Any, summary: Mapping[str, float], folder: Path) -> Path | None:
        cells = collect(summary, "molecules/split/")
        acc = {k: v for k, v in cells.items() if len(k) == 3 and k[2] == "accuracy"}
        if not acc:
            return None
        splits = sorted({k[0] for k in acc})
        types = [t for t in TYPE_ORDER if any(k[1] == t for k in acc)]
        series = {s: [acc.get((s, t, "accuracy"), 0.0) for t in types] + [summary.get(f"molecules/split/{s}/accuracy", 0.0)]
                  for s in splits}
        errors = {s: [summary.get(f"molecules/split/{s}/{t}/accuracy_se", 0.0) for t in types]
                  + [summary.get(f"molecules/split/{s}/accuracy_se", 0.0)] for s in splits}
        fig, ax = plt.subplots(figsize=(7, 4.2))
        grouped_bars(ax, types + ["all"], series, errors)
        ax.set_ylabel("accuracy (%)")
        ax.legend(title="pool", loc="upper center", ncol=len(splits), fontsize=8)
        ax.set_title("Molecular tasks: accuracy per task type and pool split (± SE)")
        return save(plt, fig, folder / "molecules_splits.png")

    def _features_plot(self, plt: Any, summary: Mapping[str, float], folder: Path) -> Path | None:
        cells = {k[0]: v for k, v in collect(summary, "molecules/feature/").items() if k[-1] == "accuracy"}
        if not cells:
            return None
        items = sorted(cells.items(), key=lambda kv: kv[1])[-60:]
        fig, ax = plt.subplots(figsize=(7, max(3, 0.22 * len(items) + 1)))
        ax.barh([k for k, _ in items], [v for _, v in items], color="tab:blue")
        ax.set_xlim(0, 105)
        ax.set_xlabel("key-level accuracy (%)")
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
        ax.set_title("Molecular tasks: accuracy per feature")
        return save(plt, fig, folder / "molecules_features.png")


#: the layout the molecular group reports with
LAYOUT = MoleculesLayout()
