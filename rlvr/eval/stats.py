"""Small statistics for evaluation tables: means with standard errors, unbiased pass@k, success."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence


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
    """Runs (seeds) pooled over units: per unit (a task, or the reaction or molecule several tasks share), the
    mean change (after - before, 1 = right) over every run and every task of the unit; an exact two-sided sign
    test on the units whose mean change is not zero.

    The unit is what varies independently, so a reaction scored in three runs, or asked twice, counts once.
    """

    n_tasks: int
    runs: int
    improved: int
    worsened: int
    mean_change: float
    p_value: float
    n_units: int = 0


def unit_changes(before_runs: Sequence[Mapping[str, float]], after_runs: Sequence[Mapping[str, float]],
                 units: Mapping[str, str] | None = None) -> tuple[list[str], dict[str, float]]:
    """``(task ids present in every run, {unit: mean change})``: ``before_runs[r]`` / ``after_runs[r]`` map task id
    -> outcome (right/wrong, or a reward) in run ``r``; ``units`` maps task id -> unit (default: the task itself).
    A unit's change is averaged over its tasks and the runs."""
    if len(before_runs) != len(after_runs) or not before_runs:
        raise ValueError(f"need one before and one after map per run, got {len(before_runs)} and {len(after_runs)}")
    maps = [*before_runs, *after_runs]
    ids = [i for i in before_runs[0] if all(i in m for m in maps)]
    totals: dict[str, list[float]] = {}
    for i in ids:
        change = sum(float(a[i]) - float(b[i]) for b, a in zip(before_runs, after_runs)) / len(before_runs)
        totals.setdefault(units.get(i, i) if units else i, []).append(change)
    return ids, {u: sum(c) / len(c) for u, c in totals.items()}


def pooled_task_sign_test(before_runs: Sequence[Mapping[str, bool]], after_runs: Sequence[Mapping[str, bool]],
                          units: Mapping[str, str] | None = None) -> PooledTaskTest:
    """Pool runs (e.g. seeds) over units: ``before_runs[r]`` / ``after_runs[r]`` map task id -> right/wrong in run
    ``r``; ``units`` maps task id -> unit (its reaction or molecule; default: each task its own). Tasks present in
    every run are kept; each unit's change is averaged over its tasks and the runs, and the sign test counts units
    that improved on average against units that got worse (ties dropped). With one run and one task per unit it is
    the exact McNemar test."""
    ids, changes = unit_changes([{k: float(bool(v)) for k, v in m.items()} for m in before_runs],
                                [{k: float(bool(v)) for k, v in m.items()} for m in after_runs], units)
    values = list(changes.values())
    improved = sum(c > 1e-12 for c in values)
    worsened = sum(c < -1e-12 for c in values)
    return PooledTaskTest(n_tasks=len(ids), runs=len(before_runs), improved=improved, worsened=worsened,
                          mean_change=sum(values) / len(values) if values else float("nan"),
                          p_value=sign_test_p_value(improved, worsened), n_units=len(values))


def pooled_signed_rank_test(before_runs: Sequence[Mapping[str, float]], after_runs: Sequence[Mapping[str, float]],
                            units: Mapping[str, str] | None = None) -> PooledTaskTest:
    """:func:`pooled_task_sign_test` for a graded outcome (a reward, a share of right samples): each unit's mean
    change over its tasks and the runs, and the exact signed-rank test (:func:`signed_rank_p_value`) over the units
    whose mean changed; ``improved`` / ``worsened`` count those units."""
    ids, changes = unit_changes(before_runs, after_runs, units)
    values = list(changes.values())
    moved = [v for v in values if abs(v) > 1e-12]
    return PooledTaskTest(n_tasks=len(ids), runs=len(before_runs), improved=sum(v > 0 for v in moved),
                          worsened=sum(v < 0 for v in moved),
                          mean_change=sum(values) / len(values) if values else float("nan"),
                          p_value=signed_rank_p_value(moved), n_units=len(values))


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


