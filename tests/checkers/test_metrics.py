from rlvr.checkers.metrics import bag_counts, bag_metrics, balance_rates


def test_appendix_e_worked_example():
    pred = {"H2O": 3, "ClH": 2, "CO2": 1}
    true = {"H2O": 2, "ClH": 2, "CH4": 1}
    c = bag_counts(pred, true)
    assert (c.tp, c.fp, c.fn) == (4, 2, 1)
    m = bag_metrics(pred, true)
    assert m["em"] == 0.0
    assert m["jaccard"] == 4 / 7
    assert m["f1"] == 8 / 11
    assert m["mol_jaccard"] == 2 / 4


def test_exact_match():
    m = bag_metrics({"a": 2, "b": 1}, {"b": 1, "a": 2})
    assert m["em"] == m["jaccard"] == m["f1"] == 1.0


def test_balance_rates():
    assert balance_rates({})["balanced"] == 1.0
    r = balance_rates({"C": -1, "O": 2})
    assert r["deficitary"] == r["exceeding"] == r["both"] == 1.0 and r["balanced"] == 0.0
