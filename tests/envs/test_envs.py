"""The Gymnasium text environments: registration, API conformance, vectorisation, determinism, multi-turn feedback."""
from __future__ import annotations

import json
import subprocess
import sys
import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import rlvr
import rlvr.envs  # noqa: F401 - registers the ids
from rlvr.envs import ChatTemplateObservation, ChemEnv, MolecularIQEnv, TaskStatistics

CASES = [
    ("rlvr/Stoichiometry-v0", {"family": "stoich.t2"}),
    ("rlvr/Stoichiometry-v0", {"family": "stoich.t1", "encoding": "smiles"}),
    ("rlvr/Stoichiometry-v0", {"family": "stoich.balance"}),
    ("rlvr/Stoichiometry-v0", {"family": "stoich.byproduct"}),
    ("rlvr/MolecularIQ-v0", {"task_type": "count"}),
    ("rlvr/MolecularIQ-v0", {"task_type": "index", "load": 2}),
    ("rlvr/MolecularIQ-v0", {"task_type": "gen"}),
    ("rlvr/ChemMix-v0", {"mix": "stoich.t2:2,mol.count:1"}),
]
IDS = [f"{env_id.split('/')[1]}-{next(iter(kw.values()))}" for env_id, kw in CASES]


def _make(env_id: str, **kwargs):
    return gym.make(env_id, **kwargs)


@pytest.mark.parametrize("env_id,kwargs", CASES, ids=IDS)
def test_make_reset_and_oracle_step(env_id, kwargs):
    env = _make(env_id, **kwargs)
    obs, info = env.reset(seed=7)
    task = env.unwrapped.task
    assert isinstance(obs, str) and obs in env.observation_space
    assert task.user_text in obs
    assert info["task_id"] == task.id and info["messages"] == task.prompt
    assert "ground_truth" not in info
    oracle = rlvr.oracle_completion(task)
    assert oracle.removeprefix("<answer>").removesuffix("</answer>") not in json.dumps(info)
    obs, reward, terminated, truncated, info = env.step(oracle)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["correct"] is True and info["reason"] == "ok" and obs == "Correct."
    assert info["metrics"] == json.loads(json.dumps(rlvr.verify(task, oracle).metrics, default=str))
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.step(oracle)  # the episode is over


def test_module_prefix_syntax_imports_the_package():
    code = (
        "import gymnasium as gym, sys\n"
        "assert 'rlvr.envs' not in sys.modules\n"
        "env = gym.make('rlvr.envs:rlvr/MolecularIQ-v0', task_type='count')\n"
        "obs, info = env.reset(seed=1)\n"
        "print(info['task_id'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("mol.count:train:0:")


@pytest.mark.parametrize(
    "env_id,kwargs",
    [
        ("rlvr/Stoichiometry-v0", {"family": "stoich.t2", "max_turns": 3}),
        ("rlvr/MolecularIQ-v0", {"task_type": "index"}),
        ("rlvr/ChemMix-v0", {"mix": "stoich.balance,mol.gen", "max_turns": 2}),
    ],
    ids=["stoich-multiturn", "mol", "mix"],
)
def test_check_env_passes_without_warnings(env_id, kwargs, capsys):
    env = _make(env_id, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    gym_warnings = [str(w.message) for w in caught if "gymnasium" in (w.filename or "") or "env" in str(w.message).lower()]
    assert gym_warnings == []


def test_sync_vector_env_with_correct_and_wrong_answers(helpers):
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("rlvr/ChemMix-v0", mix="stoich.t2,mol.count") for _ in range(4)])
    obs, info = envs.reset(seed=[11, 12, 13, 14])
    assert isinstance(obs, tuple) and len(obs) == 4 and all(isinstance(o, str) for o in obs)
    tasks = envs.get_attr("task")
    assert len({t.id for t in tasks}) == 4
    actions = tuple(rlvr.oracle_completion(t) if i % 2 == 0 else helpers.wrong_completions(t)[0] for i, t in enumerate(tasks))
    obs, rewards, terminated, truncated, info = envs.step(actions)
    assert list(rewards) == [1.0, 0.0, 1.0, 0.0]
    assert list(terminated) == [True] * 4 and list(truncated) == [False] * 4
    assert list(info["correct"]) == [True, False, True, False]
    assert info["reason"][0] == "ok" and info["reason"][1] != "ok"
    # next step autoresets (NEXT_STEP mode): new tasks, zero reward, action ignored
    obs, rewards, terminated, truncated, info = envs.step(actions)
    assert list(rewards) == [0.0] * 4 and not any(terminated)
    assert {t.id for t in envs.get_attr("task")}.isdisjoint({t.id for t in tasks})
    envs.close()


