"""The classic-equations corpus: every skeleton of :mod:`rlvr.generators.stoich.classic` balanced
exactly (:func:`rlvr.chem.balance.balance_formulas`) into a
:class:`~rlvr.generators.stoich.corpus_model.Corpus`."""
from __future__ import annotations

import hashlib
import json
import time
from typing import Iterable, Sequence

from rlvr.chem.balance import balance_formulas
from rlvr.chem.formula import formula_weight, parse_formula
from rlvr.chem.smiles import smiles_formula, stable_smiles
from rlvr.generators.stoich.classic import CLASSIC_VERSION, SMILES, all_equations
from rlvr.generators.stoich.corpus_model import Corpus, SpeciesTable
from rlvr.generators.stoich.molecule_pool import molecule_pool_key
from rlvr.generators.stoich.reaction import Reaction, reaction_key
from rlvr.generators.stoich.rebalance import whitelist_formulas


def inputs_fingerprint() -> str:
    """Hash of the skeleton lists and of the molecule pool's inputs (cache key of the classic corpus)."""
    text = json.dumps([repr(e) for e in all_equations(pool_limit=0)] + [sorted(SMILES.items()), molecule_pool_key()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _species(text: str) -> tuple[str | None, str]:
    """(SMILES or None, Hill formula) of a skeleton species (``smiles:`` prefix = pool molecule)."""
    if text.startswith("smiles:"):
        smi = text[len("smiles:"):]
        return smi, smiles_formula(smi).hill()
    hill = parse_formula(text).hill()
    smi = SMILES.get(text)
    if smi is not None:
        can = stable_smiles(smi)
        if can is None or smiles_formula(can).hill() != hill:
            raise AssertionError(f"SMILES {smi!r} for {text!r} does not have formula {hill}")
        smi = can
    return smi, hill


def build_classic_corpus(pool_limit: int = 1200) -> Corpus:
    """Balance every skeleton and collect the reactions into a :class:`~rlvr.generators.stoich.corpus.Corpus`.

    Skeletons whose solution space is not one-dimensional or that cannot be balanced with
    positive coefficients are dropped and counted in ``stats["dropped"]``.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    table = SpeciesTable()
    small = whitelist_formulas()
    reactions = []
    seen: set[str] = set()
    dropped: dict[str, list[str]] = {}
    equations = all_equations(pool_limit)
    for eq in equations:
        left = [_species(s) for s in eq.reactants]
        right = [_species(s) for s in eq.products]
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
        key = reaction_key([(h, k) for (_, h), k in zip(left, coefs[:n])], [(h, k) for (_, h), k in zip(right, coefs[n:])])
        if all(s is not None for s, _ in left + right):
            key = reaction_key([(s, k) for (s, h), k in zip(left, coefs[:n])],
                               [(s, k) for (s, h), k in zip(right, coefs[n:])])
        if key in seen:
            continue
        seen.add(key)
        reagents = [_species(s) for s in eq.reagents]
        r_ids = [(table.add(s, h), k) for (s, h), k in zip(left, coefs[:n])]
        p_ids = [(table.add(s, h), k) for (s, h), k in zip(right, coefs[n:])]
        g_ids = [(table.add(s, h), 1) for s, h in reagents]
        by = [table.add(s, h) for s, h in right if h in small]
        if len(by) == len(right):
            by = []
        main = [h for s, h in right if h not in small] or [h for _, h in right]
        reactions.append(Reaction(
            reactants=tuple(r_ids), reagents=tuple(g_ids), products=tuple(p_ids), byproducts=tuple(sorted(by)),
            rclass=eq.rclass, source="classic",
            product_mw=round(max(formula_weight(parse_formula(h)) for h in main), 3), stereo=False,
        ))
    stats = {
        "version": CLASSIC_VERSION,
        "skeletons": len(equations),
        "dropped": {k: len(v) for k, v in sorted(dropped.items())},
        "dropped_examples": {k: v[:5] for k, v in sorted(dropped.items())},
        "build_seconds": round(time.perf_counter() - t0, 2),
        "build_cpu_seconds": round(time.process_time() - c0, 2),
    }
    return Corpus("classic", tuple(table.smiles), tuple(table.formula), tuple(reactions), stats)


def balanced_equation_text(reactants: Sequence[str], products: Sequence[str], coefs: Iterable[int]) -> str:
    """``2 H2 + O2 -> 2 H2O`` (for docs and debugging)."""
    coefs = list(coefs)
    n = len(reactants)
    fmt = lambda s, k: s if k == 1 else f"{k} {s}"  # noqa: E731
    return " + ".join(fmt(s, k) for s, k in zip(reactants, coefs[:n])) + " -> " + " + ".join(
        fmt(s, k) for s, k in zip(products, coefs[n:]))
