"""The embedded and classic corpora: size, classes, balance, determinism and caching."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from rlvr.chem.balance import side_total
from rlvr.chem.formula import parse_formula
from rlvr.generators.stoich import corpus as corpus_mod
from rlvr.generators.stoich.classic import ClassicEquation, all_equations, salt
from rlvr.generators.stoich.corpus import get_corpus
from rlvr.generators.stoich.corpus_model import Corpus
from rlvr.generators.stoich.template_build import build_embedded
from rlvr.generators.stoich.templates import TEMPLATES


def _balanced(corpus: Corpus, rx) -> bool:
    left = side_total((parse_formula(corpus.species_formula[s]), k) for s, k in rx.reactants)
    right = side_total((parse_formula(corpus.species_formula[s]), k) for s, k in rx.products)
    return left == right


def test_embedded_corpus_size_classes_and_balance():
    corpus = get_corpus("embedded")
    summary = corpus.summary()
    assert summary["reactions"] >= 10_000
    assert summary["distinct_smiles_keys"] == summary["reactions"]
    assert summary["distinct_formula_keys"] >= 10_000
    assert summary["classes"] >= 20 and len(TEMPLATES) >= 20
    assert summary["valid_formula"] == summary["valid_smiles"] == summary["reactions"]
    counts = corpus.class_counts()
    assert all(counts.get(t.name, 0) > 0 for t in TEMPLATES)
    assert summary["non_unit_coefficients"] > 500 and summary["with_byproducts"] > 5000
    assert summary["stereo_products"] > 0 and summary["with_reagents"] > 0.9 * summary["reactions"]
    for rx in corpus.reactions:
        assert _balanced(corpus, rx)
        assert all(k > 0 for _, k in rx.reactants + rx.products + rx.reagents)
        products = {s for s, _ in rx.products}
        assert set(rx.byproducts) <= products and len(rx.byproducts) < len(products)
        assert not {s for s, _ in rx.reagents} & (products | {s for s, _ in rx.reactants})
        assert rx.product_mw > 0


def test_nitro_reduction_has_non_unit_coefficients():
    corpus = get_corpus("embedded")
    rx = next(r for r in corpus.reactions if r.rclass == "nitro_reduction")
    coef = {corpus.species_smiles[s]: k for s, k in rx.reactants + rx.products}
    assert coef["[H][H]"] == 3 and coef["O"] == 2  # ArNO2 + 3 H2 -> ArNH2 + 2 H2O
    oxidation = next(r for r in corpus.reactions if r.rclass == "alcohol_oxidation")
    coef = {corpus.species_smiles[s]: k for s, k in oxidation.reactants + oxidation.products}
    assert coef["O=O"] == 1 and coef["O"] == 2  # 2 RCH2OH + O2 -> 2 RCHO + 2 H2O
    borohydride = next(r for r in corpus.reactions if r.rclass == "borohydride_reduction")
    coef = {corpus.species_smiles[s]: k for s, k in borohydride.reactants + borohydride.products}
    assert coef["[BH4-]"] == 1 and coef["O"] == 4 and coef["O[B-](O)(O)O"] == 1


def _coefficients(corpus, rclass, reactants, products):
    want_l = {parse_formula(x).hill() for x in reactants}
    want_r = {parse_formula(x).hill() for x in products}
    for rx in corpus.reactions:
        if rx.rclass != rclass:
            continue
        left = {corpus.species_formula[s]: k for s, k in rx.reactants}
        right = {corpus.species_formula[s]: k for s, k in rx.products}
        if set(left) == want_l and set(right) == want_r:
            return {**left, **right}
    raise AssertionError(f"{reactants} -> {products} not in the classic corpus")


def test_classic_corpus_textbook_coefficients():
    corpus = get_corpus("classic")
    assert corpus.stats["dropped"] == {}
    assert len(corpus) > 1500 and len(corpus.class_counts()) >= 12
    kmno4 = _coefficients(corpus, "redox_molecular", ["KMnO4", "HCl"], ["KCl", "MnCl2", "H2O", "Cl2"])
    assert [kmno4[parse_formula(x).hill()] for x in ["KMnO4", "HCl", "KCl", "MnCl2", "H2O", "Cl2"]] == [2, 16, 2, 2, 8, 5]
    dichromate = _coefficients(corpus, "redox_ionic", ["Cr2O7-2", "Fe+2", "H+"], ["Cr+3", "Fe+3", "H2O"])
    assert [dichromate[x] for x in ["Cr2O7-2", "Fe+2", "H+", "Cr+3", "Fe+3", "H2O"]] == [1, 6, 14, 2, 6, 7]
    methane = _coefficients(corpus, "combustion", ["CH4", "O2"], ["CO2", "H2O"])
    assert methane == {"CH4": 1, "O2": 2, "CO2": 1, "H2O": 2}
    sabatier = next(r for r in corpus.reactions if r.rclass == "industrial"
                    and {corpus.species_formula[s] for s, _ in r.reactants} == {"CO2", "H2"})
    assert [corpus.species_formula[s] for s, _ in sabatier.reagents] == ["Ni"]
    assert corpus.view(corpus.reactions.index(sabatier), "smiles") is not None
    for rx in corpus.reactions:
        assert _balanced(corpus, rx)


def test_classic_skeletons_have_no_typed_coefficients():
    assert salt("Al", 3, "SO4") == "Al2(SO4)3" and salt("NH4", 1, "PO4") == "(NH4)3PO4"
    for eq in all_equations(pool_limit=0):
        assert isinstance(eq, ClassicEquation)
        for species in eq.reactants + eq.products:
            assert not species[:1].isdigit()  # species only: coefficients come from balancing


def test_mixed_corpus_holds_both():
    mixed = get_corpus("mixed")
    sources = Counter(r.source for r in mixed.reactions)
    assert sources["template"] == len(get_corpus("embedded"))
    assert sources["classic"] > 1000


def test_small_build_is_deterministic_across_processes():
    params = {"molecule_limit": 600, "cap_scale": 0.03}
    local = build_embedded(**params)
    assert len(local) > 100 and len(local.class_counts()) >= 20
    code = ("import json; from rlvr.generators.stoich.template_build import build_embedded; "
            f"c = build_embedded(**{params!r}); print(json.dumps([c.content_hash, len(c)]))")
    env = dict(os.environ, PYTHONHASHSEED="4242")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [local.content_hash, len(local)]


def test_corpus_json_round_trip_and_tamper_detection(tmp_path):
    corpus = get_corpus("classic")
    path = tmp_path / "c.json.gz"
    corpus.save(path)
    again = Corpus.load(path)
    assert again.content_hash == corpus.content_hash and len(again) == len(corpus)
    assert again.view(5, "formula") == corpus.view(5, "formula")
    data = corpus.to_json()
    data["reactions"][0]["r"][0][1] += 1
    with pytest.raises(ValueError, match="content hash"):
        Corpus.from_json(data)


def test_cache_builds_once_and_recovers_from_corruption(tmp_path, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path))
    calls = []
    small = get_corpus("classic")

    def build():
        calls.append(1)
        return small

    first = corpus_mod._cached("probe", "k1", build)
    second = corpus_mod._cached("probe", "k1", build)
    assert len(calls) == 1 and first.content_hash == second.content_hash
    path = corpus_mod.corpus_path("probe", "k1")
    assert path.parent == tmp_path / "stoich" and path.exists()
    path.write_bytes(b"not gzip")
    third = corpus_mod._cached("probe", "k1", build)
    assert len(calls) == 2 and third.content_hash == small.content_hash


def test_inputs_key_depends_on_build_parameters():
    assert corpus_mod.embedded_inputs_key() != corpus_mod.embedded_inputs_key(molecule_limit=10)
    assert corpus_mod.embedded_inputs_key() == corpus_mod.embedded_inputs_key()
