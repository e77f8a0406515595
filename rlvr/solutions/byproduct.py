"""The worked solution of a byproduct task: the atom and charge difference of the shown sides,
decomposed into known small byproducts (the rebalancing whitelist and the byproducts the reaction
templates form: general chemistry knowledge, not any one task's answer)."""
from __future__ import annotations

from functools import lru_cache
from typing import Mapping

from rlvr.chem.balance import side_total
from rlvr.chem.formula import Formula
from rlvr.chem.notation import format_bag
from rlvr.chem.smiles import canonical_smiles, smiles_formula
from rlvr.generators.stoich.rebalance import SMALL_MOLECULES
from rlvr.generators.stoich.templates import TEMPLATES
from rlvr.solutions.balancing import element_order, totals_text
from rlvr.solutions.common import SolutionError, SolutionOptions, Trace
from rlvr.solutions.stoich import bag_of, formula_note, formula_of, task_encoding
from rlvr.task import Task

#: upper bound on molecules in one decomposition (the search is exact below it)
MAX_BYPRODUCT_MOLECULES = 60
#: search nodes per decomposition
MAX_DECOMPOSE_NODES = 200_000


@lru_cache(maxsize=1)
def byproduct_library() -> tuple[tuple[str, str, Formula], ...]:
    """Known small byproducts: (canonical SMILES, name, formula), from the rebalancing whitelist and the
    byproducts the reaction templates form (general chemistry knowledge, not any one task's answer)."""
    out: dict[str, tuple[str, Formula]] = {}
    for name, smi in SMALL_MOLECULES:
        can = canonical_smiles(smi)
        out.setdefault(can, (name, smiles_formula(can)))
    for t in TEMPLATES:
        for alternative in t.byproducts:
            for smi in alternative:
                can = canonical_smiles(smi)
                out.setdefault(can, ("", smiles_formula(can)))
    # larger molecules first: the search then fixes the rare heavy atoms early
    items = sorted(out.items(), key=lambda kv: (-kv[1][1].n_atoms, kv[0]))
    return tuple((smi, name, f) for smi, (name, f) in items)


