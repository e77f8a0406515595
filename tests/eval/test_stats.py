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


def test_quarter_trend_is_descriptive():
    from rlvr.eval.stats import quarter_trend

    rising = quarter_trend([1.0, 1.1, 0.9, 1.0, 1.2, 1.3, 1.4, 1.5, 1.9, 2.0, 1.8, 2.1])
    assert rising.n_quarter == 3 and rising.first == pytest.approx(1.0) and rising.last == pytest.approx(1.9667, abs=1e-3)
    assert rising.diff == pytest.approx(0.9667, abs=1e-3) and not hasattr(rising, "ci_low")
    assert quarter_trend([1.0, 2.0, 3.0]) is None


def _brute_signed_rank_p(diffs):
    """Two-sided exact p by enumerating every sign pattern over mid-ranks (zeros dropped)."""
    xs = [d for d in diffs if d != 0]
    mags = sorted(abs(d) for d in xs)
    rank = {m: (2 * mags.index(m) + mags.count(m) + 1) / 2 for m in mags}
    ranks = [rank[abs(d)] for d in xs]
    total = sum(ranks)
    obs = sum(r for r, d in zip(ranks, xs) if d > 0)
    hits = sum(abs(sum(r for r, s in zip(ranks, signs) if s) - total / 2) >= abs(obs - total / 2) - 1e-9
               for signs in itertools.product((0, 1), repeat=len(xs)))
    return hits / 2 ** len(xs)


def test_signed_rank_p_values_by_hand():
    """Hand-computed exact values: the same on every SciPy version (none is used)."""
    from rlvr.eval.stats import signed_rank_p_value

    # +1 +2 +3: T+ = 6 is the largest of 8 sign patterns; two-sided 2/8
    assert signed_rank_p_value([1, 2, 3]) == 0.25
    # ranks 1..4, T+ = 1 + 3 + 4 = 8 of total 10 (mean 5): |T+ - 5| >= 3 in T+ in {0,1,2,8,9,10}: 6 of 16
    assert signed_rank_p_value([0.1, -0.2, 0.3, 0.4]) == 6 / 16
    # zeros dropped: the same as without them
    assert signed_rank_p_value([0, 1, 0, 2, 3, 0.0]) == 0.25
    # ties: |d| = 1, 1, 2 get mid-ranks 1.5, 1.5, 3; signs + - +: T+ = 4.5 of 6 (mean 3); |dev| >= 1.5:
    # T+ in {0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6} -> 0, 1.5, 1.5, 4.5, 4.5, 6 -> 6 of 8
    assert signed_rank_p_value([1, -1, 2]) == 6 / 8
    # quickstart-like data: many ties at two magnitudes, all agree with brute-force enumeration
    data = [0.5, 0.5, 0.5, -0.5, 1.0, 1.0, -1.0, 0.5, 0.25, 0.5, 1.0, -0.25]
    assert signed_rank_p_value(data) == pytest.approx(_brute_signed_rank_p(data))
    assert signed_rank_p_value([]) == 1.0 and signed_rank_p_value([0.0, 0.0]) == 1.0


def test_signed_rank_matches_scipy_exact_without_ties():
    from scipy.stats import wilcoxon

    from rlvr.eval.stats import signed_rank_p_value

    diffs = [0.3, -1.2, 2.5, 0.7, 1.9, -0.4, 3.1, 0.05, 1.1]
    assert signed_rank_p_value(diffs) == pytest.approx(float(wilcoxon(diffs, method="exact").pvalue))


def test_holm_adjusted_p_values_by_hand():
    from rlvr.eval.stats import holm

    # sorted 0.01, 0.03, 0.04, 0.5 -> x4, x3, x2, x1 = 0.04, 0.09, 0.08 -> 0.09 (monotone), 0.5
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.6, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([0.02]) == [0.02] and holm([]) == []


