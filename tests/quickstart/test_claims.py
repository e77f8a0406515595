"""One declared primary test per claim; every other test Holm-corrected; tuning splits never tested."""
from __future__ import annotations

import pytest

from rlvr.quickstart.claims import PrimaryTest, declared_tests, is_tuning_split, render_claims


def _row(p_rl, p_rl_reward, p_base, p_base_reward, n=100):
    return {"n": n, "p_value_rl": p_rl, "gained_rl": 9, "lost_rl": 1, "reward_p_value_rl": p_rl_reward,
            "better_rl": 12, "worse_rl": 4, "p_value": p_base, "gained": 60, "lost": 0,
            "reward_p_value": p_base_reward, "better": 70, "worse": 2}


def test_the_recipe_declares_the_primary_test_and_bad_fields_are_one_line_errors():
    assert PrimaryTest.from_recipe(None, has_warm_start=True) == PrimaryTest("rl", "test_in", "mcnemar", 0.05)
    assert PrimaryTest.from_recipe(None, has_warm_start=False).stage == "base"
    assert PrimaryTest.from_recipe(None, has_warm_start=True, default_split="hard").split == "hard"
    assert PrimaryTest.from_recipe({"split": "test_out"}, has_warm_start=True, default_split="hard").split == "test_out"
    hard = PrimaryTest.from_recipe({"stage": "base", "split": "hard"}, has_warm_start=True)
    assert hard.group == "hard" and PrimaryTest().group == "in"
    for bad, match in [({"stage": "sft"}, "stage"), ({"test": "t"}, "test"), ({"alpha": 1.5}, "alpha"),
                       ({"split": "valid"}, "tuning split"), ({"side": 1}, "unknown key"), ("rl", "mapping")]:
        with pytest.raises(ValueError, match=match):
            PrimaryTest.from_recipe(bad, has_warm_start=True)
    with pytest.raises(ValueError, match="warm start"):
        PrimaryTest.from_recipe({"stage": "rl"}, has_warm_start=False)


def test_tuning_splits():
    assert is_tuning_split("valid") and is_tuning_split("valid_cross") and is_tuning_split("train")
    assert not is_tuning_split("in") and not is_tuning_split("hard") and not is_tuning_split("test_out")


def test_the_primary_is_read_alone_and_the_rest_are_holm_corrected_together():
    splits = {"in": _row(0.03, 0.01, 1e-5, 1e-5), "out": _row(0.5, 0.04, 0.002, 0.3), "valid": _row(0.001, 0.001, 0.001, 0.001)}
    claims = declared_tests(splits, PrimaryTest()).to_dict()
    p = claims["primary"]
    assert (p["up"], p["down"], p["n"], p["p_value"], p["significant"], p["metric"]) == (9, 1, 100, 0.03, True, "exact_match")
    assert p["arms"] == ["warm start", "final"]
    sec = {s["name"]: s for s in claims["secondary"]}
    # 7 secondaries: in (3 left) + out (4); valid is tuning and never tested
    assert set(sec) == {"rl/wilcoxon/in", "base/mcnemar/in", "base/wilcoxon/in",
                        "rl/mcnemar/out", "rl/wilcoxon/out", "base/mcnemar/out", "base/wilcoxon/out"}
    # Holm by hand: sorted 1e-5, 1e-5, 0.002, 0.01, 0.04, 0.3, 0.5 -> x7, x6, x5, x4, x3, x2, x1
    assert sec["base/mcnemar/in"]["p_holm"] == pytest.approx(7e-5)
    assert sec["base/wilcoxon/in"]["p_holm"] == pytest.approx(7e-5)   # running max keeps it monotone
    assert sec["base/mcnemar/out"]["p_holm"] == pytest.approx(0.01)
    assert sec["rl/wilcoxon/in"]["p_holm"] == pytest.approx(0.04)
    assert sec["rl/wilcoxon/out"]["p_holm"] == pytest.approx(0.12)
    assert sec["base/wilcoxon/out"]["p_holm"] == pytest.approx(0.6)
    assert sec["rl/mcnemar/out"]["p_holm"] == pytest.approx(0.6)
    assert claims["tuning"] == ["valid"]
    lines = render_claims(declared_tests(splits, PrimaryTest()))
    assert lines[0].startswith("PRIMARY TEST (declared in the recipe): exact McNemar on exact match, warm start -> final")
    assert "+9 / -1 of 100, p = 0.03 -> significant at alpha 0.05" in lines[0]
    assert "rl/wilcoxon/in p_holm = 0.04" in lines[1] and "rl/wilcoxon/out" not in lines[1]
    assert "tuning splits" in lines[2] and "valid" in lines[2]


