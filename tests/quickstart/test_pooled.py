"""The pooled primary over seeds (``pooled_test``): declared in the recipe, checked when the run is planned, and
computed from the runs' own task files and per-task verdicts with the reaction as the unit."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rlvr.eval.stats import pooled_power, pooled_unit_probabilities, sign_test_power
from rlvr.quickstart.evaluation import write_eval_tasks
from rlvr.quickstart.pooled import PooledDesign, pooled_claims, render_pooled
from rlvr.train.config import build_mix

STOICH = {"encoding": "formula", "prompt_mode": "open", "corpus": "classic"}
DECLARED = {"seeds": [3, 4, 5], "reference": "control", "treated": "rl", "split": "test_out",
            "secondary": [{"per_seed": True}, {"reference": "rft"}, {"split": "test_in"}]}


def _design(value=DECLARED, **kw) -> PooledDesign:
    return PooledDesign.from_recipe(value, eval_sets=kw.get("sets", ["test_in", "test_out", "valid"]),
                                    arms=["rl", "control", "rft"], pass_at_k=kw.get("pass_at_k"))


def test_the_declaration_is_checked_in_one_line():
    d = _design()
    assert d.seeds == (3, 4, 5) and d.primary.split == "test_out" and len(d.secondary) == 3
    assert d.secondary[1].reference == "rft" and d.secondary[2].split == "test_in" and d.secondary[2].treated == "rl"
    for bad, match in (({**DECLARED, "seeds": [3]}, "at least two"), ({**DECLARED, "split": "nope"}, "eval sets"),
                       ({**DECLARED, "split": "valid"}, "tuning set"), ({**DECLARED, "treated": "ppo"}, "not a stage"),
                       ({**DECLARED, "secondary": [{"measure": "pass@1"}]}, "needs the recipe's pass_at_k"),
                       ({**DECLARED, "extra": 1}, "unknown key"), ({**DECLARED, "alpha": 2}, "lie in")):
        with pytest.raises(ValueError, match=match):
            _design(bad)
    assert _design(None) is None
    pass1 = _design({**DECLARED, "secondary": [{"measure": "pass@1"}]}, pass_at_k="test_in").secondary[0]
    assert (pass1.split, pass1.name) == ("test_in", "control->rl/pass@1/test_in")


def _run(folder: Path, seed: int, tasks_file: Path, outcomes: dict[str, dict[str, bool]]) -> Path:
    folder.mkdir(parents=True)
    (folder / "eval_tasks.jsonl").write_text(tasks_file.read_text())
    (folder / "summary.json").write_text(json.dumps({"seed": seed}))
    ids = [json.loads(line)["id"] for line in tasks_file.read_text().splitlines()]
    groups = {json.loads(line)["id"]: {"test_in": "in", "test_out": "out"}[json.loads(line)["meta"]["split"]]
              for line in tasks_file.read_text().splitlines()}
    for stage, right in outcomes.items():
        records = [{"id": i, "split": "x", "split_group": groups[i],
                    "rollouts": [{"correct": right[i], "reason": "ok", "reward": float(right[i])}]} for i in ids]
        out = folder / f"eval_{stage}"
        out.mkdir()
        (out / "records.json").write_text(json.dumps(records))
    return folder


def test_pooled_claims_count_each_reaction_once_over_the_seeds(tmp_path):
    specs = {name: {"mix": build_mix(None, ["stoich.t1"], STOICH), "split": name, "size": 60}
             for name in ("test_in", "test_out")}
    written = write_eval_tasks(tmp_path / "tasks.jsonl", specs, seed=1)
    ids = list(written.groups)
    rng = random.Random(0)
    folders = []
    for seed in (3, 4, 5):
        control = {i: rng.random() < 0.5 for i in ids}
        rl = {i: (not control[i]) if rng.random() < 0.3 else control[i] for i in ids}
        rl.update({i: True for i in ids[:20]})  # RL right on the first 20 tasks of every seed
        folders.append(_run(tmp_path / f"s{seed}", seed, written.path, {"control": control, "rl": rl, "rft": control}))
    claims = pooled_claims(_design(), folders)
    p = claims["primary"]
    assert claims["complete"] and p["runs"] == 3 and p["n_tasks"] == 60 and p["n_units"] == 60
    # a unit's change is its mean over the seeds; recount it by hand
    changes = []
    for i in [i for i in ids if written.groups[i] == "out"]:
        recs = [{s: json.loads((f / f"eval_{s}" / "records.json").read_text()) for s in ("control", "rl")} for f in folders]
        by = [{s: next(r for r in run[s] if r["id"] == i)["rollouts"][0]["correct"] for s in run} for run in recs]
        changes.append(sum(float(b["rl"]) - float(b["control"]) for b in by))
    assert (p["improved"], p["worsened"]) == (sum(c > 0 for c in changes), sum(c < 0 for c in changes))
    names = [s["name"] for s in claims["secondary"]]
    assert names[:3] == [f"control->rl/em/test_out/seed {s}" for s in (3, 4, 5)] and len(names) == 5
    assert all(s["p_holm"] >= s["p_value"] for s in claims["secondary"])
    assert "POOLED PRIMARY" in render_pooled(claims)[0]
    partial = pooled_claims(_design(), folders[:2])
    assert not partial["complete"] and "INCOMPLETE" in render_pooled(partial)[0]
    with pytest.raises(ValueError, match="does not declare"):
        pooled_claims(_design({**DECLARED, "seeds": [4, 5]}), folders)


def test_pooled_power_matches_a_simulation_of_the_planned_design():
    up, down = pooled_unit_probabilities(3, 0.06, 0.02)
    assert 0 < down < up < 1
    rng = random.Random(1)
    hits = 0
    from rlvr.eval.stats import sign_test_p_value

    for _ in range(300):
        nets = [sum((1 if (u := rng.random()) < 0.06 else -1 if u < 0.08 else 0) for _ in range(3)) for _ in range(120)]
        hits += sign_test_p_value(sum(n > 0 for n in nets), sum(n < 0 for n in nets)) < 0.05
    assert abs(hits / 300 - pooled_power(120, 3, 0.06, 0.02)) < 0.08
    assert pooled_power(120, 3, 0.06, 0.02) > sign_test_power(120, 0.06, 0.02)
