"""The eval generation path: length-sorted batches, merged adapters, KV cache on, static cache, backend choice."""
from __future__ import annotations

import importlib.util
import json

import pytest

from rlvr.eval import load_eval_set, run_eval
from rlvr.eval.backends import resolve_backend
from rlvr.eval.backends.hf import TransformersBackend, prepare_for_generation
from rlvr.eval.config import EvalConfig
from rlvr.eval.plots import write_plots
from rlvr.models import quiet_checkpointing_aliases


def _texts(result) -> list[str]:
    return [r["rollouts"][0]["completion"] for r in result.records]


def test_sorted_batches_give_the_unsorted_text_in_task_order(make_config, tiny_model, tmp_path):
    common = dict(model=tiny_model, suite="stoich", splits=("in", "out"), limit=2, max_new_tokens=8, batch_size=3, threads=1)
    plain = run_eval(make_config(sort_by_length=False, out=str(tmp_path / "plain"), **common))
    ordered = run_eval(make_config(sort_by_length=True, out=str(tmp_path / "sorted"), **common))
    tasks = [t for _, t in load_eval_set(make_config(**common))[0]]
    assert [r["id"] for r in ordered.records] == [t.id for t in tasks]  # task order, not batching order
    assert [r["id"] for r in plain.records] == [t.id for t in tasks]
    assert _texts(ordered) == _texts(plain)
    # the sorted batching really differs from task order here, and groups rows by token length
    backend = TransformersBackend(tiny_model, max_new_tokens=2, threads=1)
    order = backend.batching_order(tasks)
    lengths = backend.prompt_lengths(tasks)
    assert order != list(range(len(tasks)))
    assert [lengths[i] for i in order] == sorted(lengths, reverse=True)


def test_static_cache_gives_the_same_greedy_text(tiny_model, make_config):
    tasks = [t for _, t in load_eval_set(make_config(suite="stoich", splits=("in",), limit=1))[0]][:3]
    dynamic = TransformersBackend(tiny_model, max_new_tokens=6, threads=1)
    static = TransformersBackend(tiny_model, max_new_tokens=6, threads=1, static_cache=True)
    assert static._generation_config(1).cache_implementation == "static"
    assert static.describe()["static_cache"] is True
    assert [c[0].text for c in static.generate(tasks, 1)] == [c[0].text for c in dynamic.generate(tasks, 1)]


def test_static_cache_flag_reaches_the_backend(make_config, tiny_model):
    from rlvr.eval.backends import make_backend

    backend = make_backend(make_config(model=tiny_model, backend="transformers", static_cache=True, threads=1))
    assert backend.static_cache is True


def test_generation_undoes_training_settings(tiny_model):
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(tiny_model)
    with quiet_checkpointing_aliases():
        model.gradient_checkpointing_enable()
    model.train()
    model.config.use_cache = False
    model.generation_config.use_cache = False
    prepare_for_generation(model)
    with quiet_checkpointing_aliases():
        assert not model.training and not model.is_gradient_checkpointing
    assert model.config.use_cache and model.generation_config.use_cache
    backend = TransformersBackend(tiny_model, max_new_tokens=2, threads=1)
    assert backend._generation_config(1).use_cache is True and not backend.model.training


def test_adapter_is_merged_into_the_weights(tiny_model, tmp_path, make_config):
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM

    base = AutoModelForCausalLM.from_pretrained(tiny_model)
    with quiet_checkpointing_aliases():
        peft_model = get_peft_model(base, LoraConfig(r=2, target_modules=["q_proj", "v_proj"], init_lora_weights=False))
    adapter = tmp_path / "adapter"
    peft_model.save_pretrained(str(adapter))
    backend = TransformersBackend(tiny_model, adapter=str(adapter), max_new_tokens=6, threads=1)
    assert not isinstance(backend.model, PeftModel)
    assert not any("lora_" in name for name, _ in backend.model.named_parameters())
    # the merged weights are the adapter's: the same logits as the unmerged peft model
    with quiet_checkpointing_aliases():
        unmerged = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_model), str(adapter)).eval()
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    with torch.no_grad():
        assert torch.allclose(backend.model(ids).logits, unmerged(ids).logits, atol=1e-4)
        assert not torch.allclose(backend.model(ids).logits, AutoModelForCausalLM.from_pretrained(tiny_model)(ids).logits,
                                  atol=1e-4)


def test_auto_backend_resolution(monkeypatch):
    assert resolve_backend("transformers", "cuda") == "transformers"
    assert resolve_backend("oracle", "auto") == "oracle"
    real = importlib.util.find_spec
    if real("vllm") is None:  # this machine: no vllm -> transformers, whatever the device
        assert resolve_backend("auto", "cuda") == "transformers"
        assert EvalConfig(backend="auto", device="cuda").backend == "transformers"
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object() if name == "vllm" else real(name, *a))
    assert resolve_backend("auto", "cuda:1") == "vllm"
    assert resolve_backend("auto", "cpu") == "transformers"


def test_auto_is_resolved_in_the_config(tmp_path):
    config = EvalConfig(device="cpu", out=str(tmp_path / "x"))
    assert config.backend in ("transformers", "vllm") and config.backend != "auto"
    if importlib.util.find_spec("vllm") is None:
        assert config.backend == "transformers" and config.generation_key()["backend"] == "transformers"


