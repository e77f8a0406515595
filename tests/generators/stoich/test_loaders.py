"""User data: USPTO-style reaction SMILES files, ChemAlgebra src/tgt pairs, rebalancing (section 3.1)."""
from __future__ import annotations

import pytest

import rlvr
from rlvr.chem.smiles import smiles_formula
from rlvr.generators.stoich.loaders import load_reactions, load_user_corpus, resolve_spec
from rlvr.generators.stoich.rebalance import decompose, rebalance
from rlvr.generators.stoich.splits import SplitSpec, reaction_splits

USPTO = """ReactionSmiles\tPatentNumber\tYear\tNote
CC(=O)O.NCc1ccccc1>CN(C)C=O>CC(=O)NCc1ccccc1\tUS0001\t2001\tamide, water missing
CC(=O)Cl.[CH3:1][NH2:2]>>[CH3:1][NH:2]C(C)=O\tUS0001\t2001-05-02\tmapped, HCl missing
COC(C)=O.O>>CC(=O)O.CO\tUS0002\t2005\tbalanced as recorded
C1CCCCC1>>\tUS0003\t2006\tempty product side
CC(=O)O.N(C>>CC(N)=O\tUS0004\t2007\tinvalid SMILES
this line is not a reaction\tUS0005\t2008\tmalformed
O=[N+]([O-])c1ccccc1>[Pd]>Nc1ccccc1\tUS0006\t2010\tmixed difference (H2 in, H2O out)
CC(=O)O.NCc1ccccc1>CN(C)C=O>CC(=O)NCc1ccccc1\tUS0007\t2012\tduplicate of line 1
Clc1ccccc1>>c1ccccc1\tUS0008\t2013\tmissing Cl alone: no whitelist molecule
CCBr.[Na+].[I-]>>CCI.[Na+].[Br-]\tUS0009\t2014\tions, balanced
C=CC>>CCC.C=C\tUS0010\t2015\tmissing C2H4... mixed
"""


@pytest.fixture()
def uspto(tmp_path):
    path = tmp_path / "uspto_sample.tsv"
    path.write_text(USPTO)
    return path


def test_uspto_file_counts_and_meta(uspto):
    kept, stats = load_reactions(str(uspto), solve_coefficients=False)
    assert stats.total == 11
    assert stats.bad_lines == {"empty_side": 1, "invalid_smiles": 1, "malformed": 1}
    assert stats.balanced == 2  # ester hydrolysis, Finkelstein with spectator ions
    assert stats.rebalanced == 3  # water, HCl and water added to the products
    assert sum(stats.dropped.values()) == 3
    assert stats.dropped["mixed_difference"] == 2 and stats.dropped["no_decomposition"] == 1
    first = kept[0]
    assert first.meta["document"] == "US0001" and first.meta["year"] == 2001 and first.meta["Note"]
    assert first.products == {"CC(=O)NCc1ccccc1": 1, "O": 1} and first.byproducts == ("O",)
    assert first.reagents == {"CN(C)C=O": 1}
    mapped = kept[1]
    assert mapped.reactants == {"CC(=O)Cl": 1, "CN": 1} and mapped.products == {"CNC(C)=O": 1, "Cl": 1}
    assert mapped.meta["year"] == 2001
    ions = next(r for r in kept if "CCBr" in r.reactants)
    assert ions.reagents == {"[Na+]": 1}  # on both sides: a spectator, i.e. a reagent
    table = stats.table()
    assert "TOTAL" in table and "BALANCED" in table and "RE-BALANCED" in table
    assert "mixed_difference 2" in table and "invalid_smiles 1" in table


def test_hydrogen_in_the_mixture_completes_reductions(tmp_path):
    # H2 listed: a reduction may consume more of it (the whitelist completion, no coefficient solving)
    path = tmp_path / "r.smi"
    path.write_text("O=C=O.[H][H]>[Ni]>C.O\nO=[N+]([O-])c1ccccc1.[H][H]>[Pd]>Nc1ccccc1.O\n")
    kept, stats = load_reactions(str(path), solve_coefficients=False)
    assert stats.rebalanced == 2 and stats.rebalanced_by_coefficients == 0
    assert kept[0].reactants == {"O=C=O": 1, "[H][H]": 4} and kept[0].products == {"C": 1, "O": 2}
    assert kept[1].reactants["[H][H]"] == 3 and kept[1].products["O"] == 2


def test_solving_coefficients_rescues_reactions(tmp_path):
    path = tmp_path / "r.smi"
    path.write_text("C.O=O>>O=C=O.O\n")  # no helper in the mixture: a mixed difference, solved 1, 2, 1, 2
    kept, stats = load_reactions(str(path))
    assert stats.rebalanced == 1 and stats.rebalanced_by_coefficients == 1
    assert kept[0].reactants == {"C": 1, "O=O": 2} and kept[0].products == {"O=C=O": 1, "O": 2}
    kept, stats = load_reactions(str(path), solve_coefficients=False)
    assert not kept and stats.dropped["mixed_difference"] == 1


