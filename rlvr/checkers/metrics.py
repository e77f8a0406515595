"""Multiset metrics of ChemAlgebra appendices B, E and F on bags of (species, coefficient).

A bag maps a canonical species key to its (positive integer) coefficient. True positives are
``min(pred, true)`` per species, false positives the excess of the prediction, false negatives
the shortfall: predicting ``3 H2O + 2 HCl + CO2`` for ``2 H2O + 2 HCl + CH4`` gives TP 4, FP 2, FN 1.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class BagCounts:
    tp: int
    fp: int
    fn: int

    @property
    def jaccard(self) -> float:
        denom = self.tp + self.fp + self.fn
        return 1.0 if denom == 0 else self.tp / denom

    @property
    def f1(self) -> float:
        denom = 2 * self.tp + self.fp + self.fn
        return 1.0 if denom == 0 else 2 * self.tp / denom


def bag_counts(pred: Mapping[str, int], true: Mapping[str, int]) -> BagCounts:
    """TP/FP/FN on (molecule, coefficient) counts."""
    tp = fp = fn = 0
    get_pred, get_true = pred.get, true.get
    for key in set(pred) | set(true):
        p, t = int(get_pred(key, 0)), int(get_true(key, 0))
        if p > t:
            tp += t
            fp += p - t
        else:
            tp += p
            fn += t - p
    return BagCounts(tp, fp, fn)


def set_counts(pred: Mapping[str, int], true: Mapping[str, int]) -> BagCounts:
    """TP/FP/FN on molecules only, ignoring coefficients (appendix F, molecule-only accuracy)."""
    p = {k for k, v in pred.items() if v}
    t = {k for k, v in true.items() if v}
    return BagCounts(len(p & t), len(p - t), len(t - p))


def bag_metrics(pred: Mapping[str, int], true: Mapping[str, int]) -> dict[str, float]:
    """``em``, ``jaccard``, ``f1`` on (molecule, coefficient) counts and ``mol_em``, ``mol_jaccard``, ``mol_f1`` on molecules.

    One pass over each bag; the same numbers as :func:`bag_counts` and :func:`set_counts`.
    """
    tp = fp = fn = 0
    n_pred = n_true = common = 0  # molecules (non-zero entries) predicted, true, and both
    same = True  # every predicted molecule has its true coefficient
    get_true = true.get
    for key, v in pred.items():
        w = get_true(key, 0)
        p, t = int(v), int(w)
        if p > t:
            tp += t
            fp += p - t
        else:
            tp += p
            fn += t - p
        if v:
            n_pred += 1
            if w:
                common += 1
            if v != w:
                same = False
    for key, w in true.items():
        if w:
            n_true += 1
        if key not in pred:
            t = int(w)
            if 0 > t:
                tp += t
                fp -= t
            else:
                fn += t
    full = BagCounts(tp, fp, fn)
    mol = BagCounts(common, n_pred - common, n_true - common)  # set_counts(pred, true)
    return {
        "em": float(same and n_pred == n_true),
        "jaccard": full.jaccard,
        "f1": full.f1,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "mol_em": float(common == n_pred == n_true),
        "mol_jaccard": mol.jaccard,
        "mol_f1": mol.f1,
    }


def balance_rates(delta: Mapping[str, int]) -> dict[str, float]:
    """Diagnostic rates of ChemAlgebra tables 6-9 from ``delta = predicted - input`` per element.

    ``balanced``: no element differs; ``deficitary``: some element has fewer atoms than the input;
    ``exceeding``: some element has more; ``both``: deficitary and exceeding at once.
    """
    atoms = {k: v for k, v in delta.items() if k != "charge" and v}
    deficit = any(v < 0 for v in atoms.values())
    excess = any(v > 0 for v in atoms.values())
    return {
        "balanced": float(not delta or not any(delta.values())),
        "deficitary": float(deficit),
        "exceeding": float(excess),
        "both": float(deficit and excess),
    }
