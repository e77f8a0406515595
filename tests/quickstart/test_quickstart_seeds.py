"""``scripts/quickstart_seeds.py``: the kind of each final answer, read with the checker's own verdict."""
import importlib.util
from pathlib import Path

import pytest

import rlvr

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "quickstart_seeds.py"


@pytest.fixture(scope="module")
def seeds():
    spec = importlib.util.spec_from_file_location("quickstart_seeds", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def task():
    # the reaction {20}CO2.{12}H2O run n = 3 times: the answer is {60}CO2.{36}H2O
    t = rlvr.generate("stoich.t1", "test_in", 1234, 1, encoding="formula", prompt_mode="open", corpus="classic")
    assert t.ground_truth["products"] == {"H2O": 36, "CO2": 60} and t.meta["runs"] == 3
    return t


@pytest.mark.parametrize("answer, kind", [
    ("{60}CO2.{36}H2O", "right"),
    ("{40}CO2.{24}H2O", "scaled"),       # every count times n = 2
    ("{60}CO2.{35}H2O", "arithmetic"),   # one product miscomputed
    ("{60}CO2.{36}H2O2", "species"),
    ("{60}CO2", "species"),
    ("no answer block", "no_answer"),
])
def test_error_kind(seeds, task, answer, kind):
    completion = answer if kind == "no_answer" else f"<answer>{answer}</answer>"
    verdict = rlvr.verify(task, completion)
    rollout = {"completion": completion, "correct": verdict.correct, "reason": str(verdict.reason)}
    assert seeds.error_kind(task.to_dict(), rollout) == kind


def _write_records(folder, stage, right_ids, n=10):
    import json

    (folder / stage).mkdir(parents=True, exist_ok=True)
    records = [{"id": f"t{i}", "split": "test_in", "split_group": "in",
                "rollouts": [{"correct": f"t{i}" in right_ids, "reason": "ok", "reward": 1.0}]} for i in range(n)]
    (folder / stage / "records.json").write_text(json.dumps(records))


def test_the_budget_table_lists_each_run_at_each_step_budget_and_pools_seeds_over_tasks(seeds, tmp_path):
    def split(gained, lost, em_after):
        return {"n": 100, "em_warm": 0.6, "em_se_warm": 0.05, "em_after": em_after, "gained_rl": gained, "lost_rl": lost,
                "p_value_rl": 0.04, "better_rl": gained, "worse_rl": lost, "reward_p_value_rl": 0.2}

    def run(seed):
        return {"seed": seed, "steps": 36, "budget": [
            {"steps": 36, "train_minutes": 12.0, "splits": {k: split(9, 3, 0.66) for k in ("in", "cross", "out")}},
            {"steps": 18, "train_minutes": 6.0, "splits": {k: split(4, 5, 0.59) for k in ("in", "cross", "out")}}]}

    folders = [tmp_path / "a", tmp_path / "b"]
    for f, step18, final in zip(folders, ({"t0", "t1"}, {"t0"}), ({"t0", "t1", "t2", "t3"}, {"t0", "t1", "t2", "t9"})):
        _write_records(f, "eval_warm", {"t0", "t9"})
        _write_records(f, "eval_step18", step18)
        _write_records(f, "eval_rl" if f.name == "a" else "eval_after", final)  # b: a run from before arms were data
    lines = seeds.budget_table([("a", run(0)), ("b", run(1))], folders).splitlines()
    seeds_column = [line.strip("|").split("|")[2].strip() for line in lines[2:]]
    assert len(lines) == 8 and seeds_column == ["0", "1", "pooled over tasks", "0", "1", "pooled over tasks"]
    assert lines[2] == "| 18 | 6.0 | 0 | 60 → 59 | +4 −5, 0.04 | 4 / 5, 0.2 | -0.2, -0.2, -0.2 | – |"
    assert lines[5].startswith("| 36 | 12.0 | 0 | 60 → 66 | +9 −3, 0.04 |")
    # step 18: t1 up in run a only (mean +1/2), t9 down in both: 1 up, 1 down -> p = 1
    assert lines[4] == "| 18 | | pooled over tasks | | 1 tasks up, 1 down (10 tasks), sign test 1 | | | |"
    # final: t1, t2 up in both, t3 up in a (+1/2), t9 down in a (-1/2): 3 up, 1 down -> 2 * 5 / 16
    assert lines[7] == "| 36 | | pooled over tasks | | 3 tasks up, 1 down (10 tasks), sign test 0.62 | | | |"
    assert seeds.budget_table([("a", {"seed": 0})]) == ""
    pooled = seeds.pooled_rows(folders)
    assert (pooled["improved"], pooled["worsened"], pooled["n_tasks"], pooled["runs"]) == (3, 1, 10, 2)
    assert "3 tasks improved on average, 1 got worse" in seeds.pooled_line(pooled)
    assert seeds.pooled_rows(folders[:1]) is None
    # against the control arm instead of the warm start: t2 right in both controls, so t1, t3 up; t9 down in a
    for f in folders:
        _write_records(f, "eval_control", {"t0", "t2", "t9"})
    pooled = seeds.pooled_rows(folders, reference="control")
    assert (pooled["improved"], pooled["worsened"]) == (2, 1)
    assert "(test_in, SFT control -> RL" in seeds.pooled_line(pooled, reference="SFT control")


def test_the_primary_table_reads_the_declared_test_its_direction_and_the_holm_secondaries(seeds):
    summary = {"seed": 2, "primary": {"reference": "control", "treated": "rl", "test": "mcnemar", "split": "test_in",
                                      "up": 1, "down": 8, "n": 300, "p_value": 0.039, "alpha": 0.05, "significant": True,
                                      "ahead": "control", "power": {"detectable_difference": 0.04}},
               "secondary": [{"name": "rft->rl/mcnemar/in", "p_holm": 1e-6, "p_value": 1e-7, "up": 30, "down": 2,
                              "ahead": "rl"},
                             {"name": "control->rl/mcnemar/out", "p_holm": 0.2, "p_value": 0.1, "up": 3, "down": 4,
                              "ahead": "control"}]}
    lines = seeds.primary_table([("x", summary)]).splitlines()
    assert lines[2] == ("| 2 | SFT control → RL / mcnemar / test_in | +1 −8 of 300 | 0.039 | yes at 0.05 | SFT control "
                        "| 4.0 points | rft->rl/mcnemar/in (1e-06) |")
    assert seeds.primary_table([("x", {"seed": 0})]) == ""
    table = seeds.secondary_table([("x", summary), ("y", {"secondary": []})]).splitlines()
    assert table[2] == "| rft->rl/mcnemar/in | +30 −2 / – | 1e-07 / – | 1e-06 / – | RL / – |"
    # a summary written before arms were data reads in today's shape
    old = seeds.normalized({"primary": {"stage": "rl_vs_control", "split": "test_in"},
                            "splits": {"in": {"n": 1, "em_before": 0.0, "em_after": 1.0, "p_value": 1.0, "gained": 1,
                                              "lost": 0}}})
    assert (old["primary"]["reference"], old["primary"]["treated"]) == ("control", "rl")
    assert old["stages"] == ["base", "rl"] and old["splits"]["in"]["tests"]["base->rl"]["gained"] == 1


def test_the_budget_plot_never_replaces_an_existing_file_without_overwrite(seeds, tmp_path, capsys):
    existing = tmp_path / "mine.png"
    existing.write_bytes(b"a user's file")
    assert seeds.main([str(tmp_path), "--budget-plot", str(existing)]) == 2
    assert "--overwrite" in capsys.readouterr().err and existing.read_bytes() == b"a user's file"


def test_the_errors_table_lists_the_tuning_set_after_the_claim_splits(seeds, tmp_path):
    import json

    tasks = [rlvr.generate("stoich.t1", split, 1234, i, encoding="formula", prompt_mode="open", corpus="classic")
             for split, i in (("test_in", 1), ("valid", 0))]
    (tmp_path / "eval_after").mkdir()
    (tmp_path / "eval_tasks.jsonl").write_text("".join(t.to_json() + "\n" for t in tasks))
    answers = [tasks[0].ground_truth["products"], None]
    lines = []
    for task, products in zip(tasks, answers):
        completion = ("<answer>" + ".".join(f"{{{n}}}{k}" for k, n in products.items()) + "</answer>") if products else "none"
        v = rlvr.verify(task, completion)
        lines.append(json.dumps({"task_id": task.id, "rollouts": [{"completion": completion, "correct": v.correct,
                                                                    "reason": str(v.reason)}]}))
    (tmp_path / "eval_after" / "verdicts.jsonl").write_text("\n".join(lines) + "\n")
    table = seeds.errors_table([("a", tmp_path)]).splitlines()
    assert [row.split("|")[1].strip() for row in table[2:]] == ["in", "valid"]  # only the splits scored
    assert table[2].startswith("| in | 1 | 0 |") and table[3].startswith("| valid | 0 | 1 |")


def test_molecule_answers_are_counted_by_the_checkers_reason(seeds, tmp_path):
    import json

    tasks = list(rlvr.sample("mol.count", n=3, split="hard", seed=1234, load=1, keys=["ring_count"]))
    (tmp_path / "eval_after").mkdir()
    (tmp_path / "eval_tasks.jsonl").write_text("".join(t.to_json() + "\n" for t in tasks))
    completions = [f'<answer>{{"ring_count": {tasks[0].ground_truth["ring_count"]}}}</answer>',
                   f'<answer>{{"ring_count": {tasks[1].ground_truth["ring_count"] + 1}}}</answer>', "no idea"]
    lines = []
    for task, completion in zip(tasks, completions):
        v = rlvr.verify(task, completion)
        lines.append(json.dumps({"task_id": task.id, "rollouts": [{"completion": completion, "correct": v.correct,
                                                                    "reason": str(v.reason)}]}))
    (tmp_path / "eval_after" / "verdicts.jsonl").write_text("\n".join(lines) + "\n")
    table = seeds.errors_table([("a", tmp_path)]).splitlines()
    header = [c.strip() for c in table[0].split("|")[1:-1]]
    row = dict(zip(header, (c.strip() for c in table[2].split("|")[1:-1])))
    assert row["split"] == "hard" and (row["right"], row["wrong_value"], row["no_answer"]) == ("1", "1", "1")
    assert "species" not in header and len(table) == 3  # stoichiometry's classes only where an answer has them


def test_the_kind_table_lists_right_answers_per_question_and_stage(seeds):
    runs = [("s0", {"by_kind": {"ring_count": {"base": [2, 10], "warm start": [5, 10], "RL": [6, 10],
                                               "SFT control": [7, 10]}}}),
            ("s1", {"by_kind": {"ring_count": {"base": [2, 10], "warm start": [4, 10], "RL": [4, 10]}}})]
    table = seeds.kind_table(runs).splitlines()
    assert table[0] == "| kind of question | n | base | warm start | RL | SFT control | most common answer |"
    assert table[2] == "| ring_count | 10 / 10 | 2 / 2 | 5 / 4 | 6 / 4 | 7 / – | – / – |"
    assert seeds.kind_table([("s", {})]) == ""


def test_the_reading_table_splits_right_answers_by_whether_the_truth_is_the_common_one(seeds, tmp_path):
    import json

    tasks = list(rlvr.sample("mol.count", n=12, split="hard", seed=1234, load=1, keys=["ring_count"]))
    values = [t.ground_truth["ring_count"] for t in tasks]
    common = max(set(values), key=values.count)
    (tmp_path / "eval_after").mkdir()
    (tmp_path / "eval_tasks.jsonl").write_text("".join(t.to_json() + "\n" for t in tasks))
    # a model that always answers the most common count: right exactly where the truth is that count
    lines = []
    for task in tasks:
        completion = f'<answer>{{"ring_count": {common}}}</answer>'
        v = rlvr.verify(task, completion)
        lines.append(json.dumps({"task_id": task.id, "rollouts": [{"completion": completion, "correct": v.correct,
                                                                    "reason": str(v.reason)}]}))
    (tmp_path / "eval_after" / "verdicts.jsonl").write_text("\n".join(lines) + "\n")
    table = seeds.reading_table([tmp_path])
    n_common = values.count(common)
    assert f"| ring_count | {n_common}/{n_common} | 0/{len(values) - n_common} |" in table
    assert "+0 / −0, exact sign test p = 1" in table  # the constant model is the baseline, task for task


def test_the_reading_table_pools_seeds_against_the_baseline(seeds, tmp_path):
    import json

    tasks = list(rlvr.sample("mol.count", n=12, split="hard", seed=1234, load=1, keys=["ring_count"]))
    values = [t.ground_truth["ring_count"] for t in tasks]
    common = max(set(values), key=values.count)
    n_other = sum(v != common for v in values)
    assert 0 < n_other < len(values)
    folders = []
    for run, answer in enumerate(("truth", "truth", "common")):  # two runs read every count, one answers the constant
        folder = tmp_path / f"seed{run}"
        (folder / "eval_after").mkdir(parents=True)
        (folder / "eval_tasks.jsonl").write_text("".join(t.to_json() + "\n" for t in tasks))
        lines = []
        for task, value in zip(tasks, values):
            completion = f'<answer>{{"ring_count": {value if answer == "truth" else common}}}</answer>'
            v = rlvr.verify(task, completion)
            lines.append(json.dumps({"task_id": task.id, "rollouts": [{"correct": v.correct, "reason": str(v.reason)}]}))
        (folder / "eval_after" / "verdicts.jsonl").write_text("\n".join(lines) + "\n")
        folders.append(folder)
    table = seeds.reading_table(folders)
    assert f"seed0: final model against the most-common-answer baseline (held-out tasks): +{n_other} / −0" in table
    assert "seed2: final model against the most-common-answer baseline (held-out tasks): +0 / −0" in table
    # pooled: every task the constant gets wrong is better on average (two of three runs read it); none worse
    assert f"(3 runs, {len(values)} held-out tasks): {n_other} tasks better on average, 0 worse" in table
    assert "seeds pooled" not in seeds.reading_table(folders[:1])