def test_headerless_mapped_file_with_extra_column(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("[CH3:1][C:2](=[O:3])[OH:4].[NH2:5][CH3:6]>>[CH3:1][C:2](=[O:3])[NH:5][CH3:6] 4-5;2-4\n"
                    "[CH3:1][CH2:2][OH:3]>>[CH3:1][CH:2]=[O:3] 2-3\n")
    kept, stats = load_reactions(str(path))
    assert stats.total == 2 and stats.kept == 2 and not stats.bad_lines
    assert kept[0].meta["col1"] == "4-5;2-4"
    assert kept[1].products == {"CC=O": 1, "[H][H]": 1}


def test_chemalgebra_src_tgt_pairs_recover_the_reference_reaction(tmp_path):
    # Table 12 (T1, factor 5) and Table 14 (T2) first rows of ChemAlgebra_F, and Table 16 row 1 (SMILES)
    src = tmp_path / "src-train.txt"
    tgt = tmp_path / "tgt-train.txt"
    src.write_text("{5}C7H4ClNO4.{5}H2O.{5}CH5N\n"
                   "{4}C7H4ClNO4.{2}C8H8N2O4.{2}H2O.{3}CH5N\n"
                   "{2}C7H4ClNO4\n"
                   "{1}Xx9\n")
    tgt.write_text("{5}HCl.{5}H2O.{5}C8H8N2O4\n"
                   "{2}H2O.{3}C8H8N2O4.{3}C7H4ClNO4.{2}CH5N.{1}HCl\n"
                   "{2}C7H4ClNO4\n"
                   "{1}H2O\n")
    assert resolve_spec(str(src))[0] == "src-tgt"
    kept, stats = load_reactions(str(src))
    assert stats.total == 4 and stats.bad_lines == {"empty_side": 1, "invalid_formula": 1}
    assert stats.balanced == 2
    for rx in kept:
        assert rx.encoding == "formula"
        assert rx.reactants == {"C7H4ClNO4": 1, "CH5N": 1}
        assert rx.products == {"C8H8N2O4": 1, "ClH": 1}
        assert rx.reagents == {"H2O": 1}

    s_src = tmp_path / "src-s.txt"
    s_tgt = tmp_path / "tgt-s.txt"
    s_src.write_text("{ 4 } C N . { 4 } O = C ( O ) c 1 c c c ( C l ) c ( [ N + ] ( = O ) [ O - ] ) c 1 . { 4 } O\n")
    s_tgt.write_text("{4}CNc1ccc(C(=O)O)cc1[N+](=O)[O-].{4}Cl.{4}O\n")
    kept, stats = load_reactions(f"{s_src}::{s_tgt}")
    assert stats.balanced == 1
    (rx,) = kept
    assert rx.encoding == "smiles" and rx.reagents == {"O": 1}
    assert rx.reactants == {"CN": 1, "O=C(O)c1ccc(Cl)c([N+](=O)[O-])c1": 1}
    assert rx.products == {"CNc1ccc(C(=O)O)cc1[N+](=O)[O-]": 1, "Cl": 1}


def test_user_corpus_drives_the_families(uspto, tmp_path, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path / "cache"))
    corpus = load_user_corpus(str(uspto), solve_coefficients=True)
    assert corpus.stats["load"]["kept"] == len(corpus) + corpus.stats["load"]["duplicates"]
    assert (tmp_path / "cache" / "stoich" / "user").is_dir()
    for family, split in (("stoich.t2", "train"), ("stoich.t1", "test_in"), ("stoich.balance", "train")):
        for task in rlvr.sample(family, n=5, split=split, encoding="smiles", corpus=str(uspto),
                                split_fractions=(0.5, 0.0, 0.5)):
            assert rlvr.verify(task, rlvr.oracle_completion(task)).reward == 1.0
    # document split: reactions of one patent share a split; time split: recent patents are test
    docs = {}
    for task in rlvr.sample("stoich.t1", n=30, split="test_in", corpus=str(uspto), split_mode="time", time_cutoff=2010):
        assert task.meta["reaction_split"] == "test"
    splits = reaction_splits(corpus, SplitSpec(mode="document"))
    for rx, s in zip(corpus.reactions, splits):
        docs.setdefault(rx.meta["document"], set()).add(s)
    assert all(len(v) == 1 for v in docs.values())
    years = reaction_splits(corpus, SplitSpec(mode="time", time_cutoff=2010))
    assert all((s == "test") == (rx.meta["year"] >= 2010) for rx, s in zip(corpus.reactions, years))


def test_decompose_unique_ambiguous_and_impossible():
    assert decompose({"H": 2, "O": 1}).reason == "ok"
    two_water = decompose({"H": 4, "O": 2})
    assert two_water.reason == "ok" and list(two_water.solutions[0].values()) == [2]
    assert decompose({"N": 2, "H": 6}).reason == "ambiguous"  # 2 NH3 or N2 + 3 H2
    assert decompose({"Cl": 1}).reason == "no_decomposition"
    assert decompose({"H": 1, "charge": 1}).reason == "charge_difference"
    assert decompose({"C": 100, "H": 200}).reason == "too_large"


def test_rebalance_sides():
    f = smiles_formula
    boc = rebalance([(f("CNC(=O)OC(C)(C)C"), 1)], [(f("CN"), 1)])
    assert boc.status == "rebalanced" and dict(boc.add_products) == {"C=C(C)C": 1, "O=C=O": 1}
    hydrolysis = rebalance([(f("COC(C)=O"), 1)], [(f("CC(=O)O"), 1), (f("CO"), 1)])
    assert hydrolysis.status == "rebalanced" and dict(hydrolysis.add_reactants) == {"O": 1}
    assert rebalance([(f("CCO"), 1)], [(f("CCO"), 1)]).status == "balanced"
    assert rebalance([(f("O=[N+]([O-])c1ccccc1"), 1)], [(f("Nc1ccccc1"), 1)]).reason == "mixed_difference"
