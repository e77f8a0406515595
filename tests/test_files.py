"""The ``--out`` rule and atomic writes (:mod:`rlvr.files`)."""
from __future__ import annotations

import pytest

from rlvr.files import atomic_open, atomic_path, names_folder, resolve_out


def test_existing_folder_or_trailing_slash_is_a_folder(tmp_path):
    (tmp_path / "proj").mkdir()
    assert resolve_out(tmp_path / "proj", "train.jsonl") == tmp_path / "proj" / "train.jsonl"
    assert resolve_out(f"{tmp_path}/new/", "train.jsonl") == tmp_path / "new" / "train.jsonl"
    assert resolve_out(tmp_path / "new", "train.jsonl") == tmp_path / "new"
    assert names_folder(f"{tmp_path}/x/") and not names_folder(tmp_path / "x")


def test_existing_file_needs_overwrite_and_a_folder_is_never_replaced(tmp_path):
    (tmp_path / "a.jsonl").write_text("mine\n")
    with pytest.raises(FileExistsError, match="--overwrite"):
        resolve_out(tmp_path / "a.jsonl", "x")
    assert resolve_out(tmp_path / "a.jsonl", "x", overwrite=True) == tmp_path / "a.jsonl"
    (tmp_path / "d" / "train.jsonl").mkdir(parents=True)
    with pytest.raises(IsADirectoryError):
        resolve_out(tmp_path / "d", "train.jsonl", overwrite=True)
    with pytest.raises(NotADirectoryError):
        resolve_out(tmp_path / "a.jsonl" / "b.jsonl", "x")
    with pytest.raises(ValueError):
        resolve_out("", "x")


def test_artifact_folder_is_the_output_itself(tmp_path):
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "marker").write_text("")
    is_ds = lambda p: (p / "marker").exists()  # noqa: E731
    with pytest.raises(FileExistsError):
        resolve_out(ds, "train", is_artifact_folder=is_ds)
    assert resolve_out(ds, "train", overwrite=True, is_artifact_folder=is_ds) == ds
    assert resolve_out(tmp_path, "train", is_artifact_folder=is_ds) == tmp_path / "train"


def test_atomic_open_replaces_only_on_success_and_leaves_nothing_behind(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as fh:
            fh.write("half")
            raise RuntimeError("disk full")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    with atomic_open(target) as fh:
        fh.write("new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_atomic_folder_swap(tmp_path):
    target = tmp_path / "ds"
    target.mkdir()
    (target / "old.txt").write_text("1")
    with pytest.raises(KeyError):
        with atomic_path(target, folder=True) as tmp:
            (tmp / "new.txt").write_text("2")
            raise KeyError("boom")
    assert [p.name for p in target.iterdir()] == ["old.txt"]
    with atomic_path(target, folder=True) as tmp:
        (tmp / "new.txt").write_text("2")
    assert [p.name for p in target.iterdir()] == ["new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]
