"""Functional-group library and reaction templates: every entry has a hand-checked example."""
from __future__ import annotations

import pytest
from rdkit import Chem

from rlvr.chem.molecules.reactions import REACTION_TEMPLATES, TEMPLATE_NAMES
from rlvr.chem.molecules.features import FEATURES, feature_value, molecule_features
from rlvr.chem.molecules.functional_groups import FUNCTIONAL_GROUP_NAMES

# group -> (molecule, instances, atom positions of the instances or None when only counted)
GROUP_EXAMPLES: dict[str, tuple[str, int, list[int] | None]] = {
    "alcohol": ("OCC(O)C", 2, [0, 1, 2, 3]),
    "primary_alcohol": ("OCC(O)C", 1, [0, 1]),
    "secondary_alcohol": ("OCC(O)C", 1, [2, 3]),
    "tertiary_alcohol": ("CC(C)(C)O", 1, [1, 4]),
    "phenol": ("Oc1ccccc1", 1, [0, 1]),
    "enol": ("OC=C", 1, [0, 1, 2]),
    "ether": ("CCOCC", 1, [2]),
    "epoxide": ("CC1OC1", 1, [1, 2, 3]),
    "methoxy": ("COc1ccccc1", 1, [0, 1]),
    "acetal": ("CC(OC)OC", 1, [1, 2, 4]),
    "peroxide": ("COOC", 1, [1, 2]),
    "carbonyl": ("CC(=O)CC=O", 2, [1, 2, 4, 5]),
    "aldehyde": ("CCC=O", 1, [2, 3]),
    "ketone": ("CC(=O)C", 1, [1, 2]),
    "carboxylic_acid": ("CC(=O)O", 1, [1, 2, 3]),
    "carboxylate": ("CC(=O)[O-]", 1, [1, 2, 3]),
    "ester": ("CC(=O)OC", 1, [1, 2, 3]),
    "lactone": ("O=C1CCCO1", 1, [0, 1, 5]),
    "acyl_halide": ("CC(=O)Cl", 1, [1, 2, 3]),
    "acid_anhydride": ("CC(=O)OC(C)=O", 1, [1, 2, 3, 4, 6]),
    "carbonate": ("COC(=O)OC", 1, [1, 2, 3, 4]),
    "acetyl": ("CC(=O)N", 1, [0, 1, 2]),
    "enone": ("C=CC(C)=O", 1, [0, 1, 2, 4]),
    "thioester": ("CC(=O)SC", 1, [1, 2, 3]),
    "amine": ("NCCN(C)C", 2, [0, 3]),
    "primary_amine": ("NCCN(C)C", 1, [0]),
    "secondary_amine": ("CNC", 1, [1]),
    "tertiary_amine": ("NCCN(C)C", 1, [3]),
    "aniline": ("Nc1ccccc1", 1, [0]),
    "quaternary_ammonium": ("C[N+](C)(C)C", 1, [1]),
    "protonated_amine": ("CC[NH3+]", 1, [2]),
    "enamine": ("CN(C)C=C", 1, [1, 3, 4]),
    "hydroxylamine": ("CNO", 1, [1, 2]),
    "hydrazine": ("CNN", 1, [1, 2]),
    "amide": ("CC(=O)NC", 1, [1, 2, 3]),
    "primary_amide": ("CC(N)=O", 1, [1, 2, 3]),
    "secondary_amide": ("CC(=O)NC", 1, [1, 2, 3]),
    "tertiary_amide": ("CC(=O)N(C)C", 1, [1, 2, 3]),
    "lactam": ("O=C1CCCN1", 1, [0, 1, 5]),
    "imide": ("O=C1CCC(=O)N1", 1, [0, 1, 4, 5, 6]),
    "urea": ("NC(N)=O", 1, [0, 1, 2, 3]),
    "carbamate": ("CNC(=O)OC", 1, [1, 2, 3, 4]),
    "thioamide": ("CC(N)=S", 1, [1, 2, 3]),
    "thiourea": ("NC(N)=S", 1, [0, 1, 2, 3]),
    "guanidine": ("NC(N)=N", 1, [0, 1, 2, 3]),
    "amidine": ("CC(N)=N", 1, [1, 2, 3]),
    "imine": ("CC=NC", 1, [1, 2]),
    "oxime": ("CC(C)=NO", 1, [1, 3, 4]),
    "hydrazone": ("CC=NN", 1, [1, 2, 3]),
    "azo": ("c1ccccc1N=Nc1ccccc1", 1, [6, 7]),
    "azide": ("CN=[N+]=[N-]", 1, [1, 2, 3]),
    "diazo": ("C=[N+]=[N-]", 1, [0, 1, 2]),
    "nitrile": ("CC#N", 1, [1, 2]),
    "isonitrile": ("C[N+]#[C-]", 1, [1, 2]),
    "nitro": ("C[N+](=O)[O-]", 1, [1, 2, 3]),
    "nitrate_ester": ("CO[N+](=O)[O-]", 1, [1, 2, 3, 4]),
    "nitroso": ("CN=O", 1, [1, 2]),
    "n_oxide": ("[O-][n+]1ccccc1", 1, [0, 1]),
    "isocyanate": ("CN=C=O", 1, [1, 2, 3]),
    "isothiocyanate": ("CN=C=S", 1, [1, 2, 3]),
    "cyanate": ("COC#N", 1, [1, 2, 3]),
    "thiocyanate": ("CSC#N", 1, [1, 2, 3]),
    "thiol": ("CCS", 1, [1, 2]),
    "sulfide": ("CSC", 1, [1]),
    "disulfide": ("CSSC", 1, [1, 2]),
    "thiocarbonyl": ("CC(C)=S", 1, [1, 3]),
    "sulfoxide": ("CS(C)=O", 1, [1, 3]),
    "sulfone": ("CS(C)(=O)=O", 1, [1, 3, 4]),
    "sulfonamide": ("CS(N)(=O)=O", 1, [1, 2, 3, 4]),
    "sulfonic_acid": ("CS(=O)(=O)O", 1, [1, 2, 3, 4]),
    "sulfonate_ester": ("CS(=O)(=O)OC", 1, [1, 2, 3, 4]),
    "sulfonyl_halide": ("CS(=O)(=O)Cl", 1, [1, 2, 3, 4]),
    "sulfate": ("COS(=O)(=O)OC", 1, [1, 2, 3, 4, 5]),
    "phosphate": ("COP(=O)(OC)OC", 1, [1, 2, 3, 4, 6]),
    "phosphonate": ("CP(=O)(O)O", 1, [1, 2, 3, 4]),
    "phosphine": ("CP(C)C", 1, [1]),
    "phosphine_oxide": ("CP(C)(C)=O", 1, [1, 4]),
    "boronic_acid": ("OB(O)c1ccccc1", 1, [0, 1, 2]),
    "silyl_ether": ("C[Si](C)(C)OC", 1, [1, 4]),
    "organohalide": ("ClCC(F)c1ccc(Br)cc1", 3, [0, 1, 2, 3, 7, 8]),
    "alkyl_halide": ("ClCC(F)c1ccc(Br)cc1", 2, [0, 1, 2, 3]),
    "aryl_halide": ("ClCC(F)c1ccc(Br)cc1", 1, [7, 8]),
    "vinyl_halide": ("C=CCl", 1, [1, 2]),
    "trifluoromethyl": ("FC(F)(F)c1ccccc1", 1, [0, 1, 2, 3]),
    "alkene": ("C=CC=C", 2, [0, 1, 2, 3]),
    "alkyne": ("CC#CC", 1, [1, 2]),
    "allene": ("C=C=C", 1, [0, 1, 2]),
    "vinyl": ("C=Cc1ccccc1", 1, [0, 1]),
    "methyl": ("CC(C)O", 2, [0, 2]),
    "ethyl": ("CCOCC", 2, [0, 1, 3, 4]),
    "isopropyl": ("CC(C)O", 1, [0, 1, 2]),
    "tert_butyl": ("CC(C)(C)O", 1, [0, 1, 2, 3]),
    "benzene_ring": ("c1ccc2ccccc2c1", 2, list(range(10))),
    "phenyl": ("Cc1ccccc1", 1, [1, 2, 3, 4, 5, 6]),
    "benzyl": ("OCc1ccccc1", 1, [1, 2, 3, 4, 5, 6, 7]),
    "pyridine": ("c1ccncc1", 1, [0, 1, 2, 3, 4, 5]),
    "pyrimidine": ("c1cncnc1", 1, [0, 1, 2, 3, 4, 5]),
    "pyrrole": ("c1cc[nH]c1", 1, [0, 1, 2, 3, 4]),
    "furan": ("c1ccoc1", 1, [0, 1, 2, 3, 4]),
    "thiophene": ("c1ccsc1", 1, [0, 1, 2, 3, 4]),
    "imidazole": ("c1c[nH]cn1", 1, [0, 1, 2, 3, 4]),
    "pyrazole": ("c1cn[nH]c1", 1, [0, 1, 2, 3, 4]),
    "oxazole": ("c1cocn1", 1, [0, 1, 2, 3, 4]),
    "thiazole": ("c1cscn1", 1, [0, 1, 2, 3, 4]),
    "triazole": ("c1c[nH]nn1", 1, [0, 1, 2, 3, 4]),
    "tetrazole": ("c1nn[nH]n1", 1, [0, 1, 2, 3, 4]),
    "indole": ("c1ccc2[nH]ccc2c1", 1, list(range(9))),
    "piperidine": ("C1CCNCC1", 1, [0, 1, 2, 3, 4, 5]),
    "piperazine": ("C1CNCCN1", 1, [0, 1, 2, 3, 4, 5]),
    "morpholine": ("C1COCCN1", 1, [0, 1, 2, 3, 4, 5]),
    "pyrrolidine": ("C1CCNC1", 1, [0, 1, 2, 3, 4]),
    "tetrahydrofuran": ("C1CCOC1", 1, [0, 1, 2, 3, 4]),
}

