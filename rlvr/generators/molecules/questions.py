"""Load MolecularIQ benchmark question files as rlvr tasks, so :func:`rlvr.verify` can score them.

Accepted sources: a JSON file (a list of rows, or an object with a ``data``/``rows``/``test``
list), a JSONL file, a parquet or CSV file, a list of dicts, or a ``datasets`` Dataset/DatasetDict
(the ``test`` split when there are several). Column names are matched liberally (case-insensitive,
first match wins):

================ ==========================================================================
field            accepted column names
================ ==========================================================================
question         question, prompt, text, input, query, instruction
task type        task_type, type, task, category (``count``, ``index``, ``generation``/...)
target           target, targets, answer, ground_truth, label, solution, expected
constraints      constraints, constraint
SMILES           smiles, input_smiles, molecule, mol, or ``metadata["smiles"]``
original SMILES  original_smiles, canonical_smiles, reference_smiles
id               uid, id, question_id, task_id, idx
complexity bin   complexity_bin, bin
load             multi_task_load, load, n_properties, n_constraints
metadata         metadata, meta (a dict or a JSON string)
================ ==========================================================================

``target`` and ``constraints`` may be JSON strings. Without a task type, rows with constraints
are generation tasks, rows whose target keys all end in ``_index`` are index tasks and other
rows count tasks. Constraints use MolecularIQ's ``{"type", "operator", "value" | "min_value",
"max_value"}`` or rlvr's ``{"key", "op", "value"}`` shape. Loaded tasks follow the benchmark's
meaning of the feature keys (``convention="moleculariq"``, :mod:`rlvr.chem.molecules.moleculariq`,
stored as ``meta["convention"]``): a generated molecule is scored the way the benchmark scores it
(functional-group ``_nbrInstances`` constraints count instances, its own groups and templates);
``convention="rlvr"`` reads ``_nbrInstances`` keys as rlvr's ``_count`` keys instead. Generation
rows whose constraint keys rlvr cannot compute are skipped and counted (``unsupported_constraint``). Loaded tasks keep the question text verbatim and cannot be
regenerated (their ids are ``<family>:moleculariq:<uid>``, the family given per task type by the caller).
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from rlvr.chem.constraints import normalize_constraint
from rlvr.chem.molecules.features import is_feature_key
from rlvr.chem.molecules.moleculariq import check_convention
from rlvr.generators.molecules.prompts import SYSTEM_PROMPT
from rlvr.task import Task

COLUMNS: dict[str, tuple[str, ...]] = {
    "question": ("question", "prompt", "text", "input", "query", "instruction"),
    "task_type": ("task_type", "type", "task", "category"),
    "target": ("target", "targets", "answer", "ground_truth", "label", "solution", "expected"),
    "constraints": ("constraints", "constraint"),
    "smiles": ("smiles", "input_smiles", "molecule", "mol"),
    "original_smiles": ("original_smiles", "canonical_smiles", "reference_smiles"),
    "uid": ("uid", "id", "question_id", "task_id", "idx"),
    "complexity_bin": ("complexity_bin", "bin"),
    "load": ("multi_task_load", "load", "n_properties", "n_constraints"),
    "metadata": ("metadata", "meta"),
}

_TYPE_ALIASES = {
    "count": "count", "counting": "count", "single_count": "count", "multi_count": "count",
    "index": "index", "indexing": "index", "single_index": "index", "multi_index": "index", "attribution": "index",
    "generation": "gen", "gen": "gen", "constraint": "gen", "constraint_generation": "gen",
    "single_constraint": "gen", "multi_constraint": "gen", "single_constraint_generation": "gen",
    "multi_constraint_generation": "gen", "constrained_generation": "gen",
}


@dataclass
class LoadReport:
    """Rows read, tasks built, and skipped rows by reason."""

    n_rows: int = 0
    n_tasks: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _get(row: Mapping[str, Any], field_name: str) -> Any:
    lowered = {str(k).lower(): k for k in row}
    for name in COLUMNS[field_name]:
        if name in lowered:
            value = row[lowered[name]]
            if value is not None and value != "":
                return value
    return None


def _json(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in "[{":
            return json.loads(text)
    return value


def question_rows(source: Any) -> Iterable[Mapping[str, Any]]:
    """The raw rows of a question source (file path, list of dicts, or ``datasets`` object)."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            with path.open(encoding="utf-8") as fh:
                return [json.loads(line) for line in fh if line.strip()]
        if suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, Mapping):
                for name in ("data", "rows", "test", "questions"):
                    if isinstance(data.get(name), list):
                        return data[name]
                raise ValueError(f"{path}: no list of rows under data/rows/test/questions")
            return data
        if suffix == ".parquet":
            import pyarrow.parquet as pq  # heavy (0.4 s): only for parquet files

            return pq.read_table(path).to_pylist()
        if suffix == ".csv":
            with path.open(encoding="utf-8", newline="") as fh:
                return list(csv.DictReader(fh))
        raise ValueError(f"unknown question file format {path.suffix!r}; use .json, .jsonl, .parquet or .csv")
    if isinstance(source, Mapping) and source and all(hasattr(v, "column_names") for v in source.values()):
        return source["test"] if "test" in source else next(iter(source.values()))  # a DatasetDict
    if hasattr(source, "column_names"):
        return source
    return list(source)


