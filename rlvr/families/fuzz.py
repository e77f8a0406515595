"""Answers for fuzzing the checkers, written in each family's own format, and an independent judge.

:func:`write_answer` draws, from a :class:`random.Random` (hypothesis's ``st.randoms()`` in the test
suite, a seeded one in ``scripts/fuzz_verdicts.py``), either a mutation of the oracle completion, a
hostile value in the oracle's own structure (under each of the family's own keys), or an answer in the
family's format: coefficient lists and equations, bags ``{k}A.{k}B``, JSON objects, count and index
answers, SMILES. :func:`independently_right` recomputes, without the checkers' code,
whether an answer that scored 1.0 is right: element counts read by its own small formula reader
(balance: every element conserved, coefficients positive and coprime; bags: the same multiset of
compositions as the truth), counts and indices compared with the truth, generated SMILES re-read by RDKit.
"""
from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from functools import reduce
from typing import Any

from rlvr.families.derived import own_hostile_answers
from rlvr.families.hostile import hostile_completions
from rlvr.task import Task

_ELEMENT = re.compile(r"([A-Z][a-z]?)(\d*)")
_HILL = re.compile(r"(?:[A-Z][a-z]?\d*)+(?:[+-]\d*)?")
_BAG_TERM = re.compile(r"\{(\d{1,7})\}([^.{}]+)")
_ANSWER = re.compile(r"<answer>(.*)</answer>", re.S)
_FORMULAS = ("H2O", "CO2", "O2", "H2", "CH4", "NaCl", "ClH", "C2H6O", "N2", "NH3", "Fe", "Al2O3", "C6H6", "SO4-2",
             "Fe+2", "C3H9NO", "HO-", "H+", "CCl4", "C")
_SMILES_ALPHABET = ("C", "c", "N", "n", "O", "o", "S", "F", "Cl", "Br", "(", ")", "=", "#", "1", "2", "%10",
                    "[nH]", "[O-]", "[N+]", "[C@@H]", ".", "/", "\\", "*", "[2H]", "B", "P", "I")
_MUTATION_CHARS = "0123456789{}[]().,;:+->=#\"' \nCcHNOSabxyz-9999999"


def _hill_counts(text: str) -> tuple[tuple, int] | None:
    """``(sorted element counts, charge)`` of a plain formula (no groups); None when not one."""
    if _HILL.fullmatch(text) is None:
        return None
    body, charge = text, 0
    m = re.search(r"([+-])(\d*)$", text)
    if m:
        body = text[:m.start()]
        charge = (int(m.group(2)) if m.group(2) else 1) * (1 if m.group(1) == "+" else -1)
    counts: Counter = Counter()
    for el, n in _ELEMENT.findall(body):
        counts[el] += int(n) if n else 1
    return tuple(sorted((el, n) for el, n in counts.items() if n)), charge  # "N0" adds nothing


def _body(completion: str) -> str | None:
    m = _ANSWER.fullmatch(completion.strip())
    return None if m is None or "<answer>" in m.group(1) else m.group(1).strip()


def _bag(body: str) -> Counter | None:
    """A ``{k}A.{k}B`` bag as a multiset of compositions (None when it is not one, or a formula is not plain)."""
    terms = body.split(".")
    out: Counter = Counter()
    for term in terms:
        m = _BAG_TERM.fullmatch(term)
        if m is None:
            return None
        key = _hill_counts(m.group(2))
        if key is None:
            return None
        out[key] += int(m.group(1))
    return out


def _truth_bag(bag: dict[str, int]) -> Counter | None:
    out: Counter = Counter()
    for species, k in bag.items():
        key = _hill_counts(species)
        if key is None:
            return None
        out[key] += int(k)
    return out


def _balanced(reactants: list, products: list, coefficients: list[int]) -> bool | None:
    keys = [_hill_counts(s) for s in reactants + products]
    if any(k is None for k in keys) or len(coefficients) != len(keys) or min(coefficients, default=0) <= 0:
        return None if any(k is None for k in keys) else False
    total: Counter = Counter()
    charge = 0
    for i, ((counts, q), k) in enumerate(zip(keys, coefficients)):
        sign = 1 if i < len(reactants) else -1
        for el, n in counts:
            total[el] += sign * k * n
        charge += sign * k * q
    return not any(total.values()) and charge == 0 and reduce(math.gcd, coefficients) == 1


