"""Small statistics for evaluation tables: means with standard errors, unbiased pass@k, success."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence


def mean_se(values: Iterable[float]) -> tuple[float, float, int]:
    """``(mean, standard error of the mean, n)``; the SE is 0 for fewer than two values."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan"), 0
    mean = sum(xs) / n
    if n < 2:
        return mean, 0.0, n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n), n


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples with ``c`` correct: ``1 - C(n-c, k) / C(n, k)``."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got c={c}, n={n}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def success(correct: Sequence[bool]) -> bool:
    """MolecularIQ's "success": at least two of three rollouts correct, generalised to >= 2/3 of K."""
    n = len(correct)
    return n > 0 and 3 * sum(bool(c) for c in correct) >= 2 * n


def pass_ks(samples: int) -> list[int]:
    """The k values worth reporting for ``samples`` rollouts (1, 3, 5, 10 ... up to K)."""
    ks = [k for k in (1, 2, 3, 5, 8, 10, 16, 32, 64) if k <= samples]
    if samples not in ks:
        ks.append(samples)
    return ks


@dataclass(frozen=True)
class PairedTest:
    """An exact McNemar (sign) test on paired right/wrong outcomes of the same tasks before and after.

    ``gained``: tasks wrong before and right after; ``lost``: right before and wrong after;
    ``p_value``: two-sided exact binomial p of ``gained`` among the ``gained + lost`` discordant pairs
    (1.0 when there are none).
    """

    n: int
    gained: int
    lost: int
    p_value: float


def sign_test_p_value(up: int, down: int) -> float:
    """Two-sided exact binomial p of ``up`` successes among ``up + down`` trials at 1/2 (1.0 with none):
    the exact McNemar test on discordant pairs, and the sign test."""
    if up + down == 0:
        return 1.0
    from scipy.stats import binomtest  # scipy.stats takes ~1 s to import: only when a test is asked for

    return min(1.0, float(binomtest(up, up + down, 0.5, alternative="two-sided").pvalue))


def paired_exact_test(before: Sequence[bool], after: Sequence[bool]) -> PairedTest:
    """The exact McNemar test of ``after`` against ``before`` (same tasks, same order)."""
    if len(before) != len(after):
        raise ValueError(f"paired outcomes need equal lengths, got {len(before)} and {len(after)}")
    gained = sum(1 for b, a in zip(before, after) if not b and a)
    lost = sum(1 for b, a in zip(before, after) if b and not a)
    return PairedTest(n=len(before), gained=gained, lost=lost, p_value=sign_test_p_value(gained, lost))


@dataclass(frozen=True)
class PairedRankTest:
    """A Wilcoxon signed-rank test on paired per-task scores (after - before) of the same tasks.

    ``better``/``worse``: tasks whose score rose / fell; ``mean_diff``: the mean paired difference over all
    tasks; ``p_value``: two-sided, exact, conditional on the observed ties (see
    :func:`paired_signed_rank_test`); 1.0 when every pair is tied.
    """

    n: int
    better: int
    worse: int
    mean_diff: float
    p_value: float


SIGNED_RANK_METHOD = "exact conditional signed-rank test: zero differences dropped, tied |differences| given mid-ranks"


def signed_rank_p_value(diffs: Sequence[float], tol: float = 1e-12) -> float:
    """Two-sided p of Wilcoxon's signed-rank statistic, computed exactly and the same on every platform.

    Zero differences (``|d| <= tol``) are dropped (Wilcoxon's method); tied ``|d|`` get mid-ranks; the null
    distribution is that of the rank sum under every sign pattern (2^m equally likely), counted exactly
    by dynamic programming over doubled ranks, so ties need no normal approximation and no SciPy version
    changes the answer. p = P(|T+ - E| >= |t+ - E|) with E = total / 2.
    """
    xs = [float(d) for d in diffs if abs(float(d)) > tol]
    if not xs:
        return 1.0
    order = sorted(range(len(xs)), key=lambda i: abs(xs[i]))
    ranks2 = [0] * len(xs)  # doubled mid-ranks: integers
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and abs(abs(xs[order[j + 1]]) - abs(xs[order[i]])) <= tol:
            j += 1
        for k in range(i, j + 1):
            ranks2[order[k]] = i + j + 2  # 2 x mean of ranks i+1 .. j+1
        i = j + 1
    total = sum(ranks2)
    counts = [0] * (total + 1)
    counts[0] = 1
    for r in ranks2:
        for s in range(total, r - 1, -1):
            counts[s] += counts[s - r]
    observed = sum(r for r, d in zip(ranks2, xs) if d > 0)
    dev = abs(2 * observed - total)  # doubled distance from the mean, integer
    extreme = sum(c for s, c in enumerate(counts) if abs(2 * s - total) >= dev)
    return min(1.0, extreme / 2 ** len(xs))


