"""What an arm of ``rlvr quickstart`` gets and gives back (:mod:`rlvr.quickstart.arms` registers the arms)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlvr.quickstart.evaluation import Evaluator
from rlvr.quickstart.plan import Plan


@dataclass
class ArmRun:
    """One trained arm: the LoRA adapter on the warm-started model (None: the arm trained nothing) and its budget."""

    name: str
    adapter: str | None
    budget: dict[str, Any]
    result: Any = field(default=None, repr=False)


@dataclass
class ArmContext:
    """What an arm's function gets: the checked plan, the run's evaluator, the model every arm starts from, the
    arms already run (by name), and ``shared``: a folder for work that does not depend on the arm's own values
    (the RFT arm's samples), which tuning runs of several candidates share (None: the run's own folder)."""

    plan: Plan
    evaluator: Evaluator
    start_model: str
    runs: dict[str, ArmRun] = field(default_factory=dict)
    shared: Path | None = None
