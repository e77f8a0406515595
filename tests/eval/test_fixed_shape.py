"""Fixed-shape decoding (one static cache across calls) and grouped-KV attention: the eager path's greedy texts,
a bounded number of compilations, records in task order."""
from __future__ import annotations

import pytest
import torch
from transformers import GenerationConfig

from rlvr.eval import load_eval_set, run_eval
from rlvr.eval.backends import make_backend
from rlvr.eval.backends.hf import TransformersBackend
from rlvr.eval.config import EvalConfigError
from rlvr.generation.fixed_shape import FixedShapeDecoder
from rlvr.generation.grouped_attention import GROUPED_SDPA, set_attention


def _tasks(make_config, n: int):
    return [t for _, t in load_eval_set(make_config(suite="stoich", splits=("in", "out"), limit=n))[0]]


def _batches(tasks):
    """Batches of several sizes and prompt lengths, a short one last (as run_eval's tail batch)."""
    return [tasks[0:4], tasks[4:7], tasks[7:9], tasks[9:10]]


def test_fixed_decoding_gives_the_eager_greedy_texts(tiny_gqa_model, make_config):
    tasks = _tasks(make_config, 5)
    eager = TransformersBackend(tiny_gqa_model, max_new_tokens=7, threads=1)
    fixed = TransformersBackend(tiny_gqa_model, max_new_tokens=7, threads=1, decoding="fixed")
    assert fixed.describe()["decoding"] == "fixed"
    texts = []
    for batch in _batches(tasks):
        want = [c[0] for c in eager.generate(batch, 1)]
        texts += [c.text for c in want]
        got = [c[0] for c in fixed.generate(batch, 1)]
        assert [c.text for c in got] == [c.text for c in want]
        assert [c.n_tokens for c in got] == [c.n_tokens for c in want]
    assert len(set(texts)) > 1  # rows that differ, so a row mix-up would show
    assert fixed.decoder.rows == 4  # the largest batch; shorter ones were filled up to it
    assert fixed.decoder.caches_built == 1


def test_fixed_decoding_compiles_the_decoding_step_once(tiny_gqa_model, make_config, graph_counter):
    tasks = _tasks(make_config, 5)
    fixed_counter, static_counter = graph_counter, type(graph_counter)()
    fixed = TransformersBackend(tiny_gqa_model, max_new_tokens=5, threads=1, decoding="fixed",
                                compile_backend=fixed_counter)
    static = TransformersBackend(tiny_gqa_model, max_new_tokens=5, threads=1, decoding="static",
                                 compile_backend=static_counter)
    eager = TransformersBackend(tiny_gqa_model, max_new_tokens=5, threads=1)
    for batch in _batches(tasks):
        want = [c[0].text for c in eager.generate(batch, 1)]
        assert [c[0].text for c in fixed.generate(batch, 1)] == want
        assert [c[0].text for c in static.generate(batch, 1)] == want
    # one decoding graph for four batch shapes; transformers' own static cache compiles again for new shapes
    assert fixed_counter.graphs == 1
    assert static_counter.graphs > fixed_counter.graphs


def test_fixed_decoding_grows_its_cache_once_for_a_longer_prompt(tiny_gqa_model, make_config):
    tasks = _tasks(make_config, 3)
    backend = TransformersBackend(tiny_gqa_model, max_new_tokens=4, threads=1, decoding="fixed")
    decoder: FixedShapeDecoder = backend.decoder
    short = min(tasks, key=lambda t: backend.prompt_lengths([t])[0])
    backend.generate([short], 1)
    assert decoder.caches_built == 1
    decoder.length_multiple = 1  # every prompt length is its own shape now: a longer prompt outgrows the cache
    longest = max(tasks, key=lambda t: backend.prompt_lengths([t])[0])
    backend.generate([longest], 1)
    backend.generate([short], 1)
    assert decoder.caches_built == 2


