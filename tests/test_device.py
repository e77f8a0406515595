"""The device is decided once (``rlvr.device.resolve_device``) and probed in exactly one function."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rlvr
from rlvr.device import CPU_BF16_ENV, Device, accelerator, cpu_prefers_bf16, cpu_vendor, resolve_device

PACKAGE = Path(rlvr.__file__).resolve().parent


def test_resolution_without_the_hardware():
    resolved = resolve_device("auto", found=None)
    assert (resolved.name, resolved.dtype) == ("cpu", "float32")
    assert resolved.cpu_bf16 == cpu_prefers_bf16()
    assert resolve_device("auto", found="cuda") == Device("cuda", "bfloat16")
    assert resolve_device("cpu", found="cuda") == Device("cpu", "float32", cpu_bf16=cpu_prefers_bf16())
    assert resolve_device("cuda:1", found="cuda").name == "cuda:1"
    assert resolve_device("auto", "float16", found="cuda").dtype == "float16"
    assert resolve_device("auto", found="mps").dtype == "float32"
    with pytest.raises(ValueError, match="no such device"):
        resolve_device("cuda", found=None)
    with pytest.raises(ValueError, match="--device must be one of"):
        resolve_device("tpu", found="cuda")


def test_bfloat16_where_it_is_the_faster_dtype(monkeypatch):
    monkeypatch.delenv(CPU_BF16_ENV, raising=False)
    # AMX tiles: bfloat16 on any vendor's CPU
    assert cpu_prefers_bf16(vendor="GenuineIntel", avx512_bf16=True, amx=True)
    # AVX512-BF16 alone: faster on an AMD CPU, slower than float32 on an Intel one without AMX
    assert cpu_prefers_bf16(vendor="AuthenticAMD", avx512_bf16=True, amx=False)
    assert not cpu_prefers_bf16(vendor="GenuineIntel", avx512_bf16=True, amx=False)
    assert not cpu_prefers_bf16(vendor="", avx512_bf16=True, amx=False)
    # no bfloat16 dot products at all (AVX2 only): float32
    assert not cpu_prefers_bf16(vendor="AuthenticAMD", avx512_bf16=False, amx=False)


def test_the_environment_overrides_the_rule(monkeypatch):
    monkeypatch.setenv(CPU_BF16_ENV, "1")
    assert cpu_prefers_bf16(vendor="GenuineIntel", avx512_bf16=False, amx=False)
    assert resolve_device("cpu").cpu_bf16
    monkeypatch.setenv(CPU_BF16_ENV, "0")
    assert not cpu_prefers_bf16(vendor="AuthenticAMD", avx512_bf16=True, amx=True)
    assert not resolve_device("cpu").cpu_bf16
    assert resolve_device("cpu").dtype == "float32"
    monkeypatch.setenv(CPU_BF16_ENV, "yes")
    with pytest.raises(ValueError, match="RLVR_CPU_BF16 must be 1 or 0, got 'yes'"):
        resolve_device("cpu")


def test_the_vendor_is_the_one_the_system_names():
    cpuinfo = Path("/proc/cpuinfo")
    named = [line.split(":", 1)[1].strip() for line in (cpuinfo.read_text().splitlines() if cpuinfo.exists() else [])
             if line.startswith("vendor_id")]
    if named:
        assert cpu_vendor() == named[0]
    else:
        assert cpu_vendor() in ("", "GenuineIntel", "AuthenticAMD")


def test_a_distributed_process_takes_its_local_rank(monkeypatch):
    monkeypatch.setenv("LOCAL_RANK", "3")
    assert resolve_device("auto", found="cuda").name == "cuda:3"
    assert resolve_device("auto", found=None).name == "cpu"


def test_the_cpu_is_never_probed(monkeypatch):
    import torch

    def refuse() -> bool:
        raise AssertionError("probed")

    monkeypatch.setattr(torch.cuda, "is_available", refuse)
    resolved = resolve_device("cpu")
    assert (resolved.name, resolved.dtype) == ("cpu", "float32")


def test_this_machine():
    seen = accelerator()
    assert resolve_device("auto").is_accelerator == (seen is not None)


def _calls(tree: ast.AST, dotted: str) -> int:
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.Attribute) and ast.unparse(node) == dotted)


def test_cuda_is_probed_in_one_function_and_no_environment_trick_remains():
    probes, assignments = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        if _calls(tree, "torch.cuda.is_available"):
            probes.append(path.relative_to(PACKAGE).as_posix())
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and any("CUDA_VISIBLE_DEVICES" in ast.unparse(t) for t in node.targets):
                assignments.append(path.name)
    assert probes == ["device.py"]
    assert assignments == []
