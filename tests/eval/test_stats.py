import itertools
import math

import pytest

from rlvr.eval.stats import mean_se, pass_at_k, pass_ks, success


@pytest.mark.parametrize("n", range(1, 7))
def test_pass_at_k_equals_subset_enumeration(n):
    """The unbiased estimator is the share of size-k subsets of the n samples that hold a correct one."""
    for c in range(n + 1):
        samples = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(range(n), k))
            expected = sum(any(samples[i] for i in s) for s in subsets) / len(subsets)
            assert pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_rejects_bad_arguments():
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_mean_se():
    mean, se, n = mean_se([1, 0, 1, 0])
    assert (mean, n) == (0.5, 4)
    assert se == pytest.approx(math.sqrt((4 * 0.25 / 3) / 4))
    assert mean_se([0.3]) == (0.3, 0.0, 1)
    assert math.isnan(mean_se([])[0])


def test_success_is_two_of_three():
    assert success([True, True, False])
    assert not success([True, False, False])
    assert success([True])
    assert not success([])
    assert success([True] * 6 + [False] * 3)  # 6 of 9 = 2/3
    assert not success([True] * 5 + [False] * 4)


def test_pass_ks():
    assert pass_ks(1) == [1]
    assert pass_ks(3) == [1, 2, 3]
    assert pass_ks(4) == [1, 2, 3, 4]


def test_paired_exact_test_on_known_inputs():
    """Exact McNemar: only discordant pairs count; the p-value is the two-sided binomial tail at 1/2."""
    from rlvr.eval.stats import paired_exact_test

    before = [False] * 10 + [True] * 5
    after = [True] * 10 + [True] * 5
    t = paired_exact_test(before, after)
    assert (t.n, t.gained, t.lost) == (15, 10, 0)
    assert t.p_value == pytest.approx(2 * 0.5 ** 10)
    # 19 gained, 7 lost among 200 tasks: two-sided tail from the binomial coefficients
    before = [False] * 19 + [True] * 7 + [True] * 20 + [False] * 154
    after = [True] * 19 + [False] * 7 + [True] * 20 + [False] * 154
    t = paired_exact_test(before, after)
    tail = sum(math.comb(26, k) for k in range(0, 8)) / 2 ** 26
    assert (t.gained, t.lost) == (19, 7)
    assert t.p_value == pytest.approx(2 * tail)
    assert 0.02 < t.p_value < 0.05
    assert paired_exact_test([True, False], [True, False]).p_value == 1.0
    with pytest.raises(ValueError):
        paired_exact_test([True], [True, False])


def test_signed_rank_test_on_paired_scores():
    from rlvr.eval.stats import paired_signed_rank_test

    test = paired_signed_rank_test([0.5, 0.5, 1.0, 0.2, 0.3, 0.1, 0.6, 0.7, 1.0], [1.0, 0.6, 1.0, 0.9, 0.8, 0.2, 0.9, 0.95, 1.0])
    assert (test.n, test.better, test.worse) == (9, 7, 0)
    assert test.p_value == pytest.approx(2 / 2 ** 7)  # exact: all 7 non-zero differences positive
    assert paired_signed_rank_test([1.0, 0.0], [1.0, 0.0]).p_value == 1.0
    with pytest.raises(ValueError, match="equal lengths"):
        paired_signed_rank_test([1.0], [])


def test_quarter_trend_with_interval():
    from rlvr.eval.stats import quarter_trend

    rising = quarter_trend([1.0, 1.1, 0.9, 1.0, 1.2, 1.3, 1.4, 1.5, 1.9, 2.0, 1.8, 2.1])
    assert rising.n_quarter == 3 and rising.first == pytest.approx(1.0) and rising.last == pytest.approx(1.9667, abs=1e-3)
    assert 0 < rising.ci_low < rising.diff < rising.ci_high
    flat = quarter_trend([1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0])
    assert flat.ci_low < 0 < flat.ci_high
    assert quarter_trend([1.0, 2.0, 3.0]) is None
