"""The written-species fast path of the stoichiometry checkers gives exactly the canonical verdicts.

Every completion below is scored twice: by the public checker (written truth first, canonical
truth when an answer species is written otherwise than in the task) and by
:func:`rlvr.checkers.stoich.check_canonical` (canonical identities only). The two verdicts must
be identical, metrics and diagnostics included (compared as JSON, key order too).
"""
from __future__ import annotations

import json
import random
import re
from decimal import Decimal

import pytest
from rdkit import Chem

import rlvr
from rlvr.checkers.stoich import (
    check_balance,
    check_byproduct,
    check_canonical,
    check_products,
)
from rlvr.checkers.stoich_truth import (
    written_balance_truth,
    written_byproduct_truth,
    written_products_truth,
)
from rlvr.chem.smiles import canonical_smiles
from rlvr.task import Task, TaskFormatError

N_TASKS = 12  # per family and encoding
BAG_MODES = ("em", "strict", "f1", "jaccard", "shaped", "em+format")
BALANCE_MODES = ("strict", "em", "shaped", "f1", "jaccard", "em+format")
CASES = [(family, encoding) for family in ("stoich.balance", "stoich.t1", "stoich.t2", "stoich.byproduct")
         for encoding in ("formula", "smiles")]


def tag(text: str) -> str:
    return f"<answer>{text}</answer>"


def think(text: str) -> str:
    return f"<think>Checking the atoms once more.</think>\nSo the answer is:\n<answer>{text}</answer>"


def bag_text(terms: list[tuple[str, int]]) -> str:
    return ".".join(f"{{{k}}}{s}" for s, k in terms)


def plain_text(terms: list[tuple[str, int]]) -> str:
    return " + ".join(s if k == 1 else f"{k} {s}" for s, k in terms)


def rewrite(species: str, encoding: str, rng: random.Random) -> str:
    """The same species written another way (a random SMILES; formula element groups reversed)."""
    if encoding == "smiles":
        mol = Chem.MolFromSmiles(species)
        if mol is None:
            return species
        options = [s for s in Chem.MolToRandomSmilesVect(mol, 4, randomSeed=rng.randrange(1 << 30)) if s != species]
        return options[0] if options else species
    groups = re.findall(r"[A-Z][a-z]?\d*", species)
    return "".join(reversed(groups)) if "".join(groups) == species else species


def prompt_species(task: Task) -> list[str]:
    meta, gt = task.meta, task.ground_truth
    if "coefficients" in gt:
        return list(gt["reactants"]) + list(gt["products"])
    out = list(meta.get("inputs") or {})
    reaction = meta.get("reaction") or {}
    for side in ("reactants", "reagents", "products"):
        out += list(reaction.get(side) or {})
    return out


def bag_completions(task: Task, key: str, rng: random.Random) -> list:
    encoding = task.meta["encoding"]
    terms = [(s, int(k)) for s, k in task.ground_truth[key].items()]
    others = [s for s in prompt_species(task) if s not in dict(terms)] or (["O"] if encoding == "smiles" else ["H2O"])
    first, k0 = terms[0]
    out = [
        rlvr.oracle_completion(task),
        think(bag_text(list(reversed(terms)))),
        tag(plain_text(terms)),
        tag(json.dumps(dict(terms))),
        tag(bag_text([(first, k0 + 1)] + terms[1:])),  # wrong coefficient
        tag(bag_text(terms + [(rng.choice(others), 1)])),  # an extra species
        tag(bag_text([(rng.choice(others), k0)] + terms[1:])),  # a wrong species
        tag(bag_text([(rewrite(s, encoding, rng), k) for s, k in terms])),  # written another way
        tag(bag_text([(rewrite(first, encoding, rng), k0)] + terms[1:])),
        tag(bag_text([(first, 1)] + ([(first, k0 - 1)] if k0 > 1 else []) + terms[1:])),  # split term
        tag(bag_text(terms + [("Xx9" if encoding == "formula" else "C1CC", 1)])),  # an invalid species
        tag(bag_text([(first, 0)] + terms[1:])),  # zero coefficient
        tag(f"{plain_text([(s, 1) for s in others[:2]])} -> {plain_text(terms)}"),  # an equation
        tag(bag_text(terms)[:-1] + "{"),  # malformed
        tag(""),
        bag_text(terms),  # no answer block
        None,
        12,
        [{"role": "assistant", "content": tag(bag_text(terms))}],
        tag(".".join(["{1}O"] * 300)),  # too many terms
        "x" * 200_000,
    ]
    if len(terms) > 1:
        out.append(tag(bag_text(terms[1:])))  # a missing species
    return out