def paired_signed_rank_test(before: Sequence[float], after: Sequence[float]) -> PairedRankTest:
    """The Wilcoxon signed-rank test of ``after`` against ``before`` (same tasks, same order), exact
    (:func:`signed_rank_p_value`)."""
    if len(before) != len(after):
        raise ValueError(f"paired scores need equal lengths, got {len(before)} and {len(after)}")
    diffs = [float(a) - float(b) for b, a in zip(before, after)]
    changed = [d for d in diffs if abs(d) > 1e-12]
    mean_diff = sum(diffs) / len(diffs) if diffs else float("nan")
    return PairedRankTest(n=len(diffs), better=sum(d > 0 for d in changed), worse=sum(d < 0 for d in changed),
                          mean_diff=mean_diff, p_value=signed_rank_p_value(changed))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order: the k-th smallest of m is multiplied by
    ``m - k + 1``, made non-decreasing along that order and capped at 1. Controls the family-wise error
    rate of the whole list at any alpha, under any dependence between the tests."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p_values[i])))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class PooledTaskTest:
    """Seeds pooled over tasks: per task, the mean change (after - before, 1 = right) across runs that
    share the task; an exact two-sided sign test on the tasks whose mean change is not zero.

    The unit is the task, so a task scored in three runs counts once, not three times.
    """

    n_tasks: int
    runs: int
    improved: int
    worsened: int
    mean_change: float
    p_value: float


def pooled_task_sign_test(before_runs: Sequence[dict[str, bool]], after_runs: Sequence[dict[str, bool]]) -> PooledTaskTest:
    """Pool runs (e.g. seeds) over tasks: ``before_runs[r]`` / ``after_runs[r]`` map task id -> right/wrong
    in run ``r``. Tasks present in every run are kept; each task's change is averaged over the runs, and
    the sign test counts tasks that improved on average against tasks that got worse (ties dropped)."""
    if len(before_runs) != len(after_runs) or not before_runs:
        raise ValueError(f"need one before and one after map per run, got {len(before_runs)} and {len(after_runs)}")
    maps = [*before_runs, *after_runs]
    ids = [i for i in before_runs[0] if all(i in m for m in maps)]
    changes = [sum(float(bool(a[i])) - float(bool(b[i])) for b, a in zip(before_runs, after_runs)) / len(before_runs)
               for i in ids]
    improved = sum(c > 1e-12 for c in changes)
    worsened = sum(c < -1e-12 for c in changes)
    return PooledTaskTest(n_tasks=len(ids), runs=len(before_runs), improved=improved, worsened=worsened,
                          mean_change=sum(changes) / len(changes) if changes else float("nan"),
                          p_value=sign_test_p_value(improved, worsened))


@dataclass(frozen=True)
class Trend:
    """The mean of the last quarter of a series against its first quarter (descriptive: no interval)."""

    first: float
    last: float
    diff: float
    n_quarter: int


def quarter_trend(values: Sequence[float]) -> Trend | None:
    """First-quarter and last-quarter means of ``values`` and their difference (None with fewer than 4
    values). No interval: training steps are autocorrelated, so an interval that treats them as
    independent is too narrow; the paired tests on fixed tasks carry the inference."""
    xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if len(xs) < 4:
        return None
    q = max(2, len(xs) // 4)
    first, last = xs[:q], xs[-q:]
    m1, m2 = sum(first) / q, sum(last) / q
    return Trend(first=m1, last=m2, diff=m2 - m1, n_quarter=q)


def _sign_test_power(discordant: int, share_up: float, alpha: float) -> float:
    """Power of the two-sided exact sign test on ``discordant`` pairs when a pair falls up with ``share_up``: the
    test rejects at ``k <= c`` or ``k >= D - c`` up-pairs, ``c`` the largest count whose two-sided p is <= alpha."""
    import numpy as np
    from scipy.stats import binom

    if discordant == 0:
        return 0.0
    tail = 2 * binom.cdf(np.arange(discordant // 2 + 1), discordant, 0.5)
    inside = np.nonzero(tail <= alpha)[0]
    if inside.size == 0:
        return 0.0
    c = int(inside[-1])
    return float(binom.cdf(c, discordant, share_up) + binom.sf(discordant - c - 1, discordant, share_up))


def mcnemar_power(n: int, up: int, down: int, *, alpha: float = 0.05, power: float = 0.8) -> dict[str, float | int | None]:
    """A power statement for an exact McNemar test on ``n`` paired tasks with ``up`` / ``down`` discordant.

    With the observed discordance rate ``d = (up + down) / n`` held fixed, a true difference ``delta`` in
    exact match puts a discordant pair up with probability ``(1 + delta / d) / 2``. Returns the discordance,
    the observed difference ``(up - down) / n``, the smallest ``delta`` that ``n`` tasks detect with the given
    ``power`` (the exact test's, by search in steps of 0.1 point; None when even a difference as large as the
    discordance is not detected, or no task is discordant), and the tasks the observed difference would need for
    that power (None when it is zero). ``n`` and ``alpha`` are echoed."""
    d = (up + down) / n if n else 0.0
    observed = (up - down) / n if n else 0.0
    detectable = None
    if d > 0:
        for step in range(1, 1001):
            delta = step / 1000
            if delta > d:
                break
            if _sign_test_power(up + down, (1 + delta / d) / 2, alpha) >= power:
                detectable = delta
                break
    needed = None
    if d > 0 and observed != 0:
        share = (1 + abs(observed) / d) / 2
        lo, hi = 1, 1
        while _sign_test_power(round(d * hi), share, alpha) < power and hi < 10 ** 6:
            lo, hi = hi, hi * 2
        while lo < hi:  # the smallest n whose expected discordant pairs reach the power (monotone enough to bisect)
            mid = (lo + hi) // 2
            if _sign_test_power(round(d * mid), share, alpha) >= power:
                hi = mid
            else:
                lo = mid + 1
        needed = hi
    return {"n": n, "alpha": alpha, "power": power, "discordance": d, "observed_difference": observed,
            "detectable_difference": detectable, "tasks_needed": needed}
