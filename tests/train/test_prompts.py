"""A recipe's prompt options (system prompt, style, few-shot) are family config options: the training
prompt is the task's own, and ``rlvr.regenerate`` rebuilds it exactly."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

import rlvr
from rlvr.api import oracle_completion, sample, verify
from rlvr.datasets import Mixture, task_from_row
from rlvr.train.config import TaskArguments
from rlvr.train.data import build_eval_sets, build_train_dataset
from rlvr.train.sft_data import sft_rows

OPEN = {"encoding": "formula", "prompt_mode": "open"}


def _task(**options):
    return next(sample("stoich.t1", n=1, split="test_in", seed=3, encoding="formula", **options))


def test_compact_open_book_prompt_keeps_the_question():
    task = _task(prompt_mode="open")
    compact = _task(prompt_mode="open", prompt_style="compact")
    (msg,) = [m for m in compact.prompt if m["role"] == "user"]
    text = msg["content"]
    assert len(text) < len(task.user_text) / 2
    assert "Mixture: {" in text and "Reaction: {" in text and ">>" in text
    # every input species and every product of the reference reaction is shown
    for species in task.meta["inputs"]:
        assert species in text
    for species in task.meta["reaction"]["products"]:
        assert species in text.split(">>")[1]
    closed = _task(prompt_style="compact")
    assert "Reaction:" not in closed.user_text


def test_styled_task_keeps_id_and_ground_truth_and_still_verifies():
    task = _task(prompt_mode="open")
    shaped = _task(prompt_mode="open", prompt_style="compact", system_prompt="Be brief.")
    assert shaped.id == task.id and shaped.ground_truth == task.ground_truth
    assert shaped.prompt[0] == {"role": "system", "content": "Be brief."}
    assert shaped.meta["config"]["prompt_style"] == "compact" and shaped.meta["config"]["system_prompt"] == "Be brief."
    assert "prompt_style" not in task.meta["config"]  # defaults are not recorded
    assert verify(shaped, oracle_completion(task)).reward == 1.0


def test_few_shot_demonstrations_are_solved_train_tasks():
    args = TaskArguments(families=["stoich.t1"], task_options=OPEN, prompt_style="compact", few_shot=2)
    mixture = Mixture(args.mix(), "test_in", 3)
    first, again = mixture.task_at(0), mixture.task_at(0)
    assert first.prompt == again.prompt  # deterministic
    roles = [m["role"] for m in first.prompt]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    shots = list(zip(first.prompt[1:-1:2], first.prompt[2:-1:2]))
    assert shots == list(zip(mixture.task_at(1).prompt[1:-1:2], mixture.task_at(1).prompt[2:-1:2]))  # shared
    pool = list(sample("stoich.t1", n=32, split="train", seed=args.few_shot_seed, prompt_style="compact", **OPEN))
    by_question = {t.user_text: t for t in pool}
    for user, answer in shots:
        assert user["content"].startswith("Mixture:")
        assert answer["content"].startswith("<answer>") and answer["content"].endswith("</answer>")
        task = by_question[user["content"]]
        assert verify(task, answer["content"]).reward == 1.0  # a correct answer to a real train task
        assert task.meta["factor"] != 1  # the demonstration shows scaling
        # listed in the order of the reaction's right side, as the prompt shows the molecules
        right = user["content"].split(">>")[1].split("\n")[0]
        names = [part.split("}")[1] for part in answer["content"][len("<answer>"):-len("</answer>")].split(".")]
        assert names == sorted(names, key=right.index)
    assert "few_shot" not in TaskArguments(families=["stoich.t1"]).prompt_options()


def test_minimal_style_keeps_only_mixture_and_reaction():
    shaped = _task(prompt_mode="open", prompt_style="minimal", system_prompt="Scale the right side.")
    text = shaped.user_text
    assert text.splitlines()[0].startswith("Mixture: {")
    assert [line.split(":")[0] for line in text.splitlines()] == ["Mixture", "Reaction"]
    assert verify(shaped, oracle_completion(shaped)).reward == 1.0


def test_a_style_the_family_lacks_is_refused():
    with pytest.raises(ValueError, match="compact"):
        next(sample("stoich.balance", n=1, split="test", seed=0, prompt_style="compact"))
    with pytest.raises(ValueError, match="prompt_style"):
        TaskArguments(families=["stoich.t1"], prompt_style="tiny")
    with pytest.raises(ValueError, match="few_shot"):
        TaskArguments(families=["stoich.t1"], few_shot=-1)


@pytest.mark.parametrize("options", [
    {"prompt_style": "minimal", "few_shot": 1, "system_prompt": "Scale the right side."},
    {"prompt_style": "compact", "few_shot": 2},
    {"system_prompt": "Be brief."},
])
def test_training_prompts_regenerate_to_the_identical_prompt(options):
    args = TaskArguments(families=["stoich.t1:2", "stoich.t2"], task_options=OPEN, train_size=4,
                         eval_splits=["test_out"], eval_size=2, **options)
    rows = list(build_train_dataset(args, SimpleNamespace(max_steps=-1)))
    rows += [row for ds in build_eval_sets(args).values() for row in ds]
    rows += sft_rows(args.mix(), 2, seed=5)[0]
    assert len(rows) == 8
    for row in rows:
        task = task_from_row(row)
        assert row["prompt"] == task.prompt  # the row's prompt is the task's own
        again = rlvr.regenerate(task)
        assert again.prompt == task.prompt and again.to_dict() == task.to_dict()
        if options.get("system_prompt"):
            assert task.prompt[0] == {"role": "system", "content": options["system_prompt"]}