def balance_completions(task: Task, rng: random.Random) -> list:
    gt = task.ground_truth
    encoding = task.meta["encoding"]
    reactants, products = list(gt["reactants"]), list(gt["products"])
    k = [int(c) for c in gt["coefficients"]]
    n = len(reactants)
    left, right = list(zip(reactants, k[:n])), list(zip(products, k[n:]))
    bumped = [k[0] + 1] + k[1:]
    return [
        rlvr.oracle_completion(task),
        think(f"{bag_text(list(reversed(left)))}>>{bag_text(list(reversed(right)))}"),
        tag(", ".join(map(str, k))),
        tag(json.dumps(k)),
        tag(", ".join(map(str, reversed(k)))),  # wrong order
        tag(", ".join(map(str, bumped))),  # unbalanced
        tag(", ".join(str(2 * c) for c in k)),  # not minimal
        tag(", ".join(["0"] + [str(c) for c in k[1:]])),  # not positive
        tag(", ".join(map(str, k[:-1]))),  # wrong length
        tag(f"{plain_text(left)} -> {plain_text(right)}"),
        tag(f"{plain_text(left)} = {plain_text(right)}"),
        tag(json.dumps(dict(left + right))),
        tag(f"{bag_text(right)}>>{bag_text(left)}"),  # sides swapped
        tag(f"{bag_text(left[1:])}>>{bag_text(right)}"),  # a missing species
        tag(f"{bag_text(left + [('Ar' if encoding == 'formula' else '[Ar]', 1)])}>>{bag_text(right)}"),  # unknown
        tag(f"{bag_text([(rewrite(s, encoding, rng), c) for s, c in left])}>>{bag_text(right)}"),  # rewritten
        tag(f"{bag_text([(rewrite(reactants[0], encoding, rng), bumped[0])] + left[1:])}>>{bag_text(right)}"),
        tag(f"{bag_text(left + [('Xx9' if encoding == 'formula' else 'C1CC', 1)])}>>{bag_text(right)}"),
        tag(f"{bag_text(left)}>>{bag_text(right)}>>{bag_text(right)}"),  # malformed
        tag(""),
        None,
        "x" * 200_000,
    ]


def same_verdict(task: Task, completion, reward: str | None) -> None:
    gt = task.ground_truth
    check = check_balance if "coefficients" in gt else check_byproduct if "byproducts" in gt else check_products
    fast = check(task, completion) if reward is None else check(task, completion, reward=reward)
    slow = check_canonical(task, completion, reward=reward)
    assert json.dumps(fast.to_dict()) == json.dumps(slow.to_dict()), (task.id, completion)
    assert fast.reason == slow.reason and type(fast.reward) is type(slow.reward)


@pytest.fixture(scope="module")
def generated() -> dict[tuple[str, str], list[Task]]:
    return {(family, encoding): list(rlvr.sample(family, n=N_TASKS, split="train", seed=7, start=50_000,
                                                 encoding=encoding))
            for family, encoding in CASES}


@pytest.mark.parametrize("family,encoding", CASES)
def test_fast_path_verdicts_equal_canonical_verdicts(generated, family, encoding):
    rng = random.Random(f"{family}/{encoding}")
    checked = 0
    for task in generated[(family, encoding)]:
        if "coefficients" in task.ground_truth:
            completions, modes = balance_completions(task, rng), BALANCE_MODES
        else:
            key = "byproducts" if "byproducts" in task.ground_truth else "products"
            completions, modes = bag_completions(task, key, rng), BAG_MODES
        for i, completion in enumerate(completions):
            same_verdict(task, completion, None if i % 2 else modes[i % len(modes)])
            checked += 1
        oracle = check_canonical(task, rlvr.oracle_completion(task))
        assert oracle.reward == 1.0 and oracle.correct
    assert checked >= N_TASKS * 20


