"""stoich.balance draws few trivial all-ones equations unless asked to."""
import rlvr


def _unit_fraction(n, **options):
    tasks = list(rlvr.sample("stoich.balance", n=n, split="train", seed=3, **options))
    return sum(all(c == 1 for c in t.ground_truth["coefficients"]) for t in tasks) / n


def test_default_keeps_trivial_equations_rare():
    assert _unit_fraction(200) < 0.25


def test_unit_share_one_restores_corpus_distribution():
    assert _unit_fraction(200, unit_share=1.0) > 0.5


def test_unit_share_zero_gives_only_non_trivial_equations():
    assert _unit_fraction(100, unit_share=0.0) == 0.0
