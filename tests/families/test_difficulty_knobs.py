"""Every difficulty knob of every family (``FamilySpec.difficulty.knobs``) is an option whose every level generates.

Knobs are what framework curricula step through (reasoning-gym's attribute levels): a level that the
family's config rejects or whose tasks do not carry the value would break a curriculum mid-run.
"""
from __future__ import annotations

import pytest

import rlvr
from rlvr.registry import FamilySpec, Knob, get_family, list_families

KNOBBED = [f for f in list_families() if get_family(f).difficulty is not None and get_family(f).difficulty.knobs]


def test_the_built_in_groups_declare_knobs():
    assert {f.split(".")[0] for f in KNOBBED} == {"stoich", "mol"}


@pytest.mark.parametrize("family", KNOBBED)
def test_every_level_of_every_knob_generates(family):
    spec = get_family(family)
    split = spec.splits[0]
    for knob in spec.difficulty.knobs:
        assert knob.option in spec.generator_options
        for level in knob.levels:
            value = (knob.levels[0], level) if knob.span else level
            task = rlvr.generate(family, split=split, seed=0, index=0, **{knob.option: value})
            assert task.meta["config"][knob.option] == (list(value) if knob.span else value)


def test_a_knob_needs_two_levels_and_a_real_option():
    with pytest.raises(ValueError, match="at least two levels"):
        Knob("load", (1,))
    spec = get_family("mol.count")
    difficulty = type(spec.difficulty)(cell=spec.difficulty.cell, knobs=(Knob("colour", (1, 2)),))
    with pytest.raises(TypeError, match=r"difficulty knobs \['colour'\]"):
        FamilySpec(name="x.y", config_cls=spec.config_cls, generator=spec.generator, check=spec.check,
                   oracle=spec.oracle, splits=spec.splits, difficulty=difficulty)
