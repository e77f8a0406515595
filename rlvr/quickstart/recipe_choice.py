"""Which recipe ``rlvr quickstart`` runs on this machine: the CPU recipe, or the GPU recipe on a CUDA device.

A pure choice from the user's ``--recipe`` and the resolved :class:`~rlvr.device.Device`, so that it is
tested without the hardware: a recipe the user names is always kept; otherwise CUDA gets
``recipes/quickstart_gpu.yaml`` (more GRPO steps, larger generation batches, 300 in-distribution eval
tasks) and everything else the CPU recipe ``recipes/quickstart.yaml``, unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass

from rlvr.device import Device

#: the recipe each budget runs when the user names none
CPU_RECIPE = "quickstart"
GPU_RECIPE = "quickstart_gpu"
#: greedy eval rows per generate call of each budget
EVAL_BATCH = {"cpu": 64, "gpu": 256}


@dataclass(frozen=True)
class RecipeChoice:
    """The recipe to run, the budget's name (``cpu``, ``gpu`` or ``custom``) and the device it runs on."""

    recipe: str
    name: str
    device: Device

    @property
    def eval_batch_size(self) -> int:
        """Greedy eval rows per generate call."""
        return EVAL_BATCH["gpu" if self.device.is_cuda else "cpu"]

    def describe(self) -> str:
        """One line for the console: which budget runs, with which recipe, on which device."""
        return f"budget {self.name}: recipe {self.recipe} on {self.device.name}"


def choose_recipe(recipe_arg: str | None, device: Device) -> RecipeChoice:
    """The recipe for a resolved ``device``: the user's recipe when named (budget ``custom``, or ``cpu`` /
    ``gpu`` when it is one of the two quickstart recipes), else the GPU recipe on CUDA (``gpu``) and the CPU
    recipe elsewhere (``cpu``)."""
    if recipe_arg:
        known = {CPU_RECIPE: "cpu", GPU_RECIPE: "gpu"}
        return RecipeChoice(recipe=recipe_arg, name=known.get(recipe_arg, "custom"), device=device)
    if device.is_cuda:
        return RecipeChoice(recipe=GPU_RECIPE, name="gpu", device=device)
    return RecipeChoice(recipe=CPU_RECIPE, name="cpu", device=device)
