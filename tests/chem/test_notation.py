import pytest

from rlvr.chem.notation import (
    MAX_COEFFICIENT,
    NotationError,
    format_bag,
    format_equation,
    parse_bag,
    parse_equation,
    read_coefficient,
)


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


@pytest.mark.parametrize("digits", ["9" * 5001, "0" * 5000 + "1" * 8, "1" + "0" * 7, "1000001"],
                         ids=["5001-nines", "zero-padded", "eight-digits", "just-over"])
def test_a_runaway_coefficient_is_a_notation_error_not_a_conversion_error(digits):
    with pytest.raises(NotationError, match="too large"):
        read_coefficient(digits)
    with pytest.raises(NotationError, match="too large"):
        parse_bag(f"{{{digits}}}CH4")
    with pytest.raises(NotationError, match="too large"):
        parse_equation(f"{digits} CH4 + 2 O2 -> CO2 + 2 H2O")


def test_read_coefficient_reads_what_fits():
    assert read_coefficient("0" * 6000 + "7") == 7
    assert read_coefficient(str(MAX_COEFFICIENT)) == MAX_COEFFICIENT
    assert read_coefficient("0") == 0
    for bad in ("", "١٢", "1.5", "-1"):
        with pytest.raises(NotationError):
            read_coefficient(bad)