def _balanced_equation(truth: dict, left: str, right: str) -> bool | None:
    """A ``{k}A.{k}B>>{k}C`` answer: the truth's species on each side (by composition), balanced and minimal."""
    sides = []
    for text in (left, right):
        terms = [_BAG_TERM.fullmatch(t) for t in text.split(".")]
        if any(m is None for m in terms):
            return None
        sides.append([(m.group(2), int(m.group(1))) for m in terms])
    species = [s for side in sides for s, _ in side]
    keys = [_hill_counts(s) for s in species + list(truth["reactants"]) + list(truth["products"])]
    if any(k is None for k in keys):
        return None
    same = (sorted(map(_hill_counts, [s for s, _ in sides[0]])) == sorted(map(_hill_counts, truth["reactants"]))
            and sorted(map(_hill_counts, [s for s, _ in sides[1]])) == sorted(map(_hill_counts, truth["products"])))
    return same and bool(_balanced([s for s, _ in sides[0]], [s for s, _ in sides[1]],
                                   [k for _, k in sides[0]] + [k for _, k in sides[1]]))


def independently_right(task: Task, completion: Any) -> bool | None:
    """Whether ``completion`` is right by a recomputation that shares no code with the checkers; None
    when this judge cannot tell (an answer form it does not read, a formula with groups)."""
    if not isinstance(completion, str):
        return None
    body, truth, family = _body(completion), task.ground_truth, task.family
    if body is None:
        return None
    if family == "stoich.balance" and body.count(">>") == 1:
        return _balanced_equation(truth, *body.split(">>"))
    if family == "stoich.balance":
        m = re.fullmatch(r"\[?\s*(\d{1,7}(?:\s*,\s*\d{1,7})*)\s*\]?", body)
        if m is None:
            return None
        return _balanced(list(truth["reactants"]), list(truth["products"]), [int(x) for x in m.group(1).split(",")])
    if family.startswith("stoich."):
        want = truth.get("byproducts") or truth.get("products")
        got, expected = _bag(body), _truth_bag(want) if isinstance(want, dict) else None
        return None if got is None or expected is None else got == expected
    if family in ("mol.count", "mol.index"):
        try:
            value = json.loads(body)
        except ValueError:
            return None
        if not isinstance(value, dict) or set(value) != set(truth) or len(value) != len(truth):
            return None
        def norm(v: Any) -> Any:  # index lists as sets, formulas as compositions (blanks and zeros aside)
            if isinstance(v, list):
                return sorted(v, key=repr)
            if isinstance(v, str):
                return _hill_counts(re.sub(r"\s+", "", v)) or v
            return v

        return all(norm(value[k]) == norm(truth[k]) for k in truth)
    if family == "mol.gen":
        try:
            smiles = json.loads(body).get("smiles")
        except (ValueError, AttributeError):
            return None
        from rdkit import Chem, RDLogger  # heavy: only for this family

        RDLogger.DisableLog("rdApp.*")
        mol = Chem.MolFromSmiles(smiles) if isinstance(smiles, str) else None
        return None if mol is None else len(Chem.GetMolFrags(mol)) == 1 or None
    return None


def mutate(text: str, rng: random.Random, steps: int | None = None) -> str:
    """``text`` with a few random edits: a digit changed, characters deleted, inserted, duplicated or swapped."""
    for _ in range(steps if steps is not None else rng.randint(1, 3)):
        if not text:
            return rng.choice(_MUTATION_CHARS)
        i = rng.randrange(len(text))
        op = rng.randrange(6)
        if op == 0 and text[i].isdigit():
            text = text[:i] + str(rng.randrange(10)) + text[i + 1:]
        elif op == 1:
            text = text[:i] + text[i + 1:]
        elif op == 2:
            text = text[:i] + rng.choice(_MUTATION_CHARS) + text[i:]
        elif op == 3:
            j = min(len(text), i + rng.randint(1, 12))
            text = text[:j] + text[i:j] * rng.randint(1, 4) + text[j:]
        elif op == 4 and i + 1 < len(text):
            text = text[:i] + text[i + 1] + text[i] + text[i + 2:]
        else:
            text = text[:i] + str(rng.choice((0, 1, 2, 10, 99, 10 ** 7, 10 ** 30))) + text[i:]
    return text


