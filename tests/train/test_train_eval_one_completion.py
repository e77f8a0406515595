"""In-training evaluation scores one greedy completion per eval prompt, not a whole GRPO group."""
from __future__ import annotations

from collections import Counter

from rlvr.train.recipe import parse_recipe
from rlvr.train.runner import greedy_generation_config, one_completion_per_eval_prompt, train

#: (task id, completion) of every reward call, appended by :func:`recording_reward`
CALLS: list[tuple[str, str]] = []


def recording_reward(prompts, completions, **kwargs):
    """rlvr's chem_reward, recording which task each completion answered."""
    from rlvr.rewards import chem_reward

    ids = kwargs.get("id") or [""] * len(completions)
    texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
    CALLS.extend(zip(ids, texts))
    return chem_reward(prompts, completions, **kwargs)


def test_in_training_eval_generates_one_completion_per_prompt(tmp_path, tiny_model, make_recipe):
    from rlvr.train.data import build_eval_sets

    CALLS.clear()
    recipe = make_recipe(
        tmp_path / "r.yaml", tiny_model, tmp_path / "out",
        reward_funcs=[f"{__name__}.recording_reward"], max_steps=1, save_strategy="no",
        num_generations=4, eval_splits=["test_in", "test_out"], eval_size=3, eval_strategy="steps", eval_steps=1,
        per_device_eval_batch_size=4,
    )
    parsed = parse_recipe(["--config", str(recipe)])
    task, training, model = parsed.task, parsed.training, parsed.model
    eval_ids = {name: [row["id"] for row in ds] for name, ds in build_eval_sets(task).items()}
    result = train(task, training, model)
    assert result.global_step == 1 and "eval_test_in_reward" in result.eval_metrics
    every_eval_id = [i for ids in eval_ids.values() for i in ids]
    counts = Counter(tid for tid, _ in CALLS if tid in set(every_eval_id))
    assert counts == Counter(every_eval_id), counts  # each eval prompt scored exactly once
    train_calls = [tid for tid, _ in CALLS if tid not in set(every_eval_id)]
    assert train_calls and len(train_calls) % 4 == 0  # training still samples groups of num_generations


def test_the_recipe_count_is_kept_and_eval_decodes_greedily():
    from transformers import GenerationConfig

    class Args:
        num_generations_eval = 2

    args = Args()
    one_completion_per_eval_prompt(args)
    assert args.num_generations_eval == 2
    args.num_generations_eval = None
    one_completion_per_eval_prompt(args)
    assert args.num_generations_eval == 1
    sampling = GenerationConfig(do_sample=True, temperature=1.0, top_p=0.9, max_new_tokens=8)
    greedy = greedy_generation_config(sampling)
    assert greedy.do_sample is False and greedy.temperature is None and greedy.max_new_tokens == 8
    assert sampling.do_sample is True and sampling.temperature == 1.0