# molecules in which a group must NOT be found (the usual confusions)
NEGATIVES: list[tuple[str, str]] = [
    ("ether", "CC(=O)OC"),  # the ester O is not an ether
    ("ether", "c1ccoc1"),  # nor is the furan o
    ("ketone", "CC(=O)O"),  # acid carbonyl
    ("ketone", "CC=O"),  # aldehyde
    ("aldehyde", "CC(C)=O"),
    ("amine", "CC(=O)N"),  # amide N
    ("amine", "CS(N)(=O)=O"),  # sulfonamide N
    ("amide", "NC(N)=O"),  # urea is not an amide
    ("amide", "CNC(=O)OC"),  # nor a carbamate
    ("ester", "COC(=O)OC"),  # carbonate
    ("alcohol", "Oc1ccccc1"),  # phenol
    ("alcohol", "CC(=O)O"),  # acid OH
    ("alkene", "c1ccccc1"),  # aromatic
    ("sulfide", "c1ccsc1"),  # thiophene s
    ("pyridine", "c1cncnc1"),  # pyrimidine has two n
    ("piperidine", "C1CNCCN1"),  # piperazine
    ("ethyl", "CCCO"),  # n-propyl tail
    ("isopropyl", "CC(C)C"),  # isobutane has no attachment point
]


