"""The oracle backend is the ceiling of every table (100%), copy-input the floor."""
import json

from rlvr.eval import load_eval_set, run_eval

ZERO_IS_PERFECT = ("DEF", "EXC", "D+E")


def _cells(summary):
    return {k: v for k, v in summary.items() if not k.endswith(("_n", "_se"))}


def test_oracle_scores_every_metric_100(make_config):
    result = run_eval(make_config(backend="oracle", suite="all", limit=1, plots=True))
    cells = _cells(result.summary)
    families = {r["family"] for r in result.records}
    assert {"stoich.t1", "stoich.t2", "stoich.balance", "stoich.byproduct", "mol.count", "mol.index", "mol.gen"} <= families
    for prefix in ("stoich/table4/", "stoich/table10/", "stoich/diagnostics/", "stoich/overall/", "molecules/overall/",
                   "molecules/type/", "molecules/load/", "molecules/split/", "molecules/feature/"):
        assert any(k.startswith(prefix) for k in cells), prefix
    groups = {k.split("/")[3] for k in cells if k.startswith("stoich/table4/")}
    assert {"in", "cross", "out"} <= groups
    for key, value in cells.items():
        expected = 0.0 if key.rsplit("/", 1)[-1] in ZERO_IS_PERFECT else 100.0
        assert value == expected, key
    assert all(r["correct"] for rec in result.records for r in rec["rollouts"])
    report = (result.out_dir / "report.md").read_text()
    assert "Table 4 layout" in report and "Table 10 layout" in report and "Diagnostic rates" in report
    assert (result.out_dir / "plots" / "stoich_splits.png").stat().st_size > 1000
    assert (result.out_dir / "plots" / "molecules_features.png").stat().st_size > 1000
    saved = json.loads((result.out_dir / "results.json").read_text())
    assert saved["eval_set"]["n_tasks"] == len(result.records)
    assert saved["packages"]["rdkit"]


def test_copy_input_is_right_exactly_when_nothing_reacts(make_config):
    config = make_config(backend="copy-input", suite="stoich", limit=3)
    result = run_eval(config)
    tasks = {t.id: t for _, t in load_eval_set(config)[0]}
    cells: dict[tuple, list[float]] = {}
    for rec in result.records:
        if rec["family"] not in ("stoich.t1", "stoich.t2"):
            continue
        task = tasks[rec["id"]]
        reacts = task.meta["inputs"] != task.ground_truth["products"]
        rollout = rec["rollouts"][0]
        if reacts:
            assert rollout["metrics"]["em"] == 0.0 and not rollout["correct"], rec["id"]
        # the copied bag is the input itself: valid and atom-balanced, yet (when something reacts) wrong
        assert rollout["metrics"]["valid"] == 1.0 and rollout["metrics"]["balanced"] == 1.0
        info = rec["info"]
        key = (f"{info['encoding']} {info['type']}" + (f" {info['augmentation']}" if info["augmentation"] else ""),
               rec["split_group"])
        cells.setdefault(key, []).append(0.0 if reacts else 100.0)
    assert cells
    byproduct = [rec for rec in result.records if rec["family"] == "stoich.byproduct"]
    assert byproduct and all(rec["rollouts"][0]["metrics"]["em"] == 0.0 for rec in byproduct)
    for (variant, group), values in cells.items():
        assert result.summary[f"stoich/table4/{variant}/{group}/EM"] == sum(values) / len(values)


def test_copy_input_scores_zero_on_molecules(make_config):
    result = run_eval(make_config(backend="copy-input", suite="molecules", limit=1))
    assert result.summary["molecules/overall/accuracy"] == 0.0
    for t in ("count", "index"):
        assert result.summary[f"molecules/type/{t}/type_valid"] == 0.0