def test_a_run_without_the_primary_split_claims_nothing():
    claims = declared_tests({"valid": _row(0.001, 0.001, 0.001, 0.001)}, PrimaryTest())
    assert claims.primary is None and claims.secondary == ()
    assert render_claims(claims) == ["primary test: its split was not scored in this run"]
    # the base -> final stage only, when the run had no warm start: no rl keys in the rows
    row = {k: v for k, v in _row(0.5, 0.5, 0.001, 0.2).items() if not k.endswith("_rl")}
    claims = declared_tests({"hard": row}, PrimaryTest(stage="base", split="hard"))
    assert claims.primary.outcome.p_value == 0.001 and [s.name for s in claims.secondary] == ["base/wilcoxon/hard"]


def _control(p, reward_p, up=14, down=3):
    return {"p_value_vs_control": p, "gained_vs_control": up, "lost_vs_control": down,
            "reward_p_value_vs_control": reward_p, "better_vs_control": up + 1, "worse_vs_control": down}


def test_rl_against_the_control_names_both_arms_and_the_rest_joins_holm():
    assert PrimaryTest.from_recipe(None, has_warm_start=True, has_control=True).stage == "rl_vs_control"
    with pytest.raises(ValueError, match="control arm"):
        PrimaryTest.from_recipe({"stage": "rl_vs_control"}, has_warm_start=True, has_control=False)
    splits = {"in": {**_row(0.03, 0.01, 1e-5, 1e-5), **_control(0.012, 0.2)}, "out": _row(0.5, 0.04, 0.002, 0.3)}
    versus = {"final": {"up": 30, "down": 10, "p": 0.002, "n": 150}, "base": {"up": 0, "down": 60, "p": 1e-18, "n": 150}}
    claims = declared_tests(splits, PrimaryTest(stage="rl_vs_control", split="test_in"), versus)
    p = claims.to_dict()["primary"]
    assert (p["stage"], p["arms"], p["up"], p["down"], p["p_value"], p["significant"]) == (
        "rl_vs_control", ["control", "final"], 14, 3, 0.012, True)
    names = [s.name for s in claims.secondary]
    # the rest of the in split (5), out (4), and both stages against the most common answer (2): 11 in one family
    assert len(names) == 11 and "rl_vs_control/mcnemar/in" not in names and "rl/mcnemar/in" in names
    assert {"rl_vs_control/wilcoxon/in", "constant/sign/final", "constant/sign/base"} <= set(names)
    const = next(s for s in claims.secondary if s.name == "constant/sign/final")
    assert (const.up, const.down, const.n) == (30, 10, 150) and const.p_holm >= const.p_value


def test_the_report_reads_the_secondaries_at_the_declared_alpha():
    splits = {"in": _row(0.03, 0.01, 1e-5, 0.02), "out": _row(0.5, 0.5, 0.5, 0.5)}
    strict = render_claims(declared_tests(splits, PrimaryTest(alpha=0.001)))
    assert "at alpha 0.001" in strict[0] and "base/mcnemar/in" in strict[1] and "base/wilcoxon/in" not in strict[1]
    loose = render_claims(declared_tests(splits, PrimaryTest(alpha=0.2)))
    assert "base/wilcoxon/in" in loose[1]
