"""Which budget ``rlvr quickstart`` runs on this machine: the CPU recipe, or the GPU recipe on a CUDA device.

A pure choice from the user's ``--recipe`` and the device, so that it is tested without the hardware:
a recipe the user names is always kept; otherwise CUDA gets ``recipes/quickstart_gpu.yaml`` (more GRPO
steps, larger generation batches, 300 in-distribution eval tasks) and everything else the CPU recipe
``recipes/quickstart.yaml``, unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass

#: the recipe each budget runs when the user names none
CPU_RECIPE = "quickstart"
GPU_RECIPE = "quickstart_gpu"
#: greedy eval rows per generate call of each budget
EVAL_BATCH = {"cpu": 64, "gpu": 256}
DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class Budget:
    """A quickstart budget: the recipe to run, the budget's name (``cpu``, ``gpu`` or ``custom``) and the device."""

    recipe: str
    name: str
    device: str

    @property
    def eval_batch_size(self) -> int:
        """Greedy eval rows per generate call."""
        return EVAL_BATCH["gpu" if self.device == "cuda" else "cpu"]

    def describe(self) -> str:
        """One line for the console: which budget runs, with which recipe, on which device."""
        return f"budget {self.name}: recipe {self.recipe} on {self.device}"


def resolve_device(requested: str, cuda_available: bool) -> str:
    """``cpu`` or ``cuda`` for ``--device`` (``auto``: CUDA when available); ValueError for CUDA without one."""
    if requested not in DEVICES:
        raise ValueError(f"--device must be one of {list(DEVICES)}, got {requested!r}")
    if requested == "cuda" and not cuda_available:
        raise ValueError("--device cuda: no CUDA device is visible to torch (use --device cpu or auto)")
    if requested == "auto":
        return "cuda" if cuda_available else "cpu"
    return requested


def pick_budget(recipe_arg: str | None, device: str) -> Budget:
    """The budget for a resolved ``device`` (``cpu`` or ``cuda``): the user's recipe when named (budget
    ``custom``, or ``cpu`` / ``gpu`` when it is one of the two quickstart recipes), else the GPU recipe on CUDA (``gpu``) and the CPU recipe elsewhere (``cpu``)."""
    if recipe_arg:
        known = {CPU_RECIPE: "cpu", GPU_RECIPE: "gpu"}
        return Budget(recipe=recipe_arg, name=known.get(recipe_arg, "custom"), device=device)
    if device == "cuda":
        return Budget(recipe=GPU_RECIPE, name="gpu", device=device)
    return Budget(recipe=CPU_RECIPE, name="cpu", device=device)


def cuda_available() -> bool:
    """True when torch sees a CUDA device (torch imported here, lazily)."""
    import torch

    return bool(torch.cuda.is_available())
