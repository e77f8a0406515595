"""Every generated task conserves atoms and charge, and its oracle answer scores 1.0 (all families,
encodings, splits, semantics and prompt modes)."""
from __future__ import annotations

from math import gcd

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rlvr
from rlvr.generators.stoich.conventional import display_formula
from rlvr.chem.balance import conservation_delta
from rlvr.chem.species import species_formula
from rlvr.checkers.stoich import validate_task
from rlvr.task import Task

FAMILIES = ("stoich.t1", "stoich.t2", "stoich.balance", "stoich.byproduct")


def pairs(bag, encoding):
    return [(species_formula(s, encoding), int(k)) for s, k in bag.items()]


def check_task(task: Task) -> None:
    """Independent checks of a generated task's ground truth (not using the generator's helpers)."""
    enc = task.meta["encoding"]
    assert enc in ("formula", "smiles")
    assert [m["role"] for m in task.prompt] == ["system", "user"]
    assert "<answer>" in task.user_text
    gt = task.ground_truth
    if task.family in ("stoich.t1", "stoich.t2"):
        inputs, outputs = task.meta["inputs"], gt["products"]
        assert conservation_delta(pairs(inputs, enc), pairs(outputs, enc)) == {}
        assert inputs != outputs  # something reacted: copying the input is never the answer
        assert all(k > 0 for k in outputs.values())
        reaction = task.meta["reaction"]
        for s, k in reaction["reagents"].items():  # reagents are never consumed
            assert outputs.get(s) == inputs.get(s)
        if task.family == "stoich.t2" and task.meta["semantics"] == "limiting":
            # the reaction ran as often as possible: some reactant cannot supply one more run
            assert min(outputs.get(s, 0) // c for s, c in reaction["reactants"].items()) == 0
        for s in inputs:
            assert s in task.user_text
        for key in ("semantics", "prompt_mode", "coefficient_set", "reaction_class", "product_mw",
                    "products_have_stereo", "split", "seed", "index", "config"):
            assert key in task.meta
        lo, hi = task.meta["config"]["coef_in" if task.meta["coefficient_set"] == "in" else "coef_out"]
        if task.family == "stoich.t1":
            assert lo <= task.meta["factor"] <= hi
        else:
            assert all(lo <= k <= hi for k in task.meta["sampled_k"].values())
    elif task.family == "stoich.byproduct":
        left, right = task.meta["shown"]["left"], task.meta["shown"]["right"]
        completed = dict(right)
        for s, k in gt["byproducts"].items():
            assert s not in right
            completed[s] = completed.get(s, 0) + k
        assert conservation_delta(pairs(left, enc), pairs(completed, enc)) == {}
        assert conservation_delta(pairs(left, enc), pairs(right, enc)) != {}
    else:
        species = gt["reactants"] + gt["products"]
        coefs = gt["coefficients"]
        n = len(gt["reactants"])
        assert len(coefs) == len(species) and all(k > 0 for k in coefs)
        g = 0
        for k in coefs:
            g = gcd(g, k)
        assert g == 1
        assert conservation_delta(pairs(dict(zip(species[:n], coefs[:n])), enc),
                                  pairs(dict(zip(species[n:], coefs[n:])), enc)) == {}
        for s in species:  # formula prompts show inorganic species in their usual spelling (HBr, not BrH)
            assert (display_formula(s) if enc == "formula" else s) in task.user_text
    validate_task(task)
    verdict = rlvr.verify(task, rlvr.oracle_completion(task))
    assert verdict.reward == 1.0 and verdict.correct, verdict
    assert Task.from_json(task.to_json()) == task


@pytest.mark.parametrize("encoding", ["formula", "smiles"])
@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_encoding_split(family, encoding):
    for split in rlvr.get_family(family).splits:
        for index in (0, 1, 7, 123, 10_000):
            check_task(rlvr.generate(family, split, seed=3, index=index, encoding=encoding))


def _options(family: str, data) -> dict:
    opts = {"encoding": data.draw(st.sampled_from(["formula", "smiles"]), label="encoding")}
    if family in ("stoich.t1", "stoich.t2"):
        opts["semantics"] = data.draw(st.sampled_from(["limiting", "paper"]), label="semantics")
        opts["prompt_mode"] = data.draw(st.sampled_from(["closed", "open"]), label="prompt_mode")
        opts["augmentation"] = data.draw(st.sampled_from([1, 5]), label="augmentation")
        opts["split_mode"] = data.draw(st.sampled_from(["hash", "class", "mw"]), label="split_mode")
        if data.draw(st.booleans(), label="custom coefficient sets"):
            opts["coef_in"] = (1, data.draw(st.integers(1, 4)))
            opts["coef_out"] = (5, data.draw(st.integers(5, 20)))
    elif family == "stoich.byproduct":
        opts["scale"] = (1, data.draw(st.integers(1, 4), label="scale"))
    else:
        opts["corpus"] = data.draw(st.sampled_from(["mixed", "classic", "embedded"]), label="corpus")
    return opts


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    family=st.sampled_from(FAMILIES),
    seed=st.integers(0, 2**31 - 1),
    index=st.integers(0, 10**7),
    data=st.data(),
)
def test_generated_tasks_conserve_and_oracle_scores_one(family, seed, index, data):
    split = data.draw(st.sampled_from(rlvr.get_family(family).splits), label="split")
    options = _options(family, data)
    task = rlvr.generate(family, split, seed, index, **options)
    check_task(task)
    assert rlvr.regenerate(task) == task


def test_sample_streams_and_shards():
    full = [t.id for t in rlvr.sample("stoich.t2", n=40, split="train", seed=5)]
    assert len(set(full)) == 40
    shards = [[t.id for t in rlvr.sample("stoich.t2", n=40, split="train", seed=5, rank=r, world_size=3)]
              for r in range(3)]
    assert sorted(sum(shards, [])) == sorted(full)
    assert not set(shards[0]) & set(shards[1])


def test_options_are_validated():
    with pytest.raises(ValueError):
        rlvr.generate("stoich.t2", "train", encoding="inchi")
    with pytest.raises(ValueError):
        rlvr.generate("stoich.t2", "train", semantics="whatever")
    with pytest.raises(ValueError):
        rlvr.generate("stoich.t2", "train", coef_in=(3, 1))
    with pytest.raises(ValueError):
        rlvr.generate("stoich.t1", "test")  # t1 uses test_in / test_out / test_cross
    with pytest.raises(ValueError):
        rlvr.generate("stoich.balance", "test_out")
    with pytest.raises(TypeError):
        rlvr.generate("stoich.t1", "train", unknown_option=1)
    with pytest.raises(FileNotFoundError):
        rlvr.generate("stoich.t1", "train", corpus="/nonexistent/file.smi")
    with pytest.raises(ValueError):
        rlvr.generate("stoich.t1", "train", split_mode="class", holdout_classes=("no_such_class",))
