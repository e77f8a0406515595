"""The ``classic-fresh`` corpus: held-out classic equations that the ``classic`` corpus does not have.

The skeletons of :mod:`~rlvr.generators.stoich.classic_fresh` and
:mod:`~rlvr.generators.stoich.fresh_molecular` (grown tables, twin fuel formulas) are balanced by the
classic corpus's own code path (:func:`~rlvr.generators.stoich.classic_build.build_equation_corpus`).
A reaction whose formula-level key is in the classic corpus (any split) is left out, reactions are
deduplicated by that key, and each class is capped so the class mix follows the classic test split's
(:func:`class_targets`, :data:`FRESH_SIZE` reactions in all when every class has enough). The corpus
is held out (``Corpus.held_out``): every reaction is a test reaction.
"""
from __future__ import annotations

import hashlib
import json
from statistics import fmean
from typing import NamedTuple, Sequence

from rlvr.generators.stoich import classic_fresh as cf
from rlvr.generators.stoich import fresh_molecular as fm
from rlvr.generators.stoich.classic import ClassicEquation
from rlvr.generators.stoich.classic_build import build_equation_corpus
from rlvr.generators.stoich.corpus_model import Corpus
from rlvr.generators.stoich.fresh_tables import SMILES
from rlvr.generators.stoich.splits import SplitSpec, pool_composition, reaction_pool
from rlvr.rng import stable_hash

FRESH_NAME = "classic-fresh"
#: bump when the fresh skeletons or the selection change
FRESH_VERSION = "1"
#: reactions aimed at (classes with too few reactions give fewer)
FRESH_SIZE = 1000


def fresh_equations(fuels: Sequence[str] = ()) -> list[ClassicEquation]:
    """Every fresh skeleton (``fuels``: the C/H/O formulas to burn), in a stable hashed order."""
    eqs = cf.neutralization() + cf.metal_acid() + cf.oxide_acid() + cf.synthesis() + cf.decomposition()
    eqs += cf.single_displacement() + cf.precipitation() + cf.double_displacement() + cf.gas_evolution()
    eqs += cf.metal_water() + fm.redox_ionic() + fm.redox_molecular() + fm.industrial() + fm.incomplete_combustion()
    eqs += fm.combustion(fuels)
    return sorted(eqs, key=lambda e: (stable_hash("fresh-order", repr(e)), repr(e)))


def inputs_fingerprint() -> str:
    """Hash of the fresh skeletons (without the fuels, which follow the classic corpus) and SMILES table."""
    text = json.dumps([FRESH_VERSION, FRESH_SIZE, [repr(e) for e in fresh_equations()], sorted(SMILES.items())])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def classic_fuels(classic: Corpus) -> list[str]:
    """Hill formulas of the fuels the classic corpus burns completely."""
    fuels = set()
    for rx in classic.reactions:
        if rx.rclass == "combustion":
            fuels.update(classic.species_formula[s] for s, _ in rx.reactants if classic.species_formula[s] != "O2")
    return sorted(fuels)


def class_targets(classic: Corpus, size: int = FRESH_SIZE) -> dict[str, int]:
    """Reactions per class: ``size`` split in the proportions of the classic test split's products pool
    (formula encoding, default split), by largest remainders."""
    counts = pool_composition(classic, "formula", "products", SplitSpec(), "test")
    total = sum(counts.values())
    exact = {c: size * n / total for c, n in counts.items()}
    targets = {c: int(x) for c, x in exact.items()}
    for c in sorted(exact, key=lambda c: (-(exact[c] - targets[c]), c))[:size - sum(targets.values())]:
        targets[c] += 1
    return dict(sorted(targets.items()))


def build_fresh_corpus(classic: Corpus) -> Corpus:
    """Balance the fresh skeletons into the held-out ``classic-fresh`` corpus, leaving out ``classic``'s reactions."""
    exclude = frozenset(classic.key(i, "formula") for i in range(len(classic)))  # type: ignore[misc]
    targets = class_targets(classic)
    equations = fresh_equations(fm.twin_fuels(classic_fuels(classic)))
    stats = {"version": FRESH_VERSION, "classic_content_hash": classic.content_hash, "class_targets": targets}
    return build_equation_corpus(FRESH_NAME, equations, smiles=SMILES, source=FRESH_NAME, stats=stats,
                                 exclude_formula_keys=exclude, dedupe_formula=True, class_limits=targets, held_out=True)


class CompositionRow(NamedTuple):
    """One class of :func:`composition_rows`: its reactions, share (%) and mean largest reference
    coefficient in the fresh pool and in the reference pool."""

    rclass: str
    fresh: int
    fresh_pct: float
    fresh_coef: float
    reference: int
    reference_pct: float
    reference_coef: float


def _largest_coefficients(corpus: Corpus, encoding: str, purpose: str, split: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i in reaction_pool(corpus, encoding, purpose, SplitSpec(), split):  # type: ignore[arg-type]
        view = corpus.view(i, encoding)  # type: ignore[arg-type]
        assert view is not None
        out.setdefault(view.rclass, []).append(max(k for _, k in view.reactants + view.products))
    return out


def composition_rows(fresh: Corpus, reference: Corpus, *, encoding: str = "formula", purpose: str = "products",
                     split: str = "test") -> list[CompositionRow]:
    """The two corpora's ``split`` pools class by class (:func:`~rlvr.generators.stoich.splits.pool_composition`,
    with the mean largest coefficient), largest reference class first, then a ``total`` row."""
    a = _largest_coefficients(fresh, encoding, purpose, split)
    b = _largest_coefficients(reference, encoding, purpose, split)
    na, nb = sum(map(len, a.values())), sum(map(len, b.values()))

    def row(name: str, xa: list[int], xb: list[int]) -> CompositionRow:
        return CompositionRow(name, len(xa), 100 * len(xa) / max(na, 1), fmean(xa) if xa else 0.0,
                              len(xb), 100 * len(xb) / max(nb, 1), fmean(xb) if xb else 0.0)

    classes = sorted(set(a) | set(b), key=lambda c: (-len(b.get(c, [])), -len(a.get(c, [])), c))
    rows = [row(c, a.get(c, []), b.get(c, [])) for c in classes]
    return rows + [row("total", [k for v in a.values() for k in v], [k for v in b.values() for k in v])]


def composition_markdown(rows: Sequence[CompositionRow], fresh: str = FRESH_NAME,
                         reference: str = "classic test") -> str:
    """The rows of :func:`composition_rows` as a Markdown table."""
    lines = [f"| class | {fresh} | % | largest coefficient | {reference} | % | largest coefficient |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        name = r.rclass if r.rclass == "total" else f"`{r.rclass}`"
        lines.append(f"| {name} | {r.fresh:,} | {r.fresh_pct:.1f} | {r.fresh_coef:.1f} | {r.reference:,} | "
                     f"{r.reference_pct:.1f} | {r.reference_coef:.1f} |")
    return "\n".join(lines)
