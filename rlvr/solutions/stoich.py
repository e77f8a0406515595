"""Worked solutions of the stoichiometry tasks: balancing and ChemAlgebra Type 1 / Type 2 products
(byproducts: :mod:`rlvr.solutions.byproduct`).

Each writer reads only what the prompt shows (the species and coefficients in ``meta``, which the
prompt renders) plus, for closed-book Type 1/2 tasks, the reference reaction (the chemistry
knowledge being taught). Ground-truth answers are never read: the numbers are computed here, and
:func:`rlvr.solutions.worked_solution` then verifies the result against the checker.
"""
from __future__ import annotations

from typing import Any, Mapping

from rlvr.chem.balance import side_total
from rlvr.chem.formula import Formula
from rlvr.chem.notation import format_bag, format_plain
from rlvr.chem.species import SpeciesError, canonical_species, species_formula
from rlvr.solutions.balancing import (
    composition_text,
    conservation_equations,
    derive_balance,
    element_order,
    totals_text,
)
from rlvr.solutions.common import SolutionError, SolutionOptions, Trace, var_names
from rlvr.task import Task

Bag = dict[str, int]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def task_encoding(task: Task) -> str:
    """The task's encoding (``formula`` or ``smiles``) from ``meta``."""
    enc = task.meta.get("encoding") or (task.meta.get("config") or {}).get("encoding")
    if enc not in ("formula", "smiles"):
        raise SolutionError(f"task {task.id}: meta['encoding'] must be 'formula' or 'smiles', got {enc!r}")
    return enc


def formula_of(species: str, encoding: str) -> Formula:
    """The composition of a written species (:class:`SolutionError` when it does not parse)."""
    try:
        return species_formula(species, encoding)  # type: ignore[arg-type]
    except (SpeciesError, ValueError) as exc:
        raise SolutionError(f"species {species!r} does not parse as {encoding}: {exc}") from exc


def _key(species: str, encoding: str) -> str:
    try:
        return canonical_species(species, encoding)  # type: ignore[arg-type]
    except (SpeciesError, ValueError) as exc:
        raise SolutionError(f"species {species!r} does not parse as {encoding}: {exc}") from exc


def bag_of(raw: Any, what: str) -> Bag:
    """A ``{species: coefficient}`` mapping of a task record, validated."""
    if not isinstance(raw, Mapping):
        raise SolutionError(f"{what} must be a mapping species -> coefficient, got {type(raw).__name__}")
    out: Bag = {}
    for s, k in raw.items():
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise SolutionError(f"{what}: coefficient of {s!r} must be a non-negative integer, got {k!r}")
        out[str(s)] = int(k)
    return out


def formula_note(species: str, encoding: str) -> str:
    """``CCO (C2H6O)`` in the SMILES encoding, the species itself for formulas."""
    if encoding == "smiles":
        return f"{species} ({formula_of(species, encoding).hill()})"
    return species


def _mul(n: int, k: int) -> str:
    return f"{n} x {k} = {n * k}"


# ---------------------------------------------------------------------------------------------
# balancing
# ---------------------------------------------------------------------------------------------


def solve_balance(task: Task, options: SolutionOptions) -> tuple[Trace, str]:
    """Conservation equation per element (and charge), substitution, fractions cleared, smallest integers."""
    gt = task.ground_truth
    reactants, products = gt.get("reactants"), gt.get("products")
    if not isinstance(reactants, list) or not isinstance(products, list) or not reactants or not products:
        raise SolutionError(f"task {task.id}: ground_truth needs the question's 'reactants' and 'products' lists")
    encoding = task_encoding(task)
    species = list(reactants) + list(products)
    formulas = [formula_of(s, encoding) for s in species]
    n = len(reactants)
    names = var_names(len(species))
    trace = Trace()
    left = " + ".join(f"{v} {s}" for v, s in zip(names[:n], reactants))
    right = " + ".join(f"{v} {s}" for v, s in zip(names[n:], products))
    trace.add(f"Unknown coefficients: {left} -> {right}")
    if encoding == "smiles" or options.detailed:
        for v, s, f in zip(names, species, formulas):
            note = f" = {f.hill()}" if encoding == "smiles" else ""
            trace.add(f"{v}: {s}{note} ({composition_text(f)})", detail=encoding != "smiles")
    trace.add("Conservation of each element" + (" and of charge:" if any(f.charge for f in formulas) else ":"))
    for eq in conservation_equations(formulas[:n], formulas[n:]):
        trace.add("  " + eq.text(names))
    derivation = derive_balance(formulas[:n], formulas[n:], names)
    for text, detail in derivation.lines:
        trace.add(text, detail=detail)
    coefs = derivation.coefficients
    pairs = list(zip(formulas, coefs))
    order = element_order(formulas)
    lt, rt = side_total(pairs[:n]), side_total(pairs[n:])
    trace.add(f"Check: left {totals_text(lt, order)}; right {totals_text(rt, order)}.", detail=True)
    # the answer in the prompt's own example form: "2 A + B -> 2 C"
    answer = f"{format_plain(list(zip(reactants, coefs[:n])))} -> {format_plain(list(zip(products, coefs[n:])))}"
    return trace, answer