def _species(task: Task, rng: random.Random) -> str:
    truth = task.ground_truth
    pool = [*truth.get("reactants", ()), *truth.get("products", ())] if isinstance(truth.get("products"), list) \
        else [*(truth.get("products") or {}), *(truth.get("byproducts") or {})]
    return rng.choice(pool + list(_FORMULAS)) if pool else rng.choice(_FORMULAS)


def _coefficient(rng: random.Random) -> int:
    return rng.choice((0, 1, 1, 1, 2, 2, 3, 4, 5, 6, 10, rng.randint(0, 50), 10 ** 6, 10 ** 6 + 1))


def _stoich_answer(task: Task, rng: random.Random) -> str:
    n = rng.randint(1, 6)
    form = rng.randrange(5)
    if form == 0 and task.family == "stoich.balance":
        size = len(task.ground_truth["reactants"]) + len(task.ground_truth["products"])
        values = [_coefficient(rng) for _ in range(size + rng.choice((0, 0, 0, -1, 1)))]
        return ", ".join(map(str, values)) if rng.random() < 0.5 else json.dumps(values)
    terms = [(_species(task, rng), _coefficient(rng)) for _ in range(n)]
    bag = ".".join(f"{{{k}}}{s}" for s, k in terms)
    if form == 1:
        return json.dumps({s: k for s, k in terms})
    if form == 2:
        return " + ".join(f"{k} {s}" for s, k in terms)
    if form == 3:
        left = ".".join(f"{{{_coefficient(rng)}}}{_species(task, rng)}" for _ in range(rng.randint(1, 3)))
        return f"{left}>>{bag}"
    return bag


def _mol_answer(task: Task, rng: random.Random) -> str:
    if task.family == "mol.gen":
        smiles = "".join(rng.choice(_SMILES_ALPHABET) for _ in range(rng.randint(1, 30)))
        return json.dumps({"smiles": smiles}) if rng.random() < 0.8 else smiles
    out: dict[str, Any] = {}
    for key, value in task.ground_truth.items():
        if rng.random() < 0.1:
            key = key.upper() if rng.random() < 0.5 else key + "_x"
        if isinstance(value, list):
            out[key] = sorted({rng.randint(-1, 40) for _ in range(rng.randint(0, 6))}) if rng.random() < 0.7 \
                else list(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = rng.choice((value, value + 1, max(0, value - 1), -1, rng.randint(0, 60), 1e308, str(value)))
        else:
            out[key] = rng.choice((value, mutate(str(value), rng), rng.randint(0, 60), None, [value]))
    return json.dumps(out)


def write_answer(task: Task, oracle: str, rng: random.Random) -> str:
    """A completion for ``task``: a mutated oracle, a hostile value in the oracle's own structure
    (:func:`rlvr.families.derived.own_hostile_answers`), an answer in the family's format, or a hostile one."""
    pick = rng.random()
    if pick < 0.45:
        return mutate(oracle, rng)
    if pick < 0.55:
        derived = own_hostile_answers(oracle)
        if derived:
            return derived[rng.randrange(len(derived))]
    if pick < 0.97:
        body = _stoich_answer(task, rng) if task.family.startswith("stoich.") else _mol_answer(task, rng)
        if rng.random() < 0.1:
            body = mutate(body, rng)
        return f"<answer>{body}</answer>" if rng.random() < 0.95 else body
    corpus = hostile_completions()
    return corpus[rng.randrange(len(corpus))]


__all__ = ["independently_right", "mutate", "write_answer"]