def test_no_empty_plots_folder(tmp_path, make_config):
    folder = tmp_path / "plots"
    assert write_plots({"summary": {}}, folder) == []
    assert not folder.exists()
    result = run_eval(make_config(backend="oracle", suite="stoich", splits=("in",), limit=1, plots=True))
    plotted = result.out_dir / "plots"
    assert plotted.is_dir() == any(k.startswith("plot:") for k in result.paths)
    if plotted.is_dir():
        assert any(plotted.iterdir())


@pytest.mark.parametrize("backend", ["oracle", "copy-input"])
def test_reference_backends_keep_task_order(backend, make_config):
    result = run_eval(make_config(backend=backend, suite="stoich", splits=("in",), limit=2))
    tasks = [t for _, t in load_eval_set(make_config(backend=backend, suite="stoich", splits=("in",), limit=2))[0]]
    assert [r["id"] for r in result.records] == [t.id for t in tasks]


def _scanned_lengths(new, eos, pad) -> list[int]:
    """The per-token scan the vectorised search replaced (the reference it must equal)."""
    lengths = []
    for ids in new.tolist():
        n = len(ids)
        for pos, tok in enumerate(ids):
            if tok == eos or (pad is not None and tok == pad and pad != eos):
                n = pos + 1 if tok == eos else pos
                break
        lengths.append(n)
    return lengths


def test_generated_lengths_equal_the_per_token_scan(tiny_model):
    import torch

    backend = TransformersBackend(tiny_model, max_new_tokens=2, threads=1)
    eos = backend.tokenizer.eos_token_id
    other = (eos + 1) % backend.tokenizer.vocab_size
    g = torch.Generator().manual_seed(0)
    new = torch.randint(0, 4, (64, 9), generator=g)
    new = torch.where(new == 0, torch.full_like(new, eos), torch.where(new == 1, torch.full_like(new, other), new + 100))
    new[0] = 100  # a row that never stops
    new[1, 0] = eos  # stops at once
    for pad in (eos, other, None):
        backend.tokenizer.pad_token_id = pad
        assert backend._generated_lengths(new) == _scanned_lengths(new, eos, pad)
    assert backend._generated_lengths(new[:, :0]) == [0] * 64


def test_prompts_are_tokenized_once_and_encode_as_before(tiny_model, make_config, monkeypatch):
    tasks = [t for _, t in load_eval_set(make_config(suite="stoich", splits=("in", "out"), limit=2))[0]]
    backend = TransformersBackend(tiny_model, max_new_tokens=2, threads=1)
    texts = [backend.tokenizer.apply_chat_template(t.prompt, tokenize=False, add_generation_prompt=True) for t in tasks]
    expected = backend.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
    fresh = backend._encode(tasks)  # nothing kept: tokenized here
    backend.prompt_lengths(tasks)
    calls = []
    real = backend._tokenize
    monkeypatch.setattr(backend, "_tokenize", lambda ts: calls.append(len(ts)) or real(ts))
    calibration = backend._encode(tasks, keep=True)  # estimate_seconds' look: the ids stay for the real batch
    kept = backend._encode(tasks)  # the ids prompt_lengths kept
    assert calls == []
    again = backend._encode(tasks[:1])  # used once: a second encode tokenizes afresh
    assert calls == [1]
    for enc in (fresh, calibration, kept):
        assert enc["input_ids"].tolist() == expected["input_ids"].tolist()
        assert enc["attention_mask"].tolist() == expected["attention_mask"].tolist()
    assert again["input_ids"][0].tolist()[-5:] == expected["input_ids"][0].tolist()[-5:]


@pytest.mark.parametrize("fail_at", [None, 2])
def test_overlapped_verification_keeps_the_serial_records(make_config, tmp_path, fail_at):
    """Verdicts computed while the next batch decodes: the same records, in task order, batch by batch;
    a failing batch keeps the batches before it in the verdict log."""
    from rlvr.eval.backends.reference import OracleBackend

    class Overlapping(OracleBackend):
        overlap_verification = True

        def _generate(self, tasks, samples):
            if fail_at is not None and self.calls == fail_at:
                raise RuntimeError("the device fell over")
            return super()._generate(tasks, samples)

    common = dict(backend="oracle", suite="stoich", splits=("in", "out"), limit=3, batch_size=2)
    serial = run_eval(make_config(out=str(tmp_path / "serial"), **common))
    config = make_config(out=str(tmp_path / "overlap"), **common)
    seen = []
    if fail_at is None:
        overlapped = run_eval(config, backend=Overlapping(), on_batch=lambda done, total: seen.append(done))
        assert [r["id"] for r in overlapped.records] == [r["id"] for r in serial.records]
        assert [r["rollouts"] for r in overlapped.records] == [r["rollouts"] for r in serial.records]
        assert seen == sorted(seen) and seen[-1] == len(serial.records)
    else:
        with pytest.raises(RuntimeError, match="fell over"):
            run_eval(config, backend=Overlapping())
        logged = [json.loads(line) for line in (tmp_path / "overlap" / "verdicts.jsonl").read_text().splitlines()]
        assert len(logged) == 2 * fail_at  # the batches before the failure, verified on the worker thread
