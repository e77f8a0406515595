"""The reward-driven curriculum (pure state; the stream reads it at every row)."""
from __future__ import annotations

import pytest

from rlvr.train.curriculum import Curriculum


def test_advances_on_rolling_mean_after_min_steps():
    c = Curriculum.from_config({"option": "coef_max", "levels": [2, 4, 8], "threshold": 0.5, "window": 2, "min_steps": 3})
    assert c.options_for("stoich.t1") == {"coef_max": 2}
    assert not c.observe({"reward": 0.9}, step=1)  # window not full
    assert not c.observe({"reward": 0.9}, step=2)  # min_steps not reached
    assert c.observe({"reward": 0.9}, step=3)
    assert c.value == 4 and c.history[-1]["step"] == 3
    assert not c.observe({"reward": 0.2}, step=10)
    assert not c.observe({"reward": 0.3}, step=11)  # mean 0.25 < 0.5
    assert c.observe({"reward": 0.9}, step=12)  # rolling window [0.3, 0.9]: mean 0.6
    assert c.value == 8 and c.finished


def test_stays_at_last_level_and_ignores_other_logs():
    c = Curriculum(option="k", levels=[1, 2], window=1, min_steps=0, threshold=0.1)
    assert not c.observe({"loss": 1.0}, step=1)
    assert c.observe({"reward": 1.0}, step=1)
    assert c.finished and not c.observe({"reward": 1.0}, step=5)
    assert c.value == 2


def test_family_filter_and_state_roundtrip():
    c = Curriculum(option="k", levels=[1, 2, 3], families=["stoich.t2"], window=1, min_steps=0)
    assert c.options_for("stoich.t1") == {}
    c.observe({"reward": 1.0}, step=4)
    d = Curriculum(option="k", levels=[1, 2, 3], families=["stoich.t2"])
    d.load_state_dict(c.state_dict())
    assert d.level == 1 and d.options_for("stoich.t2") == {"k": 2}


@pytest.mark.parametrize("bad", [{"levels": [1, 2]}, {"option": "k", "levels": [1]}, {"option": "k", "levels": [1, 2], "speed": 3}])
def test_bad_configs_are_named(bad):
    with pytest.raises(ValueError):
        Curriculum.from_config(bad)


def test_levels_are_validated_against_the_families():
    from rlvr.train.config import TaskArguments
    from rlvr.train.data import check_curriculum

    mix = TaskArguments(families=["stoich.t2"]).mix()
    check_curriculum(Curriculum(option="coef_in", levels=[[1, 2], [1, 5]]), mix)
    with pytest.raises(ValueError, match="invalid|unknown"):
        check_curriculum(Curriculum(option="no_such_option", levels=[1, 2]), mix)
    with pytest.raises(ValueError, match="none of the families"):
        check_curriculum(Curriculum(option="coef_in", levels=[[1, 2], [1, 5]], families=["mol.count"]), mix)