def test_make_vec_sync_multi_turn():
    envs = gym.make_vec("rlvr/MolecularIQ-v0", num_envs=4, vectorization_mode="sync", task_type="count", max_turns=2)
    obs, info = envs.reset(seed=3)
    tasks = envs.get_attr("task")
    obs, rewards, terminated, truncated, info = envs.step(("<answer>{}</answer>",) * 4)
    assert list(rewards) == [0.0] * 4 and not any(terminated)
    assert all(o.startswith("Not correct (attempt 1 of 2)") for o in obs)
    obs, rewards, terminated, truncated, info = envs.step(tuple(rlvr.oracle_completion(t) for t in tasks))
    assert list(rewards) == pytest.approx([0.9] * 4) and all(terminated)
    envs.close()


def test_same_seed_same_episodes_different_seed_different():
    a = ChemEnv("stoich.t1,mol.count")
    b = ChemEnv("stoich.t1,mol.count")
    ids_a = [a.reset(seed=5)[1]["task_id"]] + [a.reset()[1]["task_id"] for _ in range(4)]
    ids_b = [b.reset(seed=5)[1]["task_id"]] + [b.reset()[1]["task_id"] for _ in range(4)]
    assert ids_a == ids_b and len(set(ids_a)) == 5
    assert b.reset(seed=6)[1]["task_id"] not in ids_a
    # the task is the generator's task at the drawn index
    index = a.task_index(5, 0)
    a.reset(seed=5)
    family = a.task.family
    assert a.task.to_dict() == rlvr.generate(family, "train", 0, index).to_dict()
    # pinning a task by index or record
    obs, info = a.reset(options={"index": 42})
    assert info["task_id"] == a.mixture.task_at(42).id
    record = rlvr.generate("mol.index", "train", 0, 3).to_json()
    obs, info = a.reset(options={"task": record})
    assert info["task_id"] == "mol.index:train:0:3:" + info["task_id"].split(":")[-1]
    with pytest.raises(ValueError, match="unknown reset option"):
        a.reset(options={"level": 2})


def test_multi_turn_penalty_and_transcript(helpers):
    env = gym.make("rlvr/Stoichiometry-v0", family="stoich.t2", max_turns=3, turn_penalty=0.2)
    obs, info = env.reset(seed=1)
    task = env.unwrapped.task
    wrong = helpers.wrong_completions(task)
    obs, r1, term, trunc, info = env.step(wrong[0])
    assert (r1, term) == (0.0, False) and obs.startswith("Not correct (attempt 1 of 3)")
    assert info["messages"][-2] == {"role": "assistant", "content": wrong[0]}
    assert info["messages"][-1] == {"role": "user", "content": obs}
    obs, r2, term, trunc, info = env.step(wrong[1])
    assert (r2, term) == (0.0, False) and "attempt 2 of 3" in obs
    obs, r3, term, trunc, info = env.step(rlvr.oracle_completion(task))
    assert term and r3 == pytest.approx(0.8**2)
    assert info["solved"] is True and info["episode_return"] == pytest.approx(0.64)
    assert len(info["messages"]) == len(task.prompt) + 5


def test_out_of_turns_terminates_unsolved(helpers):
    env = ChemEnv("mol.count", max_turns=2, reveal_answer=True)
    env.reset(seed=4)
    wrong = helpers.wrong_completions(env.task)
    _, _, term, _, info = env.step(wrong[0])
    assert not term and "ground_truth" not in info
    obs, reward, term, trunc, info = env.step(wrong[1])
    assert term and not trunc and reward == 0.0 and info["solved"] is False
    assert obs.endswith("No attempts left.")
    assert info["ground_truth"] == env.task.ground_truth  # revealed only at the end, when asked