def test_library_has_at_least_40_groups_and_every_group_has_an_example():
    assert len(FUNCTIONAL_GROUP_NAMES) >= 40
    assert set(GROUP_EXAMPLES) == set(FUNCTIONAL_GROUP_NAMES)


@pytest.mark.parametrize("name", sorted(GROUP_EXAMPLES))
def test_group_example(name):
    smiles, count, atoms = GROUP_EXAMPLES[name]
    values = molecule_features(smiles, [f"functional_group_{name}_count", f"functional_group_{name}_index"])
    assert values[f"functional_group_{name}_count"] == count, smiles
    if atoms is not None:
        assert values[f"functional_group_{name}_index"] == atoms, smiles


@pytest.mark.parametrize("name,smiles", NEGATIVES)
def test_group_negative(name, smiles):
    assert feature_value(smiles, f"functional_group_{name}_count") == 0


def test_groups_count_instances_not_atoms():
    # two separate ester groups: 2 instances, 6 atoms
    values = molecule_features("COC(=O)CCC(=O)OC")
    assert values["functional_group_ester_count"] == 2
    assert len(values["functional_group_ester_index"]) == 6
    # a symmetric group is one instance (uniquified match), not one per atom permutation
    assert feature_value("OP(=O)(O)O", "functional_group_phosphate_count") == 1


def test_group_keys_registered():
    for name in FUNCTIONAL_GROUP_NAMES:
        spec = FEATURES[f"functional_group_{name}"]
        assert spec.category == "functional_groups"
        assert spec.count_key == f"functional_group_{name}_count"
        assert spec.index_key == f"functional_group_{name}_index"


