"""The main job, ``rlvr quickstart``: the embedded model evaluated, warm-started on verified worked solutions,
trained with RL + LoRA and, beside it, a control arm of more supervised training at the same budget; every
stage scored on the same held-out tasks, with one declared primary test.

Stages (each its own function): the base evaluation and its cache (:mod:`~rlvr.quickstart.evaluation`), the
warm start, the RL stage and the control arm (:mod:`~rlvr.quickstart.training`), the step scan
(:mod:`~rlvr.quickstart.step_scan`), the report (:mod:`~rlvr.quickstart.report`). The plan
(:mod:`~rlvr.quickstart.plan`) checks the whole run before the first model call. The trainer itself lives in
:mod:`rlvr.train`.
"""
from __future__ import annotations

from rlvr.quickstart.plan import QuickstartOptions
from rlvr.quickstart.report import QuickstartResult, report_markdown
from rlvr.quickstart.run import run_quickstart

__all__ = ["QuickstartOptions", "QuickstartResult", "report_markdown", "run_quickstart"]
