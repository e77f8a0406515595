"""The transformers backend's compact decoding: the default greedy records in task order, sampled rollouts that
repeat with their seed, and a sampled run keyed by its decoding."""
from __future__ import annotations

import pytest

from rlvr.eval import load_eval_set, run_eval
from rlvr.eval.backends import make_backend
from rlvr.eval.backends.hf import TransformersBackend

pytest.importorskip("transformers")


def test_compact_decoding_gives_the_default_greedy_records(tiny_gqa_model, make_config, tmp_path):
    common = dict(model=tiny_gqa_model, suite="stoich", splits=("in", "out"), limit=4, max_new_tokens=8,
                  batch_size=3, threads=1)
    plain = run_eval(make_config(out=str(tmp_path / "plain"), **common))
    compact = run_eval(make_config(out=str(tmp_path / "compact"), decoding="compact", **common))
    assert len({r["rollouts"][0]["completion"] for r in plain.records}) > 1
    assert [r["id"] for r in compact.records] == [r["id"] for r in plain.records]
    for kept in ("completion", "n_tokens", "reason", "reward"):
        assert [r["rollouts"][0][kept] for r in compact.records] == [r["rollouts"][0][kept] for r in plain.records]


def test_compact_sampling_repeats_its_samples_and_is_keyed(tiny_gqa_model, make_config):
    tasks = [t for _, t in load_eval_set(make_config(suite="stoich", splits=("in",), limit=3))[0]][:3]
    runs = []
    for _ in range(2):
        backend = TransformersBackend(tiny_gqa_model, max_new_tokens=5, threads=1, decoding="compact",
                                      temperature=0.9, draw="block_race")
        runs.append([[c.text for c in row] for row in backend.generate(tasks, 3)])
    assert runs[0] == runs[1] and [len(row) for row in runs[0]] == [3, 3, 3]
    assert backend.model.generate.rlvr_compact == "block_race" and backend.describe()["decoding"] == "compact"
    sampled = make_config(model=tiny_gqa_model, backend="transformers", samples=3, temperature=0.9, decoding="compact")
    assert sampled.generation_key()["decoding"] == "compact"
    greedy = make_config(model=tiny_gqa_model, backend="transformers", decoding="compact")
    assert "decoding" not in greedy.generation_key()
    assert "decoding" not in make_config(model=tiny_gqa_model, backend="transformers", samples=3).generation_key()
    assert make_backend(sampled).decoding == "compact"