# template -> (reactant, expected products as SMILES, reactive-site atoms)
TEMPLATE_EXAMPLES: dict[str, tuple[str, list[str], list[int]]] = {
    "primary_alcohol_to_aldehyde": ("CCO", ["CC=O"], [1, 2]),
    "secondary_alcohol_to_ketone": ("CC(O)C", ["CC(C)=O"], [1, 2]),
    "aldehyde_to_carboxylic_acid": ("CC=O", ["CC(=O)O"], [1, 2]),
    "benzylic_alcohol_oxidation": ("OCc1ccccc1", ["O=Cc1ccccc1"], [0, 1]),
    "benzylic_oxidation": ("CCc1ccccc1", ["CC(=O)c1ccccc1"], [1]),
    "sulfide_to_sulfoxide": ("CSC", ["CS(C)=O"], [1]),
    "epoxidation": ("CC=CC", ["CC1OC1C"], [1, 2]),
    "ozonolysis_terminal": ("CCC=C", ["CCC=O"], [2, 3]),
    "aldehyde_to_primary_alcohol": ("CC=O", ["CCO"], [1, 2]),
    "ketone_to_secondary_alcohol": ("CC(=O)C", ["CC(C)O"], [1, 2]),
    "carboxylic_acid_to_primary_alcohol": ("CC(=O)O", ["CCO"], [1, 2, 3]),
    "ester_to_alcohol": ("CCC(=O)OC", ["CCCO"], [2, 3, 4, 5]),
    "amide_to_amine": ("CC(=O)NC", ["CCNC"], [1, 2, 3]),
    "nitrile_to_amine": ("CC#N", ["CCN"], [1, 2]),
    "nitro_to_amine": ("[O-][N+](=O)c1ccccc1", ["Nc1ccccc1"], [0, 1, 2]),
    "azide_to_amine": ("CCN=[N+]=[N-]", ["CCN"], [2, 3, 4]),
    "imine_to_amine": ("CC=NC", ["CCNC"], [1, 2]),
    "alkene_to_alkane": ("CC=C", ["CCC"], [1, 2]),
    "alkyne_to_alkene": ("CC#C", ["CC=C"], [1, 2]),
    "alcohol_to_alkyl_halide_Cl": ("CCO", ["CCCl"], [1, 2]),
    "alcohol_to_alkyl_halide_Br": ("CCO", ["CCBr"], [1, 2]),
    "alcohol_to_alkyl_halide_I": ("CCO", ["CCI"], [1, 2]),
    "alcohol_to_mesylate": ("CCO", ["CCOS(C)(=O)=O"], [1, 2]),
    "alcohol_to_tosylate": ("CCO", ["CCOS(=O)(=O)c1ccc(C)cc1"], [1, 2]),
    "alkyl_halide_to_alcohol": ("CCBr", ["CCO"], [1, 2]),
    "alkyl_halide_to_azide": ("CCBr", ["CCN=[N+]=[N-]"], [1, 2]),
    "alkyl_halide_to_nitrile": ("CCBr", ["CCC#N"], [1, 2]),
    "acid_to_acid_chloride": ("CC(=O)O", ["CC(=O)Cl"], [1, 2, 3]),
    "acid_chloride_to_amide": ("CC(=O)Cl", ["CC(N)=O"], [1, 2, 3]),
    "acid_chloride_to_ester_methyl": ("CC(=O)Cl", ["COC(C)=O"], [1, 2, 3]),
    "nitration": ("Cc1ccccc1", ["Cc1ccccc1[N+](=O)[O-]", "Cc1cccc([N+](=O)[O-])c1", "Cc1ccc([N+](=O)[O-])cc1"],
                  [2, 3, 4, 5, 6]),
    "bromination": ("c1ccccc1", ["Brc1ccccc1"], [0, 1, 2, 3, 4, 5]),
    "chlorination": ("c1ccccc1", ["Clc1ccccc1"], [0, 1, 2, 3, 4, 5]),
    "aromatic_iodination": ("c1ccccc1", ["Ic1ccccc1"], [0, 1, 2, 3, 4, 5]),
    "aromatic_fluorination": ("c1ccccc1", ["Fc1ccccc1"], [0, 1, 2, 3, 4, 5]),
    "aromatic_sulfonation": ("c1ccccc1", ["OS(=O)(=O)c1ccccc1"], [0, 1, 2, 3, 4, 5]),
    "aromatic_amine_to_diazonium": ("Nc1ccccc1", ["N#[N+]c1ccccc1"], [0, 1]),
    "hydration_of_alkene": ("CC=C", ["CC(C)O"], [1, 2]),
    "hydrohalogenation_HBr": ("CC=C", ["CC(C)Br"], [1, 2]),
    "hydrohalogenation_HCl": ("CC=C", ["CC(C)Cl"], [1, 2]),
    "dibromination": ("CC=CC", ["CC(Br)C(C)Br"], [1, 2]),
    "dichlorination": ("CC=CC", ["CC(Cl)C(C)Cl"], [1, 2]),
    "oxime_formation": ("CC(=O)C", ["CC(C)=NO"], [1, 2]),
    "hydrazone_formation": ("CC=O", ["CC=NN"], [1, 2]),
    "dehydration_alcohol": ("CC(O)CC", ["C=CCC", "CC=CC"], [0, 1, 2, 3]),
    "dehydrohalogenation": ("CCBr", ["C=C"], [0, 1, 2]),
    "decarboxylation": ("CCC(=O)O", ["CC"], [1, 2, 3, 4]),
    "ester_hydrolysis_to_acid": ("CC(=O)OCC", ["CC(=O)O"], [1, 2, 3, 4]),
    "amide_hydrolysis_to_acid": ("CC(=O)NC", ["CC(=O)O"], [1, 2, 3]),
    "nitrile_hydrolysis": ("CC#N", ["CC(=O)O"], [1, 2]),
    "epoxide_to_diol": ("CC1OC1", ["CC(O)CO"], [1, 2, 3]),
    "epoxide_to_halohydrin_Br": ("CC1OC1", ["CC(Br)CO", "CC(O)CBr"], [1, 2, 3]),
    "epoxide_to_halohydrin_Cl": ("CC1OC1", ["CC(Cl)CO", "CC(O)CCl"], [1, 2, 3]),
    "acetylation": ("CCO", ["CCOC(C)=O"], [2]),
    "deacetylation": ("CC(=O)Oc1ccccc1", ["Oc1ccccc1"], [0, 1, 2, 3]),
    "boc_protection": ("CNC", ["CN(C)C(=O)OC(C)(C)C"], [1]),
    "boc_deprotection": ("CN(C)C(=O)OC(C)(C)C", ["CNC"], [1, 3, 4, 5, 6, 7, 8, 9]),
    "beckmann_rearrangement": ("CC(C)=NO", ["CNC(C)=O"], [0, 1, 2, 3, 4]),
}


