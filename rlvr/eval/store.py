"""The files of a run: the resumable verdict log (one JSON line per finished task, appended and
flushed per batch), ``run.json`` and ``results.json``.

A killed run leaves at most one partial last line; :func:`load_verdict_log` drops it (truncating the
file to its last complete line) so the rerun appends cleanly.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable

VERDICTS_FILE = "verdicts.jsonl"
RUN_FILE = "run.json"
RESULTS_FILE = "results.json"


def load_verdict_log(path: Path, *, repair: bool = True) -> dict[str, dict[str, Any]]:
    """Records of a verdict log keyed by task id (later lines win).

    A torn last line is ignored; with ``repair`` (only for a log this process will append to) the
    file is also truncated to its last complete line.
    """
    records: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return records
    good_end = 0
    with path.open("rb") as fh:
        offset = 0
        for raw in fh:
            offset += len(raw)
            if not raw.endswith(b"\n"):
                break  # torn write: the run was killed mid-line
            line = raw.strip()
            if not line:
                good_end = offset
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                break
            if isinstance(record, dict) and "task_id" in record:
                records[record["task_id"]] = record
            good_end = offset
    if repair and good_end < path.stat().st_size:
        with path.open("r+b") as fh:
            fh.truncate(good_end)
    return records


class VerdictLog:
    """Append-only writer; :meth:`append` writes a batch, flushes and fsyncs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a", encoding="utf-8")

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        for record in records:
            self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> "VerdictLog":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (temp file + rename)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


def load_results(path: str | Path) -> dict[str, Any]:
    """A results.json (or the out dir that holds one)."""
    p = Path(path)
    if p.is_dir():
        p = p / RESULTS_FILE
    if not p.is_file():
        raise FileNotFoundError(f"no results file at {p}")
    return json.loads(p.read_text(encoding="utf-8"))
