"""One ``--out`` rule for every command and format; nothing of the user's is deleted or overwritten."""
from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from rlvr.cli import main
from rlvr.export import read_tasks


def _names(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_hf_export_into_a_project_folder_keeps_its_files(tmp_path, capsys):
    proj = tmp_path / "myproj"
    proj.mkdir()
    (proj / "notes.txt").write_text("my notes\n")
    assert main(["export", "--family", "stoich.t2", "-n", "2", "--format", "hf", "--out", str(proj)]) == 0
    assert (proj / "notes.txt").read_text() == "my notes\n"
    assert _names(proj) == ["notes.txt", "train"]
    assert len(read_tasks(proj / "train", "hf")) == 2
    # the same command again: the dataset folder exists, so it needs --overwrite (and keeps the notes)
    assert main(["export", "--family", "stoich.t2", "-n", "2", "--format", "hf", "--out", str(proj)]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["export", "--family", "stoich.t2", "-n", "3", "--format", "hf", "--out", str(proj / "train"),
                 "--overwrite"]) == 0
    assert len(read_tasks(proj / "train", "hf")) == 3 and _names(proj) == ["notes.txt", "train"]


def test_out_dot_writes_into_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep.txt").write_text("keep\n")
    assert main(["export", "--family", "stoich.t1", "-n", "2", "--format", "hf", "--out", "."]) == 0
    assert main(["export", "--family", "stoich.t1", "-n", "2", "--out", "."]) == 0
    assert _names(tmp_path) == ["keep.txt", "train", "train.jsonl"]
    assert (tmp_path / "keep.txt").read_text() == "keep\n"


def test_readme_verl_export_to_a_folder_writes_train_parquet(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--family", "stoich.t1:2,mol.count", "--split", "train", "-n", "6", "--format", "verl",
                 "--out", "data/"]) == 0
    assert (tmp_path / "data").is_dir() and _names(tmp_path / "data") == ["train.parquet"]
    assert pq.read_table(tmp_path / "data" / "train.parquet").num_rows == 6
    assert json.loads(capsys.readouterr().out)["out"] == "data/train.parquet"


@pytest.mark.parametrize("argv, name", [
    (["sample", "--family", "stoich.t1", "-n", "2"], "stoich.t1-train.jsonl"),
    (["export", "--family", "stoich.t1", "-n", "2", "--format", "jsonl"], "train.jsonl"),
    (["export", "--family", "stoich.t1", "-n", "2", "--format", "parquet"], "train.parquet"),
    (["export", "--family", "stoich.t1", "-n", "2", "--format", "verl"], "train.parquet"),
])
def test_existing_folder_gets_a_named_file_and_an_existing_file_needs_overwrite(tmp_path, capsys, argv, name):
    folder = tmp_path / "existdir"
    folder.mkdir()
    assert main([*argv, "--out", str(folder)]) == 0
    assert _names(folder) == [name]
    first = (folder / name).read_bytes()
    capsys.readouterr()
    assert main([*argv, "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists; pass --overwrite" in err and "Traceback" not in err
    assert (folder / name).read_bytes() == first and _names(folder) == [name]
    assert main([*argv, "-n", "3", "--out", str(folder / name), "--overwrite"]) == 0
    assert (folder / name).read_bytes() != first and _names(folder) == [name]


def test_verify_out_folder(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    assert main(["sample", "--family", "stoich.balance", "-n", "3", "--out", str(tasks)]) == 0
    assert main(["verify", "--tasks", str(tasks), "--oracle", "--out", str(tmp_path)]) == 0
    lines = (tmp_path / "verdicts.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["correct"] for line in lines)
    assert main(["verify", "--tasks", str(tasks), "--oracle", "--out", str(tmp_path)]) == 2
    assert _names(tmp_path) == ["tasks.jsonl", "verdicts.jsonl"]


def test_a_failed_write_leaves_nothing_behind(tmp_path, capsys):
    out = tmp_path / "tasks.jsonl"
    # the split is checked while tasks are drawn, after the output was opened
    assert main(["sample", "--family", "stoich.t1", "--split", "nope", "-n", "2", "--out", str(out)]) == 2
    assert "nope" in capsys.readouterr().err
    assert _names(tmp_path) == []
    out.write_text("mine\n")
    assert main(["sample", "--family", "stoich.t1", "--split", "nope", "-n", "2", "--out", str(out), "--overwrite"]) == 2
    assert out.read_text() == "mine\n" and _names(tmp_path) == ["tasks.jsonl"]