def _rejection_bound(discordant: int, alpha: float) -> int | None:
    """The largest count ``c`` whose two-sided exact sign-test p on ``discordant`` pairs is <= alpha (the test
    rejects at ``k <= c`` or ``k >= discordant - c``); None when no count is that extreme."""
    import numpy as np
    from scipy.stats import binom

    if discordant == 0:
        return None
    tail = 2 * binom.cdf(np.arange(discordant // 2 + 1), discordant, 0.5)
    inside = np.nonzero(tail <= alpha)[0]
    return int(inside[-1]) if inside.size else None


def _sign_test_power(discordant: int, share_up: float, alpha: float) -> float:
    """Power of the two-sided exact sign test on ``discordant`` pairs when a pair falls up with ``share_up``."""
    from scipy.stats import binom

    c = _rejection_bound(discordant, alpha)
    if c is None:
        return 0.0
    return float(binom.cdf(c, discordant, share_up) + binom.sf(discordant - c - 1, discordant, share_up))


def sign_test_power(n: int, p_up: float, p_down: float, *, alpha: float = 0.05) -> float:
    """Unconditional power of the two-sided exact sign test on ``n`` independent units, each up with probability
    ``p_up``, down with ``p_down`` and tied otherwise: the number of untied units is itself random
    (Binomial(n, p_up + p_down)), and the power is averaged over it, not conditioned on one observed count."""
    import numpy as np
    from scipy.stats import binom

    if not (0 <= p_up and 0 <= p_down and p_up + p_down <= 1 + 1e-12):
        raise ValueError(f"need probabilities with p_up + p_down <= 1, got {p_up}, {p_down}")
    p_untied = p_up + p_down
    if n <= 0 or p_untied <= 0:
        return 0.0
    share = p_up / p_untied
    counts = np.arange(n + 1)
    weights = binom.pmf(counts, n, min(1.0, p_untied))
    return float(sum(w * _sign_test_power(int(d), share, alpha) for d, w in zip(counts, weights) if w > 1e-12))


def mcnemar_power(n: int, up: int, down: int, *, alpha: float = 0.05, power: float = 0.8) -> dict[str, float | int | None]:
    """A planned-design power statement for an exact McNemar test on ``n`` independent paired units.

    The discordance rate ``d = (up + down) / n`` of the data at hand is taken as the design's rate; a true
    difference ``delta`` in exact match then puts a unit up with probability ``(d + delta) / 2`` and down with
    ``(d - delta) / 2``. The power is unconditional (:func:`sign_test_power`: the discordant count is random,
    not fixed at the observed one). Returns the discordance, the observed difference ``(up - down) / n``, the
    smallest ``delta`` that ``n`` units detect with the given ``power`` (search in steps of 0.1 point; None when
    even ``delta = d`` is not detected, or no unit is discordant), and the units the observed difference would
    need for that power (None when it is zero). ``n`` and ``alpha`` are echoed; ``method`` names the method."""
    d = (up + down) / n if n else 0.0
    observed = (up - down) / n if n else 0.0
    detectable = None
    if d > 0:
        detectable = smallest_detectable(n, d, alpha=alpha, power=power)
    needed = None
    if d > 0 and observed != 0:
        p_up, p_down = (d + abs(observed)) / 2, (d - abs(observed)) / 2
        needed = units_needed(p_up, p_down, alpha=alpha, power=power)
    return {"n": n, "alpha": alpha, "power": power, "discordance": d, "observed_difference": observed,
            "detectable_difference": detectable, "tasks_needed": needed, "method": POWER_METHOD}


#: how every power figure is computed
POWER_METHOD = "unconditional: the discordant count is random (binomial in the units), not fixed at an observed value"


def smallest_detectable(n: int, discordance: float, *, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The smallest difference ``delta`` (a share of units, in steps of 0.001) that ``n`` units with discordance
    ``discordance`` detect at ``power`` with the two-sided exact sign test (None when ``delta = discordance``,
    every discordant unit going one way, still falls short): :func:`pooled_detectable` with one run."""
    if n <= 0:
        return None
    return pooled_detectable(n, 1, discordance, alpha=alpha, power=power)


def units_needed(p_up: float, p_down: float, *, alpha: float = 0.05, power: float = 0.8,
                 limit: int = 10 ** 6) -> int | None:
    """The fewest independent units whose two-sided exact sign test reaches ``power`` when each unit is up with
    ``p_up`` and down with ``p_down`` (None at no difference or past ``limit``). The exact test's power is not
    monotone in n, so the answer is the first n of a doubling-then-bisection search, good to a few units."""
    if p_up == p_down:
        return None
    lo, hi = 1, 1
    while sign_test_power(hi, p_up, p_down, alpha=alpha) < power:
        if hi >= limit:
            return None
        lo, hi = hi, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if sign_test_power(mid, p_up, p_down, alpha=alpha) >= power:
            hi = mid
        else:
            lo = mid + 1
    return hi


def pooled_unit_probabilities(runs: int, p_up: float, p_down: float) -> tuple[float, float]:
    """``(P(unit up), P(unit down))`` of a unit scored once in each of ``runs`` independent runs, each run's pair up
    with ``p_up``, down with ``p_down`` and tied otherwise: the unit is up when its net change over the runs is
    positive (the pooled sign test's unit outcome, :func:`pooled_task_sign_test`)."""
    dist = {0: 1.0}
    for _ in range(int(runs)):
        nxt: dict[int, float] = {}
        for net, p in dist.items():
            for step, q in ((1, p_up), (-1, p_down), (0, 1.0 - p_up - p_down)):
                nxt[net + step] = nxt.get(net + step, 0.0) + p * q
        dist = nxt
    return sum(p for n, p in dist.items() if n > 0), sum(p for n, p in dist.items() if n < 0)


def pooled_power(units: int, runs: int, p_up: float, p_down: float, *, alpha: float = 0.05) -> float:
    """Unconditional power of the pooled sign test over ``units`` units, each scored once in each of ``runs`` runs
    (pairs independent across runs; :func:`pooled_unit_probabilities`, :func:`sign_test_power`)."""
    up, down = pooled_unit_probabilities(runs, p_up, p_down)
    return sign_test_power(units, up, down, alpha=alpha)


def pooled_detectable(units: int, runs: int, discordance: float, *, alpha: float = 0.05,
                      power: float = 0.8) -> float | None:
    """The smallest per-run difference ``delta`` (a share of pairs, steps of 0.001) the pooled sign test over
    ``units`` units and ``runs`` runs detects at ``power`` when a share ``discordance`` of each run's pairs is
    discordant (None when even ``delta = discordance`` falls short)."""
    grid = int(round(discordance * 1000))
    if grid < 1 or pooled_power(units, runs, discordance, 0.0, alpha=alpha) < power:
        return None
    lo, hi = 1, grid
    while lo < hi:
        mid = (lo + hi) // 2
        delta = mid / 1000
        if pooled_power(units, runs, (discordance + delta) / 2, (discordance - delta) / 2, alpha=alpha) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo / 1000
