"""The registry's hooks and rules: run-time registration, option checks, groups, and no family names
in the consumers (envs, eval, train, datasets, rewards scoring, solutions, api)."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import rlvr
from rlvr.prompting import PROMPT_OPTIONS
from rlvr.envs.feedback import feedback_lines
from rlvr.eval.backends.reference import copy_input_completion
from rlvr.eval.layouts import GENERIC_LAYOUT, layout_for
from rlvr.eval.suites import builtin_suites
from rlvr.registry import (
    DEFAULT_SUITE_SIZE, REGISTRY, FamilyGroup, FamilySpec, SuiteEntry, get_family, get_group, group_default_family,
    group_families, group_for_env, group_suite, list_groups, register_family, resolve_in_group, unregister_family,
)
from rlvr.task import Task, Verdict

ROOT = Path(__file__).resolve().parents[2] / "rlvr"
#: modules that consume families through their hooks only
CONSUMERS = [
    *sorted((ROOT / "envs").glob("*.py")), *sorted((ROOT / "eval").rglob("*.py")), *sorted((ROOT / "train").glob("*.py")),
    ROOT / "datasets.py", ROOT / "api.py", ROOT / "prompting.py", ROOT / "rewards" / "scoring.py",
    ROOT / "solutions" / "__init__.py", ROOT / "solutions" / "fewshot.py", ROOT / "solutions" / "worked.py",
]

def _string_literals(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module except docstrings, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_consumer_names_a_family():
    names = set(rlvr.list_families())
    prefixes = {name.split(".", 1)[0] + "." for name in names}
    found = []
    for path in CONSUMERS:
        for line, text in _string_literals(path):
            if text in names or text in prefixes or any(text.startswith(n + ":") for n in names):
                found.append(f"{path.relative_to(ROOT.parent)}:{line}: {text!r}")
    assert not found, "family names in consumer code (use a FamilySpec hook):\n" + "\n".join(found)


def _toy(name: str = "tmp.echo", **hooks) -> FamilySpec:
    @dataclasses.dataclass(frozen=True)
    class EchoConfig:
        word: str = "hello"

    def generate(config, split, seed, index):
        return Task(id=f"{name}:{split}:{seed}:{index}:x", family=name,
                    prompt=[{"role": "user", "content": f"Say {config.word} {index}"}],
                    ground_truth={"say": f"{config.word} {index}"}, meta={"split": split})

    def check(task, completion, *, strict: bool = True):
        ok = isinstance(completion, str) and task.ground_truth["say"] in completion
        return Verdict(float(ok), ok, {}, "ok" if ok else "wrong_value")

    return FamilySpec(name=name, config_cls=EchoConfig, generator=generate, check=check,
                      oracle=lambda t: f"<answer>{t.ground_truth['say']}</answer>", splits=("train",), **hooks)


def test_register_and_unregister_at_run_time():
    spec = register_family(_toy())
    try:
        assert get_family("tmp.echo") is spec and "tmp.echo" in rlvr.list_families()
        task = rlvr.generate("tmp.echo", "train", 0, 4, word="hi")
        assert task.meta["config"] == {"word": "hi"}  # filled in for a generator that does not record it
        assert rlvr.verify(task, rlvr.oracle_completion(task)).reward == 1.0
        assert rlvr.verify(task, "x", strict=False).reward == 0.0  # an option the checker takes
        with pytest.raises(TypeError, match="unexpected keyword argument 'reward'"):
            rlvr.verify(task, "x", reward="em")
        with pytest.raises(ValueError, match="already registered"):
            register_family(_toy())
        register_family(_toy(), replace=True)
    finally:
        unregister_family("tmp.echo")
    assert "tmp.echo" not in rlvr.list_families()
    with pytest.raises(KeyError, match="unknown task family"):
        get_family("tmp.echo")
    with pytest.raises(ValueError, match="already registered"):
        register_family(dataclasses.replace(get_family("stoich.t1")))


def test_a_config_field_may_not_shadow_a_prompt_option():
    @dataclasses.dataclass
    class Clash:
        few_shot: int = 0

    with pytest.raises(TypeError, match="clash"):
        FamilySpec(name="tmp.clash", config_cls=Clash, generator=lambda *a: None, check=lambda t, c: None,
                   oracle=lambda t: "", splits=("train",))
    assert set(PROMPT_OPTIONS) >= {"prompt_style", "system_prompt", "few_shot"}


def test_verify_checks_options_up_front():
    task = next(rlvr.sample("stoich.t2", n=1))
    with pytest.raises(TypeError, match="unexpected keyword argument 'mode'"):
        rlvr.verify(task, "<answer>x</answer>", mode="f1")
    with pytest.raises(ValueError, match="unknown reward mode"):
        rlvr.verify(task, "<answer>x</answer>", reward="lenient")
    assert get_family("stoich.t2").accepted_check_options == ("reward",)
    assert get_family("mol.gen").accepted_check_options == ("reward",)


def test_groups_bind_suites_layouts_and_environments():
    groups = list_groups()
    assert groups and len({g.name for g in groups}) == len(groups)
    for group in groups:
        assert isinstance(group, FamilyGroup) and group_suite(group)
        assert {e.family for e in group_suite(group)} <= set(rlvr.list_families())
        assert get_family(group_default_family(group)).group is group
        assert resolve_in_group(group, None) == group_default_family(group)
        if group.env_id is not None:
            assert group_for_env(group.env_id) is group and get_group(group.name) is group
        for family in group_families(group):
            assert resolve_in_group(group, family.split(".", 1)[-1]) == family
            others = [g for g in groups if g is not group]
            if others:
                with pytest.raises(ValueError, match=group.name):
                    resolve_in_group(group, group_families(others[0])[0])


def test_every_provided_family_belongs_to_a_group():
    """What a built-in family must have besides the required fields (docs/writing-a-family.md)."""
    provided = set(rlvr.list_families()) - set(REGISTRY.runtime_names())
    assert provided
    for name in provided:
        assert get_family(name).group is not None, name


def test_every_family_works_with_its_hooks_or_their_defaults():
    for name in rlvr.list_families():
        task = next(rlvr.sample(name, n=1, split=get_family(name).splits[-1]))
        assert rlvr.verify(task, copy_input_completion(task)).reward < 1.0, name
        lines = feedback_lines(task, rlvr.verify(task, "<answer>?</answer>"))
        assert lines and all(isinstance(line, str) and line for line in lines), name


def test_a_group_with_nothing_but_a_name_gets_a_suite_a_layout_and_a_default_family():
    group = FamilyGroup(name="tmpgroup")
    first = register_family(_toy("tmpgroup.a", group=group))
    register_family(dataclasses.replace(_toy("tmpgroup.b"), group=group))
    try:
        assert group_default_family(group) == "tmpgroup.a" and resolve_in_group(group, None) == "tmpgroup.a"
        assert group_suite(group) == (SuiteEntry("tmpgroup.a", "train", DEFAULT_SUITE_SIZE),
                                      SuiteEntry("tmpgroup.b", "train", DEFAULT_SUITE_SIZE))
        assert builtin_suites()["tmpgroup"].entries == group_suite(group)
        assert layout_for(first.name) is GENERIC_LAYOUT
        task = rlvr.generate("tmpgroup.a", "train", 0, 1)
        assert feedback_lines(task, rlvr.verify(task, "<answer>nope</answer>"))
    finally:
        unregister_family("tmpgroup.a")
        unregister_family("tmpgroup.b")
