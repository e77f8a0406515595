import pytest

from rlvr.chem.notation import NotationError, format_bag, format_equation, parse_bag, parse_equation


def test_stoichiometric_and_plain_bags():
    assert parse_bag("{2}H2O.{1}CH4") == [("H2O", 2), ("CH4", 1)]
    assert parse_bag("2 H2O + CH4") == [("H2O", 2), ("CH4", 1)]
    assert parse_bag("2H2O, 3 CO2") == [("H2O", 2), ("CO2", 3)]


def test_smiles_with_charges_and_dots_survive():
    smi = "CNc1ccc(C(=O)O)cc1[N+](=O)[O-]"
    assert parse_bag(f"{{3}}{smi}.{{4}}O") == [(smi, 3), ("O", 4)]
    assert parse_bag("{1}[Na+].[Cl-]") == [("[Na+].[Cl-]", 1)]


def test_equations_in_every_arrow():
    expected = ([("H2", 2), ("O2", 1)], [("H2O", 2)])
    for text in ["{2}H2.{1}O2>>{2}H2O", "2 H2 + O2 -> 2 H2O", "2 H2 + O2 = 2 H2O", "2 H2 + O2 → 2 H2O"]:
        assert parse_equation(text) == expected
    assert format_equation(["H2", "O2"], ["H2O"], [2, 1, 2]) == "{2}H2.{1}O2>>{2}H2O"


def test_format_parse_round_trip():
    bag = {"C2H6O": 3, "O2": 1}
    assert dict(parse_bag(format_bag(bag))) == bag


@pytest.mark.parametrize("bad", ["", "{2}", "2 H2 O", "{9999999}H2", "x " * 300])
def test_bad_bags(bad):
    with pytest.raises(NotationError):
        parse_bag(bad)


def test_bad_equations():
    with pytest.raises(NotationError):
        parse_equation("a -> b -> c")
    with pytest.raises(NotationError):
        parse_equation("H2 + O2")
