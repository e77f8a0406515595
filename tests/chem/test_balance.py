import pytest

from rlvr import balance
from rlvr.chem import canonical_smiles, smiles_formula


def test_textbook_permanganate():
    assert balance(["KMnO4", "HCl"], ["KCl", "MnCl2", "H2O", "Cl2"]) == [2, 16, 2, 2, 8, 5]


def test_dichromate_iron_ionic_equation_with_charges():
    assert balance(["Cr2O7-2", "Fe+2", "H+"], ["Cr+3", "Fe+3", "H2O"]) == [1, 6, 14, 2, 6, 7]


@pytest.mark.parametrize(
    "reactants, products, expected",
    [
        (["C3H8", "O2"], ["CO2", "H2O"], [1, 5, 3, 4]),
        (["CO2", "H2"], ["CH4", "H2O"], [1, 4, 1, 2]),
        (["Fe", "O2"], ["Fe2O3"], [4, 3, 2]),
        (["Ca3(PO4)2", "SiO2", "C"], ["CaSiO3", "P4", "CO"], [2, 6, 10, 6, 1, 10]),
        (["CCO", "O=O"], ["O=C=O", "O"], [1, 3, 2, 3]),  # SMILES: ethanol combustion
    ],
)
def test_textbook_balances(reactants, products, expected):
    assert balance(reactants, products) == expected


def test_impossible_equation_names_the_reason():
    with pytest.raises(ValueError, match="cannot balance"):
        balance(["H2"], ["O2"])


def test_non_unique_solution_space_is_rejected():
    with pytest.raises(ValueError, match="dimensional"):
        balance(["H2", "O2", "C", "CO"], ["H2O", "CO2"])


def test_smiles_formula_counts_implicit_h_and_charge():
    assert smiles_formula("CC(=O)Oc1ccccc1C(=O)O").hill() == "C9H8O4"
    assert smiles_formula("[NH4+]").hill() == "H4N+"
    assert smiles_formula("O=[N+]([O-])c1ccccc1").hill() == "C6H5NO2"


def test_canonical_smiles_identity():
    assert canonical_smiles("OCC") == canonical_smiles("CCO")
    assert canonical_smiles("C[C@H](N)O") != canonical_smiles("C[C@@H](N)O")


def test_formulas_starting_with_a_group_are_formulas():
    import rlvr
    from rlvr.chem.species import looks_like_smiles

    assert rlvr.balance(["(NH4)2Cr2O7"], ["Cr2O3", "N2", "H2O"]) == [1, 1, 1, 4]
    assert not looks_like_smiles("(NH4)2Cr2O7") and not looks_like_smiles("(NH4)2SO4")
    assert looks_like_smiles("C(C)c1ccccc1") and looks_like_smiles("[Cu](Cl)Cl")
