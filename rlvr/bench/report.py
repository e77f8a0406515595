"""What ``rlvr bench`` prints and writes: the machine, one line per family, the server rows, the sizing line."""
from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from typing import Any

#: the share of the measured server rate a trainer should plan on: the rest is headroom for first
#: verdicts on new prompts, longer completions and a busier machine
HEADROOM = 0.5


def _processor() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """Where the numbers were taken."""
    try:
        version = metadata.version("rlvr-chem")
    except metadata.PackageNotFoundError:
        version = "unknown"
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    return {"cpus": os.cpu_count(), "processor": _processor(),
            "platform": platform.platform(), "python": sys.version.split()[0], "rlvr_chem": version,
            "loadavg_before": load}


def sizing(server_rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The best measured worker count, its completions/s, and the rollouts/s it covers with headroom."""
    if not server_rows:
        return None
    best = max(server_rows, key=lambda r: r["completions_per_s"])
    rate = best["completions_per_s"]
    return {"workers": best["workers"], "completions_per_s": rate, "rollouts_per_s": round(rate * HEADROOM, 1)}


def sizing_line(size: dict[str, Any]) -> str:
    """``N reward workers sustain R completions/s, enough for a trainer producing X rollouts/s``."""
    workers = size["workers"]
    return (f"{workers} reward worker{'s' if workers != 1 else ''} sustain{'' if workers != 1 else 's'} "
            f"{size['completions_per_s']:,.0f} completions/s, enough for a trainer producing "
            f"{size['rollouts_per_s']:,.0f} rollouts/s (half the measured rate: headroom for new prompts "
            f"and longer completions)")


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def text(result: dict[str, Any]) -> str:
    """The human-readable report."""
    m = result["machine"]
    lines = [f"rlvr bench on {m['cpus']} CPUs ({m['processor']}), Python {m['python']}, rlvr-chem {m['rlvr_chem']}, "
             f"load average before {m['loadavg_before']}; rates per process, wall clock",
             "", f"{'family':<24} {'tasks/s':>9} {'first verdicts/s':>17} {'again/s':>9} {'RDKit parse floor/s':>20}"]
    for row in result["families"]:
        lines.append(f"{row['case']:<24} {_num(row['tasks_per_s']):>9} {_num(row['first_per_s']):>17} "
                     f"{_num(row['again_per_s']):>9} {_num(row['parse_floor_per_s']):>20}")
    misses = {r["case"]: r["oracle_below_1"] for r in result["families"] if r["oracle_below_1"]}
    if misses:
        lines.append(f"warning: oracle completions rewarded below 1.0: {misses}")
    if result["server"]:
        s = result["settings"]
        lines += ["", f"reward server (loopback, {s['clients']} clients, {s['batch']} completions per request, "
                      f"{s['group']} per prompt, {s['duration']:g} s per row)",
                  f"{'workers':>7} {'completions/s':>14} {'p50 ms':>8} {'p99 ms':>8} {'requests':>9}"]
        for row in result["server"]:
            lines.append(f"{row['workers']:>7} {_num(row['completions_per_s']):>14} {row['p50_ms']:>8} "
                         f"{row['p99_ms']:>8} {row['requests']:>9}")
        lines += ["", sizing_line(result["sizing"])]
    return "\n".join(lines)