def test_shaped_rewards_pay_only_for_improvement():
    env = MolecularIQEnv("index", max_turns=3, reward_mode="shaped", turn_penalty=0.0, load=3)
    env.reset(seed=0)
    gt = env.task.ground_truth
    assert len(gt) == 3
    keys = list(gt)
    half = {keys[0]: gt[keys[0]]}  # one key right, the others missing
    _, r1, _, _, info = env.step(f"<answer>{json.dumps(half)}</answer>")
    assert r1 == pytest.approx(1 / len(keys)) and info["score"] == pytest.approx(1 / len(keys))
    _, r2, _, _, _ = env.step(f"<answer>{json.dumps(half)}</answer>")
    assert r2 == 0.0  # resubmitting the same partial answer earns nothing
    _, r3, term, _, info = env.step(rlvr.oracle_completion(env.task))
    assert term and r1 + r2 + r3 == pytest.approx(1.0) and info["episode_return"] == pytest.approx(1.0)


FEEDBACK_FAMILIES = ["stoich.t1", "stoich.t2", "stoich.balance", "stoich.byproduct", "mol.count", "mol.index", "mol.gen"]


@pytest.mark.parametrize("family", FEEDBACK_FAMILIES)
def test_feedback_never_contains_the_answer(family, helpers):
    env = ChemEnv(family, max_turns=4)
    n_checked = 0
    for seed in range(12):
        env.reset(seed=seed)
        task = env.task
        oracle_body = rlvr.oracle_completion(task).removeprefix("<answer>").removesuffix("</answer>")
        gt = task.ground_truth
        for completion in helpers.wrong_completions(task):
            obs, reward, term, trunc, info = env.step(completion)
            if info["correct"]:  # a tiny molecule can satisfy a generation task's constraints
                assert family == "mol.gen", (task.id, completion)
                env.reset(seed=seed)
                continue
            feedback = helpers.strip_header(obs)
            assert oracle_body not in obs and oracle_body not in json.dumps(info)
            seen = helpers.tokens(task.user_text + " " + " ".join(m["content"] for m in task.prompt) + " " + completion)
            if family.startswith("stoich.") and family != "stoich.balance":
                bag = gt.get("products") or gt.get("byproducts")
                hidden = {s for s in bag if s not in seen and s not in completion}
                assert not hidden & helpers.tokens(feedback), (task.id, hidden, feedback)
            elif family == "stoich.balance":
                coefs = [str(k) for k in gt["coefficients"]]
                for sep in (", ", " ", ","):
                    assert sep.join(coefs) not in feedback or sep.join(coefs) in completion
            elif family == "mol.gen":
                ref = task.meta.get("reference_smiles")
                assert not ref or ref not in obs
            else:
                for key, value in gt.items():
                    assert f"{key}: {value}" not in feedback and f'"{key}": {json.dumps(value)}' not in feedback
                    if isinstance(value, list) and len(value) > 1:
                        assert json.dumps(value) not in feedback
            n_checked += 1
            if term:
                env.reset(seed=seed)
        env.reset(seed=seed)
    assert n_checked >= 30


@pytest.mark.parametrize("family", ["mol.count", "mol.index"])
def test_molecule_feedback_does_not_depend_on_the_true_values(family, helpers):
    """Changing the true value of a wrongly answered key leaves the feedback unchanged."""
    from rlvr.envs.feedback import feedback_text
    from rlvr.task import Task

    for index in range(15):
        task = rlvr.generate(family, "train", 0, index, load=2)
        for completion in helpers.wrong_completions(task):
            verdict = rlvr.verify(task, completion)
            shifted = dict(task.ground_truth)
            for key in verdict.metrics["wrong_keys"]:
                v = shifted[key]
                if isinstance(v, list):
                    shifted[key] = sorted(set(v) | {997, 998})
                elif isinstance(v, str):
                    shifted[key] = v + "9"
                else:
                    shifted[key] = v + 50
            other = Task.from_dict({**task.to_dict(), "ground_truth": shifted})
            v2 = rlvr.verify(other, completion)
            assert v2.metrics["wrong_keys"] == verdict.metrics["wrong_keys"]
            assert feedback_text(task, verdict, turn=1, max_turns=3) == feedback_text(other, v2, turn=1, max_turns=3)


