"""What ``rlvr quickstart`` measures of the warm start and every arm beyond greedy exact match, where the
published comparisons of RL and SFT find their differences.

- ``pass_at_k``: ``samples`` completions per task at RL's temperature on the first ``size`` tasks of an eval
  set: pass@1 (the mean share of right samples) and pass@k (any right); the arms against the treated arm
  task by task (pass@1: exact Wilcoxon signed-rank on each task's share; pass@k: exact McNemar).
- ``retention_set``: another task group's fixed set (molecules for a stoichiometry run, and back), scored
  greedily before (the warm start) and after each arm: what an arm keeps of a skill it was not trained on
  (exact McNemar, warm start -> arm).
- ``kl_set``: KL(arm || warm start) on the arm's own samples (:mod:`rlvr.quickstart.divergence`); descriptive.

These tests join the run's declared secondary family (:mod:`rlvr.quickstart.claims`), Holm-corrected.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rlvr.eval.stats import mean_se, paired_exact_test, paired_signed_rank_test
from rlvr.quickstart.claims import TestOutcome
from rlvr.quickstart.divergence import sequence_kl
from rlvr.quickstart.evaluation import Evaluator, say
from rlvr.quickstart.plan import Plan
from rlvr.quickstart.scores import PRE_ARM_STAGES, test_key
from rlvr.task import load_tasks
from rlvr.train.data import named_eval_set, retention_set_spec


@dataclass
class Measures:
    """The run's extra measurements, stage by stage: per-task outcomes (for the tests) and the summary figures."""

    plan: Plan
    evaluator: Evaluator
    pass_tasks: Evaluator | None = None
    retention: Evaluator | None = None
    kl_tasks: Evaluator | None = None
    share_right: dict[str, dict[str, float]] = field(default_factory=dict)
    any_right: dict[str, dict[str, bool]] = field(default_factory=dict)
    kept: dict[str, dict[str, bool]] = field(default_factory=dict)
    divergence: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def for_plan(cls, plan: Plan, evaluator: Evaluator) -> "Measures":
        """Write the task files of every measurement the recipe asks for."""
        study, task = plan.recipe.study, plan.recipe.task
        out = cls(plan=plan, evaluator=evaluator)
        if study.pass_at_k:
            specs = named_eval_set(task, str(study.pass_at_k["set"]), int(study.pass_at_k["size"]))
            out.pass_tasks = Evaluator.for_plan(plan, specs, name="pass_at_k_tasks")
        if study.retention_set:
            out.retention = Evaluator.for_plan(plan, {"retention": retention_set_spec(study.retention_set)},
                                               name="retention_tasks")
        if study.kl_set:
            specs = named_eval_set(task, str(study.kl_set["split"]), int(study.kl_set["size"]))
            out.kl_tasks = Evaluator.for_plan(plan, specs, name="kl_tasks")
        return out

    def temperature(self, rule: dict[str, Any] | None) -> float:
        """A measurement's sampling temperature: its own, else RL's."""
        own = (rule or {}).get("temperature")
        return float(own if own is not None else self.plan.recipe.training.temperature)

    def measure(self, stage: str, model: str, adapter: str | None, reference: str | None = None) -> None:
        """Every asked measurement of one stage (``reference``: the model KL is taken against; None: no KL)."""
        study = self.plan.recipe.study
        if self.pass_tasks is not None:
            res = self.evaluator.sample(f"pass_at_k/{stage}", f"{stage} on {self.pass_tasks.n_tasks} tasks", model, adapter,
                                        samples=int(study.pass_at_k["samples"]), temperature=self.temperature(study.pass_at_k),
                                        tasks_file=self.pass_tasks.tasks_file)
            rights = {r["id"]: [bool(x["correct"]) for x in r["rollouts"]] for r in res.records}
            self.share_right[stage] = {i: sum(v) / len(v) for i, v in rights.items()}
            self.any_right[stage] = {i: any(v) for i, v in rights.items()}
        if self.retention is not None:
            cap = study.retention_set.get("max_new_tokens")
            result = self.retention.stage(f"retention/{stage}", f"{stage} on the retention set", model, adapter,
                                          max_new_tokens=int(cap) if cap else None)
            self.kept[stage] = {r["id"]: bool(r["rollouts"][0]["correct"]) for r in result.records}
            self.evaluator.seconds[f"retention/{stage}"] = self.retention.seconds.get(f"retention/{stage}", 0.0)
        if self.kl_tasks is not None and reference is not None and adapter is not None:
            self.divergence[stage] = self._kl(stage, model, adapter, reference)

    def _kl(self, stage: str, model: str, adapter: str, reference: str) -> dict[str, Any]:
        temperature = self.temperature(self.plan.recipe.study.kl_set)
        res = self.evaluator.sample(f"kl/{stage}", f"{stage} for its KL from the warm start", model, adapter, samples=1,
                                    temperature=temperature, tasks_file=self.kl_tasks.tasks_file)
        prompts = {t.id: t.prompt for t in load_tasks(self.kl_tasks.tasks_file)}
        pairs = [(prompts[r["id"]], r["rollouts"][0]["completion"]) for r in res.records if r["id"] in prompts]
        say(f"KL of {stage} from the warm start on {len(pairs)} samples")
        return {**sequence_kl(model, adapter, reference, pairs, temperature=temperature), "temperature": temperature}

    def tests(self, treated: str) -> list[TestOutcome]:
        """The declared secondaries these measurements add: pass@1 and pass@k of every other stage against
        ``treated`` (the warm start included), retention from the warm start to every arm."""
        out: list[TestOutcome] = []
        k = int(self.plan.recipe.study.pass_at_k["samples"]) if self.pass_tasks else 0
        where = str(self.plan.recipe.study.pass_at_k["set"]) if self.pass_tasks else ""
        for ref in (s for s in self.share_right if s != treated and treated in self.share_right):
            ids = [i for i in self.share_right[ref] if i in self.share_right[treated]]
            rank = paired_signed_rank_test([self.share_right[ref][i] for i in ids], [self.share_right[treated][i] for i in ids])
            out.append(TestOutcome(f"{test_key(ref, treated)}/pass@1/{where}", ref, treated, "wilcoxon", where, len(ids),
                                   rank.better, rank.worse, rank.p_value))
            em = paired_exact_test([self.any_right[ref][i] for i in ids], [self.any_right[treated][i] for i in ids])
            out.append(TestOutcome(f"{test_key(ref, treated)}/pass@{k}/{where}", ref, treated, "mcnemar", where, len(ids),
                                   em.gained, em.lost, em.p_value))
        before = next((s for s in self.kept if s in PRE_ARM_STAGES), None)  # the model every arm started from
        for arm in (s for s in self.kept if s not in PRE_ARM_STAGES and before is not None):
            ids = [i for i in self.kept[before] if i in self.kept[arm]]
            em = paired_exact_test([self.kept[before][i] for i in ids], [self.kept[arm][i] for i in ids])
            out.append(TestOutcome(f"{test_key(before, arm)}/retention", before, arm, "mcnemar", "retention", len(ids),
                                   em.gained, em.lost, em.p_value))
        return out

    def to_dict(self) -> dict[str, Any]:
        """``summary.json``'s figures: pass@1 and pass@k per stage (with SEs), retention per stage, KL per arm."""
        out: dict[str, Any] = {}
        study = self.plan.recipe.study
        if self.share_right:
            k = int(study.pass_at_k["samples"])
            stages = {}
            for stage, shares in self.share_right.items():
                p1, p1_se, n = mean_se(shares.values())
                pk, pk_se, _ = mean_se(float(v) for v in self.any_right[stage].values())
                stages[stage] = {"pass@1": p1, "pass@1_se": p1_se, f"pass@{k}": pk, f"pass@{k}_se": pk_se, "n": n}
            out["pass_at_k"] = {"set": study.pass_at_k["set"], "samples": k, "temperature": self.temperature(study.pass_at_k),
                                "stages": stages}
        if self.kept:
            r = study.retention_set
            out["retention"] = {"families": r["families"], "split": r["split"], "stages": {
                stage: {"em": mean_se(float(v) for v in kept.values())[0], "em_se": mean_se(float(v) for v in kept.values())[1],
                        "n": len(kept)} for stage, kept in self.kept.items()}}
        if self.divergence:
            out["kl"] = {"split": study.kl_set["split"], "stages": self.divergence}
        return out

