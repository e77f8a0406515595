"""The classic-equations corpus: every skeleton of :mod:`rlvr.generators.stoich.classic` balanced
exactly (:func:`rlvr.chem.balance.balance_formulas`) into a
:class:`~rlvr.generators.stoich.corpus_model.Corpus`."""
from __future__ import annotations

import hashlib
import json
import time
from typing import AbstractSet, Iterable, Mapping, Sequence

from rlvr.chem.balance import balance_formulas
from rlvr.chem.formula import formula_weight, parse_formula
from rlvr.chem.smiles import smiles_formula, stable_smiles
from rlvr.generators.stoich.classic import CLASSIC_VERSION, SMILES, ClassicEquation, all_equations
from rlvr.generators.stoich.corpus_model import Corpus, SpeciesTable
from rlvr.generators.stoich.molecule_pool import molecule_pool_key
from rlvr.generators.stoich.reaction import Reaction, reaction_key
from rlvr.generators.stoich.rebalance import whitelist_formulas


def inputs_fingerprint() -> str:
    """Hash of the skeleton lists and of the molecule pool's inputs (cache key of the classic corpus)."""
    text = json.dumps([repr(e) for e in all_equations(pool_limit=0)] + [sorted(SMILES.items()), molecule_pool_key()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _species(text: str, smiles: Mapping[str, str] = SMILES) -> tuple[str | None, str]:
    """(SMILES or None, Hill formula) of a skeleton species (``smiles:`` prefix = pool molecule)."""
    if text.startswith("smiles:"):
        smi = text[len("smiles:"):]
        return smi, smiles_formula(smi).hill()
    hill = parse_formula(text).hill()
    smi = smiles.get(text)
    if smi is not None:
        can = stable_smiles(smi)
        if can is None or smiles_formula(can).hill() != hill:
            raise AssertionError(f"SMILES {smi!r} for {text!r} does not have formula {hill}")
        smi = can
    return smi, hill


def build_classic_corpus(pool_limit: int = 1200) -> Corpus:
    """Balance every classic skeleton (:func:`~rlvr.generators.stoich.classic.all_equations`) into the ``classic`` corpus."""
    return build_equation_corpus("classic", all_equations(pool_limit), stats={"version": CLASSIC_VERSION})


def build_equation_corpus(
    name: str,
    equations: Sequence[ClassicEquation],
    *,
    smiles: Mapping[str, str] = SMILES,
    source: str = "classic",
    stats: Mapping[str, object] | None = None,
    exclude_formula_keys: AbstractSet[str] = frozenset(),
    dedupe_formula: bool = False,
    class_limits: Mapping[str, int] | None = None,
    held_out: bool = False,
) -> Corpus:
    """Balance ``equations`` (in order) and collect the reactions into a :class:`~rlvr.generators.stoich.corpus.Corpus`.

    Skeletons whose solution space is not one-dimensional or that cannot be balanced with
    positive coefficients are dropped and counted in ``stats["dropped"]``. Reactions are deduplicated
    by their SMILES-level key when every species has a SMILES, else by their formula-level key
    (always by the formula-level key with ``dedupe_formula``); a reaction whose formula-level key is in
    ``exclude_formula_keys`` is left out (``stats["excluded"]``), and at most ``class_limits[c]``
    reactions of class ``c`` are kept (the first ones in ``equations``' order; ``stats["over_limit"]``).
    ``smiles``: conventional formula -> SMILES of the species that have one.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    table = SpeciesTable()
    small = whitelist_formulas()
    reactions = []
    seen: set[str] = set()
    dropped: dict[str, list[str]] = {}
    kept: dict[str, int] = {}
    excluded = over_limit = 0
    limits = dict(class_limits or {})
    for eq in equations:
        if eq.rclass in limits and kept.get(eq.rclass, 0) >= limits[eq.rclass]:
            over_limit += 1
            continue
        left = [_species(s, smiles) for s in eq.reactants]
        right = [_species(s, smiles) for s in eq.products]
        label = " + ".join(eq.reactants) + " -> " + " + ".join(eq.products)
        if {h for _, h in left} & {h for _, h in right} or len({h for _, h in left}) != len(left) \
                or len({h for _, h in right}) != len(right):
            dropped.setdefault("formula_collision", []).append(label)
            continue
        try:
            coefs = balance_formulas([parse_formula(h) for _, h in left], [parse_formula(h) for _, h in right])
        except ValueError as exc:
            dropped.setdefault(str(exc).split(":")[0], []).append(label)
            continue
        n = len(left)
        formula_key = reaction_key([(h, k) for (_, h), k in zip(left, coefs[:n])],
                                   [(h, k) for (_, h), k in zip(right, coefs[n:])])
        if formula_key in exclude_formula_keys:
            excluded += 1
            continue
        key = formula_key
        if all(s is not None for s, _ in left + right) and not dedupe_formula:
            key = reaction_key([(s, k) for (s, h), k in zip(left, coefs[:n])],
                               [(s, k) for (s, h), k in zip(right, coefs[n:])])
        if key in seen:
            continue
        seen.add(key)
        kept[eq.rclass] = kept.get(eq.rclass, 0) + 1
        reagents = [_species(s, smiles) for s in eq.reagents]
        r_ids = [(table.add(s, h), k) for (s, h), k in zip(left, coefs[:n])]
        p_ids = [(table.add(s, h), k) for (s, h), k in zip(right, coefs[n:])]
        g_ids = [(table.add(s, h), 1) for s, h in reagents]
        by = [table.add(s, h) for s, h in right if h in small]
        if len(by) == len(right):
            by = []
        main = [h for s, h in right if h not in small] or [h for _, h in right]
        reactions.append(Reaction(
            reactants=tuple(r_ids), reagents=tuple(g_ids), products=tuple(p_ids), byproducts=tuple(sorted(by)),
            rclass=eq.rclass, source=source,
            product_mw=round(max(formula_weight(parse_formula(h)) for h in main), 3), stereo=False,
        ))
    out_stats: dict[str, object] = {
        **(stats or {}),
        "skeletons": len(equations),
        "dropped": {k: len(v) for k, v in sorted(dropped.items())},
        "dropped_examples": {k: v[:5] for k, v in sorted(dropped.items())},
    }
    if exclude_formula_keys or limits:
        out_stats.update(excluded=excluded, over_limit=over_limit)
    out_stats.update(build_seconds=round(time.perf_counter() - t0, 2),
                     build_cpu_seconds=round(time.process_time() - c0, 2))
    return Corpus(name, tuple(table.smiles), tuple(table.formula), tuple(reactions), out_stats, held_out=held_out)


def balanced_equation_text(reactants: Sequence[str], products: Sequence[str], coefs: Iterable[int]) -> str:
    """``2 H2 + O2 -> 2 H2O`` (for docs and debugging)."""
    coefs = list(coefs)
    n = len(reactants)
    fmt = lambda s, k: s if k == 1 else f"{k} {s}"  # noqa: E731
    return " + ".join(fmt(s, k) for s, k in zip(reactants, coefs[:n])) + " -> " + " + ".join(
        fmt(s, k) for s, k in zip(products, coefs[n:]))
