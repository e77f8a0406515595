"""Tables of an evaluation: the ChemAlgebra and MolecularIQ layouts, a flat summary, and Markdown.

Everything here reads the per-task records of a run (task info + every rollout's :class:`Verdict`
fields); no check is re-implemented. Values are percentages.
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Callable, Iterable, Mapping, Sequence

from rlvr.eval.stats import mean_se, pass_at_k, pass_ks, success
from rlvr.task import Task

#: metric name in tables -> Verdict.metrics key
STOICH_METRICS = (("EM", "em"), ("JAC", "jaccard"), ("F1", "f1"))
MOLECULE_ONLY_METRICS = (("JAC", "mol_jaccard"), ("F1", "mol_f1"))
#: diagnostic columns of ChemAlgebra tables 6-9 (rates over valid predictions except VAL and ACC)
DIAGNOSTICS = (("BAL", "balanced"), ("DEF", "deficitary"), ("EXC", "exceeding"), ("D+E", "both"))
#: column order of split groups
SPLIT_ORDER = ("in", "cross", "out", "test", "valid", "valid_cross", "train", "train_cross", "easy", "hard")
TASK_TYPES = {"mol.count": "count", "mol.index": "index", "mol.gen": "generation"}
TYPE_ORDER = ("count", "index", "generation")
_STOICH_TYPES = {"stoich.t1": "T1", "stoich.t2": "T2"}


# ---------------------------------------------------------------------------------------------- task info


def _first(*values: Any) -> Any:
    for v in values:
        if v is not None and v != "":
            return v
    return None


def _presentation(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        if isinstance(value.get("name"), str):
            return value["name"]
        parts = [str(v) if not isinstance(v, bool) else (k if v else f"non-{k}") for k, v in value.items()]
        return "/".join(parts) if parts else None
    if isinstance(value, (list, tuple)):
        return "/".join(str(v) for v in value)
    return str(value)


def _features(meta: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    """Feature names and their categories from a molecular task's meta (several shapes accepted)."""
    raw = meta.get("features")
    names: list[str] = []
    categories: dict[str, str] = {}
    if isinstance(raw, Mapping):
        for name, value in raw.items():
            names.append(str(name))
            if isinstance(value, str):
                categories[str(name)] = value
            elif isinstance(value, Mapping) and value.get("category"):
                categories[str(name)] = str(value["category"])
    elif isinstance(raw, (list, tuple)):
        for item in raw:
            if isinstance(item, Mapping):
                name = _first(item.get("name"), item.get("feature"), item.get("key"))
                if name is None:
                    continue
                names.append(str(name))
                cat = _first(item.get("category"), item.get("group"))
                if cat is not None:
                    categories[str(name)] = str(cat)
            elif item is not None:
                names.append(str(item))
    elif isinstance(raw, str):
        names.append(raw)
    extra = _first(meta.get("feature_categories"), meta.get("categories"))
    if isinstance(extra, Mapping):
        categories.update({str(k): str(v) for k, v in extra.items()})
    elif isinstance(extra, (list, tuple)) and len(extra) == len(names):
        categories.update({n: str(c) for n, c in zip(names, extra)})
    return names, categories


def _asked_keys(task: Task) -> list[str]:
    gt = task.ground_truth or {}
    constraints = gt.get("constraints")
    if isinstance(constraints, list):
        return [str(c.get("key")) for c in constraints if isinstance(c, Mapping) and c.get("key") is not None]
    return [str(k) for k in gt]


def _key_features(keys: Sequence[str]) -> dict[str, tuple[str, str | None]]:
    """Task key -> (feature name, category) from the molecular feature table, when it knows the key."""
    try:
        from rlvr.chem.molecules.features import spec_for_key
    except ImportError:
        return {}
    out: dict[str, tuple[str, str | None]] = {}
    for key in keys:
        try:
            spec = spec_for_key(key)
        except (KeyError, ValueError):
            continue
        out[key] = (spec.name, spec.category)
    return out