def test_fixed_decoding_keeps_samples_per_prompt_together(tiny_gqa_model, make_config):
    tasks = _tasks(make_config, 2)[:3]
    backend = TransformersBackend(tiny_gqa_model, max_new_tokens=4, threads=1, decoding="fixed", temperature=0.8)
    out = backend.generate(tasks, 3)
    assert [len(c) for c in out] == [3, 3, 3]
    again = TransformersBackend(tiny_gqa_model, max_new_tokens=4, threads=1, decoding="fixed", temperature=0.8)
    assert [[c.text for c in row] for row in again.generate(tasks, 3)] == [[c.text for c in row] for row in out]


def test_run_eval_with_fixed_decoding_gives_the_default_records_in_task_order(tiny_gqa_model, make_config, tmp_path):
    common = dict(model=tiny_gqa_model, suite="stoich", splits=("in", "out"), limit=3, max_new_tokens=6,
                  batch_size=5, threads=1)
    plain = run_eval(make_config(out=str(tmp_path / "plain"), **common))
    fixed = run_eval(make_config(out=str(tmp_path / "fixed"), decoding="fixed", **common))
    assert len(plain.records) % 5  # the last batch is short
    assert len({r["rollouts"][0]["completion"] for r in plain.records}) > 1
    assert [r["id"] for r in fixed.records] == [r["id"] for r in plain.records]
    for kept in ("completion", "n_tokens", "reason", "reward"):
        assert [r["rollouts"][0][kept] for r in fixed.records] == [r["rollouts"][0][kept] for r in plain.records]


def test_decoding_and_attention_reach_the_backend(make_config, tiny_gqa_model):
    backend = make_backend(make_config(model=tiny_gqa_model, backend="transformers", decoding="fixed",
                                       attention=GROUPED_SDPA, threads=1))
    assert backend.decoding == "fixed" and backend.model.config._attn_implementation == GROUPED_SDPA
    assert make_config(static_cache=True).decoding == "static"
    with pytest.raises(EvalConfigError, match="decoding"):
        make_config(decoding="paged")
    with pytest.raises(EvalConfigError, match="attention"):
        make_config(attention="fast")


def test_the_draw_reaches_the_backend_and_each_draw_repeats_its_samples(make_config, tiny_gqa_model):
    tasks = _tasks(make_config, 2)[:3]
    texts = {}
    for draw in ("block_race", "multinomial"):
        config = make_config(model=tiny_gqa_model, backend="transformers", samples=3, temperature=0.8, draw=draw,
                             max_new_tokens=6, threads=1)
        runs = [[[c.text for c in row] for row in make_backend(config).generate(tasks, 3)] for _ in range(2)]
        assert runs[0] == runs[1] and len({t for row in runs[0] for t in row}) > 3
        texts[draw] = runs[0]
    assert texts["block_race"] != texts["multinomial"]  # the same distribution, another random stream
    assert getattr(make_backend(config).model.generate, "rlvr_draw", None) is None  # multinomial: transformers' own
    with pytest.raises(ValueError, match="unknown sampling draw"):
        TransformersBackend(tiny_gqa_model, draw="gumbel")


def test_grouped_attention_gives_sdpa_greedy_texts_and_logits(tiny_gqa_model, make_config, graph_counter):
    tasks = _tasks(make_config, 3)
    plain = TransformersBackend(tiny_gqa_model, max_new_tokens=6, threads=1, attention="sdpa")
    grouped = TransformersBackend(tiny_gqa_model, max_new_tokens=6, threads=1, attention=GROUPED_SDPA,
                                  decoding="fixed", compile_backend=graph_counter)
    want = [c[0].text for c in plain.generate(tasks, 1)]
    assert len(set(want)) > 1 and [c[0].text for c in grouped.generate(tasks, 1)] == want
    assert graph_counter.graphs == 1  # the packed decoding step compiles, once
    enc = plain._encode(tasks)  # every decoding step's logits, through the packed path, against sdpa's
    config = GenerationConfig(max_new_tokens=4, do_sample=False, pad_token_id=plain.tokenizer.pad_token_id,
                              output_logits=True, return_dict_in_generate=True)
    with torch.inference_mode():
        want = plain.model.generate(**enc, generation_config=config).logits
        got = set_attention(grouped.model, GROUPED_SDPA).generate(**enc, generation_config=config).logits
    assert len(got) == len(want) == 4
    assert all(torch.allclose(g, w, atol=1e-5) for g, w in zip(got, want))
