"""Products (stoich.t1 / stoich.t2) and byproduct checkers on the ChemAlgebra worked examples."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlvr.checkers.stoich import (
    FORMAT_CREDIT,
    METRIC_KEYS,
    check_byproduct,
    check_products,
    oracle_byproduct,
    oracle_products,
    validate_task,
)
from rlvr.task import Task, TaskFormatError


def products_task(inputs: dict, products: dict, encoding: str = "formula", family: str = "stoich.t2") -> Task:
    return Task(
        id=f"{family}:test:0:0:hand",
        family=family,
        prompt=[{"role": "user", "content": "Predict the products."}],
        ground_truth={"products": products},
        meta={"encoding": encoding, "inputs": inputs, "semantics": "limiting", "prompt_mode": "closed"},
    )


def answer(text: str) -> str:
    return f"<think>counting atoms</think>\n<answer>{text}</answer>"


# Sabatier, eq. (4): Type 1 with factor two; eq. (5): Type 2 with two extra CO2 and Ni.
SABATIER_T1 = products_task({"CO2": 2, "H2": 8, "Ni": 2}, {"CH4": 2, "H2O": 4, "Ni": 2}, family="stoich.t1")
SABATIER_T2 = products_task({"CO2": 3, "H2": 4, "Ni": 3}, {"CH4": 1, "H2O": 2, "Ni": 3, "CO2": 2})
SABATIER_T1_SMILES = products_task(
    {"O=C=O": 2, "[H][H]": 8, "[Ni]": 2}, {"C": 2, "O": 4, "[Ni]": 2}, encoding="smiles", family="stoich.t1"
)

# Table 3 (reference: C6H12O + C8H10 -> C14H22O with HCl and Cl- as reagents).
EPOXIDE, XYLENE, ALCOHOL = "CCCCC1CO1", "Cc1cccc(C)c1", "CCCCC(CO)c1ccc(C)cc1C"
TABLE3 = [
    # T1 x3, formulas
    products_task({"ClH": 3, "Cl-": 3, "C6H12O": 3, "C8H10": 3}, {"ClH": 3, "Cl-": 3, "C14H22O": 3}, family="stoich.t1"),
    # T1 x3, SMILES
    products_task(
        {"Cl": 3, "[Cl-]": 3, EPOXIDE: 3, XYLENE: 3}, {"Cl": 3, "[Cl-]": 3, ALCOHOL: 3}, "smiles", "stoich.t1"
    ),
    # T2 row of the table in formulas (the product appears among the inputs)
    products_task(
        {"ClH": 3, "Cl-": 4, "C14H22O": 1, "C6H12O": 1, "C8H10": 2},
        {"ClH": 3, "Cl-": 4, "C8H10": 3, "C6H12O": 2},
    ),
    # the same T2 row in SMILES
    products_task(
        {"Cl": 3, "[Cl-]": 4, ALCOHOL: 1, EPOXIDE: 1, XYLENE: 2}, {"Cl": 3, "[Cl-]": 4, XYLENE: 3, EPOXIDE: 2}, "smiles"
    ),
]


@pytest.mark.parametrize(
    "text",
    [
        "{2}CH4.{4}H2O.{2}Ni",
        "2 CH4 + 4 H2O + 2 Ni",
        "2CH4, 4H2O, 2Ni",
        "{4}H2O.{2}Ni.{2}CH4",
        '{"CH4": 2, "H2O": 4, "Ni": 2}',
        "```json\n{\"CH4\": 2, \"H2O\": 4, \"Ni\": 2}\n```",
        "{2}CO2.{8}H2.{2}Ni>>{2}CH4.{4}H2O.{2}Ni",  # the whole equation: its right-hand side counts
        "CH4 + CH4 + 4 H2O + 2 Ni",  # repeated species are summed
        '{"CH4": 1, "H2O": 4, "CH4": 1, "Ni": 2}',  # also repeated JSON keys
        "2 CH4 + 4 OH2 + 2 Ni",  # formula identity, not spelling
    ],
)
def test_sabatier_type1_accepts_every_notation(text):
    verdict = check_products(SABATIER_T1, answer(text))
    assert verdict.correct and verdict.reward == 1.0 and verdict.reason == "ok", verdict
    assert verdict.metrics["balanced"] == 1.0 and verdict.metrics["valid"] == 1.0


def test_sabatier_type1_smiles():
    assert check_products(SABATIER_T1_SMILES, answer("{2}C.{4}O.{2}[Ni]")).correct
    assert check_products(SABATIER_T1_SMILES, answer("{4}[H]O[H].{2}[H]C([H])([H])[H].{2}[Ni]")).correct
    wrong = check_products(SABATIER_T1_SMILES, answer("{1}C.{2}O.{1}[Ni]"))  # the reference, not scaled
    assert wrong.reward == 0.0 and wrong.reason == "wrong_count"
    assert wrong.metrics["deficitary"] == 1.0 and wrong.metrics["exceeding"] == 0.0


def test_sabatier_type2_equation_5():
    good = check_products(SABATIER_T2, answer("CH4 + 2 H2O + 3 Ni + 2 CO2"))
    assert good.correct and good.reward == 1.0
    # forgetting the unreacted CO2: right molecules, wrong count, and atoms go missing
    short = check_products(SABATIER_T2, answer("CH4 + 2 H2O + 3 Ni"))
    assert short.reason == "wrong_species" and short.reward == 0.0
    assert short.metrics["deficitary"] == 1.0 and short.metrics["balanced"] == 0.0
    assert short.metrics["diagnostics"]["element_delta"] == {"C": -2, "O": -4}
    assert short.metrics["diagnostics"]["n_missing"] == 1 and short.metrics["diagnostics"]["n_extra"] == 0
    wrong_k = check_products(SABATIER_T2, answer("CH4 + 2 H2O + 3 Ni + 3 CO2"))
    assert wrong_k.reason == "wrong_count"
    assert wrong_k.metrics["diagnostics"]["wrong_coefficient"] == ["CO2"]
    assert wrong_k.metrics["exceeding"] == 1.0


@pytest.mark.parametrize("task", TABLE3, ids=["t1-formula", "t1-smiles", "t2-formula", "t2-smiles"])
def test_table3_rows_oracle_and_variants(task):
    validate_task(task)
    assert check_products(task, oracle_products(task)).reward == 1.0
    # the input copied to the output conserves atoms but is not the answer
    copy = json.dumps(task.meta["inputs"])
    verdict = check_products(task, answer(copy))
    assert verdict.metrics["balanced"] == 1.0 and verdict.reward == 0.0 and not verdict.correct


def test_table3_smiles_written_differently():
    t1 = TABLE3[1]
    text = "{3}[Cl-].{3}Cl.{3}OCC(CCCC)c1ccc(C)cc1C"
    assert check_products(t1, answer(text)).correct
    t2 = TABLE3[3]
    assert check_products(t2, answer("3 Cl + 4 [Cl-] + 3 c1c(C)cccc1C + 2 C1OC1CCCC")).correct


def test_ethanol_identity_in_both_encodings():
    formula = products_task({"C2H4": 1, "H2O": 1}, {"C2H6O": 1})
    assert check_products(formula, answer("CH3CH2OH")).correct
    assert check_products(formula, answer("{1}C2H5OH")).correct
    smiles = products_task({"C=C": 1, "O": 1}, {"CCO": 1}, encoding="smiles")
    assert check_products(smiles, answer("OCC")).correct
    assert check_products(smiles, answer("{1}C(O)C")).correct
    # dimethyl ether has the same formula but is another molecule in the SMILES encoding
    ether = check_products(smiles, answer("COC"))
    assert ether.reason == "wrong_species" and ether.metrics["balanced"] == 1.0 and ether.reward == 0.0


def test_smiles_fragments_are_molecules():
    task = products_task({"[Na+].[OH-]": 1, "Cl": 1}, {"[Na+].[Cl-]": 1, "O": 1}, encoding="smiles")
    for text in ("{1}[Na+].[Cl-].{1}O", "{1}[Na+].{1}[Cl-].{1}O", "[Cl-].[Na+] + O", "[Na+] + [Cl-] + O"):
        assert check_products(task, answer(text)).correct, text


def test_appendix_e_metric_example():
    task = products_task({"CH2Cl2": 1, "H2O": 2, "H2": 2}, {"H2O": 2, "HCl": 2, "CH4": 1})
    validate_task(task)
    verdict = check_products(task, answer("3 H2O + 2 HCl + CO2"), reward="f1")
    m = verdict.metrics
    assert (m["tp"], m["fp"], m["fn"]) == (4, 2, 1)
    assert m["em"] == 0.0 and m["jaccard"] == pytest.approx(4 / 7) and m["f1"] == pytest.approx(8 / 11)
    assert m["mol_jaccard"] == pytest.approx(2 / 4) and m["mol_f1"] == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))
    assert verdict.reward == pytest.approx(8 / 11) and not verdict.correct
    # 3 H2O + 2 HCl + CO2 against the input: two H short, three O too many
    assert m["diagnostics"]["element_delta"] == {"H": -2, "O": 3}
    assert m["deficitary"] == m["exceeding"] == m["both"] == 1.0 and m["balanced"] == 0.0
    assert m["diagnostics"]["n_extra"] == 1 and m["diagnostics"]["n_missing"] == 1
    assert m["diagnostics"]["wrong_coefficient"] == ["H2O"]
    assert check_products(task, answer("3 H2O + 2 HCl + CO2"), reward="jaccard").reward == pytest.approx(4 / 7)


def test_copy_input_scores_what_it_is():
    # Type 2 (eq. 5): copying the input is perfectly balanced and shares Ni and CO2 with the answer
    copy = answer("3 CO2 + 4 H2 + 3 Ni")
    strict = check_products(SABATIER_T2, copy)
    assert strict.metrics["balanced"] == 1.0
    assert strict.reward == 0.0 and not strict.correct and strict.reason == "wrong_species"
    # TP = min(3,2) CO2 + 3 Ni = 5, FP = 1 CO2 + 4 H2 = 5, FN = CH4 + 2 H2O = 3 -> F1 = 10 / 18
    f1 = check_products(SABATIER_T2, copy, reward="f1")
    assert f1.reward == pytest.approx(10 / 18)
    assert check_products(SABATIER_T2, copy, reward="jaccard").reward == pytest.approx(5 / 13)
    # Type 1: only the catalyst overlaps: TP 2, FP 10, FN 6 -> F1 = 4 / 20
    t1_copy = check_products(SABATIER_T1, answer("{2}CO2.{8}H2.{2}Ni"), reward="f1")
    assert t1_copy.reward == pytest.approx(0.2) and t1_copy.metrics["balanced"] == 1.0
    # em+format pays the same small credit to any valid wrong answer, balanced or not
    balanced_copy = check_products(SABATIER_T2, copy, reward="em+format").reward
    unbalanced = check_products(SABATIER_T2, answer("CH4 + 7 H2O"), reward="em+format").reward
    assert balanced_copy == unbalanced == FORMAT_CREDIT


def test_shaped_rewards_below_one_unless_correct():
    for text in ("CH4 + 2 H2O + 3 Ni", "CH4 + 2 H2O + 3 Ni + 3 CO2", "2 CH4 + 4 H2O + 6 Ni + 4 CO2"):
        for mode in ("f1", "jaccard", "shaped", "em+format"):
            verdict = check_products(SABATIER_T2, answer(text), reward=mode)
            assert 0.0 <= verdict.reward < 1.0 and not verdict.correct


def test_invalid_species_reported():
    smiles = products_task({"C=C": 1, "O": 1}, {"CCO": 1}, encoding="smiles")
    verdict = check_products(smiles, answer("CCO + C1CC("), reward="f1")
    assert verdict.reason == "invalid_species" and verdict.metrics["valid"] == 0.0
    assert verdict.metrics["diagnostics"]["invalid_species"] == ["C1CC("]
    assert verdict.metrics["fp"] == 1 and verdict.reward == pytest.approx(2 / 3)
    # a formula is not a SMILES string, and a SMILES string is not that molecule's formula
    assert check_products(smiles, answer("C2H6O")).reason == "invalid_species"
    formula = products_task({"C2H4": 1, "H2O": 1}, {"C2H6O": 1})
    assert check_products(formula, answer("CCO")).reason == "wrong_species"
    assert check_products(formula, answer("[Na+]")).reason == "invalid_species"


def test_metric_keys_present_on_every_verdict():
    for completion in (oracle_products(SABATIER_T2), answer("CH4"), answer("Xx9"), answer(""), "no tags", None):
        verdict = check_products(SABATIER_T2, completion)
        assert set(METRIC_KEYS) <= set(verdict.metrics)
        assert 0.0 <= verdict.reward <= 1.0
        json.dumps(verdict.to_dict())  # JSON-serialisable for logs and eval tables


def test_answer_extraction_rules():
    assert check_products(SABATIER_T2, "CH4 + 2 H2O + 3 Ni + 2 CO2").reason == "no_answer"
    last_wins = "<answer>CH4</answer> on second thought <answer>CH4 + 2 H2O + 3 Ni + 2 CO2</answer>"
    assert check_products(SABATIER_T2, last_wins).correct
    inside_think = "<think><answer>CH4 + 2 H2O + 3 Ni + 2 CO2</answer></think> done"
    assert check_products(SABATIER_T2, inside_think).reason == "no_answer"
    chat = [{"role": "assistant", "content": answer("CH4 + 2 H2O + 3 Ni + 2 CO2")}]
    assert check_products(SABATIER_T2, chat).correct


def test_byproduct_checker():
    task = Task(
        id="stoich.byproduct:test:0:0:hand",
        family="stoich.byproduct",
        prompt=[{"role": "user", "content": "CC(=O)Cl + OCC -> CC(=O)OCC + ?"}],
        ground_truth={"byproducts": {"Cl": 1}},
        meta={
            "encoding": "smiles",
            "reaction": {"reactants": {"CC(=O)Cl": 1, "CCO": 1}, "reagents": {}, "products": {"CCOC(C)=O": 1}},
        },
    )
    validate_task(task)
    assert check_byproduct(task, oracle_byproduct(task)).reward == 1.0
    assert check_byproduct(task, answer("{1}[H]Cl")).correct
    # [H+] + [Cl-] carries the right atoms but is not the molecule
    ions = check_byproduct(task, answer("[H+] + [Cl-]"))
    assert ions.metrics["balanced"] == 1.0 and ions.reward == 0.0 and ions.reason == "wrong_species"
    too_many = check_byproduct(task, answer("2 Cl"))
    assert too_many.reason == "wrong_count" and too_many.metrics["diagnostics"]["element_delta"] == {"Cl": 1, "H": 1}
    assert too_many.metrics["exceeding"] == 1.0
    formula = Task(
        id="b2", family="stoich.byproduct", prompt=[], ground_truth={"byproducts": {"H2O": 2}},
        meta={"encoding": "formula", "reaction": {"reactants": {"C2H6O": 2}, "products": {"C4H10O": 1, "H2O": 1}}},
    )
    with pytest.raises(TaskFormatError):  # 2 ethanol -> ether + H2O releases one water, not two
        validate_task(formula)
    shown = Task(
        id="b3", family="stoich.byproduct", prompt=[], ground_truth={"byproducts": {"H2O": 1}},
        meta={"encoding": "formula", "reaction": {"reactants": {"C2H6O": 2}, "products": {"C4H10O": 1}}},
    )
    validate_task(shown)  # the reaction as shown, without its byproduct
    shown.ground_truth["byproducts"] = {"H2O": 2}
    with pytest.raises(TaskFormatError):
        validate_task(shown)
    assert check_byproduct(formula, answer("2 H2O")).correct  # the checker itself trusts the ground truth


def test_broken_task_records_raise():
    with pytest.raises(TaskFormatError):
        check_products(products_task({"CO2": 1}, {}), answer("CO2"))
    with pytest.raises(TaskFormatError):
        check_products(products_task({"CO2": 1}, {"Xx": 1}), answer("CO2"))
    with pytest.raises(TaskFormatError):
        check_products(products_task({"CO2": 1}, {"CO2": 0}), answer("CO2"))
    with pytest.raises(TaskFormatError):
        check_products(products_task({"CO2": 1}, {"CO2": "many"}), answer("CO2"))
    no_inputs = products_task({"CO2": 1}, {"CO2": 1})
    no_inputs.meta.pop("inputs")
    with pytest.raises(TaskFormatError):
        check_products(no_inputs, answer("CO2"))
    bad_encoding = products_task({"CO2": 1}, {"CO2": 1}, encoding="inchi")
    with pytest.raises(TaskFormatError):
        check_products(bad_encoding, answer("CO2"))
    unconserved = products_task({"CO2": 1}, {"CO": 1})
    check_products(unconserved, answer("CO"))  # checking still works ...
    with pytest.raises(TaskFormatError):  # ... but loading validation rejects the record
        validate_task(unconserved)
    with pytest.raises(TaskFormatError):
        check_byproduct(Task(id="x", family="stoich.byproduct", prompt=[], ground_truth={}, meta={}), "")
    with pytest.raises(TaskFormatError):
        oracle_products({"id": "x", "family": "stoich.t1", "prompt": [], "ground_truth": {}})  # no meta


def test_unknown_reward_mode_is_a_configuration_error():
    with pytest.raises(ValueError, match="reward mode"):
        check_products(SABATIER_T2, answer("CH4"), reward="bleu")


def test_task_given_as_dict_and_json_round_trip():
    record = json.loads(SABATIER_T2.to_json())
    assert check_products(record, oracle_products(record)).correct


SPECIES_POOL = {
    "formula": ["H2O", "CO2", "CH4", "ClH", "Ni", "C2H6O", "Cl-", "Na+", "C6H12O", "C8H10", "C14H22O", "Fe+3"],
    "smiles": ["O", "O=C=O", "C", "Cl", "[Ni]", "CCO", "[Cl-]", "[Na+]", EPOXIDE, XYLENE, ALCOHOL, "[Fe+3]"],
}
SMILES_SPELLINGS = {"CCO": "OCC", XYLENE: "c1c(C)cccc1C", "O=C=O": "C(=O)=O", "O": "[H]O[H]"}


@settings(max_examples=60, deadline=None)
@given(
    encoding=st.sampled_from(["formula", "smiles"]),
    picks=st.lists(st.tuples(st.integers(0, 11), st.integers(1, 10)), min_size=1, max_size=6, unique_by=lambda p: p[0]),
    order=st.randoms(use_true_random=False),
    bump=st.integers(0, 5),
)
def test_random_bags_oracle_rewrites_and_perturbations(encoding, picks, order, bump):
    products = {SPECIES_POOL[encoding][i]: k for i, k in picks}
    task = products_task(dict(products), products, encoding=encoding)  # a bag that conserves itself
    assert check_products(task, oracle_products(task)).reward == 1.0
    terms = list(products.items())
    order.shuffle(terms)
    if encoding == "smiles":
        terms = [(SMILES_SPELLINGS.get(s, s), k) for s, k in terms]
    plain = " + ".join(f"{k} {s}" for s, k in terms)
    assert check_products(task, answer(plain)).correct
    species, k = terms[bump % len(terms)]
    perturbed = " + ".join(f"{kk + (1 if s == species else 0)} {s}" for s, kk in terms)
    verdict = check_products(task, answer(perturbed), reward="f1")
    assert verdict.reason == "wrong_count" and not verdict.correct
    total = sum(products.values())
    assert verdict.reward == pytest.approx(2 * total / (2 * total + 1))  # TP total, FP 1, FN 0
    assert verdict.metrics["diagnostics"]["wrong_coefficient"] == [species]
    assert verdict.metrics["exceeding"] == 1.0 and verdict.metrics["balanced"] == 0.0