@pytest.mark.parametrize("family,encoding", CASES)
def test_generated_tasks_take_the_written_path(generated, family, encoding):
    truth_of = {"stoich.balance": written_balance_truth, "stoich.byproduct": written_byproduct_truth}.get(
        family, written_products_truth)
    for task in generated[(family, encoding)]:
        assert truth_of(task).written is not None, task.id


def _bag_task(products: dict, inputs: dict | None = None, *, encoding: str = "smiles", key: str = "products",
              task_id: str = "hand") -> Task:
    meta = {"encoding": encoding}
    if inputs is not None:
        meta["inputs"] = inputs
    family = "stoich.t2" if key == "products" else "stoich.byproduct"
    return Task(id=task_id, family=family, prompt=[{"role": "user", "content": "q"}],
                ground_truth={key: products}, meta=meta)


def _balance_task(reactants: list, products: list, coefficients: list, encoding: str = "smiles") -> Task:
    return Task(id="hand-balance", family="stoich.balance", prompt=[{"role": "user", "content": "q"}],
                ground_truth={"reactants": reactants, "products": products, "coefficients": coefficients},
                meta={"encoding": encoding})


HAND_BAGS = [
    # isomers in one record: the written keys cannot tell them apart, the canonical build is used
    _bag_task({"CCO": 1, "COC": 1}, {"CCO": 1, "COC": 1}),
    # one molecule written twice in the record: merged by the canonical build
    _bag_task({"CCO": 1, "OCC": 1}, {"C(C)O": 2}),
    # several molecules in one string
    _bag_task({"[Na+].[Cl-]": 1, "O": 2}, {"[Na+]": 1, "[Cl-]": 1, "O": 2}),
    # formulas: two spellings of one composition
    _bag_task({"C2H6O": 1, "CH3CH2OH": 1, "H2O": 1}, {"C2H6O": 2, "OH2": 1}, encoding="formula"),
    _bag_task({"Fe+3": 2, "Cl-": 6}, {"FeCl3": 2}, encoding="formula"),
    # an unvalidated record whose products do not conserve the inputs
    _bag_task({"CO2": 1}, {"CH4": 1}, encoding="formula"),
    _bag_task({"O": 1}, key="byproducts"),
]
HAND_ANSWERS = ["{1}CCO.{1}COC", "{1}OCC.{1}COC", "{2}CCO", "{1}CCO.{1}OCC", "{1}[Na+].[Cl-].{2}O",
                "{1}[Na+].{1}[Cl-].{2}O", "{2}C2H6O.{1}H2O", "{1}C2H6O.{1}C2H5OH.{1}OH2", "{2}Fe+3.{6}Cl-",
                "{2}FeCl3", "{1}CO2", "{1}CH4", "{1}O", "{1}[H]O[H]", "{2}O", "{1}H2O"]


@pytest.mark.parametrize("task", HAND_BAGS, ids=lambda t: ",".join(t.ground_truth[next(iter(t.ground_truth))]))
@pytest.mark.parametrize("answer", HAND_ANSWERS)
def test_hand_made_bags_agree(task, answer):
    for reward in ("em", "f1"):
        same_verdict(task, tag(answer), reward)