def decompositions(target: Mapping[str, int], limit: int = 8) -> list[dict[int, int]]:
    """Non-negative integer combinations of :func:`byproduct_library` molecules (by position) whose atoms
    and charge equal ``target`` (up to ``limit`` of them; bounded search)."""
    lib = byproduct_library()
    want = {k: int(v) for k, v in target.items() if v}
    if any(v < 0 for k, v in want.items() if k != "charge"):
        return []
    if sum(v for k, v in want.items() if k != "charge") > MAX_BYPRODUCT_MOLECULES * 10:
        return []
    vecs = [f.vector() for _, _, f in lib]
    out: list[dict[int, int]] = []
    nodes = 0

    def rec(i: int, rest: dict[str, int], chosen: dict[int, int]) -> None:
        nonlocal nodes
        nodes += 1
        if len(out) >= limit or nodes > MAX_DECOMPOSE_NODES:
            return
        if not any(rest.values()):
            out.append(dict(chosen))
            return
        if i == len(vecs):
            return
        atoms = {k: n for k, n in vecs[i].items() if k != "charge"}
        most = min((rest.get(k, 0) // n for k, n in atoms.items()), default=0)
        for count in range(max(most, 0), -1, -1):
            nxt = dict(rest)
            for k, n in vecs[i].items():
                nxt[k] = nxt.get(k, 0) - n * count
            if count:
                chosen[i] = count
            else:
                chosen.pop(i, None)
            rec(i + 1, nxt, chosen)
        chosen.pop(i, None)

    rec(0, want, {})
    return out


def _species_text(smiles: str, f: Formula, encoding: str) -> str:
    return f.hill() if encoding == "formula" else smiles


def solve_byproduct(task: Task, options: SolutionOptions) -> tuple[Trace, str]:
    """Atom/charge difference of the shown sides, decomposed into known small byproducts."""
    encoding = task_encoding(task)
    shown = task.meta.get("shown")
    if not isinstance(shown, Mapping):
        raise SolutionError(f"task {task.id}: meta['shown'] (the equation as shown) is missing")
    left = bag_of(shown.get("left"), "meta['shown']['left']")
    right = bag_of(shown.get("right"), "meta['shown']['right']")
    for s in [*left, *right]:
        if s not in task.user_text:
            raise SolutionError(f"task {task.id}: species {s!r} does not appear in the prompt")
    lpairs = [(formula_of(s, encoding), k) for s, k in left.items()]
    rpairs = [(formula_of(s, encoding), k) for s, k in right.items()]
    order = element_order([f for f, _ in lpairs])
    lt, rt = side_total(lpairs), side_total(rpairs)
    diff = {el: lt.get(el, 0) - rt.get(el, 0) for el in [*order, "charge"]}
    diff = {k: v for k, v in diff.items() if v}
    trace = Trace()
    if encoding == "smiles":
        trace.add("Formulas: " + "; ".join(formula_note(s, encoding) for s in dict.fromkeys([*left, *right])) + ".",
                  detail=True)
    trace.add(f"Left side: {totals_text(lt, order)}.")
    trace.add(f"Right side: {totals_text(rt, order)}.")
    if any(v < 0 for k, v in diff.items() if k != "charge"):
        raise SolutionError(f"task {task.id}: the right side has atoms the left side lacks; nothing is missing there")
    trace.add(f"Missing on the right (left - right): {totals_text(diff, order)}.")
    sols = decompositions(diff)
    if not sols:
        raise SolutionError(f"task {task.id}: the difference is not a combination of known small byproducts")
    lib = byproduct_library()
    fewest = min(sum(s.values()) for s in sols)
    best = [s for s in sols if sum(s.values()) == fewest]
    if len(best) > 1:
        raise SolutionError(f"task {task.id}: the difference splits into small molecules in several equally simple ways")
    chosen = best[0]
    if len(sols) > 1:
        alts = ["; ".join(f"{k} {_species_text(lib[i][0], lib[i][2], encoding)}" for i, k in s.items()) for s in sols]
        trace.add(f"It fits {len(sols)} sets of small molecules ({' | '.join(alts)}); "
                  f"the simplest uses {fewest} molecules.")
    # peel: a molecule with an element no other chosen molecule has fixes its own count
    rest = dict(diff)
    remaining = dict(chosen)
    rank = {el: i for i, el in enumerate(order)}
    while remaining:
        pick = None
        if len(remaining) > 1:
            for i in sorted(remaining, key=lambda j: -lib[j][2].n_atoms):
                others = {el for j in remaining if j != i for el, _ in lib[j][2].counts}
                unique = sorted((el for el, _ in lib[i][2].counts if el not in others), key=lambda e: rank.get(e, 99))
                if unique:
                    pick = (i, unique[0])
                    break
        i = pick[0] if pick else next(iter(remaining))
        smi, name, f = lib[i]
        k = remaining.pop(i)
        text = _species_text(smi, f, encoding)
        label = f"{text} ({name})" if name and options.detailed else text
        before = totals_text(rest, order)
        for el, n in f.vector().items():
            rest[el] = rest.get(el, 0) - n * k
        rest = {el: v for el, v in rest.items() if v}
        if pick:
            el = pick[1]
            n_el = f.as_dict()[el]
            trace.add(f"{el} only fits {label}: {el} {n_el * k} / {n_el} = {k} x {text}; left over: "
                      f"{totals_text(rest, order) if rest else 'nothing'}.")
        elif not remaining and not rest:
            trace.add(f"What is left, {before}, is exactly {k} x {label}.")
        else:
            trace.add(f"{k} x {label}; left over: {totals_text(rest, order) if rest else 'nothing'}.")
    answer = {_species_text(lib[i][0], lib[i][2], encoding): k for i, k in chosen.items()}
    trace.add("Missing molecules: " + ", ".join(f"{s} {k}" for s, k in answer.items()) + ".")
    return trace, format_bag(answer)


__all__ = ["byproduct_library", "decompositions", "solve_byproduct"]
