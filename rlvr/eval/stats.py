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


def paired_exact_test(before: Sequence[bool], after: Sequence[bool]) -> PairedTest:
    """The exact McNemar test of ``after`` against ``before`` (same tasks, same order)."""
    if len(before) != len(after):
        raise ValueError(f"paired outcomes need equal lengths, got {len(before)} and {len(after)}")
    from scipy.stats import binomtest  # scipy.stats takes ~1 s to import: only when a test is asked for

    gained = sum(1 for b, a in zip(before, after) if not b and a)
    lost = sum(1 for b, a in zip(before, after) if b and not a)
    discordant = gained + lost
    p = 1.0 if discordant == 0 else float(binomtest(gained, discordant, 0.5, alternative="two-sided").pvalue)
    return PairedTest(n=len(before), gained=gained, lost=lost, p_value=min(1.0, p))


@dataclass(frozen=True)
class PairedRankTest:
    """A Wilcoxon signed-rank test on paired per-task scores (after - before) of the same tasks.

    ``better``/``worse``: tasks whose score rose / fell; ``mean_diff``: the mean paired difference;
    ``p_value``: two-sided, pairs with no difference dropped (1.0 when every pair is tied).
    """

    n: int
    better: int
    worse: int
    mean_diff: float
    p_value: float


def paired_signed_rank_test(before: Sequence[float], after: Sequence[float]) -> PairedRankTest:
    """The Wilcoxon signed-rank test of ``after`` against ``before`` (same tasks, same order)."""
    if len(before) != len(after):
        raise ValueError(f"paired scores need equal lengths, got {len(before)} and {len(after)}")
    from scipy.stats import wilcoxon

    diffs = [float(a) - float(b) for b, a in zip(before, after)]
    changed = [d for d in diffs if abs(d) > 1e-12]
    mean_diff = sum(diffs) / len(diffs) if diffs else float("nan")
    p = 1.0 if not changed else float(wilcoxon(changed, alternative="two-sided").pvalue)
    return PairedRankTest(n=len(diffs), better=sum(d > 0 for d in changed), worse=sum(d < 0 for d in changed),
                          mean_diff=mean_diff, p_value=min(1.0, p))


@dataclass(frozen=True)
class Trend:
    """The mean of the last quarter of a series against its first quarter, with a 95 % Welch interval."""

    first: float
    last: float
    diff: float
    ci_low: float
    ci_high: float
    n_quarter: int


def quarter_trend(values: Sequence[float]) -> Trend | None:
    """First-quarter and last-quarter means of ``values`` and the 95 % interval of their difference
    (Welch's t; None with fewer than 4 values)."""
    xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if len(xs) < 4:
        return None
    q = max(2, len(xs) // 4)
    first, last = xs[:q], xs[-q:]
    from scipy.stats import ttest_ind

    m1, m2 = sum(first) / q, sum(last) / q
    if len(set(first)) == 1 and len(set(last)) == 1:
        low = high = m2 - m1
    else:
        ci = ttest_ind(last, first, equal_var=False).confidence_interval(0.95)
        low, high = float(ci.low), float(ci.high)
    return Trend(first=m1, last=m2, diff=m2 - m1, ci_low=low, ci_high=high, n_quarter=q)
