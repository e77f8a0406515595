"""Exact linear algebra on composition matrices (integers and fractions, no floating point).

The composition matrix of a list of species has one row per element (sorted) plus a charge row
when any species is charged, and one column per species. A reaction's coefficients are a vector
of its null space; :func:`nullity` is the dimension of that space and :func:`null_basis` the
basis of the reduced row echelon form (one vector per free column, that column set to 1).
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Sequence

from rlvr.chem.formula import Formula

_PRIME = (1 << 61) - 1


def composition_rows(columns: Sequence[Formula], signs: Sequence[int] | None = None) -> tuple[list[str], list[list[int]]]:
    """``(row labels, rows)`` of the element + charge matrix whose columns are ``columns``.

    ``signs`` multiplies each column (``-1`` writes products on the other side of the equation).
    """
    signs = list(signs) if signs is not None else [1] * len(columns)
    elements = sorted({el for f in columns for el, _ in f.counts})
    dicts = [dict(f.counts) for f in columns]
    rows = [[d.get(el, 0) * s for d, s in zip(dicts, signs)] for el in elements]
    labels = list(elements)
    if any(f.charge for f in columns):
        rows.append([f.charge * s for f, s in zip(columns, signs)])
        labels.append("charge")
    return labels, rows


def _rank_mod_p(rows: list[list[int]], n: int) -> int:
    """The rank modulo a large prime (never above the rational rank)."""
    mat = [[x % _PRIME for x in row] for row in rows]
    rank = 0
    for col in range(n):
        pivot = next((i for i in range(rank, len(mat)) if mat[i][col]), None)
        if pivot is None:
            continue
        mat[rank], mat[pivot] = mat[pivot], mat[rank]
        inv = pow(mat[rank][col], _PRIME - 2, _PRIME)
        prow = [x * inv % _PRIME for x in mat[rank]]
        mat[rank] = prow
        for i in range(len(mat)):
            f = mat[i][col]
            if i != rank and f:
                mat[i] = [(a - f * b) % _PRIME for a, b in zip(mat[i], prow)]
        rank += 1
        if rank == len(mat):
            break
    return rank


def _eliminate(rows: Sequence[Sequence[int]], n: int) -> tuple[list[list[int]], list[int]]:
    """Fraction-free Gauss-Jordan elimination: ``(rows, pivot columns)``, pivot row ``i`` first.

    Every pivot column is zero outside its pivot row, so row ``i`` divided by its pivot entry is
    row ``i`` of the reduced row echelon form.
    """
    mat = [list(row) for row in rows]
    pivots: list[int] = []
    rank = 0
    col = 0
    while rank < len(mat) and col < n:
        pivot = next((i for i in range(rank, len(mat)) if mat[i][col]), None)
        if pivot is None:
            col += 1
            continue
        mat[rank], mat[pivot] = mat[pivot], mat[rank]
        p = mat[rank][col]
        for i in range(len(mat)):
            if i != rank and mat[i][col]:
                f = mat[i][col]
                mat[i] = [p * a - f * b for a, b in zip(mat[i], mat[rank])]
                g = gcd(*mat[i])
                if g > 1:
                    mat[i] = [a // g for a in mat[i]]
        pivots.append(col)
        rank += 1
        col += 1
    return mat, pivots


def nullity(columns: Sequence[Formula], *, balanced: bool = False) -> int:
    """Dimension of the null space of the element + charge matrix whose columns are ``columns``.

    Exact. With ``balanced=True`` (the caller knows a non-zero null vector, e.g. a balanced
    reaction) a rank computed modulo a large prime that leaves nullity 1 is already exact (the rank
    modulo p never exceeds the rational rank, and the known vector bounds it from above); otherwise
    integer fraction-free elimination decides. Sign conventions of the columns do not matter.
    """
    _, rows = composition_rows(columns)
    n = len(columns)
    if balanced and n - _rank_mod_p(rows, n) == 1:
        return 1
    return n - len(_eliminate(rows, n)[1])


def null_basis(rows: Sequence[Sequence[int]], n: int) -> list[list[Fraction]]:
    """A basis of the rational null space of ``rows`` (``n`` columns): one vector per free column of
    the reduced row echelon form, with that column set to 1 and the other free columns to 0."""
    mat, pivots = _eliminate(rows, n)
    basis = []
    for free in (c for c in range(n) if c not in pivots):
        vec = [Fraction(0)] * n
        vec[free] = Fraction(1)
        for i, col in enumerate(pivots):
            vec[col] = Fraction(-mat[i][free], mat[i][col])
        basis.append(vec)
    return basis


__all__ = ["composition_rows", "null_basis", "nullity"]
