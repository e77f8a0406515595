"""Activation checkpointing under transformers' current name (no FutureWarning), and short runs without eval."""
from __future__ import annotations

import warnings

import pytest

from rlvr.models import quiet_checkpointing_aliases
from rlvr.train.checkpointing import NEW, checkpointing_argv, recipe_checkpointing
from rlvr.device import accelerator
from rlvr.train.recipe import parse_recipe
from rlvr.train.entry import find_recipe
from rlvr.train.runner import skip_short_run_eval


def _parse(*argv: str):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parsed = parse_recipe(list(argv))
    deprecations = [str(w.message) for w in caught if issubclass(w.category, FutureWarning) and "checkpointing" in str(w.message)]
    assert deprecations == []
    return parsed


@pytest.mark.parametrize("recipe, cli, expected", [
    ("cpu_long", [], False),                                     # the recipe says false
    ("grpo/stoich_t2_formula", [], None),                        # silent: off on CPU, TRL's default elsewhere
    ("grpo/stoich_t2_formula", ["--gradient_checkpointing", "true"], True),
    ("cpu_long", ["--activation_checkpointing=true"], True),
])
def test_recipes_parse_without_deprecation_warnings(recipe, cli, expected):
    training_args = _parse("--config", find_recipe(recipe), *cli).training
    if expected is None:
        expected = accelerator() is not None
    assert recipe_checkpointing(training_args) is expected


def test_checkpointing_argv_resolution():
    from trl import GRPOConfig

    assert checkpointing_argv([], GRPOConfig, {"gradient_checkpointing": False})[-2:] == [f"--{NEW}", "false"]
    assert checkpointing_argv(["--gradient_checkpointing"], GRPOConfig, {"gradient_checkpointing": False})[-1] == "true"
    assert checkpointing_argv([], GRPOConfig, {}, default=False)[-1] == "false"
    assert checkpointing_argv([], GRPOConfig, {})[-1] == "true"  # TRL's own default


def test_quiet_aliases_only_silences_the_checkpointing_aliases():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with quiet_checkpointing_aliases():
            warnings.warn("`is_gradient_checkpointing` is deprecated and will be removed in v6.", FutureWarning)
            warnings.warn("something else is deprecated", FutureWarning)
    assert [str(w.message) for w in caught] == ["something else is deprecated"]


def test_a_run_shorter_than_eval_steps_skips_evaluation(caplog):
    training_args = _parse("--config", find_recipe("grpo/stoich_t2_formula"), "--max_steps", "2").training
    with caplog.at_level("WARNING"):
        assert skip_short_run_eval(training_args)
    assert str(training_args.eval_strategy).lower().endswith("no")
    assert "evaluation skipped: max_steps 2 is below eval_steps 50" in caplog.text
    long_args = _parse("--config", find_recipe("grpo/stoich_t2_formula"), "--max_steps", "60").training
    assert not skip_short_run_eval(long_args) and str(long_args.eval_strategy).lower().endswith("steps")