HAND_BALANCES = [
    _balance_task(["CC=C", "C1CC1"], ["CCC"], [1, 1, 2]),  # isomers (wrong chemistry, still a record)
    _balance_task(["[H][H]", "O=O"], ["O"], [2, 1, 2]),
    _balance_task(["[H][H]", "O=O"], ["O"], [4, 2, 4]),  # not minimal: no known verdict for the reference
    _balance_task(["[H][H]", "O=O"], ["O"], [1, 1, 1]),  # unbalanced reference
    _balance_task(["[Na+].[Cl-]"], ["[Na+]", "[Cl-]"], [1, 1, 1]),
    _balance_task(["H2", "O2"], ["H2O"], [2, 1, 2], encoding="formula"),
    _balance_task(["CH3CH2OH", "O2"], ["CO2", "H2O"], [1, 3, 2, 3], encoding="formula"),
]
HAND_EQUATIONS = ["2, 1, 2", "{2}[H][H].{1}O=O>>{2}O", "{2}[H][H].{1}O=O>>{2}[H]O[H]", "{1}CC=C.{1}C1CC1>>{2}CCC",
                  "{1}C=CC.{1}C1CC1>>{2}CCC", '{"[H][H]": 2, "O=O": 1, "O": 2}', "{2}H2.{1}O2>>{2}H2O",
                  "{2}H2.{1}O2>>{2}OH2", "{1}C2H6O.{3}O2>>{2}CO2.{3}H2O", "{1}[Na+].[Cl-]>>{1}[Na+].{1}[Cl-]",
                  "1, 3, 2, 3", "1, 1, 1"]


@pytest.mark.parametrize("task", HAND_BALANCES, ids=lambda t: "+".join(t.ground_truth["reactants"]))
@pytest.mark.parametrize("answer", HAND_EQUATIONS)
def test_hand_made_balances_agree(task, answer):
    for reward in ("strict", "shaped"):
        same_verdict(task, tag(answer), reward)


def test_collisions_and_dots_use_the_canonical_build():
    assert written_products_truth(HAND_BAGS[0]).written is None  # isomers
    assert written_products_truth(HAND_BAGS[1]).written is None  # one molecule, two strings
    assert written_products_truth(HAND_BAGS[2]).written is None  # a dot
    assert written_products_truth(HAND_BAGS[3]).written is not None  # formulas: keyed by composition
    assert written_balance_truth(HAND_BALANCES[0]).written is None
    assert written_balance_truth(HAND_BALANCES[1]).written is not None


MALFORMED = [
    _bag_task({"CCO": 1, "C1CC": 1}, {"CCO": 1}),  # invalid species
    _bag_task({"CCO": 1}, None),  # no inputs
    _bag_task({"CCO": 0}, {"CCO": 1}),  # zero coefficient
    _bag_task({"CCO": 1.5}, {"CCO": 1}),
    _bag_task({"CCO": True}, {"CCO": 1}),
    _bag_task({"Xx": 1}, {"H2O": 1}, encoding="formula"),
    _bag_task({}, key="byproducts"),
    _bag_task({"CCO": 1}, {"CCO": 1}, encoding="inchi"),
    _balance_task(["CCO", "OCC"], ["O"], [1, 1, 1]),  # one molecule twice on a side
    _balance_task(["CCO", "CCO"], ["O"], [1, 1, 1]),
    _balance_task(["CCO", "C1CC"], ["O"], [1, 1, 1]),
    _balance_task(["CCO"], ["O"], [1, 1, 1]),
    _balance_task(["C2H6O", "CH3CH2OH"], ["H2O"], [1, 1, 1], encoding="formula"),
]


