"""One declared primary test per claim, with its direction and power; a declared secondary family read after
Holm's correction; every other test exploratory; tuning splits never tested."""
from __future__ import annotations

import pytest

from rlvr.quickstart.claims import PrimaryTest, TestOutcome, declared_tests, is_tuning_split, render_claims


def _test(ref, treated, gained, lost, p, reward_p=0.5):
    return {"reference": ref, "treated": treated, "gained": gained, "lost": lost, "p_value": p, "better": gained + 1,
            "worse": lost, "reward_diff": 0.01, "reward_p_value": reward_p}


def _row(*tests, n=100):
    return {"n": n, "stages": {}, "tests": {f"{t['reference']}->{t['treated']}": t for t in tests}}


def test_the_recipe_declares_the_primary_test_and_bad_fields_are_one_line_errors():
    assert PrimaryTest.from_recipe(None, has_warm_start=True) == PrimaryTest("warm", "rl", "test_in", "mcnemar", 0.05)
    assert PrimaryTest.from_recipe(None, has_warm_start=False).reference == "base"
    assert PrimaryTest.from_recipe(None, arms=["rl", "control", "rft"], has_warm_start=True).reference == "control"
    assert PrimaryTest.from_recipe(None, has_warm_start=True, default_split="hard").split == "hard"
    assert PrimaryTest.from_recipe({"split": "test_out"}, has_warm_start=True, default_split="hard").split == "test_out"
    # the older spelling of a pair
    legacy = PrimaryTest.from_recipe({"stage": "rl_vs_control"}, arms=["rl", "control"], has_warm_start=True)
    assert (legacy.reference, legacy.treated, legacy.key) == ("control", "rl", "control->rl")
    assert PrimaryTest.from_recipe({"stage": "base", "split": "hard"}, has_warm_start=True).group == "hard"
    # YAML reads 5e-2 as text: the level is a number once read
    assert PrimaryTest.from_recipe({"alpha": "5e-2"}, has_warm_start=True).alpha == 0.05
    for bad, match in [({"stage": "sft"}, "stage"), ({"test": "t"}, "test"), ({"alpha": 1.5}, "alpha"),
                       ({"alpha": "five percent"}, "must be a number"), ({"split": "valid"}, "tuning split"),
                       ({"side": 1}, "unknown key"), ("rl", "mapping"), ({"reference": "rft"}, "reference must be"),
                       ({"treated": "control"}, "treated must be one of the run's arms")]:
        with pytest.raises(ValueError, match=match):
            PrimaryTest.from_recipe(bad, has_warm_start=True)
    with pytest.raises(ValueError, match="warm start"):
        PrimaryTest.from_recipe({"stage": "rl"}, has_warm_start=False)


def test_tuning_splits():
    assert is_tuning_split("valid") and is_tuning_split("valid_cross") and is_tuning_split("train")
    assert not is_tuning_split("in") and not is_tuning_split("hard") and not is_tuning_split("test_out")


def _three_arm_splits():
    def split(ctrl_p, rft_p):
        return _row(_test("base", "rl", 60, 0, 1e-9), _test("warm", "rl", 9, 1, 0.02),
                    _test("control", "rl", 14, 3, ctrl_p), _test("rft", "rl", 8, 4, rft_p),
                    _test("warm", "control", 5, 5, 1.0))
    return {"in": split(0.012, 0.39), "out": split(0.004, 0.03), "valid": split(0.001, 0.001)}


