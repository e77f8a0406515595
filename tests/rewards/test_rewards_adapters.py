"""Trainer adapters (TRL reward functions, verl compute_score, OpenRLHF reward_func) score exactly as rlvr.verify."""
from __future__ import annotations

import json

import pytest

import rlvr
import rlvr.rewards as rewards
from rlvr.datasets import build_dataset
from rlvr.export import verl_row
from rlvr.task import Task

MIX = "stoich.t1,stoich.t2,stoich.balance,stoich.byproduct,mol.count,mol.index,mol.gen"


def _wrong(task: Task) -> str:
    """A well-formed but wrong answer."""
    gt = task.ground_truth
    if task.family == "stoich.balance":
        return "<answer>" + ", ".join(str(int(k) + (i == 0)) for i, k in enumerate(gt["coefficients"])) + "</answer>"
    if task.family.startswith("stoich."):
        from rlvr.chem.notation import format_bag

        bag = {s: int(k) for s, k in (gt.get("products") or gt["byproducts"]).items()}
        first = next(iter(bag))
        return f"<answer>{format_bag({**bag, first: bag[first] + 1})}</answer>"
    if task.family == "mol.gen":
        return '<answer>{"smiles": "CC.O"}</answer>'
    return "<answer>" + json.dumps({k: (v + 1 if isinstance(v, int) and not isinstance(v, bool) else "?") for k, v in gt.items()}) + "</answer>"


@pytest.fixture(scope="module")
def batch():
    """Rows of every family, each with a correct, a wrong and an unreadable completion (TRL's repeated layout)."""
    ds = build_dataset(MIX, n=21, split="train", seed=4)
    assert set(ds["family"]) == set(MIX.split(","))
    rows, completions = [], []
    for row in ds:
        task = Task.from_json(row["task_json"])
        for completion in (rlvr.oracle_completion(task), _wrong(task), "I think it is 3."):
            rows.append(row)
            completions.append(completion)
    columns = {key: [r[key] for r in rows] for key in rows[0] if key != "prompt"}
    prompts = [r["prompt"] for r in rows]
    tasks = [Task.from_json(r["task_json"]) for r in rows]
    expected = [rlvr.verify(t, c) for t, c in zip(tasks, completions)]
    assert {v.reward for v in expected} == {0.0, 1.0}
    return prompts, completions, columns, tasks, expected


def test_reward_functions_are_importable_by_name():
    from rlvr.train.rewards import resolve_reward_func

    for name in ("chem_reward", "stoich_reward", "mol_reward", "format_reward", "partial_reward", "exact_reward"):
        func = getattr(rewards, name)
        assert func.__name__ == name and callable(func)
        assert resolve_reward_func(name) is func
    assert resolve_reward_func("rlvr.rewards.chem_reward") is rewards.chem_reward
    with pytest.raises(AttributeError):
        rewards.no_such_reward  # noqa: B018


def test_chem_reward_equals_verify_for_text_and_chat_completions(batch):
    prompts, completions, columns, tasks, expected = batch
    assert rewards.chem_reward(prompts, completions, **columns) == [v.reward for v in expected]
    chat = [[{"role": "assistant", "content": c}] for c in completions]
    assert rewards.chem_reward(prompts, chat, **columns) == [v.reward for v in expected]


def test_family_rewards_return_none_for_other_families(batch):
    prompts, completions, columns, tasks, expected = batch
    stoich = rewards.stoich_reward(prompts, completions, **columns)
    mol = rewards.mol_reward(prompts, completions, **columns)
    for task, v, s, m in zip(tasks, expected, stoich, mol):
        if task.family.startswith("stoich."):
            assert s == v.reward and m is None
        else:
            assert m == v.reward and s is None


