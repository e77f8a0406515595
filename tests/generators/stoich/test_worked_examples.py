"""The paper's worked examples, reproduced by the builders from hand-given reference reactions."""
from __future__ import annotations

import pytest

import rlvr
from rlvr.chem.notation import format_bag
from rlvr.generators.stoich.reaction import make_view
from rlvr.generators.stoich.builders import (
    build_balance_task,
    build_byproduct_task,
    build_products_task,
    reference_equation,
    type1_bags,
    type2_bags,
)
from rlvr.generators.stoich.configs import ProductsConfig

SABATIER = {
    "formula": dict(reactants={"CO2": 1, "H2": 4}, products={"CH4": 1, "H2O": 2}, reagents={"Ni": 1}),
    "smiles": dict(reactants={"O=C=O": 1, "[H][H]": 4}, products={"C": 1, "O": 2}, reagents={"[Ni]": 1}),
}


def sabatier(encoding: str):
    view = make_view(**SABATIER[encoding], encoding=encoding, byproducts=["H2O" if encoding == "formula" else "O"])
    assert view is not None
    return view


def test_reference_equation_matches_eq_6_and_7():
    # eq. (7): {1}CO2.{4}H2.{1}Ni>{1}CH4.{2}H2O.{1}Ni (species sorted by key here)
    assert reference_equation(sabatier("formula")) == "{1}CO2.{4}H2.{1}Ni >> {1}CH4.{2}H2O.{1}Ni"
    # eq. (6) in canonical SMILES
    assert reference_equation(sabatier("smiles")) == "{1}O=C=O.{4}[H][H].{1}[Ni] >> {1}C.{2}O.{1}[Ni]"


@pytest.mark.parametrize("encoding", ["formula", "smiles"])
def test_sabatier_type1_times_two(encoding):
    """Eq. (4): 2 CO2 + 8 H2 + 2 Ni -> 2 CH4 + 4 H2O + 2 Ni."""
    view = sabatier(encoding)
    inputs, outputs = type1_bags(view, 2)
    if encoding == "formula":
        assert inputs == {"CO2": 2, "H2": 8, "Ni": 2}
        assert outputs == {"CH4": 2, "H2O": 4, "Ni": 2}
    else:
        assert inputs == {"O=C=O": 2, "[H][H]": 8, "[Ni]": 2}
        assert outputs == {"C": 2, "O": 4, "[Ni]": 2}
    task = build_products_task("stoich.t1", view, k=2, config=ProductsConfig(encoding=encoding))
    assert task.ground_truth == {"products": outputs}
    assert task.meta["inputs"] == inputs
    assert format_bag(inputs) in task.user_text
    assert rlvr.verify(task, rlvr.oracle_completion(task)).reward == 1.0
    # copying the input bag is atom-balanced but wrong
    copy = rlvr.verify(task, f"<answer>{format_bag(inputs)}</answer>")
    assert copy.reward == 0.0 and copy.metrics["balanced"] == 1.0


@pytest.mark.parametrize("semantics", ["limiting", "paper"])
def test_sabatier_type2_equation_5(semantics):
    """Eq. (5): 3 CO2 + 4 H2 + 3 Ni -> CH4 + 2 H2O + 3 Ni + 2 CO2, in both semantics."""
    view = sabatier("formula")
    ks = {"CO2": 3, "H2": 1, "Ni": 3, "CH4": 1, "H2O": 1}
    inputs, outputs, runs = type2_bags(view, ks, semantics)
    assert inputs == {"CO2": 3, "H2": 4, "Ni": 3}
    assert outputs == {"CH4": 1, "H2O": 2, "Ni": 3, "CO2": 2}
    assert runs == 1
    task = build_products_task("stoich.t2", view, ks=ks, config=ProductsConfig(semantics=semantics))
    assert task.ground_truth["products"] == outputs
    assert rlvr.verify(task, rlvr.oracle_completion(task)).reward == 1.0
    assert rlvr.verify(task, "<answer>{1}CH4.{2}H2O.{3}Ni.{2}CO2</answer>").correct
    assert not rlvr.verify(task, "<answer>{1}CH4.{2}H2O.{3}Ni</answer>").correct


def test_type2_semantics_differ_when_a_product_sets_k_hat():
    """Appendix C's k_hat can come from a product the model never sees: the two semantics then differ."""
    view = sabatier("formula")
    ks = {"CO2": 3, "H2": 3, "Ni": 2, "CH4": 1, "H2O": 4}  # k_hat = 1 from CH4, reactants allow 3 runs
    inputs_l, out_limiting, runs_l = type2_bags(view, ks, "limiting")
    inputs_p, out_paper, runs_p = type2_bags(view, ks, "paper")
    assert inputs_l == inputs_p == {"CO2": 3, "H2": 12, "Ni": 2, "H2O": 6}
    assert runs_l == 3 and out_limiting == {"CH4": 3, "H2O": 12, "Ni": 2}
    assert runs_p == 1 and out_paper == {"CH4": 1, "H2O": 8, "Ni": 2, "CO2": 2, "H2": 8}
    for out in (out_limiting, out_paper):  # both conserve atoms
        task = build_products_task("stoich.t2", view, ks=ks, config=ProductsConfig(
            semantics="limiting" if out is out_limiting else "paper"))
        assert task.ground_truth["products"] == out


