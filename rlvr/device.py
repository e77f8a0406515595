"""Where a model runs and in which dtype: decided once, by :func:`resolve_device`, and passed down.

Commands resolve ``--device`` here and hand the :class:`Device` to training and evaluation; nothing
below a command probes the hardware again. This is the one module that asks torch about CUDA:
:func:`accelerator` (which accelerator it sees) and :func:`cuda_devices_in_use` (which CUDA devices this
process has initialised); torch is imported there, lazily, so ``import rlvr`` stays light.
"""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass

#: what ``--device`` accepts (``cuda:N`` is accepted too)
DEVICE_CHOICES = ("auto", "cpu", "cuda")
#: the dtype each kind of device runs in by default: bf16 on accelerators, fp32 on the CPU (bf16 is slower there)
DEFAULT_DTYPE = {"cpu": "float32", "cuda": "bfloat16", "xpu": "bfloat16", "mps": "float32"}


@dataclass(frozen=True)
class Device:
    """A resolved device: ``name`` (``cpu``, ``cuda``, ``cuda:N``, ``xpu`` or ``mps``), the ``dtype`` models are
    evaluated in, and ``cpu_bf16``: whether bfloat16 is the faster dtype on this CPU (:func:`cpu_prefers_bf16`),
    where a recipe's ``bf16`` training runs in bfloat16 autocast instead of being dropped."""

    name: str = "cpu"
    dtype: str = "float32"
    cpu_bf16: bool = False

    @property
    def kind(self) -> str:
        """``cpu``, ``cuda``, ``xpu`` or ``mps`` (``cuda:1`` is ``cuda``)."""
        return self.name.split(":", 1)[0]

    @property
    def is_cuda(self) -> bool:
        """True on a CUDA device."""
        return self.kind == "cuda"

    @property
    def is_accelerator(self) -> bool:
        """True anywhere but the CPU."""
        return self.kind != "cpu"

    def describe(self) -> str:
        """``cuda (bfloat16)``: one phrase for a console line."""
        return f"{self.name} ({self.dtype})"


def accelerator() -> str | None:
    """The accelerator torch sees (``cuda``, ``xpu`` or ``mps``), or None: the only hardware probe in rlvr."""
    import torch

    if torch.cuda.is_available():
        return "cuda"
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available():
        return "xpu"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return None


def cuda_devices_in_use() -> list[int]:
    """The indices of the CUDA devices whose random state this process may have touched: every visible one
    once CUDA is initialised, none before (asking initialises nothing)."""
    import torch

    return list(range(torch.cuda.device_count())) if torch.cuda.is_initialized() else []


def resolve_device(requested: str = "auto", dtype: str = "auto", *, found: str | None | bool = False) -> Device:
    """The :class:`Device` for ``--device`` (``auto``, ``cpu``, ``cuda``, ``cuda:N``) and ``--dtype`` (``auto``: per device).

    ``auto`` takes the accelerator torch sees (``cuda:LOCAL_RANK`` under a distributed launcher), else the
    CPU. ``found`` stands in for the probe (the accelerator's kind, or None for none) so that the choice is
    tested without the hardware; by default :func:`accelerator` is asked, and only when the answer matters.
    Raises ValueError, with a sentence for the user, on an unknown name or a CUDA device that is not there.
    """
    requested = str(requested or "auto").strip()
    if requested not in DEVICE_CHOICES and not requested.startswith("cuda:") and requested not in ("xpu", "mps"):
        raise ValueError(f"--device must be one of {list(DEVICE_CHOICES)} (or cuda:N), got {requested!r}")
    if requested == "cpu":
        name = "cpu"
    else:
        seen = accelerator() if found is False else found
        if requested == "auto":
            name = _with_rank(seen) if seen else "cpu"
        elif seen != requested.split(":", 1)[0]:
            raise ValueError(f"--device {requested}: no such device is visible to torch (use --device cpu or auto)")
        else:
            name = requested
    kind = name.split(":", 1)[0]
    return Device(name=name, dtype=DEFAULT_DTYPE[kind] if dtype in (None, "", "auto") else str(dtype),
                  cpu_bf16=kind == "cpu" and cpu_prefers_bf16())


#: the environment variable that overrides :func:`cpu_prefers_bf16` (``1`` or ``0``)
CPU_BF16_ENV = "RLVR_CPU_BF16"


def cpu_bf16_override() -> bool | None:
    """What ``$RLVR_CPU_BF16`` asks for: True (``1``), False (``0``), or None when it is unset or empty. Raises
    ValueError, with a sentence for the user, on any other value."""
    value = os.environ.get(CPU_BF16_ENV, "").strip()
    if value and value not in ("0", "1"):
        raise ValueError(f"${CPU_BF16_ENV} must be 1 or 0, got {value!r}")
    return value == "1" if value else None


def cpu_bf16_forced() -> bool:
    """Whether ``$RLVR_CPU_BF16`` decides the CPU's dtype instead of :func:`cpu_prefers_bf16`'s rule."""
    return cpu_bf16_override() is not None


def cpu_prefers_bf16(*, vendor: str | None = None, avx512_bf16: bool | None = None, amx: bool | None = None) -> bool:
    """Whether bfloat16 is the faster dtype on this CPU: where it has AMX tiles, or AVX512-BF16 on an AMD CPU.

    AVX512-BF16 alone does not make bfloat16 faster on every CPU. On a 2-core AMD EPYC with it, bfloat16 cut a
    GRPO step's update from 6.2 to 4.2 s and the main job from 17.0 to 11.6 minutes; on a 2-core Intel Xeon with
    it but no AMX, every matrix product of the embedded model's shapes ran at 0.5-0.9 times float32's speed, a
    GRPO step took 1.35 times as long and a warm-start step 1.45 times (docs/speed.md#bfloat16-on-a-cpu).
    ``$RLVR_CPU_BF16`` (``1`` or ``0``) overrides the rule. The keyword arguments stand in for the probes
    (torch's ISA checks and the CPU's vendor) so that the rule is tested without the hardware.
    """
    forced = cpu_bf16_override()
    if forced is not None:
        return forced
    if amx if amx is not None else _torch_cpu_supports("amx_tile"):
        return True
    if not (avx512_bf16 if avx512_bf16 is not None else _torch_cpu_supports("avx512_bf16")):
        return False
    return (cpu_vendor() if vendor is None else vendor) == "AuthenticAMD"


def _torch_cpu_supports(feature: str) -> bool:
    """Whether torch reports this CPU feature (``amx_tile``, ``avx512_bf16``); False where torch cannot say."""
    import torch

    check = getattr(getattr(torch, "cpu", None), f"_is_{feature}_supported", None)
    return bool(check()) if callable(check) else False


def cpu_vendor() -> str:
    """The CPU's vendor string (``GenuineIntel``, ``AuthenticAMD``, ...): ``vendor_id`` of ``/proc/cpuinfo``,
    else what :func:`platform.processor` names (Windows), else ``""``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    named = platform.processor()
    return next((v for v in ("AuthenticAMD", "GenuineIntel") if v in named), "")


def _with_rank(kind: str) -> str:
    """``cuda:LOCAL_RANK`` for a process of a distributed launch, else the bare kind."""
    local_rank = os.environ.get("LOCAL_RANK", "")
    return f"cuda:{int(local_rank)}" if kind == "cuda" and local_rank.isdigit() else kind
