from rlvr.eval import EvalConfig, load_eval_set
from rlvr.eval.suites import builtin_suites, eval_set_digest, get_suite, normalise_splits
from rlvr.registry import group_suite, list_groups


def _tasks(**kwargs):
    return [t for _, t in load_eval_set(EvalConfig(backend="oracle", **kwargs))[0]]


def test_eval_set_is_fixed_by_seed_and_limit_is_a_prefix():
    a = _tasks(suite="stoich", limit=2, seed=0)
    b = _tasks(suite="stoich", limit=2, seed=0)
    assert [t.to_dict() for t in a] == [t.to_dict() for t in b]
    assert eval_set_digest(a) != eval_set_digest(_tasks(suite="stoich", limit=2, seed=1))
    small = {t.id for t in _tasks(suite="stoich", limit=1, seed=0)}
    assert small < {t.id for t in a}


def test_split_filter_and_aliases():
    assert normalise_splits(["in", "out,cross"]) == ("test_in", "test_out", "test_cross")
    tasks = _tasks(suite="stoich", limit=1, splits=("out",))
    assert tasks and {t.id.split(":")[1] for t in tasks} == {"test_out"}


def test_builtin_suites():
    assert {e.split for e in get_suite("stoich").entries} >= {"test_in", "test_cross", "test_out", "test"}
    assert {e.options["load"] for e in get_suite("molecules").entries} == {1, 2, 3, 5}



def test_every_group_has_a_suite_and_all_joins_them():
    groups = list_groups()
    suites = builtin_suites()
    assert list(suites) == [g.name for g in groups] + ["all"]
    for group in groups:
        assert get_suite(group.name).entries == group_suite(group) and get_suite(group.name).entries
    assert get_suite("all").entries == tuple(e for g in groups for e in group_suite(g))
