"""The device is decided once (``rlvr.device.resolve_device``) and probed in exactly one function."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rlvr
from rlvr.device import Device, accelerator, cpu_multiplies_bf16, resolve_device

PACKAGE = Path(rlvr.__file__).resolve().parent


def test_resolution_without_the_hardware():
    resolved = resolve_device("auto", found=None)
    assert (resolved.name, resolved.dtype) == ("cpu", "float32")
    assert resolved.cpu_bf16 == cpu_multiplies_bf16()
    assert resolve_device("auto", found="cuda") == Device("cuda", "bfloat16")
    assert resolve_device("cpu", found="cuda") == Device("cpu", "float32", cpu_bf16=cpu_multiplies_bf16())
    assert resolve_device("cuda:1", found="cuda").name == "cuda:1"
    assert resolve_device("auto", "float16", found="cuda").dtype == "float16"
    assert resolve_device("auto", found="mps").dtype == "float32"
    with pytest.raises(ValueError, match="no such device"):
        resolve_device("cuda", found=None)
    with pytest.raises(ValueError, match="--device must be one of"):
        resolve_device("tpu", found="cuda")


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