def _task_type(row: Mapping[str, Any], target: Any, constraints: Any) -> str | None:
    raw = _get(row, "task_type")
    if isinstance(raw, str) and raw.strip().lower() in _TYPE_ALIASES:
        return _TYPE_ALIASES[raw.strip().lower()]
    if constraints:
        return "gen"
    if isinstance(target, Mapping) and target:
        return "index" if all(str(k).endswith(("_index", "_indices")) for k in target) else "count"
    return None


def row_to_task(row: Mapping[str, Any], position: int, *, families: Mapping[str, str],
                system_prompt: str | None = SYSTEM_PROMPT, convention: str = "moleculariq") -> Task:
    """One question row as a :class:`Task` (``ValueError`` with a reason code as message if unusable).

    ``families`` names the family a task of each type (``count``, ``index``, ``gen``) is filed under;
    ``convention`` the meaning of the feature keys (module docstring).
    """
    check_convention(convention)
    question = _get(row, "question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("no_question")
    try:
        metadata = _json(_get(row, "metadata")) or {}
        target = _json(_get(row, "target"))
        constraints = _json(_get(row, "constraints"))
    except json.JSONDecodeError as exc:
        raise ValueError("bad_json") from exc
    if not isinstance(metadata, Mapping):
        metadata = {}
    kind = _task_type(row, target, constraints)
    if kind is None:
        raise ValueError("no_target")
    uid = _get(row, "uid")
    uid = str(uid) if uid is not None else str(position)
    smiles = _get(row, "smiles") or metadata.get("smiles")
    original = _get(row, "original_smiles")
    meta: dict[str, Any] = {
        "source": "moleculariq",
        "uid": uid,
        "row": position,
        "task_type": kind,
        "smiles": smiles,
        "canonical_smiles": original,
        "complexity_bin": _get(row, "complexity_bin"),
        "load": _get(row, "load"),
        "presentation": {"randomized": bool(metadata.get("is_randomized", False)),
                         "kekulized": bool(metadata.get("is_kekulized", False))},
        "pool_split": "hard",
        "convention": convention,
    }
    if kind == "gen":
        if isinstance(constraints, Mapping):
            constraints = [constraints]
        if not isinstance(constraints, list) or not constraints:
            raise ValueError("no_constraints")
        try:
            normalized = [normalize_constraint(c, convention) for c in constraints]
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError("bad_constraint") from exc
        if not all(is_feature_key(c["key"], convention) for c in normalized):
            raise ValueError("unsupported_constraint")
        ground_truth: dict[str, Any] = {"constraints": normalized}
        meta["features"] = [c["key"] for c in normalized]
        meta["reference_smiles"] = original
    else:
        if not isinstance(target, Mapping) or not target:
            raise ValueError("no_target")
        ground_truth = dict(target)
        meta["features"] = list(target)
    family = families[kind]
    prompt = ([{"role": "system", "content": system_prompt}] if system_prompt else []) + [
        {"role": "user", "content": question}]
    return Task(id=f"{family}:moleculariq:{uid}", family=family, prompt=prompt, ground_truth=ground_truth, meta=meta)


def load_questions(source: Any, *, families: Mapping[str, str], system_prompt: str | None = SYSTEM_PROMPT,
                   limit: int | None = None, convention: str = "moleculariq") -> tuple[list[Task], LoadReport]:
    """All usable questions of ``source`` as tasks, plus a report of skipped rows by reason.

    ``families`` maps each task type (``count``, ``index``, ``gen``) to the family its tasks are filed
    under; ``convention`` is the meaning of the feature keys (default: the benchmark's).
    """
    report = LoadReport()
    tasks: list[Task] = []
    for position, row in enumerate(question_rows(source)):
        if limit is not None and len(tasks) >= limit:
            break
        report.n_rows += 1
        if not isinstance(row, Mapping):
            report.skip("not_a_record")
            continue
        try:
            tasks.append(row_to_task(row, position, families=families, system_prompt=system_prompt,
                                     convention=convention))
        except ValueError as exc:
            report.skip(str(exc) if str(exc) in _REASONS else "bad_row")
    report.n_tasks = len(tasks)
    return tasks, report


_REASONS = frozenset({"no_question", "bad_json", "no_target", "no_constraints", "bad_constraint",
                      "unsupported_constraint"})
