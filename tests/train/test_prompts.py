"""Prompt shaping: compact stoichiometry prompts, system prompt, few-shot demonstrations."""
from __future__ import annotations

import pytest

from rlvr.api import oracle_completion, sample, verify
from rlvr.train.config import TaskArguments
from rlvr.train.data import make_shaper
from rlvr.train.prompts import PromptShaper, compact_products_prompt, demonstrations


def _task(**options):
    return next(sample("stoich.t1", n=1, split="test_in", seed=3, encoding="formula", **options))


def test_compact_open_book_prompt_keeps_the_question():
    task = _task(prompt_mode="open")
    (msg,) = compact_products_prompt(task)
    text = msg["content"]
    assert msg["role"] == "user" and len(text) < len(task.user_text) / 2
    assert "Mixture: {" in text and "Reaction: {" in text and ">>" in text
    # every input species and every product of the reference reaction is shown
    for species in task.meta["inputs"]:
        assert species in text
    for species in task.meta["reaction"]["products"]:
        assert species in text.split(">>")[1]
    closed = compact_products_prompt(_task())
    assert "Reaction:" not in closed[0]["content"]


def test_shaped_task_keeps_id_and_ground_truth_and_still_verifies():
    task = _task(prompt_mode="open")
    shaper = PromptShaper(system_prompt="Be brief.", style="compact")
    shaped = shaper.shape_task(task)
    assert shaped.id == task.id and shaped.ground_truth == task.ground_truth
    assert shaped.prompt[0] == {"role": "system", "content": "Be brief."}
    assert verify(shaped, oracle_completion(task)).reward == 1.0
    assert PromptShaper().shape_task(task) is task


def test_few_shot_demonstrations_are_solved_train_tasks():
    args = TaskArguments(families=["stoich.t1"], task_options={"encoding": "formula", "prompt_mode": "open"},
                         prompt_style="compact", few_shot=2)
    shaper = make_shaper(args)
    assert len(shaper.shots) == 2 and shaper.shots == make_shaper(args).shots  # deterministic
    messages = shaper.messages(_task(prompt_mode="open"))
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    for user, answer in shaper.shots:
        assert user.startswith("Mixture:") and answer.startswith("<answer>") and answer.endswith("</answer>")
    pool = list(sample("stoich.t1", n=32, split="train", seed=args.few_shot_seed, encoding="formula", prompt_mode="open"))
    by_question = {compact_products_prompt(t)[0]["content"]: t for t in pool}
    for user, answer in shaper.shots:
        task = by_question[user]
        assert verify(task, answer).reward == 1.0  # a correct answer to a real train task
        assert task.meta["factor"] != 1  # the demonstration shows scaling
        # listed in the order of the reaction's right side, as the prompt shows the molecules
        right = user.split(">>")[1].split("\n")[0]
        names = [part.split("}")[1] for part in answer[len("<answer>"):-len("</answer>")].split(".")]
        assert names == sorted(names, key=right.index)
    assert demonstrations(args.mix(), 0) == ()


def test_minimal_style_keeps_only_mixture_and_reaction():
    task = _task(prompt_mode="open")
    (msg,) = PromptShaper(style="minimal").question(task)
    assert msg["content"].splitlines()[0].startswith("Mixture: {")
    assert [line.split(":")[0] for line in msg["content"].splitlines()] == ["Mixture", "Reaction"]
    shaped = PromptShaper(style="minimal", system_prompt="Scale the right side.").shape_task(task)
    assert verify(shaped, oracle_completion(task)).reward == 1.0


def test_compact_style_is_refused_for_other_families():
    task = next(sample("stoich.balance", n=1, split="test", seed=0))
    with pytest.raises(ValueError, match="compact"):
        PromptShaper(style="compact").messages(task)
    with pytest.raises(ValueError):
        PromptShaper(style="tiny")