# ---------------------------------------------------------------------------------------------
# Type 1 / Type 2 products
# ---------------------------------------------------------------------------------------------


def _reaction(task: Task) -> tuple[Bag, Bag, Bag]:
    reaction = task.meta.get("reaction")
    if not isinstance(reaction, Mapping):
        raise SolutionError(f"task {task.id}: meta['reaction'] (the reference reaction) is missing")
    return (
        bag_of(reaction.get("reactants"), "reaction reactants"),
        bag_of(reaction.get("reagents") or {}, "reaction reagents"),
        bag_of(reaction.get("products"), "reaction products"),
    )


def _equation_text(reactants: Bag, reagents: Bag, products: Bag) -> str:
    left = format_bag({**reactants, **reagents})
    right = format_bag({**products, **reagents})
    return f"{left}>>{right}"


def solve_type1(task: Task, options: SolutionOptions) -> tuple[Trace, str]:
    """ChemAlgebra Type 1: run the reaction as often as the limiting reactant allows."""
    return _solve_products(task, options, type2=False)


def solve_type2(task: Task, options: SolutionOptions) -> tuple[Trace, str]:
    """ChemAlgebra Type 2: the limiting reactant decides (or, under ``semantics="paper"``, the paper's rule)."""
    return _solve_products(task, options, type2=True)


def _solve_products(task: Task, options: SolutionOptions, *, type2: bool) -> tuple[Trace, str]:
    """Type 1 / Type 2: run the reaction as often as the limiting reactant allows (or the paper's rule)."""
    encoding = task_encoding(task)
    inputs = bag_of(task.meta.get("inputs"), "meta['inputs']")
    if not inputs:
        raise SolutionError(f"task {task.id}: meta['inputs'] is empty")
    shown = task.user_text
    for s in inputs:
        if s not in shown:
            raise SolutionError(f"task {task.id}: input species {s!r} does not appear in the prompt")
    reactants, reagents, products = _reaction(task)
    semantics = str(task.meta.get("semantics") or (task.meta.get("config") or {}).get("semantics") or "limiting")
    mode = str(task.meta.get("prompt_mode") or (task.meta.get("config") or {}).get("prompt_mode") or "closed")
    if semantics not in ("limiting", "paper"):
        raise SolutionError(f"task {task.id}: unknown semantics {semantics!r}")

    # identity: written input species by canonical key; reaction species written as in the input when shown there
    written: dict[str, str] = {}
    amount: dict[str, int] = {}
    for s, k in inputs.items():
        key = _key(s, encoding)
        written.setdefault(key, s)
        amount[key] = amount.get(key, 0) + k
    r_keys = {_key(s, encoding): k for s, k in reactants.items()}
    g_keys = {_key(s, encoding): k for s, k in reagents.items()}
    p_keys = {_key(s, encoding): k for s, k in products.items()}
    for s in [*reactants, *reagents, *products]:
        written.setdefault(_key(s, encoding), s)

    if options.brief and not (type2 and semantics == "paper"):
        trace, out = _limiting_brief(amount, r_keys, p_keys, written)
        return trace, format_bag({written[k]: v for k, v in out.items() if v > 0})

    trace = Trace()
    eq = _equation_text({written[k]: c for k, c in r_keys.items()}, {written[k]: c for k, c in g_keys.items()},
                        {written[k]: c for k, c in p_keys.items()})
    if mode == "open":  # the prompt shows it: restated only in the detailed style
        trace.add(f"Reference reaction (given): {eq}", detail=True)
    else:
        trace.add(f"These molecules react as: {eq}")
    if g_keys:
        trace.add("Reagents (" + ", ".join(written[k] for k in g_keys) + ") appear on both sides and are not consumed.")
    if encoding == "smiles":
        trace.add("Formulas: " + "; ".join(formula_note(written[k], encoding) for k in [*r_keys, *p_keys]) + ".",
                  detail=True)

    if type2 and semantics == "paper":
        out = _paper(task, trace, amount, r_keys, g_keys, p_keys, written)
    else:
        out = _limiting(trace, amount, r_keys, p_keys, written)
        if semantics == "paper":
            trace.add("Type 1 scales every molecule by the same factor, so the ChemAlgebra convention gives the same bag.")

    bag = {written[k]: v for k, v in out.items() if v > 0}
    if not bag:
        raise SolutionError(f"task {task.id}: the output bag is empty")
    pairs_in = [(formula_of(written[k], encoding), v) for k, v in amount.items()]
    pairs_out = [(formula_of(written[k], encoding), v) for k, v in out.items() if v > 0]
    order = element_order([f for f, _ in pairs_in])
    trace.add(f"Check, atoms before: {totals_text(side_total(pairs_in), order)}; after: "
              f"{totals_text(side_total(pairs_out), order)}.", detail=True)
    trace.add("After the reaction: " + ", ".join(f"{written[k]} {v}" for k, v in out.items() if v > 0) + ".")
    return trace, format_bag(bag)


