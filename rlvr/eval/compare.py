"""``rlvr eval compare A.json B.json``: two runs side by side with deltas, as Markdown."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from rlvr.eval.store import load_results
from rlvr.eval.tables import fmt, md_table


def _label(res: Mapping[str, Any], fallback: str) -> str:
    model = res.get("model")
    if res.get("backend") in ("oracle", "copy-input"):
        return str(res.get("backend"))
    label = Path(str(model)).name if model else str(res.get("backend") or fallback)
    if res.get("adapter"):
        label += "+" + Path(str(res["adapter"]).rstrip("/")).name
    return label


def compare_results(a: Mapping[str, Any], b: Mapping[str, Any], *, only: str | None = None) -> str:
    """Markdown comparing the summaries of two results dicts (every cell present in either run).

    ``only`` keeps metric paths starting with that prefix (e.g. ``stoich/table4``). A note warns when
    the two runs were not scored on the same eval set.
    """
    sa, sb = a.get("summary", {}), b.get("summary", {})
    la, lb = _label(a, "A"), _label(b, "B")
    if la == lb:
        la, lb = f"A: {la}", f"B: {lb}"
    keys = [k for k in dict.fromkeys([*sa, *sb]) if not k.endswith(("_se", "_n"))]
    if only:
        keys = [k for k in keys if k.startswith(only)]
    ea, eb = a.get("eval_set", {}), b.get("eval_set", {})
    lines = ["# Comparison\n", md_table(["", "A", "B"], [
        ("run", la, lb),
        ("backend", a.get("backend"), b.get("backend")),
        ("eval set", ea.get("version"), eb.get("version")),
        ("tasks", ea.get("n_tasks"), eb.get("n_tasks")),
        ("rollouts", a.get("samples"), b.get("samples")),
    ])]
    if ea.get("digest") != eb.get("digest"):
        lines.append("> **Note:** the two runs used different eval sets (digests differ); cells with the same "
                     "name may hold different tasks. Compare runs made with the same suite, seed and limit, or the "
                     "same exported eval set (`--tasks`).\n")
    sections: dict[str, list[str]] = {}
    for key in keys:
        parts = key.split("/")
        section = "/".join(parts[:2]) if len(parts) > 2 else parts[0]
        sections.setdefault(section, []).append(key)
    for section, sec_keys in sections.items():
        rows = []
        for key in sec_keys:
            va, vb = sa.get(key), sb.get(key)
            delta = f"{vb - va:+.2f}" if isinstance(va, (int, float)) and isinstance(vb, (int, float)) else "–"
            n = sb.get(key + "_n", sa.get(key + "_n", ""))
            rows.append((key[len(section) + 1:] or key, fmt(va, sa.get(key + "_se")), fmt(vb, sb.get(key + "_se")), delta, n))
        lines.append(f"## {section}\n\n" + md_table(["metric (%)", la, lb, "Δ (B − A)", "n"], rows))
    return "\n".join(lines)


def compare_files(path_a: str | Path, path_b: str | Path, *, only: str | None = None) -> str:
    """:func:`compare_results` on two results.json files (or out dirs)."""
    return compare_results(load_results(path_a), load_results(path_b), only=only)