@pytest.mark.parametrize("task", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_records_raise_the_same_error(task):
    errors = []
    for check in (lambda t, c: rlvr.verify(t, c), check_canonical):
        with pytest.raises(TaskFormatError) as info:
            check(task, tag("{1}O"))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_answers_as_written_need_no_canonical_smiles():
    rng = random.Random(3)
    chain = "C" * rng.randrange(40, 60) + "O"  # molecules this process has not canonicalised
    acid = "OC(=O)" + "C" * rng.randrange(40, 60)
    task = _bag_task({chain: 1, acid: 2}, {chain: 1, acid: 2}, task_id="fresh")
    before = canonical_smiles.cache_info().misses
    assert check_products(task, tag(f"{{2}}{acid}.{{1}}{chain}")).correct
    assert check_products(task, tag(f"{{1}}{acid}.{{1}}{chain}")).reason == "wrong_count"
    assert canonical_smiles.cache_info().misses == before
    assert check_products(task, tag(f"{{2}}{acid}.{{1}}{chain[::-1]}")).correct  # written otherwise
    assert canonical_smiles.cache_info().misses > before


FORMULA_RECORDS = [  # products, inputs: conserved, not conserved, charged, one composition written twice
    ({"CO2": 2, "H2O": 3}, {"C2H6O": 1, "O2": 3}),
    ({"CO2": 2, "H2O": 2}, {"C2H6O": 1, "O2": 3}),
    ({"Fe+3": 2, "Cl-": 6}, {"FeCl3": 2}),
    ({"C2H6O": 1, "CH3CH2OH": 2, "O2": 1}, {"C2H5OH": 3, "O2": 1}),
    ({"CuSO4.5H2O": 1}, {"CuSO4": 1, "H2O": 5}),
]


@pytest.mark.parametrize("products", [{"CO2": True}, {"CO2": Decimal(1)}, {1: 1}])
def test_a_malformed_record_equal_to_a_cached_one_still_raises(products):
    good = _bag_task({"CO2": 1}, {"CO2": 1}, encoding="formula", task_id="cached")
    assert rlvr.verify(good, tag("{1}CO2")).correct  # its truth is cached now
    bad = _bag_task(products, {"CO2": 1}, encoding="formula", task_id="cached")  # equal as a dict, or malformed
    with pytest.raises(TaskFormatError):
        rlvr.verify(bad, tag("{1}CO2"))


@pytest.mark.parametrize("products,inputs", FORMULA_RECORDS)
def test_the_exact_answer_gets_the_canonical_verdict(products, inputs):
    task = _bag_task(products, inputs, encoding="formula", task_id=f"exact-{len(products)}-{sorted(products)}")
    truth = written_products_truth(task)
    assert truth.written is not None and truth.exact is not None  # formulas: keyed by composition
    answer = tag(".".join(f"{{{k}}}{s}" for s, k in reversed(products.items())))
    verdict = check_products(task, answer, reward="f1")
    reference = check_canonical(task, answer, reward="f1")
    assert verdict.correct and json.dumps(verdict.to_dict()) == json.dumps(reference.to_dict())
    assert verdict.metrics["diagnostics"]["element_delta"] == dict(truth.exact[2])


@pytest.mark.parametrize("products,inputs", [
    ({"Xx": 1}, {"Xx": 1}),  # not a formula, carried over unchanged
    ({"CO2": True}, {"CO2": 1}),
    ({"CO2": 1}, {}),
    ({"CO2": 1}, None),
    ({"CO2": 1, "H2O": 0}, {"CO2": 1}),
])
def test_a_malformed_record_answered_as_written_still_raises(products, inputs):
    task = _bag_task(products, inputs, encoding="formula", task_id="malformed-as-written")
    answer = tag(".".join(f"{{{int(k)}}}{s}" for s, k in products.items()))
    for check in (lambda t, c: rlvr.verify(t, c), check_canonical):
        with pytest.raises(TaskFormatError):
            check(task, answer)


@pytest.mark.parametrize("reactants,products,coefficients,exact", [
    (("Fe+3",), ("Fe+2",), (1, 1), False),  # atoms balanced, charge not
    (("Fe+3", "Fe"), ("Fe+2",), (2, 1, 3), True),  # atoms and charge balanced
    (("H2", "O2"), ("H2O",), (4, 2, 4), False),  # balanced, not minimal
    (("H2", "O2"), ("H2O",), (2, 1, 2), True),
])
def test_the_written_balance_truth_knows_when_the_record_is_its_own_answer(reactants, products, coefficients, exact):
    task = _balance_task(list(reactants), list(products), list(coefficients), encoding="formula")
    truth = written_balance_truth(task)
    assert truth.written is not None and truth.exact is exact
    answer = tag(".".join(f"{{{k}}}{s}" for s, k in zip(reactants, coefficients)) + ">>"
                 + ".".join(f"{{{k}}}{s}" for s, k in zip(products, coefficients[len(reactants):])))
    assert rlvr.verify(task, answer).correct is exact
    same_verdict(task, answer, "shaped")
