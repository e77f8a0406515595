"""Write task mixtures to files: JSONL task records, parquet, a ``datasets`` folder, verl's RL parquet layout.

- ``jsonl``: one task record per line (``id``, ``family``, ``prompt``, ``ground_truth``, ``meta``; plus
  ``completion`` with solutions), the format ``rlvr sample`` writes and ``rlvr verify --tasks`` reads;
- ``parquet`` / ``hf``: the dataset rows of :mod:`rlvr.datasets` (``prompt``, ``task_json``,
  ``family``, ``id``, ``split`` [, ``completion``]), as one parquet file or a ``save_to_disk`` folder;
- ``verl``: verl's RL layout, one row per task: ``data_source`` (the family), ``prompt`` (chat list),
  ``ability``, ``reward_model`` = ``{"style": "rule", "ground_truth": <JSON string>}``, ``extra_info`` =
  ``{"split", "index", "id", "family", "task_json"}``, scored by :func:`rlvr.rewards.verl.compute_score`;
- ``nemo-gym``: NeMo-Gym's JSONL samples (``responses_create_params.input`` = the chat, ``task_json``,
  ``agent_ref``; :mod:`rlvr.integrations.nemo_gym_data`), scored by rlvr's NeMo-Gym resources server.

Where: ``out`` follows the ``--out`` rule of :mod:`rlvr.files`; in a folder the file is
``SPLIT.jsonl`` (jsonl, nemo-gym) / ``SPLIT.parquet`` (``SPLIT/`` for ``hf``, as ``DatasetDict.save_to_disk`` lays out
splits). Nothing that exists is replaced without ``overwrite``, and writes are atomic.

Rows are generated and written in batches, so memory stays bounded for large ``n``; with
``num_proc > 1`` worker processes generate consecutive chunks of rows and the writer takes them in
order, so the output is byte-identical to ``num_proc=1``.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Iterator

from rlvr.api import generate
from rlvr.datasets import MixLike, Mixture, iter_rows, row_features, task_from_row
from rlvr.files import atomic_open, atomic_path, resolve_out
from rlvr.integrations.nemo_gym_data import sample_record
from rlvr.progress import progress_bar
from rlvr.registry import get_family
from rlvr.task import Task

FORMATS = ("jsonl", "parquet", "hf", "verl", "nemo-gym")
#: formats written as JSON lines
JSONL_FORMATS = ("jsonl", "nemo-gym")
#: formats that hold no completion column (``with_solution`` is refused)
RL_FORMATS = ("verl", "nemo-gym")
_BATCH = 1024
#: most rows per work item of a worker process
_CHUNK = 512


def verl_row(task: Task, index: int, ability: str | None = None) -> dict[str, Any]:
    """One task in verl's RL parquet layout."""
    if ability is None:
        ability = get_family(task.family).ability
    return _verl_record(task.to_dict(), task.to_json(), index, ability)


