"""The base model's answers cached per task file, model and settings (rlvr.quickstart.eval_cache)."""
from __future__ import annotations

from rlvr.quickstart import eval_cache


def test_entries_round_trip_and_keys_follow_their_inputs(tmp_path, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "a"}\n')
    key = eval_cache.cache_key(str(model), tasks, {"max_new_tokens": 80})
    assert eval_cache.load_entry(key) is None
    folder = eval_cache.save_entry(key, {"in": {"n": 1}}, [{"id": "a"}])
    assert folder.is_dir() and eval_cache.load_entry(key) == ({"in": {"n": 1}}, [{"id": "a"}])
    assert key == eval_cache.cache_key(str(model), tasks, {"max_new_tokens": 80})
    assert key != eval_cache.cache_key(str(model), tasks, {"max_new_tokens": 64})
    tasks.write_text('{"id": "b"}\n')
    assert key != eval_cache.cache_key(str(model), tasks, {"max_new_tokens": 80})
    tasks.write_text('{"id": "a"}\n')
    (model / "weights.bin").write_bytes(b"0" * 10)
    assert key != eval_cache.cache_key(str(model), tasks, {"max_new_tokens": 80})


def test_a_half_written_entry_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path / "cache"))
    folder = eval_cache.entry_dir("k1")
    (folder / "scores.json").write_text("{}")
    assert eval_cache.load_entry("k1") is None
    (folder / "records.json").write_text("[not json")
    assert eval_cache.load_entry("k1") is None
