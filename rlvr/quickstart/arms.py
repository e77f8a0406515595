"""The arms of ``rlvr quickstart``, as data: each arm is one function that trains from the warm-started model.

A recipe lists its arms (``arms: [rl, control, rft]``); :data:`ARMS` maps each name to an :class:`Arm`: its
function, the label reports use, and the arms it reads (the controls take RL's step budget and prompt
stream, so RL runs first). An arm's function gets an :class:`ArmContext` and returns an :class:`ArmRun`: the
adapter it trained on the warm-started model and its budget. The budget names what an arm spent in the same
units for every arm: optimizer ``steps``, ``trained_completions`` (rows through the loss), ``trained_tokens``
(tokens through the forward and backward pass, prompts included: TRL's ``num_tokens``), ``generated_tokens``
(completion tokens sampled; 0 for an arm that samples nothing) and wall ``seconds``. The run's stages
(:mod:`rlvr.quickstart.run`), summary, report, figure and ``scripts/quickstart_seeds.py`` iterate over the arms a
run had. A new arm is one function here and one name in a recipe's ``arms``.

- ``rl``: the recipe's GRPO/RLOO + LoRA (:func:`~rlvr.quickstart.training.rl_stage`);
- ``control``: more SFT on fresh oracle worked solutions, RL's optimizer steps, rows per step matched to RL's
  trained completions per step (``control_match``);
- ``rft``: rejection-sampling fine-tuning (:mod:`rlvr.quickstart.rft`): as many completions as RL generated,
  sampled from the warm-started model at RL's temperature on RL's prompt stream, the verified-correct ones
  trained on with SFT for RL's optimizer steps.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from rlvr.quickstart.arm_run import ArmContext, ArmRun
from rlvr.quickstart.plan import Plan
from rlvr.quickstart.rft import train_rft
from rlvr.quickstart.training import RLShape, control_rows_per_step, rl_stage, train_control, trained_adapter
from rlvr.train.runner import PROMPT_STREAM


@dataclass(frozen=True)
class Arm:
    """A registered arm: its name, label, what its evaluation line calls it, its function, the arms it reads."""

    name: str
    label: str
    describes: str
    train: Callable[[ArmContext], ArmRun]
    needs: tuple[str, ...] = ()


def stream_size(plan: Plan) -> int:
    """How many groups the RL stage generated completions for (lines of its ``prompts.jsonl``; 0 without one)."""
    path = Path(plan.recipe.training.output_dir) / PROMPT_STREAM
    return sum(1 for line in path.read_text().splitlines() if line.strip()) if path.is_file() else 0


def rl_arm(ctx: ArmContext) -> ArmRun:
    """GRPO/RLOO + LoRA from the warm-started model; its budget counts drawn and resampled generations."""
    plan = ctx.plan
    result = rl_stage(plan, ctx.evaluator)
    shape = RLShape.of(plan.recipe.training)
    groups = stream_size(plan)
    budget = {"steps": int(result.global_step), "prompts_per_step": shape.prompts,
              "completions_per_prompt": shape.completions_per_prompt,
              "trained_completions": int(result.global_step) * shape.completions,
              "generated_completions": groups * shape.completions_per_prompt if groups else None,
              "trained_tokens": _whole(result.last_train_log.get("num_tokens")), "generated_tokens": result.generated_tokens,
              "learning_rate": float(plan.recipe.training.learning_rate), "skipped_steps": result.skipped_steps,
              "seconds": ctx.evaluator.seconds.get("rl", 0.0),
              "prompt_stream": str(Path(plan.recipe.training.output_dir) / PROMPT_STREAM)}
    return ArmRun("rl", trained_adapter(plan), budget, result)


def control_arm(ctx: ArmContext) -> ArmRun:
    """More SFT from the warm-started model on fresh oracle worked solutions: RL's optimizer steps, as many rows
    per step as ``control_match`` says (RL's completions or prompts per step)."""
    plan, rl = ctx.plan, ctx.runs["rl"]
    result, seconds = train_control(plan, int(rl.budget["steps"]))
    ctx.evaluator.seconds["control"] = seconds
    budget = {"steps": result.steps, "rows_per_step": control_rows_per_step(plan), "trained_completions": int(result.dataset.get("rows", 0)),
              "match": plan.recipe.control.control_match, "trained_tokens": result.num_tokens, "generated_tokens": 0,
              "learning_rate": float(plan.recipe.control.control_learning_rate), "skipped_steps": result.skipped_steps,
              "seconds": seconds}
    return ArmRun("control", result.adapter_dir, budget, result)


def _whole(value: Any) -> int | None:
    """A logged count (TRL logs floats) as a whole number, None when missing."""
    return None if value is None else int(round(float(value)))


#: every arm a recipe may name, by name
ARMS: dict[str, Arm] = {arm.name: arm for arm in (
    Arm("rl", "RL", "the RL arm (GRPO + LoRA from the warm start)", rl_arm),
    Arm("control", "SFT control", "the SFT control arm (more oracle worked solutions from the warm start)", control_arm,
        needs=("rl",)),
    Arm("rft", "RFT control", "the RFT control arm (SFT on the warm start's own verified samples)", train_rft, needs=("rl",)),
)}


def check_arms(arms: Sequence[str]) -> None:
    """ValueError in one line when a recipe's arms name an unknown arm, or one before an arm it reads."""
    for i, name in enumerate(arms):
        if name not in ARMS:
            raise ValueError(f"arms: unknown arm {name!r} (known: {', '.join(ARMS)})")
        missing = [need for need in ARMS[name].needs if need not in arms[:i]]
        if missing:
            raise ValueError(f"arms: {name} reads the {missing[0]} arm's budget, so {missing[0]} must come before it in arms")
    if not arms:
        raise ValueError("arms: name at least one arm (rl, control, rft)")
