"""Classic-corpus balancing prompts show inorganic species as textbooks write them (HBr, LiBr, MnCO3)."""
from __future__ import annotations

import itertools

import rlvr
from rlvr.generators.stoich.conventional import display_formula


def test_display_formula():
    assert display_formula("BrH") == "HBr" and display_formula("BrLi") == "LiBr"
    assert display_formula("CMnO3") == "MnCO3" and display_formula("H3N") == "NH3"
    assert display_formula("Cr2H8N2O7") == "(NH4)2Cr2O7"
    assert display_formula("C2H6O") == "C2H6O" and display_formula("H2O") == "H2O"  # organic / already conventional


def test_classic_prompts_use_conventional_formulas_and_answers_in_either_notation_verify():
    tasks = list(itertools.islice(rlvr.sample("stoich.balance", n=60, seed=0, corpus="classic", encoding="formula"), 60))
    shown = [t.user_text.split("\n\n")[1] for t in tasks]
    text = "\n".join(shown)
    assert "BrH" not in text and "ClH" not in text and "INa" not in text
    inorganic = [(t, s) for t, s in zip(tasks, shown) if "usual notation" in t.user_text]
    assert inorganic
    for task, _ in inorganic:
        oracle = rlvr.oracle_completion(task)
        assert rlvr.verify(task, oracle).correct
        body = oracle.split("<answer>")[1].split("</answer>")[0]
        sides = []
        for side in body.split(">>"):
            terms = [t.split("}", 1) for t in side.split(".") if t]
            sides.append(" + ".join(f"{k.lstrip('{')} {display_formula(name)}" for k, name in terms))
        written = " -> ".join(sides)  # e.g. "2 HBr + 1 Li2O -> 2 LiBr + 1 H2O"
        assert written != body and rlvr.verify(task, f"<answer>{written}</answer>").correct, written
