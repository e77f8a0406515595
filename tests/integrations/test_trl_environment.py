"""TRL's GRPOTrainer runs ChemToolEnv through environment_factory: reset, real submit_answer tool calls, get_reward.

The policy is a tiny Llama built locally (no hub) with a compact tool-capable ChatML template; TRL
parses its tool calls with its own Qwen-style response parser. 120 optimizer steps teach it
one behaviour: whatever the question, call ``submit_answer`` with the same coefficients. The two
training rows are chosen so that this answer is right for one task and wrong for the other, so
every batch holds both outcomes and the episode reward must vary; the environments record the calls.
"""
from __future__ import annotations

import json

import pytest

trl = pytest.importorskip("trl", reason="TRL is not installed")

import torch
from datasets import Dataset

import rlvr
from rlvr.envs.trl import ChemToolEnv
from rlvr.task import Task

pytestmark = pytest.mark.slow

#: ChatML that lists the tools, renders tool calls as <tool_call> JSON and tool replies as <tool_response>
TOOL_TEMPLATE = (
    "{% if tools %}<|im_start|>system\nTools:{% for t in tools %} "
    "{{ t.function.name if t.function is defined else t.name }}{% endfor %}<|im_end|>\n{% endif %}"
    "{% for m in messages %}"
    "{% if m.role == 'tool' %}<|im_start|>user\n<tool_response>{{ m.content }}</tool_response><|im_end|>\n"
    "{% else %}<|im_start|>{{ m.role }}\n{{ m.content or '' }}"
    "{% for c in m.tool_calls or [] %}<tool_call>\n"
    "{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}\n</tool_call>{% endfor %}"
    "<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _two_tasks_one_answer(search: int = 200) -> tuple[Task, Task, str]:
    """Two balancing tasks with as many species and different coefficients, and the first one's answer.

    The first has distinct one-digit coefficients (e.g. ``2, 1, 3``): a short answer without
    repeats, which the tiny model learns in a few dozen steps (``2, 2, 2`` would need counting).
    """
    tasks = [rlvr.generate("stoich.balance", "train", 0, index) for index in range(search)]
    for right in tasks:
        coefficients = right.ground_truth["coefficients"]
        if len(set(coefficients)) == len(coefficients) and max(coefficients) < 10:
            wrong = next((t for t in tasks if len(t.ground_truth["coefficients"]) == len(coefficients)
                          and t.ground_truth["coefficients"] != coefficients), None)
            if wrong is not None:
                return right, wrong, ", ".join(str(c) for c in coefficients)
    raise AssertionError(f"no suitable pair of stoich.balance tasks in the first {search}")


def _rows(tasks: tuple[Task, Task]) -> list[dict]:
    """Dataset rows for exactly these tasks: the question as the prompt and the task record."""
    return [{"prompt": [{"role": "user", "content": t.user_text}], "task_json": t.to_json(), "id": t.id}
            for t in tasks]


def _teach_tool_call(model, tokenizer, rows: list[dict], answer: str, steps: int = 120) -> str:
    """Fine-tune the tiny model to answer each row's prompt, and the tool's reply, with one ``submit_answer`` call."""
    env = ChemToolEnv(max_turns=2)
    call = {"name": "submit_answer", "arguments": {"answer": answer}}
    target = "<tool_call>\n" + json.dumps(call) + "\n</tool_call><|im_end|>"
    target_ids = tokenizer(target, add_special_tokens=False)["input_ids"]
    sequences = []
    for row in rows:
        messages = [dict(m) for m in row["prompt"]]
        messages[-1]["content"] += env.reset(**row)  # what TRL does with reset's return value
        after_reply = messages + [  # the same call again after the tool's reply: a second attempt
            {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": call}]},
            {"role": "tool", "name": "submit_answer", "content": env.submit_answer(answer)}]
        for conversation in (messages, after_reply):
            prefix = tokenizer.apply_chat_template(conversation, tools=[env.submit_answer],
                                                   add_generation_prompt=True, tokenize=False)
            sequences.append(tokenizer(prefix, add_special_tokens=False)["input_ids"] + target_ids)
    # one left-padded batch: the target ends every row, so only its logits are computed
    width = max(len(seq) for seq in sequences)
    ids = torch.tensor([[tokenizer.pad_token_id] * (width - len(seq)) + seq for seq in sequences])
    mask = torch.tensor([[0] * (width - len(seq)) + [1] * len(seq) for seq in sequences])
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    labels = torch.tensor(target_ids).repeat(len(sequences))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(steps):
        logits = model(input_ids=ids, attention_mask=mask, position_ids=positions,
                       logits_to_keep=len(target_ids) + 1).logits[:, :-1]
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    assert loss.item() < 0.05, f"the tiny model did not learn the tool call (loss {loss.item():.3f})"
    return target


@pytest.fixture
def one_thread():
    """One torch thread: on a small shared CPU, thread contention costs more than it brings."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_grpo_runs_the_tool_environment_for_two_steps(tmp_path, one_thread):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_template

    from rlvr.models import quiet_checkpointing_aliases
    from rlvr.train.checkpointing import checkpointing_kwargs
    from rlvr.train.tiny import build_tiny_model

    right, wrong, answer = _two_tasks_one_answer()
    assert rlvr.verify(right, f"<answer>{answer}</answer>").reward == 1.0
    assert rlvr.verify(wrong, f"<answer>{answer}</answer>").reward == 0.0
    rows = _rows((right, wrong))

    path = build_tiny_model(tmp_path / "tiny", hidden_size=64, intermediate_size=128)
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.chat_template = TOOL_TEMPLATE
    tokenizer.response_template = qwen3_template  # TRL's parser for <tool_call>{json}</tool_call><|im_end|>
    model = AutoModelForCausalLM.from_pretrained(path)
    torch.manual_seed(0)
    _teach_tool_call(model, tokenizer, rows, answer)

    created: list[ChemToolEnv] = []

    def factory() -> ChemToolEnv:
        env = ChemToolEnv(max_turns=2, turn_penalty=0.5)
        created.append(env)
        return env

    args = GRPOConfig(
        output_dir=str(tmp_path / "out"), max_steps=2, per_device_train_batch_size=4, num_generations=2,
        max_completion_length=256, temperature=0.3, learning_rate=1e-5, beta=0.0, logging_steps=1,
        save_strategy="no", report_to="none", use_cpu=True, bf16=False, fp16=False, seed=0,
        max_tool_calling_iterations=2, **checkpointing_kwargs(GRPOConfig, False),
    )
    with quiet_checkpointing_aliases():
        trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args,
                              train_dataset=Dataset.from_list(rows), environment_factory=factory)
        trainer.train()

    logs = [entry for entry in trainer.state.log_history if "rewards/ChemToolEnv/mean" in entry]
    assert len(logs) == 2 and trainer.state.global_step == 2
    for entry in logs:
        assert entry["tools/call_frequency"] > 0  # the model's tool calls were parsed and executed
        assert entry["rewards/ChemToolEnv/std"] > 0  # right and wrong episodes in every batch
        assert 0.0 < entry["rewards/ChemToolEnv/mean"] < 1.0
    episodes = [env.episode for env in created if env.episode is not None]
    assert episodes and all(e.turn >= 1 for e in episodes)  # every rollout called submit_answer
    by_task = {e.task.id: e for e in episodes}
    assert by_task[right.id].solved and by_task[right.id].total == 1.0
    assert not by_task[wrong.id].solved and by_task[wrong.id].total == 0.0
    assert by_task[wrong.id].turn == 2  # the wrong answer got feedback and was submitted again
