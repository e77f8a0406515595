"""``rlvr corpus`` and the README's sample/verify commands for stoichiometry."""
from __future__ import annotations

import json

from rlvr.cli import main


def test_corpus_stats_prints_classes_and_splits(capsys):
    assert main(["corpus", "stats", "--corpus", "classic"]) == 0
    out = capsys.readouterr().out
    assert "corpus classic" in out and "per class" in out and "redox_ionic" in out and "per split" in out
    assert main(["corpus", "stats", "--corpus", "embedded", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reactions"] >= 10_000 and data["classes"] >= 20 and "build_seconds" in data["build"]
    assert set(data["per_split"]) == {"train", "valid", "test"}


def test_corpus_import_prints_table1(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "mine.smi"
    path.write_text("CC(=O)O.NC>>CNC(C)=O\nnot a reaction\nCC(=O)Cl.NC>>CNC(C)=O\n")
    out_file = tmp_path / "balanced.txt"
    assert main(["corpus", "import", str(path), "--out", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "TOTAL" in out and "RE-BALANCED" in out and "malformed 1" in out
    lines = out_file.read_text().splitlines()
    assert lines == ["{1}CC(=O)O.{1}CN>>{1}CNC(C)=O.{1}O", "{1}CC(=O)Cl.{1}CN>>{1}CNC(C)=O.{1}Cl"]
    assert main(["corpus", "stats", "--corpus", str(path)]) == 0
    assert "corpus user:mine.smi" in capsys.readouterr().out


def test_readme_sample_and_verify(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    assert main(["sample", "--family", "stoich.t2", "--encoding", "formula", "--split", "test_out", "-n", "200",
                 "--out", str(tasks)]) == 0
    assert len(tasks.read_text().splitlines()) == 200
    assert main(["verify", "--tasks", str(tasks), "--oracle"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary == {"n": 200, "mean_reward": 1.0, "accuracy": 1.0, "reasons": {"ok": 200}}
