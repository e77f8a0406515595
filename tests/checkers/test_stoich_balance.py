"""stoich.balance checker: textbook equations in every notation, judged by conservation and minimality."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlvr.chem.notation import format_plain
from rlvr.checkers.stoich import (
    FORMAT_CREDIT,
    SHAPED_NOT_MINIMAL,
    SHAPED_UNBALANCED_MAX,
    check_balance,
    oracle_balance,
    validate_task,
)
from rlvr.task import Task, TaskFormatError


def balance_task(reactants, products, coefficients, encoding="formula") -> Task:
    return Task(
        id="stoich.balance:test:0:0:hand",
        family="stoich.balance",
        prompt=[{"role": "user", "content": "Balance: " + " + ".join(reactants) + " -> " + " + ".join(products)}],
        ground_truth={"reactants": list(reactants), "products": list(products), "coefficients": list(coefficients)},
        meta={"encoding": encoding},
    )


def answer(text: str) -> str:
    return f"<think>count each element</think><answer>{text}</answer>"


PERMANGANATE = balance_task(["KMnO4", "HCl"], ["KCl", "MnCl2", "H2O", "Cl2"], [2, 16, 2, 2, 8, 5])
DICHROMATE = balance_task(["Cr2O7-2", "Fe+2", "H+"], ["Cr+3", "Fe+3", "H2O"], [1, 6, 14, 2, 6, 7])
DICHROMATE_SMILES = balance_task(
    ["[O-][Cr](=O)(=O)O[Cr](=O)(=O)[O-]", "[Fe+2]", "[H+]"], ["[Cr+3]", "[Fe+3]", "O"], [1, 6, 14, 2, 6, 7], "smiles"
)
ETHANOL_SMILES = balance_task(["CCO", "O=O"], ["O=C=O", "O"], [1, 3, 2, 3], "smiles")
WATER = balance_task(["H2", "O2"], ["H2O"], [2, 1, 2])


@pytest.mark.parametrize("task", [PERMANGANATE, DICHROMATE, DICHROMATE_SMILES, ETHANOL_SMILES, WATER])
def test_oracle_scores_one_and_records_validate(task):
    validate_task(task)
    verdict = check_balance(task, oracle_balance(task))
    assert verdict.correct and verdict.reward == 1.0 and verdict.reason == "ok"
    assert verdict.metrics["balanced"] == 1.0 and verdict.metrics["diagnostics"]["imbalance"] == {}


@pytest.mark.parametrize(
    "text",
    [
        "{2}KMnO4.{16}HCl>>{2}KCl.{2}MnCl2.{8}H2O.{5}Cl2",
        "2 KMnO4 + 16 HCl -> 2 KCl + 2 MnCl2 + 8 H2O + 5 Cl2",
        "2 KMnO4 + 16 HCl → 2 KCl + 2 MnCl2 + 8 H2O + 5 Cl2",
        "2 KMnO4 + 16 HCl = 2 KCl + 2 MnCl2 + 8 H2O + 5 Cl2",
        "16 HCl + 2 KMnO4 -> 5 Cl2 + 8 H2O + 2 MnCl2 + 2 KCl",  # any order within a side
        "2 MnO4K + 16 ClH -> 2 ClK + 2 Cl2Mn + 8 OH2 + 5 Cl2",  # identity, not spelling
        "2, 16, 2, 2, 8, 5",
        "[2,16,2,2,8,5]",
        "2 16 2 2 8 5",
        "2:16:2:2:8:5.",
        '{"KMnO4": 2, "HCl": 16, "KCl": 2, "MnCl2": 2, "H2O": 8, "Cl2": 5}',
    ],
)
def test_permanganate_in_every_notation(text):
    verdict = check_balance(PERMANGANATE, answer(text))
    assert verdict.correct and verdict.reward == 1.0, (text, verdict)


@pytest.mark.parametrize(
    "text",
    [
        "Cr2O7-2 + 6 Fe+2 + 14 H+ -> 2 Cr+3 + 6 Fe+3 + 7 H2O",
        "Cr2O7^2- + 6 Fe^2+ + 14 H^+ -> 2 Cr^3+ + 6 Fe^3+ + 7 H2O",
        "{1}Cr2O7-2.{6}Fe+2.{14}H+>>{2}Cr+3.{6}Fe+3.{7}H2O",
        "1, 6, 14, 2, 6, 7",
    ],
)
def test_dichromate_with_charges(text):
    assert check_balance(DICHROMATE, answer(text)).correct


def test_dichromate_smiles_and_charge_diagnostics():
    text = "[O-][Cr](=O)(=O)O[Cr](=O)(=O)[O-] + 6 [Fe+2] + 14 [H+] >> 2 [Cr+3] + 6 [Fe+3] + 7 O"
    assert check_balance(DICHROMATE_SMILES, answer(text)).correct
    # five iron on each side: every element balances but the charge does not (22 left, 21 right)
    verdict = check_balance(DICHROMATE, answer("1, 5, 14, 2, 5, 7"), reward="shaped")
    assert verdict.reason == "unbalanced"
    assert verdict.metrics["diagnostics"]["imbalance"] == {"charge": -1}
    assert verdict.metrics["diagnostics"]["n_rows"] == 5  # Cr, Fe, H, O and the charge
    assert verdict.metrics["diagnostics"]["n_rows_balanced"] == 4
    assert verdict.reward == pytest.approx(SHAPED_UNBALANCED_MAX * 4 / 5)


def test_smiles_species_matched_by_identity():
    assert check_balance(ETHANOL_SMILES, answer("OCC + 3 O=O -> 2 C(=O)=O + 3 [H]O[H]")).correct
    assert check_balance(ETHANOL_SMILES, answer("{1}CCO.{3}O=O>>{2}O=C=O.{3}O")).correct
    ether = check_balance(ETHANOL_SMILES, answer("COC + 3 O=O -> 2 O=C=O + 3 O"))
    assert ether.reason == "species_mismatch" and ether.reward == 0.0


def test_non_minimal_and_unbalanced_rejected():
    doubled = check_balance(WATER, answer("4, 2, 4"))
    assert doubled.reason == "not_minimal" and doubled.reward == 0.0 and not doubled.correct
    assert doubled.metrics["balanced"] == 1.0 and doubled.metrics["minimal"] == 0.0
    assert check_balance(WATER, answer("4 H2 + 2 O2 -> 4 H2O"), reward="shaped").reward == SHAPED_NOT_MINIMAL
    ones = check_balance(WATER, answer("H2 + O2 -> H2O"))
    assert ones.reason == "unbalanced" and ones.reward == 0.0
    assert ones.metrics["diagnostics"]["imbalance"] == {"O": -1}
    assert ones.metrics["deficitary"] == 1.0 and ones.metrics["exceeding"] == 0.0
    shaped = check_balance(WATER, answer("H2 + O2 -> H2O"), reward="shaped")
    assert shaped.reward == pytest.approx(SHAPED_UNBALANCED_MAX * 1 / 2)  # H balanced, O not
    permuted = check_balance(PERMANGANATE, answer("16, 2, 2, 2, 8, 5"))
    assert permuted.reason == "wrong_order" and permuted.reward == 0.0


def test_zero_coefficients_never_count_as_balanced():
    zeros = check_balance(WATER, answer("0, 0, 0"), reward="shaped")
    assert zeros.reason == "not_positive" and zeros.reward == 0.0 and not zeros.correct
    partial = check_balance(WATER, answer("{0}H2.{0}O2>>{0}H2O"), reward="em+format")
    assert partial.reason == "not_positive" and partial.reward == FORMAT_CREDIT


def test_shaped_and_format_rewards_stay_below_one():
    for text in ("4, 2, 4", "1, 1, 1", "2, 2, 2", "1, 2, 1", "2, 1, 3"):
        for mode in ("shaped", "f1", "jaccard", "em+format"):
            verdict = check_balance(WATER, answer(text), reward=mode)
            assert 0.0 <= verdict.reward < 1.0 and not verdict.correct, (text, mode)


def test_non_unique_solution_space_judged_by_conservation():
    # H2 + O2 -> H2O + H2O2 mixes two independent reactions: any balanced, minimal, positive answer is right
    task = balance_task(["H2", "O2"], ["H2O", "H2O2"], [3, 2, 2, 1])
    validate_task(task)
    assert check_balance(task, answer("3, 2, 2, 1")).correct
    other = check_balance(task, answer("4 H2 + 3 O2 -> 2 H2O + 2 H2O2"))
    assert other.correct and other.reward == 1.0
    assert other.metrics["f1"] < 1.0  # differs from the stored coefficients, which only the overlap metric sees
    assert check_balance(task, answer("6, 4, 4, 2")).reason == "not_minimal"


def test_species_mismatch_and_wrong_length():
    missing = check_balance(WATER, answer("2 H2 -> 2 H2O"))
    assert missing.reason == "species_mismatch" and missing.metrics["diagnostics"]["n_missing"] == 1
    extra = check_balance(WATER, answer("2 H2 + O2 + N2 -> 2 H2O + N2"))
    assert extra.reason == "species_mismatch" and extra.metrics["diagnostics"]["n_unknown"] == 2
    reversed_ = check_balance(WATER, answer("2 H2O -> 2 H2 + O2"))
    assert reversed_.reason == "species_mismatch" and reversed_.metrics["diagnostics"]["n_wrong_side"] == 3
    assert check_balance(WATER, answer("2, 1")).reason == "wrong_length"
    assert check_balance(WATER, answer("2, 1, 2, 1")).reason == "wrong_length"
    assert check_balance(WATER, answer("2 Hh + O2 -> 2 H2O")).reason == "invalid_species"
    assert check_balance(WATER, answer("2 H2 + O2")).reason == "unparsable"
    assert check_balance(WATER, answer("two, one, two")).reason == "unparsable"
    assert check_balance(WATER, answer("[2, -1, 2]")).reason == "unparsable"


def test_plain_notation_round_trip_of_the_ground_truth():
    gt = PERMANGANATE.ground_truth
    k = gt["coefficients"]
    left = format_plain(list(zip(gt["reactants"], k[:2])))
    right = format_plain(list(zip(gt["products"], k[2:])))
    assert check_balance(PERMANGANATE, answer(f"{left} -> {right}")).correct


def test_broken_balance_records_raise():
    for gt in (
        {"reactants": ["H2", "O2"], "products": ["H2O"]},
        {"reactants": ["H2", "O2"], "products": ["H2O"], "coefficients": [2, 1]},
        {"reactants": ["H2", "Qq"], "products": ["H2O"], "coefficients": [2, 1, 2]},
        {"reactants": "H2 + O2", "products": ["H2O"], "coefficients": [2, 1, 2]},
        {"reactants": ["H2", "O2"], "products": ["H2O"], "coefficients": [2, 1, True]},
        {"reactants": ["H2", "HH"], "products": ["H2O"], "coefficients": [2, 1, 2]},  # same species twice
    ):
        task = balance_task(["H2"], ["H2"], [1, 1])
        task.ground_truth = gt
        with pytest.raises(TaskFormatError):
            check_balance(task, answer("2, 1, 2"))
    with pytest.raises(TaskFormatError):
        validate_task(balance_task(["H2", "O2"], ["H2O"], [1, 1, 1]))  # unbalanced ground truth
    with pytest.raises(TaskFormatError):
        validate_task(balance_task(["H2", "O2"], ["H2O"], [4, 2, 4]))  # not minimal


def test_verdict_is_json_serialisable():
    verdict = check_balance(DICHROMATE, answer("1, 5, 14, 2, 5, 7"))
    assert json.loads(json.dumps(verdict.to_dict()))["reason"] == "unbalanced"


TEXTBOOK = [PERMANGANATE, DICHROMATE, DICHROMATE_SMILES, ETHANOL_SMILES, WATER,
            balance_task(["C3H8", "O2"], ["CO2", "H2O"], [1, 5, 3, 4]),
            balance_task(["Ca3(PO4)2", "SiO2", "C"], ["CaSiO3", "P4", "CO"], [2, 6, 10, 6, 1, 10]),
            balance_task(["K4[Fe(CN)6]", "H2SO4", "H2O"], ["K2SO4", "FeSO4", "(NH4)2SO4", "CO"], [1, 6, 6, 2, 1, 3, 6])]


@settings(max_examples=60, deadline=None)
@given(which=st.integers(0, len(TEXTBOOK) - 1), factor=st.integers(2, 40), pos=st.integers(0, 6), delta=st.integers(1, 9))
def test_scaled_and_perturbed_coefficients(which, factor, pos, delta):
    task = TEXTBOOK[which]
    validate_task(task)
    k = task.ground_truth["coefficients"]
    assert check_balance(task, answer(", ".join(map(str, k)))).correct
    scaled = check_balance(task, answer(", ".join(str(x * factor) for x in k)))
    assert scaled.reason == "not_minimal" and scaled.reward == 0.0
    bumped = list(k)
    bumped[pos % len(k)] += delta  # off the one-dimensional solution line: never balanced
    verdict = check_balance(task, answer(", ".join(map(str, bumped))), reward="shaped")
    assert verdict.reason in ("unbalanced", "wrong_order") and verdict.metrics["balanced"] == 0.0
    assert verdict.reward < SHAPED_UNBALANCED_MAX + 1e-12
    assert verdict.metrics["diagnostics"]["imbalance"]