def test_feedback_names_what_is_wrong(helpers):
    from rlvr.envs.feedback import feedback_lines

    # molecules: the wrong key is named, the right one is not
    for index in range(30):
        task = rlvr.generate("mol.count", "train", 0, index, load=2)
        keys = list(task.ground_truth)
        if len(keys) == 2:
            break
    one_off = helpers.wrong_completions(task)[0]
    text = " ".join(feedback_lines(task, rlvr.verify(task, one_off)))
    assert keys[0] in text and keys[1] not in text and "1 key is already correct" in text
    # stoichiometry products: a wrong coefficient names the model's species and the unbalanced element
    task = rlvr.generate("stoich.t2", "train", 0, 0)
    first = next(iter(task.ground_truth["products"]))
    text = " ".join(feedback_lines(task, rlvr.verify(task, helpers.wrong_completions(task)[0])))
    assert "wrong coefficient" in text and first in text and "more" in text
    # balancing: the imbalance is reported per element
    task = rlvr.generate("stoich.balance", "train", 0, 0)
    text = " ".join(feedback_lines(task, rlvr.verify(task, helpers.wrong_completions(task)[0])))
    assert "Not balanced" in text and "atom" in text


def test_chat_template_wrapper_renders_the_conversation(helpers):
    template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )
    env = ChatTemplateObservation(gym.make("rlvr/MolecularIQ-v0", task_type="count", max_turns=2), chat_template=template)
    obs, info = env.reset(seed=2)
    task = env.unwrapped.task
    assert obs.startswith("<|system|>") and obs.endswith("<|assistant|>") and task.user_text in obs
    assert info["raw_observation"] == rlvr.envs.prompt_text(task)
    wrong = helpers.wrong_completions(task)[0]
    obs, reward, term, trunc, info = env.step(wrong)
    assert obs.count("<|assistant|>") == 2 and f"<|assistant|>{wrong}<|end|>" in obs
    assert obs.index(info["raw_observation"]) > obs.index(wrong) and obs in env.observation_space
    obs, reward, term, trunc, info = env.step(rlvr.oracle_completion(task))
    assert term and obs == "Correct."
    with pytest.raises(ValueError, match="exactly one"):
        ChatTemplateObservation(gym.make("rlvr/MolecularIQ-v0"))


def test_episode_statistics_wrappers(helpers):
    env = TaskStatistics(gym.wrappers.RecordEpisodeStatistics(gym.make("rlvr/ChemMix-v0", mix="stoich.t1,mol.count", max_turns=2)))
    returns = []
    for seed in range(6):
        env.reset(seed=seed)
        task = env.unwrapped.task
        if seed % 2:
            env.step(helpers.wrong_completions(task)[0])
        obs, reward, term, trunc, info = env.step(rlvr.oracle_completion(task))
        assert term
        returns.append(info["episode"]["r"])
        assert info["episode"]["l"] == (2 if seed % 2 else 1)
        assert info["task_stats"]["solved"] and info["task_stats"]["turns"] == info["episode"]["l"]
    assert [float(r) for r in returns] == pytest.approx([1.0, 0.9] * 3)
    summary = env.summary()
    assert sum(s["episodes"] for s in summary.values()) == 6
    assert all(s["solve_rate"] == 1.0 and s["reasons"] == {"ok": s["episodes"]} for s in summary.values())


def test_render_and_construction_errors():
    env = gym.make("rlvr/Stoichiometry-v0", family="stoich.balance", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "[user]" in text and env.unwrapped.task.user_text in text
    with pytest.raises(TypeError, match="unknown option"):
        gym.make("rlvr/Stoichiometry-v0", family="stoich.t2", colour="blue")
    with pytest.raises(ValueError, match="unknown split"):
        gym.make("rlvr/MolecularIQ-v0", task_type="count", split="test_out")
    with pytest.raises(ValueError, match="stoich"):
        gym.make("rlvr/Stoichiometry-v0", family="mol.count")
    with pytest.raises(ValueError, match="max_turns"):
        ChemEnv("mol.count", max_turns=0)


def test_chat_template_wrapper_with_a_tokenizer_matches_the_template_string():
    """A tokenizer built in memory (no download): its apply_chat_template gives the same observation."""
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    template = "{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}{% if add_generation_prompt %}[assistant] {% endif %}"
    tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]")))
    tok.chat_template = template
    with_tok = ChatTemplateObservation(gym.make("rlvr/Stoichiometry-v0", family="stoich.t1", max_turns=2), tokenizer=tok)
    with_str = ChatTemplateObservation(gym.make("rlvr/Stoichiometry-v0", family="stoich.t1", max_turns=2), chat_template=template)
    a, _ = with_tok.reset(seed=9)
    b, _ = with_str.reset(seed=9)
    assert a == b and a.endswith("[assistant] ")
    assert with_tok.step("<answer>{1}O2</answer>")[0] == with_str.step("<answer>{1}O2</answer>")[0]
