"""The held-out ``classic-fresh`` corpus: size, no reaction of the classic corpus, held out in every split
mode, tasks that verify at every coefficient range, the class composition and the grown tables."""
from __future__ import annotations

import dataclasses
import gzip
import json
import os
import subprocess
import sys

import pytest

import rlvr
from rlvr.chem.balance import side_total
from rlvr.chem.formula import parse_formula
from rlvr.generators.stoich import fresh_build
from rlvr.generators.stoich.corpus import BUILTIN_CORPORA, get_corpus
from rlvr.generators.stoich.corpus_model import Corpus, merge_corpora
from rlvr.generators.stoich.fresh_molecular import paired, twin_fuels
from rlvr.generators.stoich.fresh_tables import salt, salt_ok
from rlvr.generators.stoich.splits import (
    SPLIT_MODES,
    HeldOutSplitError,
    SplitSpec,
    pool_composition,
    reaction_pool,
    reaction_splits,
    split_counts,
)
from rlvr.generators.stoich.tasks import ProductsConfig, pool_size

OPTIONS = {"corpus": "classic-fresh", "encoding": "formula", "prompt_mode": "open"}


@pytest.fixture(scope="module")
def fresh() -> Corpus:
    return get_corpus("classic-fresh")


@pytest.fixture(scope="module")
def classic() -> Corpus:
    return get_corpus("classic")


def test_fresh_pool_is_large_new_and_deduplicated(fresh, classic):
    assert "classic-fresh" in BUILTIN_CORPORA and fresh.held_out and not classic.held_out
    n = pool_size("products", ProductsConfig(**OPTIONS), "test_out")
    assert n >= 400 and n == pool_size("products", ProductsConfig(**OPTIONS), "test_in") == len(fresh)
    keys = [fresh.key(i, "formula") for i in range(len(fresh))]
    assert len(set(keys)) == len(keys)  # one reaction per formula-level key
    assert not set(keys) & {classic.key(i, "formula") for i in range(len(classic))}  # none in any classic split
    assert set(fresh.class_counts()) <= set(classic.class_counts())
    assert fresh.stats["dropped"] and fresh.stats["excluded"] > 0 and set(r.source for r in fresh.reactions) == {
        "classic-fresh"}


def test_every_fresh_reaction_is_exactly_balanced(fresh):
    for rx in fresh.reactions:
        assert all(k > 0 for _, k in rx.reactants + rx.products + rx.reagents)
        left = side_total((parse_formula(fresh.species_formula[s]), k) for s, k in rx.reactants)
        right = side_total((parse_formula(fresh.species_formula[s]), k) for s, k in rx.products)
        assert left == right


@pytest.mark.parametrize("mode", SPLIT_MODES)
def test_every_reaction_is_held_out_whatever_the_split_mode(fresh, mode):
    spec = SplitSpec(mode=mode)
    assert set(reaction_splits(fresh, spec)) == {"test"}
    assert split_counts(fresh, spec) == {"train": 0, "valid": 0, "test": len(fresh)}


@pytest.mark.parametrize("split", ["train", "valid", "train_cross", "valid_cross"])
def test_train_and_valid_are_refused_with_one_clear_line(split):
    with pytest.raises(HeldOutSplitError, match=r"corpus 'classic-fresh' is held-out only") as err:
        rlvr.generate("stoich.t1", split=split, seed=0, index=0, **OPTIONS)
    assert "\n" not in str(err.value) and "empty" in str(err.value)
    with pytest.raises(HeldOutSplitError):
        rlvr.generate("stoich.t1", split="test_cross", seed=0, index=0, cross_test_reactions="train", **OPTIONS)
    with pytest.raises(HeldOutSplitError):
        pool_size("products", ProductsConfig(**OPTIONS), split)


def test_held_out_is_saved_hashed_and_never_merged_into_training_corpora(fresh, classic, tmp_path):
    path = tmp_path / "fresh.json.gz"
    fresh.save(path)
    again = Corpus.load(path)
    assert again.held_out and again.content_hash == fresh.content_hash
    assert dataclasses.replace(fresh, held_out=False, content_hash="").content_hash != fresh.content_hash
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    data.pop("held_out")  # the flag cannot be dropped without the hash noticing
    with pytest.raises(ValueError, match="content hash mismatch"):
        Corpus.from_json(data)
    assert "held_out" not in classic.to_json()  # other corpora keep their content hash
    with pytest.raises(ValueError, match="held-out-only"):
        merge_corpora("both", [classic, fresh])
    assert merge_corpora("fresh2", [fresh]).held_out


@pytest.mark.parametrize("split,coef,lo,hi", [("test_in", None, 1, 5), ("test_out", None, 6, 10),
                                              ("test_out", (11, 20), 11, 20)])