def test_the_primary_is_read_alone_the_declared_family_is_holm_corrected_and_the_rest_is_exploratory():
    primary = PrimaryTest(reference="control", treated="rl")
    measured = [TestOutcome("warm->rl/retention", "warm", "rl", "mcnemar", "retention", 100, 2, 9, 0.065)]
    claims = declared_tests(_three_arm_splits(), primary, measured).to_dict()
    p = claims["primary"]
    assert (p["up"], p["down"], p["n"], p["p_value"], p["significant"], p["ahead"]) == (14, 3, 100, 0.012, True, "rl")
    assert p["arms"] == ["control", "rl"] and p["power"]["discordance"] == pytest.approx(0.17)
    sec = {s["name"]: s for s in claims["secondary"]}
    # the declared family: the measurement, RFT -> RL on every claim split, the primary pair on the other split
    assert set(sec) == {"warm->rl/retention", "rft->rl/mcnemar/in", "control->rl/mcnemar/out", "rft->rl/mcnemar/out"}
    # Holm by hand: 0.004, 0.03, 0.065, 0.39 -> x4, x3, x2, x1 (running max)
    assert sec["control->rl/mcnemar/out"]["p_holm"] == pytest.approx(0.016)
    assert sec["rft->rl/mcnemar/out"]["p_holm"] == pytest.approx(0.09)
    assert sec["warm->rl/retention"]["p_holm"] == pytest.approx(0.13)
    assert sec["rft->rl/mcnemar/in"]["p_holm"] == pytest.approx(0.39)
    assert sec["warm->rl/retention"]["ahead"] == "warm"
    explore = {s["name"] for s in claims["exploratory"]}
    assert {"base->rl/mcnemar/in", "warm->rl/mcnemar/out", "control->rl/wilcoxon/in", "warm->control/mcnemar/in"} <= explore
    assert not any(s["split"] == "valid" for s in claims["secondary"] + claims["exploratory"])
    assert claims["tuning"] == ["valid"]


def test_the_report_names_the_arm_ahead_and_the_power():
    splits = {"in": _row(_test("control", "rl", 2, 17, 0.0007))}
    lines = render_claims(declared_tests(splits, PrimaryTest(reference="control", treated="rl")))
    assert lines[0].startswith("PRIMARY TEST (declared in the recipe): exact McNemar on exact match, SFT control -> RL on test_in")
    assert "+2 / -17 of 100" in lines[0] and "significant at alpha 0.05 (SFT control ahead by 15 tasks)" in lines[0]
    assert lines[1].startswith("  power: 19 % of the 100 tasks are discordant; at 80 % power these tasks detect a difference")
    win = render_claims(declared_tests({"in": _row(_test("control", "rl", 17, 2, 0.0007))}, PrimaryTest("control")))
    assert "(RL ahead by 15 tasks)" in win[0]
    tie = render_claims(declared_tests({"in": _row(_test("control", "rl", 3, 3, 1.0))}, PrimaryTest("control")))
    assert "not significant at alpha 0.05 (a tie)" in tie[0]


def test_a_secondary_p_of_zero_stays_zero():
    splits = {"in": _row(_test("warm", "rl", 9, 1, 0.02)), "out": _row(_test("warm", "rl", 90, 0, 0.0))}
    claims = declared_tests(splits, PrimaryTest())
    (out,) = claims.secondary
    assert out.p_holm == 0.0 and "warm->rl/mcnemar/out p_holm = 0, RL ahead" in render_claims(claims)[2]


def test_a_run_without_the_primary_split_claims_nothing():
    claims = declared_tests({"valid": _row(_test("warm", "rl", 9, 1, 0.001))}, PrimaryTest())
    assert claims.primary is None and claims.secondary == () and claims.exploratory == ()
    assert render_claims(claims) == ["primary test: its split was not scored in this run"]


def test_the_report_reads_the_secondaries_at_the_declared_alpha():
    splits = {"in": _row(_test("warm", "rl", 9, 1, 0.03)), "out": _row(_test("warm", "rl", 9, 0, 0.004))}
    strict = render_claims(declared_tests(splits, PrimaryTest(alpha=0.001)))
    assert "at alpha 0.001" in strict[0] and "none below 0.001" in strict[2]
    loose = render_claims(declared_tests(splits, PrimaryTest(alpha=0.01)))
    assert "warm->rl/mcnemar/out p_holm = 0.004" in loose[2]
