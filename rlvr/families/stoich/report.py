"""The ChemAlgebra report layout of the stoichiometry families (their ``FamilyGroup.report`` hook).

Tables: Table 4 (EM / JAC / F1 per encoding, type and augmentation x split), Table 10 (molecule-only
Jaccard and F1), the diagnostic rates of Tables 6-9, accuracy by reaction class and the
stereocentre subset. Summary paths start with ``stoich/``. Values are percentages.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from rlvr.eval.plots import grouped_bars, save
from rlvr.eval.stereo import stereo_flag
from rlvr.eval.tables import (
    cell, collect, fmt, group_by, has_metric, md_table, pct, put, split_sort, task_answered, task_metric,
)
from rlvr.task import Task

Record = Mapping[str, Any]

#: metric name in tables -> Verdict.metrics key
STOICH_METRICS = (("EM", "em"), ("JAC", "jaccard"), ("F1", "f1"))
MOLECULE_ONLY_METRICS = (("JAC", "mol_jaccard"), ("F1", "mol_f1"))
#: diagnostic columns of ChemAlgebra tables 6-9 (rates over valid predictions except VAL and ACC)
DIAGNOSTICS = (("BAL", "balanced"), ("DEF", "deficitary"), ("EXC", "exceeding"), ("D+E", "both"))
#: the paper's type of each products family
TYPES = {"stoich.t1": "T1", "stoich.t2": "T2"}
#: row order of the families
FAMILY_ORDER = ("stoich.t1", "stoich.t2", "stoich.balance", "stoich.byproduct")


def _first(*values: Any) -> Any:
    for v in values:
        if v is not None and v != "":
            return v
    return None


def _short(family: str) -> str:
    return family.split(".", 1)[-1]


def _family_sort(family: str) -> tuple[int, str]:
    return (FAMILY_ORDER.index(family) if family in FAMILY_ORDER else len(FAMILY_ORDER), family)


def _short_sort(short: str) -> tuple[int, str]:
    order = [_short(f) for f in FAMILY_ORDER]
    return (order.index(short) if short in order else len(order), short)


def _stereo_label(flag: Any) -> str:
    return "unknown" if flag is None else ("stereo" if flag else "no-stereo")


def _variant(rec: Record) -> str:
    info = rec["info"]
    parts = [str(info.get("encoding") or "?"), str(info.get("type") or rec["family"]), str(info.get("augmentation") or "")]
    return " ".join(p for p in parts if p)


def _family_variant(rec: Record) -> str:
    enc = rec["info"].get("encoding")
    return f"{rec['family']} {enc}" if enc else rec["family"]


def diagnostic_rate(records: Sequence[Record], key: str) -> tuple[float, int]:
    """Rate (%) of ``key`` among valid predictions (rollouts) and how many valid predictions there were."""
    valid = [r for rec in records for r in rec["rollouts"] if (r.get("metrics") or {}).get("valid")]
    if not valid:
        return float("nan"), 0
    return 100.0 * sum(bool((r.get("metrics") or {}).get(key)) for r in valid) / len(valid), len(valid)


class StoichLayout:
    """The ``stoich`` report layout (see the module docstring)."""

    name = "stoich"
    metric_note = ("format ok = the completion has an <answer> block that parses; exact match = the whole product bag "
                   "is right; F1 = partial credit on (molecule, coefficient) counts")

    def task_info(self, task: Task) -> dict[str, Any]:
        """Encoding, type, augmentation, semantics, prompt mode, reaction class and stereo flag."""
        meta = task.meta or {}
        config = meta.get("config") if isinstance(meta.get("config"), Mapping) else {}
        reaction = meta.get("reaction") if isinstance(meta.get("reaction"), Mapping) else {}
        aug = _first(meta.get("augmentation"), config.get("augmentation"))
        if isinstance(aug, (int, float)) and not isinstance(aug, bool):
            aug = f"x{int(aug)}"
        return {
            "encoding": _first(meta.get("encoding"), config.get("encoding")),
            "type": TYPES.get(task.family),
            "augmentation": aug,
            "semantics": _first(meta.get("semantics"), config.get("semantics")),
            "prompt_mode": _first(meta.get("prompt_mode"), config.get("prompt_mode")),
            "reaction_class": _first(meta.get("reaction_class"), reaction.get("reaction_class"), reaction.get("class")),
            "stereo": stereo_flag(task),
        }

    # ------------------------------------------------------------------ summary
    def summarize(self, records: Sequence[Record], samples: int) -> dict[str, float]:
        out: dict[str, float] = {}
        typed = [r for r in records if r["info"].get("type")]
        for (variant, group), recs in group_by(typed, lambda r: (_variant(r), r["split_group"])).items():
            for name, key in STOICH_METRICS:
                put(out, f"stoich/table4/{variant}/{group}/{name}", pct(task_metric(r, key) for r in recs))
            for name, key in MOLECULE_ONLY_METRICS:
                if has_metric(recs, key):
                    put(out, f"stoich/table10/{variant}/{group}/{name}", pct(task_metric(r, key) for r in recs))
        for group, recs in group_by(records, lambda r: r["split_group"]).items():
            for name, key in (*STOICH_METRICS, ("ACC", "correct")):
                put(out, f"stoich/overall/{group}/{name}", pct(task_metric(r, key) for r in recs), se=True)
            put(out, f"stoich/overall/{group}/answered", pct(task_answered(r) for r in recs))
        for (fam, group), recs in group_by(records, lambda r: (_family_variant(r), r["split_group"])).items():
            base = f"stoich/diagnostics/{fam}/{group}"
            put(out, f"{base}/ACC", pct(task_metric(r, "correct") for r in recs))
            for name, key in STOICH_METRICS:
                put(out, f"{base}/{name}", pct(task_metric(r, key) for r in recs))
            if has_metric(recs, "valid"):
                put(out, f"{base}/VAL", pct(task_metric(r, "valid") for r in recs))
                for name, key in DIAGNOSTICS:
                    rate, n = diagnostic_rate(recs, key)
                    if n:
                        out[f"{base}/{name}"] = round(rate, 4)
        for cls, recs in group_by(records, lambda r: r["info"].get("reaction_class")).items():
            for name, key in (("EM", "em"), ("F1", "f1")):
                put(out, f"stoich/class/{cls}/{name}", pct(task_metric(r, key) for r in recs))
            for fam, sub in group_by(recs, lambda r: _short(r["family"])).items():
                put(out, f"stoich/class/{cls}/{fam}/EM", pct(task_metric(r, "em") for r in sub))
        for (flag, fam), recs in group_by(records, lambda r: (_stereo_label(r["info"].get("stereo")),
                                                              _short(r["family"]))).items():
            for name, key in (("EM", "em"), ("F1", "f1")):
                put(out, f"stoich/stereo/{flag}/{fam}/{name}", pct(task_metric(r, key) for r in recs))
        return out

    def split_summary(self, summary: Mapping[str, float]) -> dict[str, dict[str, float]]:
        """EM / JAC / F1 / ACC / answered pooled over variants, per split group (``stoich in`` ...)."""
        out: dict[str, dict[str, float]] = {}
        for key, value in summary.items():
            parts = key.split("/")
            if not key.endswith(("_se", "_n")) and parts[:2] == ["stoich", "overall"] and len(parts) == 4:
                out.setdefault(f"stoich {parts[2]}", {})[parts[3]] = value
        return out

    # ------------------------------------------------------------------ markdown
    def render(self, records: Sequence[Record], samples: int) -> str:
        parts = ["## Stoichiometry\n"]
        parts += self._paper_tables(records)
        parts.append(self._diagnostics_table(records))
        parts += self._class_table(records)
        parts += self._stereo_table(records)
        return "\n".join(parts)

    def _paper_tables(self, records: Sequence[Record]) -> list[str]:
        """Table 4 and Table 10 layouts."""
        typed = [r for r in records if r["info"].get("type")]
        if not typed:
            return []
        parts = []
        groups = sorted({r["split_group"] for r in typed}, key=split_sort)
        cells = group_by(typed, lambda r: (_variant(r), r["split_group"]))
        variants = sorted({_variant(r) for r in typed})
        for title, metrics in (
            ("Table 4 layout: exact match (EM), Jaccard (JAC), F1 on molecules and coefficients (%)", STOICH_METRICS),
            ("Table 10 layout: molecule-only Jaccard and F1, coefficients ignored (%)", MOLECULE_ONLY_METRICS),
        ):
            if metrics is MOLECULE_ONLY_METRICS and not has_metric(typed, "mol_jaccard"):
                continue
            headers = ["Encoding", "Type", "Aug."] + [f"{g} {m}" for g in groups for m, _ in metrics] + ["n"]
            rows = []
            for v in variants:
                info = next(r for r in typed if _variant(r) == v)["info"]
                row = [info.get("encoding") or "?", info.get("type"), info.get("augmentation") or "–"]
                ns = []
                for g in groups:
                    recs = cells.get((v, g))
                    ns.append(str(len(recs or [])))
                    row.extend(cell(recs, key) for _, key in metrics)
                rows.append(row + ["/".join(ns)])
            parts.append(f"### {title}\n\n" + md_table(headers, rows))
        return parts

    def _diagnostics_table(self, records: Sequence[Record]) -> str:
        fam_cells = group_by(records, lambda r: (_family_variant(r), r["split_group"]))
        has_valid = has_metric(records, "valid")
        has_alo = has_metric(records, "alo")
        headers = (["Task", "Split", "n", "VAL", "ACC", "EM", "JAC", "F1"] + (["ALO"] if has_alo else [])
                   + [n for n, _ in DIAGNOSTICS])
        rows = []
        for (fam, group), recs in sorted(fam_cells.items(), key=lambda kv: (kv[0][0], split_sort(kv[0][1]))):
            row = [fam, group, len(recs), cell(recs, "valid") if has_valid else "–", cell(recs, "correct")]
            row += [cell(recs, key) for _, key in STOICH_METRICS]
            if has_alo:
                row.append(cell(recs, "alo"))
            for _, key in DIAGNOSTICS:
                rate, n = diagnostic_rate(recs, key)
                row.append(fmt(rate) if n else "–")
            rows.append(row)
        return ("### Diagnostic rates (Tables 6-9 layout, %)\n\nVAL: parsable, valid prediction; ACC: verdict correct; "
                "BAL / DEF / EXC / D+E: balanced, deficitary, exceeding, both, as a share of the valid predictions.\n\n"
                + md_table(headers, rows))

    def _class_table(self, records: Sequence[Record]) -> list[str]:
        classes = group_by(records, lambda r: r["info"].get("reaction_class"))
        if not classes:
            return []
        fams = sorted({r["family"] for r in records}, key=_family_sort)
        rows = []
        for cls, recs in sorted(classes.items(), key=lambda kv: (-len(kv[1]), str(kv[0]))):
            by_fam = group_by(recs, lambda r: r["family"])
            row = [cls, len(recs)] + [cell(by_fam.get(f), "em") for f in fams]
            rows.append(row + [cell(recs, "em"), cell(recs, "f1")])
        return ["### By reaction class (%)\n\nEM per task family, then EM and F1 over all of them.\n\n"
                + md_table(["Reaction class", "n"] + [f"{_short(f)} EM" for f in fams] + ["all EM", "all F1"], rows)]

    def _stereo_table(self, records: Sequence[Record]) -> list[str]:
        stereo = group_by(records, lambda r: (_stereo_label(r["info"].get("stereo")), _short(r["family"]), r["split_group"]))
        if not any(k[0] != "unknown" for k in stereo):
            return []
        rows = [
            (flag, fam, group, len(recs), cell(recs, "em"), cell(recs, "jaccard"), cell(recs, "f1"), cell(recs, "correct"))
            for (flag, fam, group), recs in sorted(
                stereo.items(), key=lambda kv: (kv[0][0], _short_sort(kv[0][1]), split_sort(kv[0][2])))
        ]
        return ["### Products with stereocentres (stereo-accuracy subset, %)\n\n`stereo`: some reference product has a "
                "stereocentre (the task's flag, or RDKit `FindMolChiralCenters` with unassigned centres on the SMILES "
                "products); `unknown`: no way to tell.\n\n"
                + md_table(["Products", "Task", "Split", "n", "EM", "JAC", "F1", "ACC"], rows)]

    # ------------------------------------------------------------------ plots
    def plots(self, plt: Any, summary: Mapping[str, float], folder: Path) -> list[Path]:
        return [p for p in (self._splits_plot(plt, summary, folder), self._classes_plot(plt, summary, folder)) if p]

    def _splits_plot(self, plt: Any, summary: Mapping[str, float], folder: Path) -> Path | None:
        cells = collect(summary, "stoich/table4/")
        if not cells:
            return None
        variants = sorted({k[0] for k in cells})
        groups = sorted({k[1] for k in cells}, key=split_sort)
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), sharey=True)
        for ax, metric in zip(axes, ("EM", "JAC", "F1")):
            grouped_bars(ax, variants, {g: [cells.get((v, g, metric), 0.0) for v in variants] for g in groups})
            ax.set_title(metric)
        axes[0].set_ylabel("%")
        axes[-1].legend(title="split", loc="upper center", ncol=len(groups), fontsize=8)
        fig.suptitle("Stoichiometry: EM / JAC / F1 per variant and split")
        return save(plt, fig, folder / "stoich_splits.png")

    def _classes_plot(self, plt: Any, summary: Mapping[str, float], folder: Path) -> Path | None:
        cells = collect(summary, "stoich/class/")
        if not cells:
            return None
        classes = sorted({k[0] for k in cells}, key=lambda c: -summary.get(f"stoich/class/{c}/EM_n", 0))[:30]
        fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(classes) + 2), 4.2))
        grouped_bars(ax, classes, {m: [cells.get((c, m), 0.0) for c in classes] for m in ("EM", "F1")})
        ax.set_ylabel("%")
        ax.legend(loc="upper center", ncol=2, fontsize=8)
        ax.set_title("Stoichiometry by reaction class")
        return save(plt, fig, folder / "stoich_classes.png")


#: the layout the stoichiometry group reports with
LAYOUT = StoichLayout()