def test_t1_tasks_are_deterministic_and_verify(split, coef, lo, hi):
    options = dict(OPTIONS, **({"coef_out": coef} if coef else {}))
    tasks = [rlvr.generate("stoich.t1", split=split, seed=0, index=i, **options) for i in range(120)]
    assert len({t.meta["reaction_key"] for t in tasks}) == 120  # one pass visits distinct reactions
    for i, task in enumerate(tasks):
        assert lo <= task.meta["factor"] <= hi and task.meta["reaction_split"] == "test"
        assert task.meta["corpus"] == "classic-fresh"
        assert rlvr.generate("stoich.t1", split=split, seed=0, index=i, **options) == task
        assert rlvr.regenerate(task) == task
        verdict = rlvr.verify(task, rlvr.oracle_completion(task))
        assert verdict.reward == 1.0 and verdict.correct, verdict


def _tasks_text() -> str:
    return json.dumps([rlvr.generate("stoich.t1", split="test_out", seed=3, index=i, **OPTIONS).to_json()
                       for i in (0, 7, 999)])


def test_fresh_build_and_tasks_are_identical_across_processes(fresh, classic):
    assert fresh_build.build_fresh_corpus(classic).content_hash == fresh.content_hash
    script = ("import json, rlvr\n"
              "from rlvr.generators.stoich.corpus import get_corpus\n"
              "from rlvr.generators.stoich.fresh_build import build_fresh_corpus\n"
              f"OPTIONS = {OPTIONS!r}\n"
              "print(build_fresh_corpus(get_corpus('classic')).content_hash)\n"
              "print(json.dumps([rlvr.generate('stoich.t1', split='test_out', seed=3, index=i, **OPTIONS).to_json()"
              " for i in (0, 7, 999)]))")
    seed = "31337" if os.environ.get("PYTHONHASHSEED") != "31337" else "7"
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300,
                         env=dict(os.environ, PYTHONHASHSEED=seed))
    content_hash, tasks = res.stdout.strip().splitlines()[-2:]
    assert content_hash == fresh.content_hash and tasks == _tasks_text()


def test_smiles_encoding_works_where_species_have_smiles(fresh):
    pool = reaction_pool(fresh, "smiles", "products", SplitSpec(), "test")
    assert len(pool) >= 20
    for i in range(30):
        task = rlvr.generate("stoich.t1", split="test_out", seed=1, index=i, **dict(OPTIONS, encoding="smiles"))
        assert rlvr.verify(task, rlvr.oracle_completion(task)).reward == 1.0


def test_class_composition_follows_the_classic_test_split(fresh, classic):
    composition = pool_composition(fresh)
    assert sum(composition.values()) == len(fresh) == sum(fresh_build.class_targets(classic).values())
    assert list(composition.values()) == sorted(composition.values(), reverse=True)
    assert composition == {c: n for c, n in fresh_build.class_targets(classic).items() if n}
    rows = fresh_build.composition_rows(fresh, classic)
    total = rows[-1]
    assert total.rclass == "total" and total.fresh == len(fresh)
    assert total.reference == len(reaction_pool(classic, "formula", "products", SplitSpec(), "test"))
    for row in rows[:-1]:
        assert abs(row.fresh_pct - row.reference_pct) < 0.2, row
        assert row.fresh_coef >= 1 and row.reference_coef >= 1
    table = fresh_build.composition_markdown(rows)
    assert table.count("\n") == len(rows) + 1 and "| `combustion` |" in table


def test_twin_fuels_are_valid_new_formulas():
    classic_fuels = ["CH4", "C2H6", "C6H12O6", "C10H8"]
    twins = twin_fuels(classic_fuels)
    assert len(twins) == len(classic_fuels) and not set(twins) & set(classic_fuels)
    for hill in twins:
        counts = parse_formula(hill).as_dict()
        c, h, o = counts["C"], counts["H"], counts.get("O", 0)
        assert h % 2 == 0 and 0 <= 2 * c + 2 - h <= 2 * c and o <= c
    assert twin_fuels(reversed(classic_fuels)) == twins


def test_grown_tables_form_real_salts_and_redox_pairs():
    assert salt("La", 3, "C2O4") == "La2(C2O4)3" and salt("Na", 1, "HSO4") == "NaHSO4"
    assert salt("Cs", 1, "Cr2O7") == "Cs2Cr2O7" and salt("Al", 3, "SO4") == "Al2(SO4)3"
    assert not salt_ok("Fe", 3, "I") and not salt_ok("Cu", 2, "CN") and not salt_ok("Al", 3, "CO3")
    assert not salt_ok("Fe", 2, "Cr2O7") and not salt_ok("Ca", 2, "HSO4") and not salt_ok("Ag", 1, "OH")
    assert salt_ok("Ca", 2, "H2PO4") and salt_ok("Ba", 2, "CrO4")
    assert paired("Cr2O7-2", 1.33, "Fe+2", 0.77) and not paired("Ag+", 0.80, "I-", 0.54)
    assert not paired("H2O2", 1.78, "Mn+2", 1.51) and not paired("Fe+3", 0.77, "Fe+2", 0.77)
