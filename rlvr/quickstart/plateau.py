"""The warm start's plateau mode: supervised training until a tuning set's exact match stops rising.

With a recipe's ``plateau: {set, size, every, min_gain, stop}``, the warm start saves its adapter every
``every`` SFT steps and scores it greedily on the tuning set (``valid`` for stoichiometry, the molecules
recipe's ``train_tune``); never a test split. The *plateau step* is the first scored step ``s`` whose next
``every`` steps gain at most ``min_gain`` in exact match. With ``stop`` the run ends at ``s + every``;
without it the run goes on to ``sft_steps`` and every scored step is kept, so several seeds' curves can be
averaged (:func:`mean_plateau`: the step count a recipe then takes for its claimed runs).

The learning rate must not decay with the run's length (``sft_lr_scheduler_type: constant`` or
``constant_with_warmup``), and ``sft_train_size`` must not depend on the step count: then the first ``s``
steps of a longer run are exactly the steps a run of ``s`` steps takes, and the recipe's fixed ``sft_steps``
reproduces the plateau model.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from rlvr.quickstart.evaluation import Evaluator, say
from rlvr.quickstart.plan import Plan
from rlvr.train.data import named_eval_set


def plateau_step(curve: Sequence[tuple[int, float]], min_gain: float) -> int | None:
    """The first step of ``curve`` (``(step, exact match)`` in step order, evenly spaced) whose next point gains
    at most ``min_gain``; None while the curve still rises."""
    for (step, em), (_, nxt) in zip(curve, curve[1:]):
        if nxt - em <= min_gain + 1e-12:
            return int(step)
    return None


def settled_step(curve: Sequence[tuple[int, float]], min_gain: float) -> int | None:
    """The first step of ``curve`` that no later scored step beats by more than ``min_gain``: a plateau that
    holds to the end of the curve, not only for the next point (None for a curve of one point or none). On a
    noisy curve the next-point rule (:func:`plateau_step`) can fire on a dip and miss a later rise."""
    if len(curve) < 2:
        return None
    for i, (step, em) in enumerate(curve[:-1]):
        if max(later for _, later in curve[i + 1:]) - em <= min_gain + 1e-12:
            return int(step)
    return None


def mean_plateau(curves: Sequence[Sequence[tuple[int, float]]], min_gain: float) -> dict[str, Any]:
    """Several seeds' curves averaged at the steps all of them scored; that mean curve's plateau step (the next
    scored step gains at most ``min_gain``) and settled step (no later one does), and each seed's."""
    shared = sorted(set.intersection(*(set(s for s, _ in c) for c in curves))) if curves else []
    mean = [(s, sum(dict(c)[s] for c in curves) / len(curves)) for s in shared]
    return {"mean_curve": mean, "plateau_step": plateau_step(mean, min_gain), "settled_step": settled_step(mean, min_gain),
            "per_seed": [plateau_step(list(c), min_gain) for c in curves],
            "per_seed_settled": [settled_step(list(c), min_gain) for c in curves]}


@dataclass
class PlateauWatch:
    """Scores the warm start's adapter every ``every`` steps on the tuning set and says when to stop."""

    plan: Plan
    rule: Mapping[str, Any]
    base_model: str
    folder: Path
    evaluator: Evaluator
    curve: list[tuple[int, float]] = field(default_factory=list)

    @classmethod
    def for_plan(cls, plan: Plan, rule: Mapping[str, Any], base_model: str, folder: Path) -> "PlateauWatch":
        """Write the tuning set's tasks (``plateau_tasks.jsonl``; the rule was checked with the plan,
        :func:`check_plateau`)."""
        specs = named_eval_set(plan.recipe.task, str(rule["set"]), int(rule["size"]))
        evaluator = Evaluator.for_plan(plan, specs, name="plateau_tasks")
        return cls(plan=plan, rule=rule, base_model=base_model, folder=folder, evaluator=evaluator)

    @property
    def every(self) -> int:
        """SFT steps between two scored adapters."""
        return int(self.rule["every"])

    def score(self, step: int, model: Any) -> bool:
        """Save ``model``'s adapter at ``step``, score it on the tuning set; True when the run may stop."""
        adapter = self.folder / f"step-{step}"
        model.save_pretrained(str(adapter))
        stage = self.evaluator.stage(f"plateau/step-{step}", f"the warm start at step {step}", self.base_model, str(adapter))
        em = sum(s.exact_match * s.n for s in stage.scores.values()) / max(1, sum(s.n for s in stage.scores.values()))
        self.curve.append((step, em))
        say(f"plateau: step {step}, {self.rule['set']} exact match {100 * em:.1f} %")
        return bool(self.rule["stop"]) and plateau_step(self.curve, float(self.rule["min_gain"])) is not None

    def callback(self) -> Any:
        """A trainer callback that calls :meth:`score` every ``every`` steps and stops training when it says so."""
        from transformers import TrainerCallback

        watch = self

        class PlateauCallback(TrainerCallback):
            def on_step_end(self, args, state, control, model=None, **kwargs):  # noqa: D102 - transformers hook
                if state.global_step % watch.every == 0 and model is not None:
                    was_training = model.training
                    if watch.score(int(state.global_step), model):
                        control.should_training_stop = True
                    model.train(was_training)
                return control

        return PlateauCallback()

    def summary(self) -> dict[str, Any]:
        """The curve, the plateau step (None while still rising) and the rule, for ``summary.json``."""
        return {"set": self.rule["set"], "size": int(self.rule["size"]), "every": self.every,
                "min_gain": float(self.rule["min_gain"]), "curve": [[s, em] for s, em in self.curve],
                "plateau_step": plateau_step(self.curve, float(self.rule["min_gain"]))}