def _limiting_brief(
    amount: dict[str, int], r_keys: dict[str, int], p_keys: dict[str, int], written: dict[str, str],
) -> tuple[Trace, dict[str, int]]:
    """The brief limiting-reactant trace: ``n = a // c`` (a min over reactants), then each count that changes.

    ``n = min(10 // 2, 6 // 1) = 5`` / ``5 x 2 = 10; 5 x 1 = 5``: the products in the reaction's order (a
    product already present as ``1 + 5 x 2 = 11``), then leftover reactants by name (``HCl: 6 - 5 x 1 = 1``).
    """
    runs = {key: amount.get(key, 0) // coef for key, coef in r_keys.items()}
    if not runs:
        raise SolutionError("the reaction has no reactants")
    n = min(runs.values())
    parts = [f"{amount.get(k, 0)} // {c}" for k, c in r_keys.items()]
    trace = Trace().add(f"n = {parts[0]} = {n}" if len(parts) == 1 else f"n = min({', '.join(parts)}) = {n}")
    out: dict[str, int] = {key: amount.get(key, 0) for key in [*p_keys, *(k for k in amount if k not in p_keys)]}
    steps = []
    if n:
        for key, c in p_keys.items():
            before = amount.get(key, 0)
            out[key] = before + n * c
            steps.append((f"{before} + " if before else "") + f"{n} x {c} = {out[key]}")
        for key, c in r_keys.items():
            out[key] = amount.get(key, 0) - n * c
            if out[key]:
                steps.append(f"{written[key]}: {amount.get(key, 0)} - {n} x {c} = {out[key]}")
    trace.add("; ".join(steps) if steps else "nothing reacts")
    return trace, out


def _limiting(
    trace: Trace,
    amount: dict[str, int],
    r_keys: dict[str, int],
    p_keys: dict[str, int],
    written: dict[str, str],
) -> dict[str, int]:
    """Limiting-reactant semantics: n = min over reactants of floor(amount / coefficient)."""
    trace.add("Runs each reactant allows (amount // coefficient):")
    runs_by: dict[str, int] = {}
    for key, coef in r_keys.items():
        have = amount.get(key, 0)
        runs_by[key] = have // coef
        trace.add(f"  {written[key]}: {have} // {coef} = {runs_by[key]}")
    n = min(runs_by.values())
    limiting = [written[k] for k, v in runs_by.items() if v == n]
    if n == 0:
        trace.add(f"{' and '.join(limiting)} cannot supply one run: nothing reacts, the mixture is unchanged.")
    else:
        trace.add(f"Limiting: {' and '.join(limiting)}, so the reaction runs n = {n} time{'s' if n != 1 else ''}.")
    out: dict[str, int] = {}
    for key in list(p_keys) + [k for k in amount if k not in p_keys]:
        out[key] = amount.get(key, 0)
    if n:
        trace.add("Consumed: " + "; ".join(f"{written[k]} {_mul(n, c)}" for k, c in r_keys.items()))
        formed = []
        for key, c in p_keys.items():
            before = amount.get(key, 0)
            out[key] = before + n * c
            formed.append(f"{written[key]} {_mul(n, c)}" + (f", plus {before} present = {before + n * c}" if before else ""))
        trace.add("Formed: " + "; ".join(formed))
        left = []
        for key, c in r_keys.items():
            have = amount.get(key, 0)
            out[key] = have - n * c
            left.append(f"{written[key]} {have} - {n * c} = {have - n * c}")
        trace.add("Left over: " + "; ".join(left))
    unchanged = [k for k in amount if k not in r_keys and k not in p_keys]
    if unchanged:
        trace.add("Unchanged: " + ", ".join(f"{written[k]} {amount[k]}" for k in unchanged))
    return out


PAPER_RULE = (
    "ChemAlgebra Type 2 convention (appendix C): every molecule m carries a multiplier k_m >= 1; the mixture holds "
    "k_m x coefficient of each reactant and reagent and (k_m - k) x coefficient of each product when positive, "
    "where k = min of all k_m is the number of runs; afterwards there are k_m x coefficient of each product and "
    "reagent and (k_m - k) x coefficient of each reactant."
)


def _paper(
    task: Task,
    trace: Trace,
    amount: dict[str, int],
    r_keys: dict[str, int],
    g_keys: dict[str, int],
    p_keys: dict[str, int],
    written: dict[str, str],
) -> dict[str, int]:
    """The paper's Type 2 rule, when the input determines its minimum multiplier (else SolutionError)."""
    trace.add("Rule: " + PAPER_RULE)
    ks: dict[str, int] = {}
    lines = []
    for key, c in {**r_keys, **g_keys}.items():
        have = amount.get(key, 0)
        if have % c or have == 0:
            raise SolutionError(f"task {task.id}: {written[key]} amount {have} is not a positive multiple of {c}")
        ks[key] = have // c
        lines.append(f"{written[key]} k = {have} / {c} = {ks[key]}")
    trace.add("Multipliers of reactants and reagents: " + "; ".join(lines))
    known_min = min(ks.values())
    present = {k: amount[k] for k in p_keys if amount.get(k, 0) > 0}
    absent = [k for k in p_keys if k not in present]
    if absent and known_min != 1:
        names = ", ".join(written[k] for k in absent)
        raise SolutionError(
            f"task {task.id}: under the paper semantics the number of runs is not determined by the input "
            f"({names} absent, so its multiplier may be anything from 1 to {known_min})"
        )
    excess: dict[str, int] = {}
    for key in present:
        c = p_keys[key]
        if present[key] % c:
            raise SolutionError(f"task {task.id}: {written[key]} amount {present[key]} is not a multiple of {c}")
        excess[key] = present[key] // c
    if present:
        trace.add("Products already present give k_m - k: " + "; ".join(
            f"{written[k]} {present[k]} / {p_keys[k]} = {excess[k]}" for k in present))
    if absent:
        trace.add(f"Absent product(s) {', '.join(written[k] for k in absent)} have k_m = k, and k <= {known_min} = 1, so k = 1.")
        k_hat = 1
    else:
        trace.add(f"Every product is present, so its k_m exceeds k; the minimum is among reactants and reagents: k = {known_min}.")
        k_hat = known_min
    out: dict[str, int] = {}
    formed = []
    for key, c in p_keys.items():
        k_m = k_hat + excess.get(key, 0)
        out[key] = k_m * c
        formed.append(f"{written[key]} ({k_hat} + {excess.get(key, 0)}) x {c} = {k_m * c}")
    trace.add("Products: " + "; ".join(formed))
    left = []
    for key, c in r_keys.items():
        out[key] = (ks[key] - k_hat) * c
        left.append(f"{written[key]} ({ks[key]} - {k_hat}) x {c} = {out[key]}")
    trace.add("Reactants left: " + "; ".join(left))
    for key, c in g_keys.items():
        out[key] = amount[key]
    trace.add("Reagents unchanged: " + ", ".join(f"{written[k]} {amount[k]}" for k in g_keys) if g_keys else "No reagents.")
    for key in amount:
        if key not in out:
            out[key] = amount[key]
    return out


__all__ = ["PAPER_RULE", "solve_balance", "solve_type1", "solve_type2", "task_encoding"]