def test_every_template_has_an_example():
    assert set(TEMPLATE_EXAMPLES) == set(TEMPLATE_NAMES)
    assert len(REACTION_TEMPLATES) >= 40


@pytest.mark.parametrize("name", sorted(TEMPLATE_EXAMPLES))
def test_template_example(name):
    smiles, products, sites = TEMPLATE_EXAMPLES[name]
    base = f"template_based_reaction_prediction_{name}"
    values = molecule_features(smiles, [f"{base}_products", f"{base}_success", f"{base}_index", f"{base}_count"])
    assert values[f"{base}_products"] == sorted(Chem.CanonSmiles(p) for p in products)
    assert values[f"{base}_success"] == 1
    assert values[f"{base}_index"] == sites
    assert values[f"{base}_count"] >= 1


def test_template_stereo_and_ring_opening():
    # a lactone opens to one hydroxy acid; a stereocentre that loses its OH loses its label
    assert feature_value("O=C1CCCCO1", "template_based_reaction_prediction_ester_hydrolysis_to_acid_products") == [
        "O=C(O)CCCCO"]
    assert feature_value("C[C@H](O)CC", "template_based_reaction_prediction_alcohol_to_alkyl_halide_Cl_products") == [
        "CCC(C)Cl"]
    # an untouched stereocentre keeps its configuration
    assert feature_value("C[C@@H]1CCC(=O)N1", "template_based_reaction_prediction_amide_to_amine_products") == [
        "C[C@@H]1CCCN1"]


def test_template_absent():
    base = "template_based_reaction_prediction_nitration"
    values = molecule_features("CCCC", [f"{base}_count", f"{base}_index", f"{base}_success", f"{base}_products"])
    assert values == {f"{base}_count": 0, f"{base}_index": [], f"{base}_success": 0, f"{base}_products": []}
