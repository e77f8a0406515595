"""Split membership is a property of the reaction: no reaction key in two splits, cross halves, OOD modes."""
from __future__ import annotations

from collections import Counter, defaultdict

import pytest

import rlvr
from rlvr.generators.stoich.corpus import get_corpus
from rlvr.generators.stoich.splits import REACTION_SPLITS, SplitSpec, cross_half, reaction_pool, reaction_splits
from rlvr.generators.stoich.tasks import ProductsConfig, pool_size

GROUPS = {  # task split -> reaction split it draws from (default options)
    "train": "train", "train_cross": "train",
    "valid": "valid", "valid_cross": "valid",
    "test_in": "test", "test_out": "test", "test_cross": "test",
}


@pytest.fixture(scope="module")
def corpus():
    return get_corpus("embedded")


@pytest.mark.parametrize("purpose", ["products", "balance", "byproduct"])
@pytest.mark.parametrize("encoding", ["formula", "smiles"])
def test_pools_are_disjoint_by_reaction_key(corpus, encoding, purpose):
    spec = SplitSpec()
    keys = {}
    for split in REACTION_SPLITS:
        pool = reaction_pool(corpus, encoding, purpose, spec, split)
        assert pool, (encoding, purpose, split)
        keys[split] = {corpus.key(i, "formula") for i in pool}
        smiles_keys = {corpus.key(i, "smiles") for i in pool}
        keys[split + ":smiles"] = smiles_keys
    for a in REACTION_SPLITS:
        for b in REACTION_SPLITS:
            if a < b:
                assert not keys[a] & keys[b]
                assert not keys[a + ":smiles"] & keys[b + ":smiles"]
    n = {s: len(keys[s]) for s in REACTION_SPLITS}
    assert n["train"] > 5 * n["valid"] > 0 and n["train"] > 5 * n["test"] > 0


def test_no_reaction_drawn_into_two_splits():
    seen: dict[str, set[str]] = defaultdict(set)
    for family in ("stoich.t1", "stoich.t2"):
        for split, group in GROUPS.items():
            for task in rlvr.sample(family, n=150, split=split, seed=11):
                seen[group].add(task.meta["reaction_key"])  # formula encoding: the coarse key
                assert task.meta["reaction_split"] == group
    for family in ("stoich.balance", "stoich.byproduct"):
        for split in ("train", "valid", "test"):
            for task in rlvr.sample(family, n=150, split=split, seed=11, corpus="embedded"):
                seen[split].add(task.meta["reaction_key"])
    assert not seen["train"] & seen["valid"]
    assert not seen["train"] & seen["test"]
    assert not seen["valid"] & seen["test"]


def test_cross_splits_halves_and_swap(corpus):
    counts: Counter = Counter()
    for split, swapped in (("train_cross", False), ("valid_cross", False), ("test_cross", True)):
        for task in rlvr.sample("stoich.t1", n=200, split=split, seed=2):
            (i,) = [i for i in _index_of(corpus, task.meta["reaction_key"])][:1]
            half = cross_half(corpus, i)
            expected = ("in", "out")[1 - half if swapped else half]
            assert task.meta["coefficient_set"] == expected
            lo, hi = (1, 5) if expected == "in" else (6, 10)
            assert lo <= task.meta["factor"] <= hi
            counts[(split, expected)] += 1
    for split in ("train_cross", "test_cross"):  # both halves are represented, roughly half each
        assert 60 <= counts[(split, "in")] <= 140 and 60 <= counts[(split, "out")] <= 140


def _index_of(corpus, formula_key):
    index = _key_index(corpus)
    return index[formula_key]


_KEY_INDEX: dict[int, dict[str, list[int]]] = {}


def _key_index(corpus):
    if id(corpus) not in _KEY_INDEX:
        index: dict[str, list[int]] = defaultdict(list)
        for i in range(len(corpus)):
            index[corpus.key(i, "formula")].append(i)
        _KEY_INDEX[id(corpus)] = index
    return _KEY_INDEX[id(corpus)]


def test_in_and_out_coefficient_sets():
    for split, (lo, hi) in (("train", (1, 5)), ("test_in", (1, 5)), ("test_out", (6, 10))):
        for task in rlvr.sample("stoich.t2", n=60, split=split, seed=4):
            assert all(lo <= k <= hi for k in task.meta["sampled_k"].values())
    custom = list(rlvr.sample("stoich.t1", n=30, split="test_out", seed=4, coef_out=(20, 30)))
    assert all(20 <= t.meta["factor"] <= 30 for t in custom)


