"""Options that need a GPU or a package this run lacks are refused in one sentence before any model loads."""
from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import pytest

from rlvr.train.runner import check_gpu_only_options


def _args(**fields):
    return SimpleNamespace(use_cpu=True, use_vllm=False, deepspeed=None, fsdp=None, **fields)


def test_a_plain_cpu_run_passes(monkeypatch):
    monkeypatch.delenv("ACCELERATE_USE_FSDP", raising=False)
    check_gpu_only_options(_args())


@pytest.mark.parametrize("launched, fsdp", [("true", None), ("", "full_shard")])
def test_fsdp_on_cpu_is_refused(monkeypatch, launched, fsdp):
    monkeypatch.setenv("ACCELERATE_USE_FSDP", launched)
    args = _args()
    args.fsdp = fsdp
    with pytest.raises(ValueError, match="FSDP needs a CUDA GPU.*cpu_ddp.yaml"):
        check_gpu_only_options(args)


def test_fsdp_off_cpu_is_left_to_accelerate(monkeypatch):
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")
    args = _args()
    args.use_cpu = False
    check_gpu_only_options(args)


def test_vllm_and_deepspeed_on_cpu_are_refused(monkeypatch):
    monkeypatch.delenv("ACCELERATE_USE_FSDP", raising=False)
    args = _args()
    args.use_vllm = True
    with pytest.raises(ValueError, match="use_vllm needs"):
        check_gpu_only_options(args)
    args = _args()
    args.deepspeed = "ds.json"
    expected = "deepspeed is not installed" if importlib.util.find_spec("deepspeed") is None else "needs a GPU"
    with pytest.raises(ValueError, match=expected):
        check_gpu_only_options(args)
