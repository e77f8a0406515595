"""Role assignment: which listed species contribute atoms to the product (heuristic always; rxnmapper if installed)."""
from __future__ import annotations

import pytest

from rlvr.chem.roles import COMMON_SOLVENTS, assign_roles, assign_roles_many, heuristic_roles, rxnmapper_available

# (reactant field, product, species that contribute atoms)
CASES = [
    # ortho-formylation: DMF is the formyl source, THF, HCl and butyllithium are not
    (["C1CCOC1", "CN(C)C=O", "Cl", "O=C(O)c1ccc(-c2ccc(Cl)cc2)s1", "[Li]CCCC"],
     ["O=Cc1cc(-c2ccc(Cl)cc2)sc1C(=O)O"], {"CN(C)C=O", "O=C(O)c1ccc(-c2ccc(Cl)cc2)s1"}),
    (["CCCBr", "[OH-]"], ["CCCO"], {"CCCBr", "[OH-]"}),
    # copper-catalysed azide-alkyne cycloaddition in tBuOH/water
    (["[N-]=[N+]=NCc1ccccc1", "C#Cc1ccccc1", "[Cu+]", "CC(C)(C)O", "O"], ["c1ccc(Cn2cc(-c3ccccc3)nn2)cc1"],
     {"[N-]=[N+]=NCc1ccccc1", "C#Cc1ccccc1"}),
    # Heck reaction: palladium, triethylamine and acetonitrile are not reactants
    (["Brc1ccc(C#N)cc1", "C=Cc1ccccc1", "[Pd]", "CCN(CC)CC", "CC#N"], ["N#Cc1ccc(/C=C/c2ccccc2)cc1"],
     {"Brc1ccc(C#N)cc1", "C=Cc1ccccc1"}),
    # Buchwald-Hartwig amination in toluene: the aryl bromide, not the solvent, supplies the tolyl group
    (["CC(C)(C)[O-]", "[Na+]", "Cc1ccccc1", "Brc1ccc(C)cc1", "C1COCCN1", "[Pd]"], ["Cc1ccc(N2CCOCC2)cc1"],
     {"Brc1ccc(C)cc1", "C1COCCN1"}),
    # amide coupling with HATU and DIPEA in DMF
    (["CCN(C(C)C)C(C)C", "CN(C)C=O", "O=C(O)c1ccc(Cl)cc1", "NCc1ccccc1", "CN(C)C(On1nnc2cccnc21)=[N+](C)C",
      "F[P-](F)(F)(F)(F)F"], ["O=C(NCc1ccccc1)c1ccc(Cl)cc1"], {"O=C(O)c1ccc(Cl)cc1", "NCc1ccccc1"}),
    # Fischer esterification: methanol is a reactant here, sulfuric acid is not
    (["CO", "OS(=O)(=O)O", "O=C(O)c1ccc(Cl)cc1"], ["COC(=O)c1ccc(Cl)cc1"], {"CO", "O=C(O)c1ccc(Cl)cc1"}),
    # sodium borohydride reduction in methanol
    (["[BH4-]", "[Na+]", "CO", "O=C(c1ccccc1)c1ccc(Cl)cc1"], ["OC(c1ccccc1)c1ccc(Cl)cc1"],
     {"O=C(c1ccccc1)c1ccc(Cl)cc1"}),
]


@pytest.mark.parametrize("reactants, products, expected", CASES)
def test_heuristic_roles(reactants, products, expected):
    got = heuristic_roles(reactants, products)
    assert set(got.reactants) == expected
    assert set(got.spectators) == set(reactants) - expected
    assert got.method == "heuristic" and got.confidence is None


def test_every_species_is_classified_once_and_order_is_kept():
    reactants = ["C1CCOC1", "CCCBr", "[OH-]", "C1CCOC1"]
    got = heuristic_roles(reactants, ["CCCO"])
    assert got.reactants == ("CCCBr", "[OH-]") and got.spectators == ("C1CCOC1",)


def test_unknown_mapper_and_forced_rxnmapper():
    with pytest.raises(ValueError, match="unknown role mapper"):
        assign_roles(["CCO"], ["CC=O"], mapper="magic")
    if not rxnmapper_available():
        from rlvr.chem.roles import RolesUnavailable

        with pytest.raises(RolesUnavailable):
            assign_roles(["CCO"], ["CC=O"], mapper="rxnmapper")


def test_solvent_list_is_canonical():
    from rdkit import Chem

    assert all(Chem.MolToSmiles(Chem.MolFromSmiles(s)) == s for s in COMMON_SOLVENTS)


@pytest.mark.slow
def test_rxnmapper_roles_agree_with_the_cases():
    pytest.importorskip("rxnmapper")
    got = assign_roles_many([(r, p) for r, p, _ in CASES], mapper="rxnmapper")
    agree = sum(set(g.reactants) == e for g, (_, _, e) in zip(got, CASES))
    assert all(g.method in ("rxnmapper", "heuristic-fallback") for g in got)
    assert agree >= len(CASES) - 1  # an attention-based mapper may differ on one borderline case
    # rxnmapper's own published example map is reproduced by the tokenizer used here
    from rlvr.chem.roles import _mapper

    res = _mapper().get_attention_guided_atom_maps(["CC(C)S.CN(C)C=O.Fc1cccnc1F.O=C([O-])[O-].[K+].[K+]>>CC(C)Sc1ncccc1F"])
    assert res[0]["mapped_rxn"] == ("[CH3:1][CH:2]([CH3:3])[SH:4].CN(C)C=O.F[c:5]1[n:6][cH:7][cH:8][cH:9][c:10]1[F:11]."
                                    "O=C([O-])[O-].[K+].[K+]>>[CH3:1][CH:2]([CH3:3])[S:4][c:5]1[n:6][cH:7][cH:8][cH:9]"
                                    "[c:10]1[F:11]")
    assert abs(res[0]["confidence"] - 0.9565619900376546) < 1e-4