def test_cross_test_can_reuse_training_reactions_when_asked():
    train = {t.meta["reaction_key"] for t in rlvr.sample("stoich.t1", n=3000, split="train_cross", seed=0)}
    reused = [t.meta["reaction_key"] for t in rlvr.sample("stoich.t1", n=50, split="test_cross", seed=0,
                                                           cross_test_reactions="train")]
    assert set(reused) <= _all_keys("train")
    default = [t.meta["reaction_key"] for t in rlvr.sample("stoich.t1", n=50, split="test_cross", seed=0)]
    assert not set(default) & train


def _all_keys(split):
    corpus = get_corpus("embedded")
    return {corpus.key(i, "formula") for i in reaction_pool(corpus, "formula", "products", SplitSpec(), split)}


def test_augmentation_x5_reuses_each_reaction_five_times():
    tasks = list(rlvr.sample("stoich.t2", n=20, split="train", seed=9, augmentation=5))
    keys = [t.meta["reaction_key"] for t in tasks]
    for block in range(4):
        chunk = tasks[5 * block: 5 * block + 5]
        assert len({t.meta["reaction_key"] for t in chunk}) == 1
        assert [t.meta["augmentation_slot"] for t in chunk] == [0, 1, 2, 3, 4]
        assert len({tuple(sorted(t.meta["sampled_k"].items())) for t in chunk}) > 1
    assert len(set(keys)) == 4
    # one epoch of x1 visits every reaction of the pool exactly once
    config = ProductsConfig(corpus="embedded")
    n = pool_size("products", config, "test_in")
    epoch = [t.meta["reaction_key"] for t in rlvr.sample("stoich.t1", n=n, split="test_in", seed=1)]
    assert len(set(epoch)) == n


def test_class_holdout_split(corpus):
    spec = SplitSpec(mode="class")
    held = set(spec.holdout_classes)
    test_classes = {corpus.reactions[i].rclass for i in reaction_pool(corpus, "formula", "products", spec, "test")}
    assert test_classes <= held and test_classes
    for split in ("train", "valid"):
        classes = {corpus.reactions[i].rclass for i in reaction_pool(corpus, "formula", "products", spec, split)}
        assert not classes & held
    task = rlvr.generate("stoich.t2", "test_out", seed=0, index=3, split_mode="class")
    assert task.meta["reaction_class"] in held
    custom = rlvr.generate("stoich.t1", "test_in", 0, 0, split_mode="class", holdout_classes=["nitro_reduction"])
    assert custom.meta["reaction_class"] == "nitro_reduction"


@pytest.mark.parametrize("side", ["high", "low"])
def test_product_mw_split(corpus, side):
    spec = SplitSpec(mode="mw", mw_side=side)
    mw = lambda split: [corpus.reactions[i].product_mw for i in reaction_pool(corpus, "formula", "products", spec, split)]  # noqa: E731
    test, rest = mw("test"), mw("train") + mw("valid")
    assert test and rest
    if side == "high":
        assert min(test) >= max(rest)
    else:
        assert max(test) <= min(rest)
    assert 0.05 < len(test) / (len(test) + len(rest)) < 0.2


def test_split_is_a_function_of_the_reaction_not_of_sampling(corpus):
    spec = SplitSpec()
    a = reaction_splits(corpus, spec)
    b = reaction_splits(corpus, SplitSpec(fractions=(0.8, 0.1, 0.1)))
    assert a == b
    by_key: dict[str, set[str]] = defaultdict(set)
    for i, s in enumerate(a):
        by_key[corpus.key(i, "formula")].add(s)
    assert all(len(v) == 1 for v in by_key.values())
    counts = Counter(a)
    assert 0.75 < counts["train"] / len(a) < 0.85


def test_pools_are_cached_on_disk_and_bad_cache_files_are_recomputed(corpus, tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("RLVR_CACHE", str(tmp_path))
    compute = reaction_pool.__wrapped__  # past the in-memory cache
    spec = SplitSpec()
    first = compute(corpus, "formula", "balance", spec, "test")
    (cached,) = (tmp_path / "stoich" / "pools").glob("*.json")
    assert json.loads(cached.read_text()) == list(first)
    assert compute(corpus, "formula", "balance", spec, "test") == first
    for bad in ("[999999999]", "{torn", '"x"'):
        cached.write_text(bad)
        assert compute(corpus, "formula", "balance", spec, "test") == first
    assert json.loads(cached.read_text()) == list(first)  # rewritten
    other = compute(corpus, "formula", "balance", SplitSpec(fractions=(0.5, 0.25, 0.25)), "test")
    assert len(list((tmp_path / "stoich" / "pools").glob("*.json"))) == 2 and len(other) > len(first)
