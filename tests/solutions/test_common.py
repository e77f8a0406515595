"""Rendering, budgets and the balancing derivation behind the worked solutions."""
from __future__ import annotations

import pytest

from rlvr.chem import parse_formula
from rlvr.solutions import SolutionError, SolutionOptions, supported_families, write_solution
from rlvr.solutions.balancing import derive_balance
from rlvr.solutions.common import Trace, render
from rlvr.solutions.smiles_walk import walk
from rlvr.task import Task


def _derive(reactants, products):
    return derive_balance([parse_formula(x) for x in reactants], [parse_formula(x) for x in products])


@pytest.mark.parametrize(
    "reactants, products, expected",
    [
        (["KMnO4", "HCl"], ["KCl", "MnCl2", "H2O", "Cl2"], [2, 16, 2, 2, 8, 5]),
        (["Cr2O7-2", "Fe+2", "H+"], ["Cr+3", "Fe+3", "H2O"], [1, 6, 14, 2, 6, 7]),
        (["Cu", "HNO3"], ["Cu(NO3)2", "NO", "H2O"], [3, 8, 3, 2, 4]),
        (["C3H8", "O2"], ["CO2", "H2O"], [1, 5, 3, 4]),
        (["H2", "O2"], ["H2O"], [2, 1, 2]),
    ],
)
def test_derivation_reaches_textbook_coefficients(reactants, products, expected):
    d = _derive(reactants, products)
    assert d.coefficients == expected
    text = "\n".join(t for t, _ in d.lines)
    assert text.startswith("Set ")
    # the last terse line states every final coefficient
    last = [t for t, detail in d.lines if not detail][-1]
    for name, k in zip("abcdefgh", expected):
        assert f"{name} = {k}" in last


def test_derivation_shows_fractions_and_the_free_coefficient():
    kmno4 = "\n".join(t for t, _ in _derive(["KMnO4", "HCl"], ["KCl", "MnCl2", "H2O", "Cl2"]).lines)
    assert "f = 5/2" in kmno4 and "Multiply by 2" in kmno4
    redox = "\n".join(t for t, _ in _derive(["Cr2O7-2", "Fe+2", "H+"], ["Cr+3", "Fe+3", "H2O"]).lines)
    assert "= t." in redox and "charge:" in redox and "t = 6" in redox


def test_derivation_refuses_non_unique_equations():
    with pytest.raises(SolutionError, match="uniquely"):
        _derive(["MnO4-", "H2O2", "H+"], ["Mn+2", "O2", "H2O"])


def test_render_budget_and_fallback():
    trace = Trace().add("short step").add("x" * 500, detail=True)
    detailed = SolutionOptions("detailed", max_chars=200)
    out = render(trace, "42", detailed)  # detailed does not fit: falls back to terse
    assert out == "short step\n<answer>42</answer>"
    assert len(render(trace, "42", SolutionOptions("detailed"))) > 500
    with pytest.raises(SolutionError, match="budget"):
        render(Trace().add("y" * 300), "42", SolutionOptions("terse", max_chars=100))
    with pytest.raises(SolutionError, match="answer tag"):
        render(Trace().add("<answer>1</answer>"), "2", SolutionOptions())


def test_options_validation():
    with pytest.raises(ValueError, match="style"):
        SolutionOptions("verbose")
    with pytest.raises(ValueError, match="max_chars"):
        SolutionOptions("terse", max_chars=10)


def test_unknown_family_is_a_clear_error():
    task = Task(id="x", family="nope.family", prompt=[{"role": "user", "content": "?"}], ground_truth={}, meta={})
    with pytest.raises(SolutionError, match="no worked-solution writer"):
        write_solution(task)
    assert {"mol.count", "mol.index", "mol.gen"} <= set(supported_families())


@pytest.mark.parametrize(
    "smiles, expected",
    [
        ("CC(=O)Oc1ccccc1C(=O)O", ["C", "C", "O", "O", "c", "c", "c", "c", "c", "c", "C", "O", "O"]),
        ("[H]C([H])Cl", ["C", "Cl"]),
        ("C[C@@H](N)C(=O)[O-]", ["C", "[C@@H]", "N", "C", "O", "[O-]"]),
        ("c1ccc2[nH]ccc2c1", ["c", "c", "c", "c", "[nH]", "c", "c", "c", "c"]),
        ("[2H]C", ["[2H]", "C"]),
        ("C1CC%12CC1.C%12", ["C"] * 6),
    ],
)
def test_walk_lists_heavy_atoms_as_written(smiles, expected):
    atoms = walk(smiles)
    assert [a.token for a in atoms] == expected
    assert [a.index for a in atoms] == list(range(len(expected)))