@pytest.mark.parametrize("encoding", ["formula", "smiles"])
def test_table3_type1_row(encoding):
    """Table 3, T1 with factor 3: Cl- + HCl + C6H12O + C8H10 -> HCl + Cl- + C14H22O."""
    if encoding == "formula":
        view = make_view({"C6H12O": 1, "C8H10": 1}, {"C14H22O": 1}, {"HCl": 1, "Cl-": 1}, encoding="formula")
        expect_in = {"C6H12O": 3, "C8H10": 3, "Cl-": 3, "ClH": 3}  # Hill order: HCl is ClH
        expect_out = {"C14H22O": 3, "Cl-": 3, "ClH": 3}
    else:
        view = make_view({"CCCCC1CO1": 1, "Cc1cccc(C)c1": 1}, {"CCCCC(CO)c1ccc(C)cc1C": 1}, {"Cl": 1, "[Cl-]": 1},
                         encoding="smiles")
        expect_in = {"CCCCC1CO1": 3, "Cc1cccc(C)c1": 3, "Cl": 3, "[Cl-]": 3}
        expect_out = {"CCCCC(CO)c1ccc(C)cc1C": 3, "Cl": 3, "[Cl-]": 3}
    assert view is not None
    inputs, outputs = type1_bags(view, 3)
    assert inputs == expect_in and outputs == expect_out
    task = build_products_task("stoich.t1", view, k=3, config=ProductsConfig(encoding=encoding))
    assert rlvr.verify(task, rlvr.oracle_completion(task)).reward == 1.0


def test_table12_first_row_type1_factor_5():
    """Table 12, row 1: {5}C7H4ClNO4.{5}H2O.{5}CH5N -> {5}HCl.{5}H2O.{5}C8H8N2O4 (water is a reagent)."""
    view = make_view({"C7H4ClNO4": 1, "CH5N": 1}, {"HCl": 1, "C8H8N2O4": 1}, {"H2O": 1}, encoding="formula")
    inputs, outputs = type1_bags(view, 5)
    assert inputs == {"C7H4ClNO4": 5, "CH5N": 5, "H2O": 5}
    assert outputs == {"C8H8N2O4": 5, "ClH": 5, "H2O": 5}  # species are Hill formulas: HCl is ClH
    task = build_products_task("stoich.t1", view, k=5)
    assert rlvr.verify(task, "<answer>{5}HCl.{5}H2O.{5}C8H8N2O4</answer>").correct  # any notation of the same species


def test_open_book_prompt_shows_reference_reaction():
    view = sabatier("formula")
    closed = build_products_task("stoich.t1", view, k=2, config=ProductsConfig(prompt_mode="closed"))
    open_ = build_products_task("stoich.t1", view, k=2, config=ProductsConfig(prompt_mode="open"))
    assert reference_equation(view) in open_.user_text
    assert reference_equation(view) not in closed.user_text
    assert "<answer>" in open_.user_text and open_.prompt[0]["role"] == "system"


@pytest.mark.parametrize("encoding", ["formula", "smiles"])
def test_sabatier_byproduct_and_balance(encoding):
    view = sabatier(encoding)
    water = "H2O" if encoding == "formula" else "O"
    task = build_byproduct_task("stoich.byproduct", view, k=2)
    assert task.ground_truth == {"byproducts": {water: 4}}
    assert water not in task.meta["shown"]["right"]
    assert rlvr.verify(task, rlvr.oracle_completion(task)).reward == 1.0

    balance = build_balance_task("stoich.balance", view)
    gt = balance.ground_truth
    assert dict(zip(gt["reactants"] + gt["products"], gt["coefficients"])) == dict(
        view.reactants + view.products)
    assert rlvr.verify(balance, rlvr.oracle_completion(balance)).reward == 1.0
    # reagents are not part of the balancing question (their coefficient would be free)
    assert "Ni" not in balance.user_text


def test_make_view_rejects_ill_defined_reactions():
    # isomers on both sides merge to nothing in the formula encoding
    assert make_view({"CCO": 1}, {"COC": 1}, encoding="smiles") is not None
    assert make_view({"C2H6O": 1}, {"C2H6O": 1}, encoding="formula") is None
    # unbalanced
    assert make_view({"CO2": 1, "H2": 1}, {"CH4": 1, "H2O": 2}, encoding="formula") is None
    # a reagent that is also a reactant
    assert make_view({"CO2": 1, "H2": 4}, {"CH4": 1, "H2O": 2}, {"H2": 1}, encoding="formula") is None
