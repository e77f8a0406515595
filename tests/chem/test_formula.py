import pytest

from rlvr.chem.formula import FormulaError, hill_formula, parse_formula


@pytest.mark.parametrize(
    "text, hill, charge",
    [
        ("H2O", "H2O", 0),
        ("CH3COOH", "C2H4O2", 0),
        ("Ca3(PO4)2", "Ca3O8P2", 0),
        ("K4[Fe(CN)6]", "C6FeK4N6", 0),
        ("CuSO4.5H2O", "CuH10O9S", 0),
        ("CuSO4·5H2O", "CuH10O9S", 0),
        ("MnO4-", "MnO4-", -1),
        ("Fe+2", "Fe+2", 2),
        ("Cr2O7-2", "Cr2O7-2", -2),
        ("H+", "H+", 1),
        ("SO4^2-", "O4S-2", -2),
        ("H4B-", "BH4-", -1),
        ("NH4+", "H4N+", 1),
    ],
)
def test_parse_and_hill(text, hill, charge):
    f = parse_formula(text)
    assert f.hill() == hill
    assert f.charge == charge
    assert parse_formula(f.hill()) == f  # printing round-trips


def test_identity_is_counts_plus_charge():
    assert parse_formula("C2H6O") == parse_formula("CH3CH2OH")
    assert parse_formula("Fe+2") != parse_formula("Fe+3")


def test_hill_without_carbon_is_alphabetical():
    assert hill_formula({"O": 4, "S": 1, "H": 2}) == "H2O4S"
    assert hill_formula({"Cl": 1, "Na": 1}) == "ClNa"


@pytest.mark.parametrize("bad", ["", "Xx2", "H2O)", "(H2O", "2", "h2o", "C" * 600])
def test_bad_formulas_raise_clear_errors(bad):
    with pytest.raises(FormulaError):
        parse_formula(bad)