def test_pooled_task_sign_test_counts_each_task_once():
    from rlvr.eval.stats import pooled_task_sign_test

    # 3 runs over the same 10 tasks; per task the mean change across runs decides its sign
    before = [{f"t{i}": False for i in range(10)} for _ in range(3)]
    after = [{f"t{i}": i < 6 for i in range(10)}, {f"t{i}": i < 5 for i in range(10)}, {f"t{i}": i < 1 for i in range(10)}]
    before[2]["t9"] = True  # t9 lost in run 2 only: mean change -1/3
    t = pooled_task_sign_test(before, after)
    assert (t.n_tasks, t.runs, t.improved, t.worsened) == (10, 3, 6, 1)
    # exact two-sided sign test: 6 of 7 -> 2 * (C(7,6) + C(7,7)) / 2^7
    assert t.p_value == pytest.approx(2 * (7 + 1) / 2 ** 7)
    assert t.mean_change == pytest.approx((6 + 5 + 1 - 1) / 3 / 10)
    # a task missing from one run is left out
    del after[1]["t0"]
    assert pooled_task_sign_test(before, after).n_tasks == 9
    with pytest.raises(ValueError):
        pooled_task_sign_test(before, after[:2])


def test_pooled_sign_test_counts_a_reaction_once_however_many_tasks_or_runs_share_it():
    from rlvr.eval.stats import pooled_task_sign_test

    # two runs; tasks a1, a2 share reaction A; b1 is reaction B; c1 is reaction C
    before = [{"a1": 0, "a2": 0, "b1": 1, "c1": 0}, {"a1": 0, "a2": 1, "b1": 1, "c1": 0}]
    after = [{"a1": 1, "a2": 1, "b1": 0, "c1": 0}, {"a1": 1, "a2": 1, "b1": 1, "c1": 0}]
    units = {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}
    by_task = pooled_task_sign_test(before, after)
    by_unit = pooled_task_sign_test(before, after, units)
    assert (by_task.improved, by_task.worsened, by_task.n_units) == (2, 1, 4)
    assert (by_unit.improved, by_unit.worsened, by_unit.n_units, by_unit.n_tasks) == (1, 1, 3, 4)
    assert by_unit.p_value == 1.0


def test_one_task_per_unit_and_one_run_is_exactly_mcnemar():
    import random

    from rlvr.eval.stats import paired_exact_test, pooled_task_sign_test

    rng = random.Random(5)
    before = {f"t{i}": rng.random() < 0.5 for i in range(60)}
    after = {f"t{i}": rng.random() < 0.7 for i in range(60)}
    mc = paired_exact_test(list(before.values()), list(after.values()))
    pooled = pooled_task_sign_test([before], [after], {k: "r" + k for k in before})
    assert (pooled.improved, pooled.worsened, pooled.p_value) == (mc.gained, mc.lost, mc.p_value)


def test_power_is_unconditional_and_grows_with_the_units():
    from rlvr.eval.stats import POWER_METHOD, mcnemar_power, sign_test_power, units_needed

    # few discordant pairs: the conditional figure would claim a tiny detectable difference; the planned-design
    # figure says a difference as large as the discordance is not detectable with 80 % power
    small = mcnemar_power(200, 4, 2)
    assert small["detectable_difference"] is None or small["detectable_difference"] > 0.02
    assert small["method"] == POWER_METHOD
    p100 = sign_test_power(100, 0.06, 0.02)
    p400 = sign_test_power(400, 0.06, 0.02)
    assert 0 < p100 < p400 < 1
    assert sign_test_power(400, 0.0, 0.0) == 0.0
    n = units_needed(0.06, 0.02)
    assert n is not None and sign_test_power(n, 0.06, 0.02) >= 0.8 and sign_test_power(n // 2, 0.06, 0.02) < 0.8
    # a simulated check of the unconditional power at one design point
    import random

    from rlvr.eval.stats import sign_test_p_value

    rng = random.Random(0)
    hits = 0
    for _ in range(400):
        outcomes = [rng.random() for _ in range(150)]
        up = sum(u < 0.08 for u in outcomes)
        down = sum(0.08 <= u < 0.11 for u in outcomes)
        hits += sign_test_p_value(up, down) < 0.05
    assert abs(hits / 400 - sign_test_power(150, 0.08, 0.03)) < 0.08