def task_info(task: Task) -> dict[str, Any]:
    """The grouping fields of a task (missing optional meta keys give None)."""
    meta = task.meta or {}
    config = meta.get("config") if isinstance(meta.get("config"), Mapping) else {}
    family = task.family
    if family.startswith("stoich."):
        from rlvr.eval.stereo import stereo_flag

        reaction = meta.get("reaction") if isinstance(meta.get("reaction"), Mapping) else {}
        aug = _first(meta.get("augmentation"), config.get("augmentation"))
        if isinstance(aug, (int, float)) and not isinstance(aug, bool):
            aug = f"x{int(aug)}"
        return {
            "domain": "stoich",
            "encoding": _first(meta.get("encoding"), config.get("encoding")),
            "type": _STOICH_TYPES.get(family),
            "augmentation": aug,
            "semantics": _first(meta.get("semantics"), config.get("semantics")),
            "prompt_mode": _first(meta.get("prompt_mode"), config.get("prompt_mode")),
            "reaction_class": _first(meta.get("reaction_class"), reaction.get("reaction_class"), reaction.get("class")),
            "stereo": stereo_flag(task),
        }
    if family.startswith("mol."):
        names, categories = _features(meta)
        keys = _asked_keys(task)
        key_features = _key_features(list(dict.fromkeys([*keys, *names])))
        for key, (feature, category) in key_features.items():
            if category:
                categories.setdefault(feature, categories.get(key) or category)
        # meta may list task keys (``ring_count``) or feature names (``ring``): report feature names
        names = list(dict.fromkeys(key_features[n][0] if n in key_features else n for n in names))
        if not names:
            names = list(dict.fromkeys(f for f, _ in key_features.values()))
        load = _first(meta.get("load"), config.get("load"))
        if load is None and names:
            load = len(names)
        return {
            "domain": "molecules",
            "task_type": TASK_TYPES.get(family, family.split(".", 1)[-1]),
            "load": load,
            "complexity_bin": _first(meta.get("complexity_bin"), meta.get("bertz_bin")),
            "presentation": _presentation(meta.get("presentation")),
            "features": names,
            "feature_categories": categories,
            "keys": keys,
            "key_features": {k: f for k, (f, _) in key_features.items()},
        }
    return {"domain": "other"}


# ---------------------------------------------------------------------------------------------- per-task scores


def _metric_value(rollout: Mapping[str, Any], key: str) -> float:
    """A rollout's metric; a verdict without it counts 1 when correct, 0 otherwise."""
    value = (rollout.get("metrics") or {}).get(key)
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return 1.0 if rollout.get("correct") else 0.0


def task_metric(record: Mapping[str, Any], key: str) -> float:
    """Mean of a metric over the record's rollouts (``correct`` for ``key == "correct"``)."""
    rollouts = record["rollouts"]
    if key == "correct":
        return sum(bool(r.get("correct")) for r in rollouts) / len(rollouts)
    return sum(_metric_value(r, key) for r in rollouts) / len(rollouts)


#: verdict reasons meaning "no answer could be extracted" (the rest had an answer, right or wrong)
NO_ANSWER_REASONS = frozenset({"no_answer", "too_long", "not_text"})


def task_answered(record: Mapping[str, Any]) -> float:
    """Share of a task's rollouts with an extractable answer (format compliance)."""
    rollouts = record["rollouts"]
    return sum(r.get("reason") not in NO_ANSWER_REASONS for r in rollouts) / len(rollouts)


def _has_metric(records: Iterable[Mapping[str, Any]], key: str) -> bool:
    return any(key in (r.get("metrics") or {}) for rec in records for r in rec["rollouts"])


