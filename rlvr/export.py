"""Write task mixtures to files: JSONL task records, parquet, a ``datasets`` folder, verl's RL parquet layout.

- ``jsonl``: one task record per line (``id``, ``family``, ``prompt``, ``ground_truth``, ``meta``; plus
  ``completion`` with solutions), the format ``rlvr sample`` writes and ``rlvr verify --tasks`` reads;
- ``parquet`` / ``hf``: the dataset rows of :mod:`rlvr.datasets` (``prompt``, ``task_json``,
  ``family``, ``id``, ``split`` [, ``completion``]), as one parquet file or a ``save_to_disk`` folder;
- ``verl``: verl's RL layout, one row per task: ``data_source`` (the family), ``prompt`` (chat list),
  ``ability``, ``reward_model`` = ``{"style": "rule", "ground_truth": <JSON string>}``, ``extra_info`` =
  ``{"split", "index", "id", "family", "task_json"}``, scored by :func:`rlvr.rewards.verl.compute_score`.

Rows are generated and written in batches, so memory stays bounded for large ``n``.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator

from rlvr.datasets import MixLike, Mixture, iter_rows, row_features, task_from_row
from rlvr.task import Task

FORMATS = ("jsonl", "parquet", "hf", "verl")
_BATCH = 1024


def verl_row(task: Task, index: int, ability: str | None = None) -> dict[str, Any]:
    """One task in verl's RL parquet layout."""
    if ability is None:
        from rlvr.registry import get_family

        ability = get_family(task.family).ability
    return {
        "data_source": task.family,
        "prompt": [{"role": str(m.get("role", "user")), "content": str(m.get("content", ""))} for m in task.prompt],
        "ability": ability,
        "reward_model": {"style": "rule", "ground_truth": json.dumps(task.ground_truth, ensure_ascii=False)},
        "extra_info": {
            "split": str(task.meta.get("split", task.id.split(":")[1])),
            "index": int(index),
            "id": task.id,
            "family": task.family,
            "task_json": task.to_json(),
        },
    }


def _verl_features() -> Any:
    from datasets import Features, List, Value

    return Features({
        "data_source": Value("string"),
        "prompt": List({"role": Value("string"), "content": Value("string")}),
        "ability": Value("string"),
        "reward_model": {"style": Value("string"), "ground_truth": Value("string")},
        "extra_info": {
            "split": Value("string"),
            "index": Value("int64"),
            "id": Value("string"),
            "family": Value("string"),
            "task_json": Value("string"),
        },
    })


def _rows(fmt: str, mixture: Mixture, n: int, start: int, with_solution: bool, style: str) -> Iterator[dict[str, Any]]:
    rows = iter_rows(mixture, n=n, start=start, with_solution=with_solution, style=style)
    if fmt in ("parquet", "hf"):
        yield from rows
        return
    for offset, row in enumerate(rows):
        task = Task.from_json(row["task_json"])
        if fmt == "jsonl":
            record = task.to_dict()
            if with_solution:
                record["completion"] = row["completion"]
            yield record
        else:  # verl
            yield verl_row(task, start + offset)


def _write_parquet(rows: Iterator[dict[str, Any]], features: Any, path: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = features.arrow_schema
    count = 0
    tmp = path.with_name(path.name + ".tmp")
    with pq.ParquetWriter(str(tmp), schema) as writer:
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(row)
            if len(batch) >= _BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                count += len(batch)
                batch = []
        if batch or count == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            count += len(batch)
    tmp.replace(path)
    return count


def export_tasks(
    mix: MixLike,
    split: str,
    n: int,
    fmt: str,
    out: str | os.PathLike[str],
    *,
    seed: int = 0,
    start: int = 0,
    with_solution: bool = False,
    style: str = "terse",
) -> int:
    """Write ``n`` tasks (rows ``start..start+n-1`` of the mixture) to ``out`` in format ``fmt``; returns the count."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {list(FORMATS)}")
    if int(n) < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if fmt == "verl" and with_solution:
        raise ValueError("the verl RL layout has no completion column; export solutions as jsonl/parquet/hf")
    mixture = Mixture(mix, split, seed)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = _rows(fmt, mixture, int(n), int(start), with_solution, style)
    if fmt == "jsonl":
        tmp = path.with_name(path.name + ".tmp")
        count = 0
        with tmp.open("w", encoding="utf-8") as fh:
            for record in rows:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
        tmp.replace(path)
        return count
    if fmt == "parquet":
        return _write_parquet(rows, row_features(with_solution), path)
    if fmt == "verl":
        return _write_parquet(rows, _verl_features(), path)
    # hf: stage a parquet file, load it as a Dataset (memory-mapped from a temporary cache) and save_to_disk
    from datasets import Dataset

    with tempfile.TemporaryDirectory(prefix="rlvr-export-") as tmpdir:
        staged = Path(tmpdir) / "rows.parquet"
        count = _write_parquet(rows, row_features(with_solution), staged)
        dataset = Dataset.from_parquet(str(staged), features=row_features(with_solution), cache_dir=str(Path(tmpdir) / "cache"))
        if path.exists():
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        dataset.save_to_disk(str(path))
        del dataset
    return count


def read_tasks(path: str | os.PathLike[str], fmt: str | None = None) -> list[Task]:
    """Load the tasks of an export (any of :data:`FORMATS`; guessed from the path when ``fmt`` is None)."""
    path = Path(path)
    if fmt is None:
        fmt = "hf" if path.is_dir() else ("jsonl" if path.suffix in (".jsonl", ".json") else "parquet")
    if fmt == "jsonl":
        with path.open(encoding="utf-8") as fh:
            return [Task.from_dict(json.loads(line)) for line in fh if line.strip()]
    if fmt == "hf":
        from datasets import load_from_disk

        return [task_from_row(row) for row in load_from_disk(str(path))]
    if fmt in ("parquet", "verl"):
        import pyarrow.parquet as pq

        rows = pq.read_table(str(path)).to_pylist()
        if rows and "extra_info" in rows[0]:
            return [Task.from_json(row["extra_info"]["task_json"]) for row in rows]
        return [task_from_row(row) for row in rows]
    raise ValueError(f"unknown export format {fmt!r}; choose one of {list(FORMATS)}")
