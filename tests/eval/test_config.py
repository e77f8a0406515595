import pytest

from rlvr.eval import EvalConfig, EvalConfigError


def test_bad_configs_are_clear_errors():
    with pytest.raises(EvalConfigError, match="base-url"):
        EvalConfig(backend="openai")
    with pytest.raises(EvalConfigError, match="unknown backend"):
        EvalConfig(backend="gpt")
    with pytest.raises(EvalConfigError, match="samples"):
        EvalConfig(samples=0)


def test_defaults_follow_the_arguments():
    assert EvalConfig(samples=1).effective_temperature == 0.0
    assert EvalConfig(samples=3).effective_temperature == 0.7
    a = EvalConfig(model="/x/ckpt-10", suite="stoich", seed=2)
    assert str(a.out_dir()) == "runs/eval/stoich-ckpt-10-transformers-s2"
    assert EvalConfig(backend="oracle", model="m1").generation_key() == EvalConfig(backend="oracle", model="m2").generation_key()
    assert EvalConfig(model="m1").generation_key() != EvalConfig(model="m2").generation_key()
    assert EvalConfig(batch_size=1).generation_key() == EvalConfig(batch_size=16).generation_key()


def test_the_draw_pins_a_sampled_transformers_run_only():
    sampled = EvalConfig(samples=4, draw="block_race").generation_key()
    assert sampled["draw"] == "block_race" and sampled != EvalConfig(samples=4).generation_key()
    # transformers' own draw, greedy decoding and other backends leave the key as runs written before the field
    assert EvalConfig(samples=4).generation_key()["draw"] is None
    assert EvalConfig(draw="block_race").generation_key()["draw"] is None
    assert EvalConfig(samples=4, backend="oracle", draw="block_race").generation_key()["draw"] is None
    with pytest.raises(EvalConfigError, match="unknown draw 'gumbel'"):
        EvalConfig(draw="gumbel")