def _verl_record(record: dict[str, Any], task_json: str, index: int, ability: str) -> dict[str, Any]:
    """:func:`verl_row` from a task record and its JSON (serialised once)."""
    return {
        "data_source": record["family"],
        "prompt": [{"role": str(m.get("role", "user")), "content": str(m.get("content", ""))} for m in record["prompt"]],
        "ability": ability,
        "reward_model": {"style": "rule", "ground_truth": json.dumps(record["ground_truth"], ensure_ascii=False)},
        "extra_info": {
            "split": str(record["meta"].get("split", record["id"].split(":")[1])),
            "index": int(index),
            "id": record["id"],
            "family": record["family"],
            "task_json": task_json,
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


def is_dataset_folder(path: Path) -> bool:
    """True for a folder written by ``Dataset.save_to_disk`` (the ``hf`` format)."""
    return (path / "dataset_info.json").is_file() and (path / "state.json").is_file()


def export_path(out: str | os.PathLike[str], fmt: str, split: str, *, overwrite: bool = False) -> Path:
    """The path an export to ``out`` writes (the ``--out`` rule); raises if it may not be written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {list(FORMATS)}")
    name = split if fmt == "hf" else f"{split}.{'jsonl' if fmt in JSONL_FORMATS else 'parquet'}"
    return resolve_out(out, name, overwrite=overwrite, is_artifact_folder=is_dataset_folder if fmt == "hf" else None)


def _rows(fmt: str, mixture: Mixture, n: int, start: int, with_solution: bool, style: str) -> Iterator[Any]:
    """Dataset rows (parquet, hf), verl rows, or JSONL lines (jsonl, nemo-gym) of rows ``start..start+n-1``."""
    rows = iter_rows(mixture, n=n, start=start, with_solution=with_solution, style=style)
    if fmt in ("parquet", "hf"):
        yield from rows
        return
    abilities: dict[str, str] = {}
    for offset, row in enumerate(rows):
        if fmt == "jsonl" and not with_solution:
            yield row["task_json"]  # the task record's JSON, as Task.to_json writes it
            continue
        record = json.loads(row["task_json"])
        if fmt == "jsonl":
            record["completion"] = row["completion"]
            yield json.dumps(record, ensure_ascii=False)
        elif fmt == "nemo-gym":
            yield json.dumps(sample_record(record, row["task_json"], start + offset), ensure_ascii=False)
        else:  # verl
            family = record["family"]
            if family not in abilities:
                abilities[family] = get_family(family).ability
            yield _verl_record(record, row["task_json"], start + offset, abilities[family])


def _chunk_rows(job: tuple) -> list[Any]:
    """Worker: the rows ``start..start+n-1`` (a picklable job, so any start method works)."""
    fmt, components, split, seed, start, n, with_solution, style = job
    return list(_rows(fmt, Mixture(components, split, seed), n, start, with_solution, style))


def _fork_context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _parallel_rows(pool: Any, workers: int, fmt: str, mixture: Mixture, n: int, start: int, with_solution: bool,
                   style: str) -> Iterator[Any]:
    chunk = max(16, min(_CHUNK, n // (4 * workers)))
    jobs = [(fmt, mixture.components, mixture.split, mixture.seed, start + i, min(chunk, n - i), with_solution, style)
            for i in range(0, n, chunk)]
    for rows in pool.imap(_chunk_rows, jobs):
        yield from rows


def _counted(rows: Iterator[Any], bar: Any) -> Iterator[Any]:
    for row in rows:
        yield row
        bar.update(1)


def _write_jsonl(lines: Iterator[str], path: Path) -> int:
    count = 0
    with atomic_open(path) as fh:
        for line in lines:
            fh.write(line + "\n")
            count += 1
    return count


def _write_parquet(rows: Iterator[dict[str, Any]], features: Any, path: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = features.arrow_schema
    count = 0
    with atomic_path(path) as tmp, pq.ParquetWriter(str(tmp), schema) as writer:
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
    return count


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def _write_hf(rows: Iterator[dict[str, Any]], features: Any, path: Path) -> int:
    """Stage a parquet file, load it as a (memory-mapped) Dataset and save it into a new folder."""
    from datasets import Dataset
    from datasets.utils.logging import disable_progress_bar, enable_progress_bar, is_progress_bar_enabled

    shown = is_progress_bar_enabled()
    with tempfile.TemporaryDirectory(prefix="rlvr-export-") as tmpdir:
        staged = Path(tmpdir) / "rows.parquet"
        count = _write_parquet(rows, features, staged)
        disable_progress_bar()
        try:
            loaded = Dataset.from_parquet(str(staged), features=features, cache_dir=str(Path(tmpdir) / "cache"))
            # a fingerprint of the content (not of the temporary paths), so the folder is reproducible byte for byte
            dataset = Dataset(loaded.data, info=loaded.info, split=loaded.split, fingerprint=_file_digest(staged))
            del loaded
            with atomic_path(path, folder=True) as folder:
                dataset.save_to_disk(str(folder))
            del dataset
        finally:
            if shown:
                enable_progress_bar()
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
    overwrite: bool = False,
    num_proc: int = 1,
    progress: bool | None = False,
) -> int:
    """Write ``n`` tasks (rows ``start..start+n-1`` of the mixture) to ``out`` in format ``fmt``; returns the count.

    ``out`` follows the ``--out`` rule (:func:`export_path`); an existing target is replaced only with
    ``overwrite``. ``num_proc`` worker processes generate the rows (same bytes as one process);
    ``progress`` shows a bar on stderr (None: when stderr is a terminal).
    """
    path = export_path(out, fmt, split, overwrite=overwrite)
    if int(n) < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if int(num_proc) < 1:
        raise ValueError(f"num_proc must be at least 1, got {num_proc}")
    if fmt in RL_FORMATS and with_solution:
        raise ValueError(f"the {fmt} RL layout has no completion column; export solutions as jsonl/parquet/hf")
    mixture = Mixture(mix, split, seed)
    n, start = int(n), int(start)
    workers = min(int(num_proc), max(1, n // 16))
    with ExitStack() as stack:
        if workers > 1:
            # load each family's corpus / pool once here, so forked workers share it instead of each loading it
            for c in mixture.components:
                generate(c.family, mixture.split_of(c), mixture.seed, start, **c.options)
            pool = stack.enter_context(_fork_context().Pool(workers))
            rows = _parallel_rows(pool, workers, fmt, mixture, n, start, with_solution, style)
        else:
            rows = _rows(fmt, mixture, n, start, with_solution, style)
        bar = stack.enter_context(progress_bar(n, f"export {fmt}", unit="task", show=progress))
        rows = _counted(rows, bar)
        if fmt in JSONL_FORMATS:
            return _write_jsonl(rows, path)
        if fmt == "parquet":
            return _write_parquet(rows, row_features(with_solution), path)
        if fmt == "verl":
            return _write_parquet(rows, _verl_features(), path)
        return _write_hf(rows, row_features(with_solution), path)


def _task_of_line(record: dict[str, Any]) -> Task:
    """A task from a JSONL line: a task record, or a sample holding one as ``task_json`` (nemo-gym)."""
    return Task.from_json(record["task_json"]) if "task_json" in record else Task.from_dict(record)


def read_tasks(path: str | os.PathLike[str], fmt: str | None = None) -> list[Task]:
    """Load the tasks of an export (any of :data:`FORMATS`; guessed from the path when ``fmt`` is None)."""
    path = Path(path)
    if fmt is None:
        fmt = "hf" if path.is_dir() else ("jsonl" if path.suffix in (".jsonl", ".json") else "parquet")
    if fmt in JSONL_FORMATS:
        with path.open(encoding="utf-8") as fh:
            return [_task_of_line(json.loads(line)) for line in fh if line.strip()]
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

