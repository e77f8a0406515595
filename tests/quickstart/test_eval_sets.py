"""The fixed eval sets: no task twice, a set larger than its pool refused before anything runs, and every set's
distinct reactions or molecules counted; tests that share a reaction count it once."""
from __future__ import annotations

import json

import pytest
import yaml

from rlvr.cli import main
from rlvr.device import Device
from rlvr.quickstart.evaluation import draw_eval_tasks, write_eval_tasks
from rlvr.quickstart.plan import QuickstartOptions, make_plan
from rlvr.quickstart.scores import StageResult, build_summary, set_group
from rlvr.train.config import build_mix
from rlvr.train.entry import find_recipe

STOICH = {"encoding": "formula", "prompt_mode": "open", "corpus": "classic"}


def _spec(split: str, size: int, family: str = "stoich.t1", **options) -> dict:
    return {"mix": build_mix(None, [family], {**(STOICH if family.startswith("stoich") else {}), **options}),
            "split": split, "size": size}


def _recipe(tmp_path, **changes) -> str:
    raw = yaml.safe_load(open(find_recipe("quickstart_plateau")))
    raw.update(changes)
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(raw))
    return str(path)


def test_a_set_larger_than_its_pool_is_refused_before_anything_is_written(tmp_path, capsys):
    sets = {"test_in": {"split": "test_in", "size": 172}}
    with pytest.raises(ValueError, match=r"'test_in': 172 tasks but its split 'test_in' holds only 171 distinct reactions"):
        make_plan(QuickstartOptions(recipe=_recipe(tmp_path, eval_sets=sets), output_dir=str(tmp_path / "qs"),
                                    device=Device("cpu")))
    assert not (tmp_path / "qs").exists()
    # the command: one line, exit 2, no traceback
    code = main(["quickstart", "--recipe", _recipe(tmp_path, eval_sets=sets), "--output-dir", str(tmp_path / "qs")])
    err = capsys.readouterr().err
    assert code == 2 and "171 distinct reactions" in err and "Traceback" not in err
    assert not (tmp_path / "qs").exists()


def test_a_measurement_set_larger_than_its_pool_is_refused_too(tmp_path):
    with pytest.raises(ValueError, match=r"pass_at_k \(test_in\).*holds only 171 distinct reactions"):
        make_plan(QuickstartOptions(recipe=_recipe(tmp_path, pass_at_k={"set": "test_in", "size": 200, "samples": 2}),
                                    output_dir=str(tmp_path / "qs"), device=Device("cpu")))


def test_a_written_set_holds_one_task_per_reaction_and_counts_them(tmp_path):
    written = write_eval_tasks(tmp_path / "tasks.jsonl", {"test_out": _spec("test_out", 171),
                                                          "test_cross": _spec("test_cross", 40)}, seed=1234)
    rows = [json.loads(line) for line in (tmp_path / "tasks.jsonl").read_text().splitlines()]
    out = [r for r in rows if r["meta"]["split"] == "test_out"]
    assert len(out) == 171 and len({r["meta"]["reaction_key"] for r in out}) == 171
    info = written.sets["test_out"]
    assert (info.size, info.items, info.noun, info.pool, info.group) == (171, 171, "reaction", 171, "out")
    assert written.sets["test_cross"].items == 40
    assert len({json.dumps([r["prompt"], r["ground_truth"]]) for r in rows}) == len(rows)
    assert set(written.units.values()) >= {f"stoich.t1|{r['meta']['reaction_key']}" for r in out}


def test_a_drawn_set_is_the_written_one_and_drawing_writes_nothing(tmp_path):
    specs = {"test_out": _spec("test_out", 30), "test_cross": _spec("test_cross", 20)}
    drawn = draw_eval_tasks(specs, seed=1234)
    assert list(tmp_path.iterdir()) == []
    written = write_eval_tasks(tmp_path / "sets" / "tasks.jsonl", specs, seed=1234)
    rows = (tmp_path / "sets" / "tasks.jsonl").read_text().splitlines()
    assert rows == [task.to_json() for task in drawn.tasks] and len(rows) == 50
    assert (written.sets, written.groups, written.units) == (drawn.sets, drawn.groups, drawn.units)
    with pytest.raises(ValueError, match="holds only 171 distinct reactions"):  # refused: no folder, no file
        write_eval_tasks(tmp_path / "refused" / "tasks.jsonl", {"test_out": _spec("test_out", 172)}, seed=1234)
    assert not (tmp_path / "refused").exists()


def test_two_sets_on_one_split_are_scored_apart():
    assert set_group("test_in") == "in" and set_group("fresh_out") == "fresh_out" and set_group("hard") == "hard"


def test_molecule_sets_count_molecules(tmp_path):
    written = write_eval_tasks(tmp_path / "m.jsonl", {"hard": _spec("hard", 60, "mol.count")}, seed=1)
    info = written.sets["hard"]
    assert info.noun == "molecule" and info.pool and info.pool > 1000 and 50 <= info.items <= 60


def _stage(correct: dict[str, bool], group: str = "in") -> StageResult:
    records = [{"id": i, "split": "test_in", "split_group": group, "rollouts": [{"correct": c, "reason": "ok",
                                                                                  "reward": float(c)}]}
               for i, c in correct.items()]
    return StageResult(scores={}, records=records)


def test_tasks_that_share_a_reaction_are_tested_as_one_unit():
    # six tasks, three reactions: R1's two tasks both gained, R2 one gained one lost, R3 lost
    ref = _stage({"a": False, "b": False, "c": False, "d": True, "e": True, "f": False})
    rl = _stage({"a": True, "b": True, "c": True, "d": False, "e": False, "f": False})
    units = {"a": "R1", "b": "R1", "c": "R2", "d": "R2", "e": "R3", "f": "R3"}
    by_task = build_summary({"control": ref, "rl": rl}, [("control", "rl")])["in"]
    by_unit = build_summary({"control": ref, "rl": rl}, [("control", "rl")], units)["in"]
    assert (by_task["tests"]["control->rl"]["gained"], by_task["tests"]["control->rl"]["lost"]) == (3, 2)
    assert (by_unit["n"], by_unit["n_units"], by_unit["unit_level"]) == (6, 3, True)
    assert (by_unit["tests"]["control->rl"]["gained"], by_unit["tests"]["control->rl"]["lost"]) == (1, 1)
    # one task per reaction: the row says so and the test is McNemar's
    one = build_summary({"control": ref, "rl": rl}, [("control", "rl")], {k: k for k in units})["in"]
    assert one["unit_level"] is False and one["tests"]["control->rl"] == by_task["tests"]["control->rl"]
