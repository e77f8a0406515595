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
