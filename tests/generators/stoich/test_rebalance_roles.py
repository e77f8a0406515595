"""Rebalancing real reaction records whose reactant field lists solvents, bases, reagents and catalysts.

``data/uspto_mixed_sample.smi`` holds 114 textbook reactions written for these tests in the
USPTO-MIT "mixed" style (everything before ``>>``). Role assignment uses the MCS heuristic here (deterministic without
rxnmapper); the rxnmapper variant runs where rxnmapper is installed.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from rlvr.chem.balance import side_total
from rlvr.chem.smiles import canonical_smiles, smiles_formula
from rlvr.generators.stoich.loaders import load_reactions
from rlvr.generators.stoich.rebalance import completion_molecules, decompose, rebalance, whitelist_smiles

SAMPLE = Path(__file__).parent / "data" / "uspto_mixed_sample.smi"
#: solvents, bases and catalysts that appear in the sample's reactant fields
NON_REACTING = {canonical_smiles(s) for s in (
    "C1CCOC1", "ClCCl", "CS(C)=O", "CCOC(C)=O", "C1COCCO1", "CC#N", "CCN(CC)CC", "CCN(C(C)C)C(C)C", "[Pd]",
    "[Cu+]", "[Cu+2]", "[K+]", "[Na+]", "[Cs+]", "[Li+]", "O=C([O-])[O-]", "CC(=O)[O-]", "[Pd+2]",
    "CC(C)(C)[O-]", "c1ccc(P(c2ccccc2)c2ccccc2)cc1",
)}


def f(smiles: str):
    return smiles_formula(smiles)


@pytest.fixture(scope="module")
def sample():
    return load_reactions(str(SAMPLE), roles="heuristic")


def test_table_one_statistics(sample):
    kept, stats = sample
    assert stats.total == 114 and not stats.bad_lines
    assert stats.kept >= 85 and stats.balanced + stats.rebalanced == stats.kept
    assert sum(stats.dropped.values()) == stats.total - stats.kept
    assert set(stats.dropped) <= {"no_decomposition", "hydrogen_evolution", "mixed_difference", "charge_difference",
                                  "ambiguous", "implausible_byproduct"}
    assert sum(stats.roles.values()) > 100


def test_kept_reactions_balance_and_never_consume_a_spectator(sample):
    kept, _ = sample
    helpers = {m.smiles for m in completion_molecules()}
    for rx in kept:
        left = side_total((f(k), v) for k, v in rx.reactants.items())
        right = side_total((f(k), v) for k, v in rx.products.items())
        assert left == right, rx
        moved = set(rx.meta.get("moved_to_reagents", ()))
        assert not moved & set(rx.reactants) and not moved & (set(rx.products) - helpers), rx
        # solvents, bases and catalysts are never consumed or produced
        assert not NON_REACTING & set(rx.reactants) and not NON_REACTING & set(rx.products), rx


def _find(kept, product):
    key = canonical_smiles(product)
    return next((rx for rx in kept if key in rx.products), None)


def test_the_examples_are_rebalanced_sensibly_or_dropped(sample):
    kept, stats = sample
    # C2-formylation of N-methylindole: DMF is the formyl source, dimethylamine the by-product (THF, HCl, BuLi are reagents)
    formyl = _find(kept, "Cn1c(C=O)cc2ccccc21")
    assert formyl.reactants == {canonical_smiles("CN(C)C=O"): 1, canonical_smiles("Cn1ccc2ccccc21"): 1}
    assert formyl.products[canonical_smiles("CNC")] == 1 and "C1CCOC1" in formyl.reagents
    # hydroxide substitution: bromide anion given off
    sub = _find(kept, "CCCO")
    assert sub.reactants == {"CCCBr": 1, "[OH-]": 1} and sub.products == {"CCCO": 1, "[Br-]": 1}
    # click chemistry balances once the copper catalyst is a reagent
    click = _find(kept, "c1ccc(Cn2cc(-c3ccccc3)nn2)cc1")
    assert click.status == "balanced" and "[Cu+]" in click.reagents
    # Heck and Suzuki couplings: palladium is a reagent; the Suzuki coupling consumes water of the mixture
    heck = _find(kept, "N#Cc1ccc(/C=C/c2ccccc2)cc1")
    assert heck.products == {canonical_smiles("N#Cc1ccc(/C=C/c2ccccc2)cc1"): 1, "Br": 1}
    suzuki = _find(kept, "N#Cc1ccc(-c2ccccc2)cc1")
    assert suzuki.reactants["O"] == 1 and set(suzuki.products) == {canonical_smiles("N#Cc1ccc(-c2ccccc2)cc1"), "Br", "OB(O)O"}
    # bromination recorded with HBr and sodium carbonate: no oxidant, so no H2 is given off - dropped
    assert _find(kept, "CC(=O)c1ccc(O)c(Br)c1").reactants == {"BrBr": 1, canonical_smiles("CC(=O)c1ccc(O)cc1"): 1}
    assert stats.dropped["hydrogen_evolution"] >= 1
    # an ester saponified in aqueous base: water consumed, the alcohol given off
    saponified = _find(kept, "O=C(O)c1ccc(-n2cccn2)cc1")
    assert saponified.reactants["O"] == 1 and saponified.products["CO"] == 1


def test_anions_and_salts_in_the_whitelist():
    smiles = whitelist_smiles()
    assert {"[F-]", "[Cl-]", "[Br-]", "[I-]", "[OH-]", canonical_smiles("[Li]Br"), canonical_smiles("[Cs]F")} <= smiles
    assert decompose({"Br": 1, "charge": -1}).reason == "ok"
    assert decompose({"Na": 1, "Cl": 1}).reason == "ok"  # NaCl, not Na+ + Cl- (no cations): no new ambiguity
    assert decompose({"H": 1, "charge": 1}).reason == "charge_difference"
    result = rebalance([(f("CCCBr"), 1), (f("[OH-]"), 1)], [(f("CCCO"), 1)])
    assert result.status == "rebalanced" and result.add_products == (("[Br-]", 1),)


def test_plausibility_water_and_hydrogen_rules():
    acetal, aldehyde = f("COC(OC)c1ccc(Br)cc1"), f("O=Cc1ccc(Br)cc1")
    # C2H6O decomposes as ethanol, whose C-C bond no reactant has; with water listed: 2 MeOH
    dry = rebalance([(acetal, 1)], [(aldehyde, 1)], reactant_smiles=["COC(OC)c1ccc(Br)cc1"],
                    product_smiles=["O=Cc1ccc(Br)cc1"])
    assert dry.status == "dropped" and dry.reason == "implausible_byproduct"
    wet = rebalance([(acetal, 1)], [(aldehyde, 1)], water_listed=True, reactant_smiles=["COC(OC)c1ccc(Br)cc1"],
                    product_smiles=["O=Cc1ccc(Br)cc1"])
    assert wet.add_reactants == (("O", 1),) and wet.add_products == (("CO", 2),)
    nitro, aniline = f("O=[N+]([O-])c1ccccc1"), f("Nc1ccccc1")
    assert rebalance([(nitro, 1)], [(aniline, 1)]).reason == "mixed_difference"
    reduced = rebalance([(nitro, 1)], [(aniline, 1)], reductant_listed=True)
    assert reduced.add_reactants == (("[H][H]", 3),) and reduced.add_products == (("O", 2),)
    alcohol, aldehyde2 = f("OCc1ccccc1"), f("O=Cc1ccccc1")
    assert rebalance([(alcohol, 1)], [(aldehyde2, 1)], dehydrogenation=False).reason == "hydrogen_evolution"
    assert rebalance([(alcohol, 1)], [(aldehyde2, 1)]).add_products == (("[H][H]", 1),)


def test_given_roles_keep_the_fields_as_written():
    _, stats = load_reactions(str(SAMPLE), roles="given")
    assert not stats.roles and stats.kept < 10
    with pytest.raises(ValueError, match="roles"):
        load_reactions(str(SAMPLE), roles="magic")


@pytest.mark.slow
def test_rxnmapper_roles_on_the_sample():
    pytest.importorskip("rxnmapper")
    kept, stats = load_reactions(str(SAMPLE), roles="rxnmapper")
    assert stats.kept >= 88 and "rxnmapper" in stats.roles
