"""Task generation for mol.count / mol.index / mol.gen: oracle, records, determinism, sampling options, CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from rdkit import Chem

import rlvr
from rlvr.chem.constraints import constraint_satisfied
from rlvr.chem.molecules.features import FEATURES, molecule_features, spec_for_key
from rlvr.generators.molecules.pools import default_pool_paths, read_rows
from rlvr.generators.molecules.tasks import MolTaskConfig, candidate_keys, get_pool

FAMILIES = ("mol.count", "mol.index", "mol.gen")
PRESENTATIONS = ((0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0))


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp("mol-tasks")
    nci, wehi = (read_rows(p) for p in default_pool_paths())
    pool = root / "pool.smi"
    pool.write_text("\n".join([*nci[:300], *wehi[:120]]) + "\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RLVR_CACHE", str(root / "cache"))
        yield {"pool": str(pool), "cache": str(root / "cache"), "root": root}


def _sample(family, n=1, split="train", seed=0, start=0, **options):
    return list(rlvr.sample(family, n=n, split=split, seed=seed, start=start, **options))


def test_families_are_registered():
    names = rlvr.list_families()
    for family in FAMILIES:
        assert family in names
        assert rlvr.get_family(family).splits == ("train", "easy", "hard")


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("load", (1, 2, 3, 5))
def test_oracle_scores_one_for_every_load_and_presentation(env, family, load):
    for i, (p_r, p_k) in enumerate(PRESENTATIONS):
        for task in _sample(family, n=2, start=10 * i, load=load, pool=env["pool"], p_randomized=p_r,
                            p_kekulized=p_k, p_ring_renumber=0.5):
            assert task.meta["load"] == load == len(task.meta["features"])
            verdict = rlvr.verify(task, rlvr.oracle_completion(task))
            assert verdict.correct and verdict.reward == 1.0 and verdict.reason == "ok", (task.to_json(), verdict)
            assert verdict.metrics["key_accuracy"] == 1.0 and verdict.metrics["type_valid"]
            if family != "mol.gen":
                pres = task.meta["presentation"]
                assert pres["canonical"] == (p_r == 0.0) and pres["kekulized"] == (p_k == 1.0)


@pytest.mark.parametrize("split", ("train", "easy", "hard"))
def test_task_record_fields(env, split):
    pool = get_pool(MolTaskConfig(pool=env["pool"]))
    for family in ("mol.count", "mol.index"):
        for task in _sample(family, n=4, split=split, load=2, pool=env["pool"]):
            meta = task.meta
            for field in ("smiles", "canonical_smiles", "complexity_bin", "pool_split", "presentation", "config",
                          "split", "seed", "index", "features"):
                assert field in meta
            assert meta["pool_split"] == split == pool.split_of(meta["canonical_smiles"])
            assert Chem.MolToSmiles(Chem.MolFromSmiles(meta["smiles"])) == meta["canonical_smiles"]
            assert meta["smiles"] in task.user_text
            assert [m["role"] for m in task.prompt] == ["system", "user"]
            assert "<answer>" in task.prompt[0]["content"] and "JSON" in task.prompt[0]["content"]
            for key in meta["features"]:
                assert f"`{key}`" in task.user_text
            # ground truth is the value for the SMILES exactly as shown
            assert task.ground_truth == molecule_features(meta["smiles"], list(task.ground_truth))
            if family == "mol.index":
                assert "0-based" in task.user_text
                assert all(isinstance(v, list) for v in task.ground_truth.values())
                n_heavy = Chem.MolFromSmiles(meta["smiles"]).GetNumHeavyAtoms()
                assert all(0 <= i < n_heavy for v in task.ground_truth.values() for i in v)
    gen = _sample("mol.gen", n=3, split=split, load=3, pool=env["pool"])
    for task in gen:
        assert task.meta["reference_smiles"] == task.meta["canonical_smiles"]
        assert pool.split_of(task.meta["reference_smiles"]) == split
        assert "`smiles`" in task.user_text


def test_index_ground_truth_follows_the_presentation(env):
    tasks = _sample("mol.index", n=30, load=1, pool=env["pool"], p_randomized=1.0, keys=["hetero_atom", "halogen_atom",
                                                                                         "carbon_atom"])
    for task in tasks:
        mol = Chem.MolFromSmiles(task.meta["smiles"])
        ((key, idx),) = task.ground_truth.items()
        symbols = [mol.GetAtomWithIdx(i).GetSymbol() for i in idx]
        if key == "carbon_atom_index":
            assert set(symbols) <= {"C"}
        elif key == "halogen_atom_index":
            assert set(symbols) <= {"F", "Cl", "Br", "I"}
        else:
            assert "C" not in symbols


def test_generation_constraints_are_satisfiable_and_follow_ops(env):
    tasks = _sample("mol.gen", n=40, load=3, pool=env["pool"])
    ops = set()
    for task in tasks:
        ref = task.meta["reference_smiles"]
        keys = [c["key"] for c in task.ground_truth["constraints"]]
        values = molecule_features(ref, keys)
        for c in task.ground_truth["constraints"]:
            ops.add(c["op"])
            assert constraint_satisfied(values[c["key"]], c["op"], c["value"], c["key"])
            if c["op"] == ">=":
                assert c["value"] >= 1  # never a trivial lower bound
        assert not ("molecular_formula_count" in keys and set(keys) & {"carbon_atom_count", "hydrogen_atom_count"})
    assert {"==", ">=", "<=", "range"} <= ops
    exact = _sample("mol.gen", n=10, load=2, pool=env["pool"], ops=["=="])
    assert {c["op"] for t in exact for c in t.ground_truth["constraints"]} == {"=="}


def test_determinism_and_regeneration(env):
    a = _sample("mol.index", n=5, split="hard", seed=3, load=3, pool=env["pool"])
    b = _sample("mol.index", n=5, split="hard", seed=3, load=3, pool=env["pool"])
    assert [t.to_dict() for t in a] == [t.to_dict() for t in b]
    assert len({t.id for t in a}) == 5 and len({t.meta["smiles"] for t in a}) > 1
    c = _sample("mol.index", n=5, split="hard", seed=4, load=3, pool=env["pool"])
    assert [t.to_dict() for t in a] != [t.to_dict() for t in c]
    for task in a + _sample("mol.gen", n=2, load=2, pool=env["pool"], ops=["==", "range"]):
        roundtrip = json.loads(task.to_json())
        assert rlvr.regenerate(roundtrip).to_dict() == task.to_dict()
    # random access: index 3 alone equals the 4th of a run
    assert _sample("mol.index", n=1, split="hard", seed=3, start=3, load=3, pool=env["pool"])[0].to_dict() == a[3].to_dict()


def test_determinism_in_a_fresh_process(env):
    task = _sample("mol.count", n=1, split="easy", seed=11, start=7, load=3, pool=env["pool"], p_ring_renumber=1.0)[0]
    code = (
        "import json, rlvr; t = next(rlvr.sample('mol.count', n=1, split='easy', seed=11, start=7, load=3, "
        f"pool={env['pool']!r}, p_ring_renumber=1.0)); print(t.to_json())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "RLVR_CACHE": env["cache"], "PYTHONHASHSEED": "123"})
    assert json.loads(out.stdout) == task.to_dict()


def test_complexity_bin_and_category_filters(env):
    for task in _sample("mol.count", n=8, complexity_bin="0-250", pool=env["pool"]):
        assert task.meta["complexity_bin"] == "0-250"
    balanced = _sample("mol.count", n=30, complexity_bin="balanced", pool=env["pool"])
    assert len({t.meta["complexity_bin"] for t in balanced}) == 3
    for task in _sample("mol.count", n=10, load=2, categories=["composition"], pool=env["pool"]):
        assert all(spec_for_key(k).category == "composition" for k in task.meta["features"])
    for task in _sample("mol.index", n=10, load=2, exclude_categories=["functional_groups", "synthesis"],
                        exclude_keys=["ring"], pool=env["pool"]):
        assert all(spec_for_key(k).category not in ("functional_groups", "synthesis") for k in task.meta["features"])
        assert "ring_index" not in task.meta["features"]
    for task in _sample("mol.count", n=6, keys=["ring_count", "hba"], load=2, pool=env["pool"]):
        assert sorted(task.meta["features"]) == ["hba_count", "ring_count"]


def test_zero_answers_do_not_dominate(env):
    tasks = _sample("mol.count", n=80, load=1, pool=env["pool"])
    zero = sum(bool(t.meta["zero_keys"]) for t in tasks) / len(tasks)
    assert zero <= 0.3
    for task in _sample("mol.index", n=20, load=3, pool=env["pool"]):
        assert len(task.meta["zero_keys"]) <= 1
    # without inverse frequency or zero control, zeros (absent functional groups, ...) are common
    plain = _sample("mol.count", n=80, load=1, pool=env["pool"], inverse_frequency=False, p_zero=None,
                    balance_categories=False)
    assert sum(bool(t.meta["zero_keys"]) for t in plain) / len(plain) > zero
    assert len({k for t in tasks for k in t.meta["features"]}) > 40  # diverse keys


def test_phrasings(env):
    many = _sample("mol.count", n=40, load=1, pool=env["pool"])
    assert len({t.meta["template"] for t in many}) >= 5
    one = _sample("mol.count", n=20, load=1, pool=env["pool"], n_phrasings=1)
    assert {t.meta["template"].split("/")[1] for t in one} == {"0"}


def test_bad_options_are_clear_errors(env):
    with pytest.raises(ValueError, match="load"):
        _sample("mol.count", load=0, pool=env["pool"])
    with pytest.raises(TypeError, match="unknown option"):
        _sample("mol.count", loud=2)
    with pytest.raises(ValueError, match="split"):
        _sample("mol.count", split="test")
    with pytest.raises(ValueError, match="category"):
        _sample("mol.count", categories=["nope"], pool=env["pool"])
    with pytest.raises(KeyError):
        _sample("mol.count", keys=["ring_cnt"], pool=env["pool"])
    with pytest.raises(ValueError, match="operator"):
        _sample("mol.gen", ops=["~"], pool=env["pool"])
    with pytest.raises(ValueError, match="complexity bin"):
        _sample("mol.count", complexity_bin="huge", pool=env["pool"])


def test_cli_sample_and_verify(env, tmp_path):
    out = tmp_path / "tasks.jsonl"
    run_env = {**os.environ, "RLVR_CACHE": env["cache"]}
    subprocess.run([sys.executable, "-m", "rlvr.cli", "sample", "--family", "mol.index", "--split", "hard", "--load",
                    "3", "-n", "40", "-o", f"pool={env['pool']}", "--out", str(out)], check=True, env=run_env)
    lines = out.read_text().splitlines()
    assert len(lines) == 40 and all(json.loads(line)["meta"]["load"] == 3 for line in lines)
    res = subprocess.run([sys.executable, "-m", "rlvr.cli", "verify", "--tasks", str(out), "--oracle"], check=True,
                         env=run_env, capture_output=True, text=True)
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["accuracy"] == 1.0 and summary["n"] == 40


def test_feature_table_covers_task_keys():
    config = MolTaskConfig()
    count, index, gen = (candidate_keys(k, config) for k in ("count", "index", "gen"))
    assert "carbon_atom_count" in count and "molecular_formula_count" in count and "hba_index" in index
    assert not any(k.endswith("_products") for k in count + gen)
    assert len(index) == sum(1 for s in FEATURES.values() if s.index_key)
