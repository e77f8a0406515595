"""Malformed and adversarial completions: zero reward with a reason, never an exception, bounded time."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr.checkers.stoich import METRIC_KEYS, check_balance, check_byproduct, check_products
from rlvr.task import Task

T2_FORMULA = Task(
    id="t2f", family="stoich.t2", prompt=[{"role": "user", "content": "q"}],
    ground_truth={"products": {"CH4": 1, "H2O": 2, "Ni": 3, "CO2": 2}},
    meta={"encoding": "formula", "inputs": {"CO2": 3, "H2": 4, "Ni": 3}},
)
T2_SMILES = Task(
    id="t2s", family="stoich.t2", prompt=[{"role": "user", "content": "q"}],
    ground_truth={"products": {"C": 1, "O": 2, "[Ni]": 3, "O=C=O": 2}},
    meta={"encoding": "smiles", "inputs": {"O=C=O": 3, "[H][H]": 4, "[Ni]": 3}},
)
BALANCE = Task(
    id="bal", family="stoich.balance", prompt=[{"role": "user", "content": "q"}],
    ground_truth={"reactants": ["KMnO4", "HCl"], "products": ["KCl", "MnCl2", "H2O", "Cl2"],
                  "coefficients": [2, 16, 2, 2, 8, 5]},
    meta={"encoding": "formula"},
)
BYPRODUCT = Task(
    id="byp", family="stoich.byproduct", prompt=[{"role": "user", "content": "q"}],
    ground_truth={"byproducts": {"Cl": 1}}, meta={"encoding": "smiles"},
)
CHECKS = [
    (check_products, T2_FORMULA),
    (check_products, T2_SMILES),
    (check_balance, BALANCE),
    (check_byproduct, BYPRODUCT),
]


def tag(text: str) -> str:
    return f"<answer>{text}</answer>"


ADVERSARIAL = {
    "none": None,
    "int": 12,
    "float": 3.5,
    "bytes": b"<answer>CH4</answer>",
    "object": object(),
    "empty_list": [],
    "bad_message": {"role": "assistant", "content": 5},
    "empty": "",
    "empty_tag": tag(""),
    "whitespace_tag": tag(" \n\t "),
    "huge": "x" * 300_000,
    "huge_answer": tag("H2O + " * 2_000),
    "10k_terms": tag(" + ".join(["H2O"] * 10_000)),
    "500_terms": tag(",".join(["O"] * 500)),
    "10k_terms_stoich": tag(".".join("{1}O" for _ in range(10_000))),
    "invalid_smiles": tag("C1CC( + [Xx] + c1ccc1 + C(C)(C)(C)(C)C"),
    "nested_tags": "<answer><answer>CH4</answer></answer>",
    "unclosed": "<answer>CH4 + 2 H2O",
    "unclosed_think": "<think>" + tag("CH4"),
    "unicode": tag("CH₄ + 2 H₂O + ３ Ni + ２ CO₂ → ✓ 水"),
    "huge_coefficient": tag("{999999999999}H2O"),
    "huge_json_coefficient": tag('{"H2O": 1' + "0" * 5000 + "}"),
    "float_json": tag('{"H2O": 1.5, "CH4": NaN}'),
    "deep_json": tag("[" * 3000 + "]" * 3000),
    "deep_json_object": tag('{"a":' * 1500 + "1" + "}" * 1500),
    "json_list_of_junk": tag('[{"a": 1}, null, "x"]'),
    "zero": tag("{0}CH4"),
    "negative": tag("-2 CH4 + H2O"),
    "brackets": tag("(((((((((((((((((((((((((((((((((((((((H)9999)9999)9999)9999)9999)9999)))))))))))))))))))))))))))))))))"),
    "nested_groups": tag("(" * 200 + "H" + ")9999" * 200),
    "long_species": tag("C" * 7_000),
    "long_smiles_rings": tag("C1" * 500 + "C1" * 500),
    "blank_runs": tag("H2O" + " " * 7_900 + "CH4"),
    "tab_runs": tag("2" + "\t" * 7_900 + "H2O"),
    "arrows": tag("->" * 3_000),
    "many_dots": tag("." * 7_900),
    "many_braces": tag("{" * 7_900),
    "control_chars": tag("CH4\x00\x01\x02 + H2O\u202e"),
    "code_fence_only": tag("```"),
    "many_answer_tags": "<answer>" * 20_000 + "</answer>" * 20_000,
    "think_spam": "</think>" * 10_000 + tag("CH4"),
    "colons": tag("2:" * 3_000),
    "commas": tag("," * 7_900),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
@pytest.mark.parametrize("check,task", CHECKS, ids=["t2-formula", "t2-smiles", "balance", "byproduct"])
def test_adversarial_completion_is_zero_with_reason_and_fast(check, task, name, cpu_seconds):
    completion = ADVERSARIAL[name]
    verdict, elapsed = cpu_seconds(check, task, completion)
    assert elapsed < 0.1, f"{name}: {elapsed * 1000:.1f} ms"
    assert verdict.reward == 0.0 and not verdict.correct
    assert verdict.reason not in ("ok", "")
    assert set(METRIC_KEYS) <= set(verdict.metrics)
    for mode in ("f1", "jaccard", "em+format", "shaped"):
        shaped = check(task, completion, reward=mode)
        assert 0.0 <= shaped.reward < 1.0


@pytest.mark.parametrize("name", ["none", "int", "huge", "10k_terms", "nested_tags", "empty_tag"])
def test_specific_reasons(name):
    expected = {
        "none": "no_answer", "int": "no_answer", "huge": "too_long", "10k_terms": "too_long",
        "nested_tags": "unparsable", "empty_tag": "unparsable",
    }[name]
    assert check_products(T2_FORMULA, ADVERSARIAL[name]).reason == expected


def test_too_many_terms_within_the_length_cap():
    assert check_products(T2_FORMULA, ADVERSARIAL["500_terms"]).reason == "unparsable"
    assert check_balance(BALANCE, tag(", ".join(["1"] * 500))).reason == "unparsable"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(list("{}[]()<>+-=.,:;#@/\\%0123456789 \nCHONSclnoHe₂→") + ["->", ">>", "Ni", " + "]),
                max_size=120).map("".join))
def test_random_answers_never_raise(body):
    for check, task in CHECKS:
        for mode in ("em", "f1", "em+format"):
            verdict = check(task, tag(body), reward=mode)
            assert 0.0 <= verdict.reward <= 1.0
            assert verdict.correct == (verdict.reason == "ok")