def _valid_rollouts(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [r for r in record["rollouts"] if (r.get("metrics") or {}).get("valid")]


def diagnostic_rate(records: Sequence[Mapping[str, Any]], key: str) -> tuple[float, int]:
    """Rate (%) of ``key`` among valid predictions (rollouts) and how many valid predictions there were."""
    valid = [r for rec in records for r in _valid_rollouts(rec)]
    if not valid:
        return float("nan"), 0
    return 100.0 * sum(bool((r.get("metrics") or {}).get(key)) for r in valid) / len(valid), len(valid)


def key_results(rollout: Mapping[str, Any], keys: Sequence[str]) -> dict[str, bool]:
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


def type_valid(rollout: Mapping[str, Any]) -> float | None:
    value = (rollout.get("metrics") or {}).get("type_valid")
    if isinstance(value, (bool, int, float)):
        return float(bool(value))
    return None


# ---------------------------------------------------------------------------------------------- grouping


def group_by(records: Iterable[Mapping[str, Any]], key: Callable[[Mapping[str, Any]], Any]) -> dict[Any, list]:
    groups: dict[Any, list] = defaultdict(list)
    for rec in records:
        k = key(rec)
        if k is not None:
            groups[k].append(rec)
    return dict(groups)


def _natural(value: Any) -> tuple[float, str]:
    """Sort key putting ``2`` before ``10`` and ``250-1000`` before ``1000-inf``."""
    import re

    m = re.match(r"\s*(\d+(?:\.\d+)?)", str(value))
    return (float(m.group(1)) if m else float("inf"), str(value))


def _split_sort(group: str) -> tuple[int, str]:
    return (SPLIT_ORDER.index(group) if group in SPLIT_ORDER else len(SPLIT_ORDER), group)


def _pct(values: Iterable[float]) -> tuple[float, float, int]:
    m, se, n = mean_se(values)
    return 100.0 * m, 100.0 * se, n


def _variant(rec: Mapping[str, Any]) -> str:
    info = rec["info"]
    parts = [str(info.get("encoding") or "?"), str(info.get("type") or rec["family"]), str(info.get("augmentation") or "")]
    return " ".join(p for p in parts if p)


def _family_variant(rec: Mapping[str, Any]) -> str:
    enc = rec["info"].get("encoding")
    return f"{rec['family']} {enc}" if enc else rec["family"]


def molecule_task_scores(rec: Mapping[str, Any], ks: Sequence[int]) -> dict[str, float]:
    """Accuracy (mean over rollouts), success, pass@k and type validity of one molecular task."""
    correct = [bool(r.get("correct")) for r in rec["rollouts"]]
    n, c = len(correct), sum(correct)
    scores = {"accuracy": c / n, "success": float(success(correct))}
    for k in ks:
        if k <= n:
            scores[f"pass@{k}"] = pass_at_k(n, c, k)
    tv = [type_valid(r) for r in rec["rollouts"]]
    tv = [t for t in tv if t is not None]
    if tv:
        scores["type_valid"] = sum(tv) / len(tv)
    return scores


# ---------------------------------------------------------------------------------------------- summary


def summarize(records: Sequence[Mapping[str, Any]], samples: int) -> dict[str, float]:
    """A flat ``{path: value in %}`` of every table cell (the unit of ``rlvr eval compare``).

    Standard errors are stored under ``<path>_se`` where they exist; task counts under ``<path>_n``.
    """
    out: dict[str, float] = {}
    stoich = [r for r in records if r["info"].get("domain") == "stoich"]
    mols = [r for r in records if r["info"].get("domain") == "molecules"]
    if stoich:
        _summarize_stoich(stoich, out)
    if mols:
        _summarize_molecules(mols, samples, out)
    return out


def _put(out: dict[str, float], path: str, stat: tuple[float, float, int], se: bool = False) -> None:
    mean, err, n = stat
    if n == 0:
        return
    out[path] = round(mean, 4)
    if se:
        out[path + "_se"] = round(err, 4)
    out[path + "_n"] = n


def _summarize_stoich(records: Sequence[Mapping[str, Any]], out: dict[str, float]) -> None:
    typed = [r for r in records if r["info"].get("type")]
    for (variant, group), recs in group_by(typed, lambda r: (_variant(r), r["split_group"])).items():
        for name, key in STOICH_METRICS:
            _put(out, f"stoich/table4/{variant}/{group}/{name}", _pct(task_metric(r, key) for r in recs))
        for name, key in MOLECULE_ONLY_METRICS:
            if _has_metric(recs, key):
                _put(out, f"stoich/table10/{variant}/{group}/{name}", _pct(task_metric(r, key) for r in recs))
    for group, recs in group_by(records, lambda r: r["split_group"]).items():
        for name, key in (*STOICH_METRICS, ("ACC", "correct")):
            _put(out, f"stoich/overall/{group}/{name}", _pct(task_metric(r, key) for r in recs), se=True)
        _put(out, f"stoich/overall/{group}/answered", _pct(task_answered(r) for r in recs))
    for (fam, group), recs in group_by(records, lambda r: (_family_variant(r), r["split_group"])).items():
        base = f"stoich/diagnostics/{fam}/{group}"
        _put(out, f"{base}/ACC", _pct(task_metric(r, "correct") for r in recs))
        for name, key in STOICH_METRICS:
            _put(out, f"{base}/{name}", _pct(task_metric(r, key) for r in recs))
        if _has_metric(recs, "valid"):
            _put(out, f"{base}/VAL", _pct(task_metric(r, "valid") for r in recs))
            for name, key in DIAGNOSTICS:
                rate, n = diagnostic_rate(recs, key)
                if n:
                    out[f"{base}/{name}"] = round(rate, 4)
    for cls, recs in group_by(records, lambda r: r["info"].get("reaction_class")).items():
        for name, key in (("EM", "em"), ("F1", "f1")):
            _put(out, f"stoich/class/{cls}/{name}", _pct(task_metric(r, key) for r in recs))
        for fam, sub in group_by(recs, lambda r: _short_family(r["family"])).items():
            _put(out, f"stoich/class/{cls}/{fam}/EM", _pct(task_metric(r, "em") for r in sub))
    for (flag, fam), recs in group_by(records, lambda r: (_stereo_label(r["info"].get("stereo")),
                                                          _short_family(r["family"]))).items():
        for name, key in (("EM", "em"), ("F1", "f1")):
            _put(out, f"stoich/stereo/{flag}/{fam}/{name}", _pct(task_metric(r, key) for r in recs))


_FAMILY_ORDER = ("stoich.t1", "stoich.t2", "stoich.balance", "stoich.byproduct")


def _family_sort(family: str) -> tuple[int, str]:
    return (_FAMILY_ORDER.index(family) if family in _FAMILY_ORDER else len(_FAMILY_ORDER), family)


def _short_family(family: str) -> str:
    return family.split(".", 1)[-1]


def _stereo_label(flag: Any) -> str:
    return "unknown" if flag is None else ("stereo" if flag else "no-stereo")


def _summarize_molecules(records: Sequence[Mapping[str, Any]], samples: int, out: dict[str, float]) -> None:
    ks = pass_ks(samples)
    scored = [(r, molecule_task_scores(r, ks)) for r in records]

    def put_group(prefix: str, items: Sequence[tuple[Mapping[str, Any], dict[str, float]]], full: bool) -> None:
        _put(out, f"{prefix}/accuracy", _pct(s["accuracy"] for _, s in items), se=True)
        if full:
            _put(out, f"{prefix}/answered", _pct(task_answered(r) for r, _ in items))
            _put(out, f"{prefix}/success", _pct(s["success"] for _, s in items), se=True)
            for k in ks:
                _put(out, f"{prefix}/pass@{k}", _pct(s[f"pass@{k}"] for _, s in items))
            tv = [s["type_valid"] for _, s in items if "type_valid" in s]
            if tv:
                _put(out, f"{prefix}/type_valid", _pct(tv))

    put_group("molecules/overall", scored, True)
    axes: dict[str, Callable[[Mapping[str, Any]], Any]] = {
        "type": lambda r: r["info"].get("task_type"),
        "split": lambda r: r["split_group"],
        "load": lambda r: r["info"].get("load"),
        "complexity": lambda r: r["info"].get("complexity_bin"),
        "presentation": lambda r: r["info"].get("presentation"),
    }
    for axis, fn in axes.items():
        groups: dict[Any, list] = defaultdict(list)
        for item in scored:
            k = fn(item[0])
            if k is not None:
                groups[k].append(item)
        for k, items in groups.items():
            put_group(f"molecules/{axis}/{k}", items, axis in ("type", "split"))
            if axis != "type":
                by_type: dict[str, list] = defaultdict(list)
                for item in items:
                    by_type[item[0]["info"].get("task_type")].append(item)
                for t, sub in by_type.items():
                    _put(out, f"molecules/{axis}/{k}/{t}/accuracy", _pct(s["accuracy"] for _, s in sub), se=True)
    for cat, items in _category_groups(scored).items():
        put_group(f"molecules/category/{cat}", items, False)
    for feature, (hits, cat) in feature_key_results(records).items():
        _put(out, f"molecules/feature/{feature}/accuracy", _pct(hits))


def _category_groups(scored: Sequence[tuple[Mapping[str, Any], dict[str, float]]]) -> dict[str, list]:
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


def feature_key_results(records: Sequence[Mapping[str, Any]]) -> dict[str, tuple[list[float], str | None]]:
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


# ---------------------------------------------------------------------------------------------- markdown


def md_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub Markdown table."""
    lines = ["| " + " | ".join(str(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def fmt(value: float | None, se: float | None = None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if se is not None and not math.isnan(se) and se > 0:
        return f"{value:.1f} ± {se:.1f}"
    return f"{value:.2f}"


def render_report(results: Mapping[str, Any]) -> str:
    """The Markdown report of a results dict (as written to results.json)."""
    records = results.get("tasks", [])
    samples = int(results.get("samples", 1))
    es = results.get("eval_set", {})
    timing = results.get("timing", {})
    lines = [
        "# Evaluation report\n",
        md_table(["field", "value"], [
            ("model", results.get("model") or "—"),
            ("adapter", results.get("adapter") or "—"),
            ("backend", results.get("backend")),
            ("eval set", f"{es.get('version')} ({es.get('n_tasks')} tasks, seed {es.get('seed')})"),
            ("rollouts per task", samples),
            ("max new tokens", (results.get("config") or {}).get("max_new_tokens")),
            ("generation time (s)", timing.get("generation_seconds_total")),
            ("tokens / s", timing.get("tokens_per_second") or "—"),
        ]),
    ]
    stoich = [r for r in records if r["info"].get("domain") == "stoich"]
    mols = [r for r in records if r["info"].get("domain") == "molecules"]
    if stoich:
        lines.append(render_stoich(stoich))
    if mols:
        lines.append(render_molecules(mols, samples))
    if records:
        lines.append(render_reasons(records))
    return "\n".join(lines)


def _cell(recs: Sequence[Mapping[str, Any]] | None, key: str) -> str:
    if not recs:
        return "–"
    return fmt(_pct(task_metric(r, key) for r in recs)[0])


def render_reasons(records: Sequence[Mapping[str, Any]], max_columns: int = 8) -> str:
    """Share of verdict reasons per task family (``answered``: an answer could be extracted)."""
    from collections import Counter

    total: Counter = Counter(r.get("reason") for rec in records for r in rec["rollouts"])
    reasons = [k for k, _ in total.most_common(max_columns)]
    rows = []
    for fam, recs in sorted(group_by(records, lambda r: r["family"]).items()):
        counts: Counter = Counter(r.get("reason") for rec in recs for r in rec["rollouts"])
        n = sum(counts.values())
        answered = 100.0 * sum(v for k, v in counts.items() if k not in NO_ANSWER_REASONS) / n
        rows.append([fam, n, fmt(answered)] + [fmt(100.0 * counts.get(k, 0) / n) for k in reasons])
    return ("### Verdict reasons (% of rollouts)\n\n`answered`: an answer could be extracted (format compliance); "
            "`ok`: correct.\n\n" + md_table(["Task", "rollouts", "answered"] + reasons, rows))


def render_stoich(records: Sequence[Mapping[str, Any]]) -> str:
    """ChemAlgebra tables: Table 4 layout, Table 10 layout, diagnostics (6-9), reaction class, stereo."""
    parts = ["## Stoichiometry\n"]
    typed = [r for r in records if r["info"].get("type")]
    if typed:
        groups = sorted({r["split_group"] for r in typed}, key=_split_sort)
        cells = group_by(typed, lambda r: (_variant(r), r["split_group"]))
        variants = sorted({_variant(r) for r in typed})
        for title, metrics in (
            ("Table 4 layout: exact match (EM), Jaccard (JAC), F1 on molecules and coefficients (%)", STOICH_METRICS),
            ("Table 10 layout: molecule-only Jaccard and F1, coefficients ignored (%)", MOLECULE_ONLY_METRICS),
        ):
            if metrics is MOLECULE_ONLY_METRICS and not _has_metric(typed, "mol_jaccard"):
                continue
            headers = ["Encoding", "Type", "Aug."] + [f"{g} {m}" for g in groups for m, _ in metrics] + ["n"]
            rows = []
            for v in variants:
                sample = next(r for r in typed if _variant(r) == v)
                info = sample["info"]
                row = [info.get("encoding") or "?", info.get("type"), info.get("augmentation") or "–"]
                ns = []
                for g in groups:
                    recs = cells.get((v, g))
                    ns.append(str(len(recs or [])))
                    row.extend(_cell(recs, key) for _, key in metrics)
                rows.append(row + ["/".join(ns)])
            parts.append(f"### {title}\n\n" + md_table(headers, rows))
    fam_cells = group_by(records, lambda r: (_family_variant(r), r["split_group"]))
    has_valid = _has_metric(records, "valid")
    has_alo = _has_metric(records, "alo")
    headers = ["Task", "Split", "n", "VAL", "ACC", "EM", "JAC", "F1"] + (["ALO"] if has_alo else []) + [n for n, _ in DIAGNOSTICS]
    rows = []
    for (fam, group), recs in sorted(fam_cells.items(), key=lambda kv: (kv[0][0], _split_sort(kv[0][1]))):
        row = [fam, group, len(recs), _cell(recs, "valid") if has_valid else "–", _cell(recs, "correct")]
        row += [_cell(recs, key) for _, key in STOICH_METRICS]
        if has_alo:
            row.append(_cell(recs, "alo"))
        for _, key in DIAGNOSTICS:
            rate, n = diagnostic_rate(recs, key)
            row.append(fmt(rate) if n else "–")
        rows.append(row)
    parts.append(
        "### Diagnostic rates (Tables 6-9 layout, %)\n\nVAL: parsable, valid prediction; ACC: verdict correct; "
        "BAL / DEF / EXC / D+E: balanced, deficitary, exceeding, both, as a share of the valid predictions.\n\n"
        + md_table(headers, rows)
    )
    classes = group_by(records, lambda r: r["info"].get("reaction_class"))
    if classes:
        fams = sorted({r["family"] for r in records}, key=_family_sort)
        rows = []
        for cls, recs in sorted(classes.items(), key=lambda kv: (-len(kv[1]), str(kv[0]))):
            by_fam = group_by(recs, lambda r: r["family"])
            row = [cls, len(recs)] + [_cell(by_fam.get(f), "em") for f in fams]
            rows.append(row + [_cell(recs, "em"), _cell(recs, "f1")])
        parts.append(
            "### By reaction class (%)\n\nEM per task family, then EM and F1 over all of them.\n\n"
            + md_table(["Reaction class", "n"] + [f"{_short_family(f)} EM" for f in fams] + ["all EM", "all F1"], rows)
        )
    stereo = group_by(records, lambda r: (_stereo_label(r["info"].get("stereo")), _short_family(r["family"]), r["split_group"]))
    if any(k[0] != "unknown" for k in stereo):
        rows = [
            (flag, fam, group, len(recs), _cell(recs, "em"), _cell(recs, "jaccard"), _cell(recs, "f1"), _cell(recs, "correct"))
            for (flag, fam, group), recs in sorted(
                stereo.items(), key=lambda kv: (kv[0][0], _family_sort("stoich." + kv[0][1]), _split_sort(kv[0][2])))
        ]
        parts.append(
            "### Products with stereocentres (stereo-accuracy subset, %)\n\n`stereo`: some reference product has a "
            "stereocentre (the task's flag, or RDKit `FindMolChiralCenters` with unassigned centres on the SMILES "
            "products); `unknown`: no way to tell.\n\n"
            + md_table(["Products", "Task", "Split", "n", "EM", "JAC", "F1", "ACC"], rows)
        )
    return "\n".join(parts)


def render_molecules(records: Sequence[Mapping[str, Any]], samples: int) -> str:
    """MolecularIQ tables: overall, task type, load, complexity, split, presentation, category, feature."""
    ks = pass_ks(samples)
    scored = [(r, molecule_task_scores(r, ks)) for r in records]
    parts = [f"## Molecular structure\n\nAccuracy: mean over {samples} rollout(s) per task, ± standard error across "
             "tasks; success: at least 2 of 3 rollouts correct (>= 2/3 of K); pass@k: unbiased estimator.\n"]

    def row_for(label: Any, items: Sequence) -> list[Any]:
        acc = _pct(s["accuracy"] for _, s in items)
        row = [label, len(items), fmt(acc[0], acc[1]), fmt(_pct(s["success"] for _, s in items)[0])]
        row += [fmt(_pct(s[f"pass@{k}"] for _, s in items)[0]) for k in ks]
        tv = [s["type_valid"] for _, s in items if "type_valid" in s]
        row.append(fmt(_pct(tv)[0]) if tv else "–")
        return row

    headers = ["", "n", "accuracy", "success"] + [f"pass@{k}" for k in ks] + ["type-valid"]
    by_type = group_by(scored, lambda item: item[0]["info"].get("task_type"))
    rows = [row_for(t, by_type[t]) for t in TYPE_ORDER if t in by_type]
    rows += [row_for(t, v) for t, v in by_type.items() if t not in TYPE_ORDER]
    rows.append(row_for("**all**", scored))
    parts.append("### Overall and by task type (%)\n\n" + md_table(["Task type"] + headers[1:], rows))
    types = [t for t in TYPE_ORDER if t in by_type] + [t for t in by_type if t not in TYPE_ORDER]

    def axis_table(title: str, axis: str, fn: Callable[[Mapping[str, Any]], Any], items: Sequence | None = None) -> None:
        groups = group_by(items if items is not None else scored, lambda item: fn(item[0]))
        if not groups:
            return
        rows = []
        for k in sorted(groups, key=lambda x: _split_sort(str(x)) if axis == "Split" else _natural(x)):
            sub = groups[k]
            row = [k]
            for t in types:
                tsub = [s for s in sub if s[0]["info"].get("task_type") == t]
                row.append(fmt(*_pct(s["accuracy"] for _, s in tsub)[:2]) if tsub else "–")
            acc = _pct(s["accuracy"] for _, s in sub)
            rows.append(row + [fmt(acc[0], acc[1]), len(sub)])
        parts.append(f"### Accuracy by {title} (%)\n\n" + md_table([axis] + types + ["all", "n"], rows))

    axis_table("pool split", "Split", lambda r: r["split_group"])
    axis_table("multitask load", "Load", lambda r: r["info"].get("load"))
    axis_table("Bertz complexity bin", "Complexity", lambda r: r["info"].get("complexity_bin"))
    axis_table("SMILES presentation", "Presentation", lambda r: r["info"].get("presentation"))
    cats = _category_groups(scored)
    if cats:
        axis_table("feature category (single-feature tasks)", "Category",
                   lambda r: (r["info"].get("feature_categories") or {}).get((r["info"].get("features") or [None])[0]),
                   [it for items in cats.values() for it in items])
    features = feature_key_results(records)
    if features:
        rows = []
        for feature, (hits, cat) in sorted(features.items(), key=lambda kv: (-_pct(kv[1][0])[0], kv[0])):
            m = _pct(hits)
            rows.append((feature, cat or "–", m[2], fmt(m[0], m[1])))
        parts.append("### Per feature (key-level, every load, %)\n\nA multitask answer is scored key by key here; "
                     "the task-level accuracy above needs every key right.\n\n"
                     + md_table(["Feature", "Category", "n", "accuracy"], rows))
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------- before / after


def _summary_of(result: Any) -> tuple[dict[str, float], str]:
    from pathlib import Path

    if hasattr(result, "summary") and hasattr(result, "results"):
        res = result.results
    elif isinstance(result, Mapping):
        res = result
    else:
        from rlvr.eval.runner import load_results

        res = load_results(Path(result))
    label = res.get("adapter") or res.get("model") or res.get("backend") or "?"
    return dict(res.get("summary", {})), str(label)


def split_summary(result: Any) -> dict[str, dict[str, float]]:
    """``{split group: {metric: value}}`` of a run: stoichiometry EM/JAC/F1/ACC/answered pooled over
    variants (in / cross / out for T1/T2, test for balance and byproduct), molecular accuracy and
    answered rate per pool split (easy / hard) and overall."""
    summary, _ = _summary_of(result)
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for key, value in summary.items():
        parts = key.split("/")
        if key.endswith(("_se", "_n")):
            continue
        if parts[:2] == ["stoich", "overall"] and len(parts) == 4:
            out[f"stoich {parts[2]}"][parts[3]] = value
        elif parts[:2] == ["molecules", "split"] and len(parts) == 4:
            out[f"molecules {parts[2]}"][parts[3]] = value
        elif parts[:2] == ["molecules", "overall"] and len(parts) == 3:
            out["molecules all"][parts[2]] = value
    return dict(out)


def before_after_table(
    before: Any,
    after: Any,
    metrics: Sequence[str] = ("EM", "JAC", "F1", "accuracy", "answered"),
) -> str:
    """A compact Markdown table of two runs (EvalResult, results dict or path), one row per split.

    Columns: for each metric present, before, after and the difference in percentage points.
    """
    a, b = split_summary(before), split_summary(after)
    splits = sorted(set(a) | set(b), key=lambda s: (s.split(" ")[0], _split_sort(s.split(" ", 1)[1])))
    present = [m for m in metrics if any(m in a.get(s, {}) or m in b.get(s, {}) for s in splits)]
    headers = ["Split"] + [f"{m} {w}" for m in present for w in ("before", "after", "Δ")]
    rows = []
    for s in splits:
        row: list[Any] = [s]
        for m in present:
            va, vb = a.get(s, {}).get(m), b.get(s, {}).get(m)
            row += [fmt(va), fmt(vb), f"{vb - va:+.2f}" if va is not None and vb is not None else "–"]
        rows.append(row)
    return md_table(headers, rows)