def test_format_reward(batch):
    prompts, completions, columns, tasks, expected = batch
    values = rewards.format_reward(prompts, completions, **columns)
    assert values[0::3] == [1.0] * (len(values) // 3)  # oracle
    assert values[2::3] == [0.0] * (len(values) // 3)  # no answer block
    assert all(v == (0.0 if e.reason in ("no_answer", "unparsable", "too_long") else 1.0) for v, e in zip(values, expected))


def test_make_reward_modes_and_names(batch):
    prompts, completions, columns, tasks, expected = batch
    shaped = rewards.make_reward(reward="shaped", families=["mol.count", "mol.index"])
    assert shaped.__name__ == "chem_reward_shaped"
    out = shaped(prompts, completions, **columns)
    for task, c, value in zip(tasks, completions, out):
        if task.family in ("mol.count", "mol.index"):
            assert value == rlvr.verify(task, c, reward="shaped").reward
        else:
            assert value is None
    partial = rewards.partial_reward(prompts, completions, **columns)
    for task, c, value in zip(tasks, completions, partial):
        mode = "f1" if task.family.startswith("stoich.") else "shaped"
        assert value == rlvr.verify(task, c, reward=mode).reward
    # exact_reward keeps exact match even when the recipe's reward_mode asks for partial credit
    exact = rewards.exact_reward(prompts, completions, reward_mode="f1", **columns)
    assert exact == [float(v.correct) for v in expected]
    # the trainer's reward_mode kwarg applies when the function has no mode of its own
    f1 = rewards.stoich_reward(prompts, completions, reward_mode="f1", **columns)
    for task, c, value in zip(tasks, completions, f1):
        if task.family.startswith("stoich."):
            assert value == rlvr.verify(task, c, reward="f1").reward
    # a mode a family does not know is a configuration error, raised loudly
    with pytest.raises(ValueError, match="reward mode"):
        rewards.make_reward(reward="f1")(prompts, completions, **columns)


def test_metrics_are_logged_through_trl_callbacks(batch):
    prompts, completions, columns, tasks, expected = batch
    metrics, extra = {}, {}
    rewards.chem_reward(prompts, completions, log_metric=metrics.__setitem__, log_extra=extra.__setitem__, **columns)
    n = len(expected)
    assert metrics["chem_reward/acc"] == pytest.approx(sum(v.correct for v in expected) / n)
    assert metrics["chem_reward/score"] == pytest.approx(sum(v.reward for v in expected) / n)
    stoich_t2 = [v for t, v in zip(tasks, expected) if t.family == "stoich.t2"]
    assert metrics["chem_reward/acc/stoich.t2"] == pytest.approx(sum(v.correct for v in stoich_t2) / len(stoich_t2))
    with_f1 = [v.metrics["f1"] for v in expected if "f1" in v.metrics]
    assert metrics["chem_reward/f1"] == pytest.approx(sum(with_f1) / len(with_f1))
    assert extra["chem_reward_reason"] == [v.reason for v in expected]


def test_record_columns_without_task_json(batch):
    prompts, completions, columns, tasks, expected = batch
    records = [t.to_dict() for t in tasks]
    cols = {k: [r[k] for r in records] for k in ("id", "family", "ground_truth", "meta")}
    assert rewards.chem_reward(prompts, completions, **cols) == [v.reward for v in expected]
    broken = dict(columns, task_json=["{not json"] * len(completions))
    assert rewards.chem_reward(prompts, completions, **broken) == [0.0] * len(completions)


def test_verl_compute_score_equals_verify(batch):
    from rlvr.rewards.verl import compute_score

    prompts, completions, columns, tasks, expected = batch
    keys = set()
    for i, (task, completion, v) in enumerate(zip(tasks, completions, expected)):
        row = verl_row(task, i)
        result = compute_score(row["data_source"], completion, row["reward_model"]["ground_truth"], row["extra_info"])
        assert result["score"] == v.reward and result["acc"] == float(v.correct)
        keys.add(tuple(sorted(result)))
        # a full task record as ground_truth works too
        assert compute_score(task.family, completion, task.to_json())["score"] == v.reward
    assert keys == {("acc", "answered", "score")}  # the same keys for every family: verl stacks them
    assert compute_score("x", "y", json.dumps({"products": {}}), {})["score"] == 0.0


def test_openrlhf_reward_func_equals_verify(batch):
    import torch

    from rlvr.rewards.openrlhf import reward_func

    prompts, completions, columns, tasks, expected = batch
    templated = [f"<|user|>{t.user_text}<|assistant|>" for t in tasks]
    queries = [p + c for p, c in zip(templated, completions)]
    out = reward_func(queries, templated, columns["task_json"])
    assert isinstance(out["rewards"], torch.Tensor) and out["rewards"].shape == (len(queries),)
    assert out["rewards"].tolist() == [v.reward for v in expected]
    assert out["scores"].tolist() == [v.reward for v in expected]
    assert out["extra_logs"]["acc"].tolist() == [float(v.correct) for v in expected]
    # the prompt's own text can never be scored as the answer
    example = [f"Answer like <answer>{json.dumps(t.ground_truth)}</answer>. " for t in tasks]
    out = reward_func([p + "no answer" for p in example], example, columns["task_json"])
    assert out["rewards"].tolist() == [0.0] * len(tasks)
    with pytest.raises(ValueError, match=r"labels\[1\]"):
        reward_func(queries[:2], templated[:2], [columns["task_json"][0], "not a task"])
    with pytest.raises(ValueError, match="one task record"):
        reward_func(queries[:2], templated[:2], columns["task_json"][:1])
