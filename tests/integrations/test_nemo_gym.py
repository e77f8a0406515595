"""NeMo-Gym 0.4 (Python >= 3.12) validates rlvr's samples and server config and serves ``/verify`` with rlvr's reward.

NeMo-Gym does not install on Python 3.11, so its code runs in its own environment (``.venv-nemo-gym``,
built by ``scripts/nemo_gym_venv.sh``, which ``scripts/install.sh --dev`` runs): ``nemo_gym_driver.py``
there validates the samples written by ``rlvr export --format nemo-gym`` with NeMo-Gym's data
validation, the server folder's config with its server-instance validation, and posts responses to
``/verify`` of the FastAPI app that ``ChemResourcesServer`` builds; NeMo-Gym's ``gym`` command validates
the server folder's config and collates its example data from a working folder, as a user runs it.
The pure parts (sample rows, response text, the export) run here on any Python.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import rlvr
from rlvr.export import export_tasks, read_tasks
from rlvr.integrations.nemo_gym_data import AGENT_NAME, SERVER_NAME, response_text, sample_row
from rlvr.task import Task

SERVER = Path(__file__).resolve().parents[2] / "environments" / "nemo_gym" / SERVER_NAME
CONFIG = SERVER / "configs" / f"{SERVER_NAME}.yaml"
EXAMPLE = SERVER / "data" / "example.jsonl"
#: the command that wrote data/example.jsonl
EXAMPLE_EXPORT = dict(mix="stoich.t2,mol.count", split="train", n=4, fmt="nemo-gym")


@pytest.fixture(scope="module")
def samples(tmp_path_factory, mix) -> list[dict]:
    path = tmp_path_factory.mktemp("nemo") / "train.jsonl"
    assert export_tasks(mix, "train", 6, "nemo-gym", path, seed=1) == 6
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- the pure parts, on any Python ---------------------------------------------------------------------

def test_sample_rows_hold_the_chat_and_the_task(samples, mix):
    rows = rlvr.datasets.build_dataset(mix, n=6, split="train", seed=1)
    for i, (sample, task_json) in enumerate(zip(samples, rows["task_json"])):
        task = Task.from_json(task_json)
        assert sample == sample_row(task, i) and sample["task_json"] == task_json
        assert sample["responses_create_params"]["input"] == [dict(m) for m in task.prompt]
        assert sample["agent_ref"] == {"type": "responses_api_agents", "name": AGENT_NAME}
        assert sample["metadata"] == {"family": task.family, "split": "train", "index": i}


def test_response_text_is_the_last_assistant_message():
    def message(text, role="assistant"):
        return {"type": "message", "role": role, "content": [{"type": "output_text", "text": text, "annotations": []}]}

    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "<answer>9</answer>"}]}
    assert response_text({"output": [message("a"), reasoning, message("<answer>1</answer>")]}) == "<answer>1</answer>"
    assert response_text({"output": [message("<answer>1</answer>"), reasoning]}) == "<answer>1</answer>"
    assert response_text({"output": [{"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "<answer>"}, {"type": "refusal", "refusal": "no"},
        {"type": "output_text", "text": "2</answer>"}]}]}) == "<answer>2</answer>"
    assert response_text({"output": [reasoning]}) == "" and response_text({}) == ""


def test_export_reads_back_and_the_example_file_is_the_commands_output(samples, tmp_path):
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples), encoding="utf-8")
    assert [t.id for t in read_tasks(path)] == [s["id"] for s in samples]
    regenerated = tmp_path / "example.jsonl"
    e = EXAMPLE_EXPORT
    export_tasks(e["mix"], e["split"], e["n"], e["fmt"], regenerated)
    assert regenerated.read_text(encoding="utf-8") == EXAMPLE.read_text(encoding="utf-8"), (
        "environments/nemo_gym/rlvr_chem/data/example.jsonl is stale: rlvr export --family 'stoich.t2,mol.count' "
        "--split train -n 4 --format nemo-gym --out environments/nemo_gym/rlvr_chem/data/example.jsonl --overwrite")
    with pytest.raises(ValueError, match="no completion column"):
        export_tasks("stoich.t2", "train", 2, "nemo-gym", tmp_path / "x.jsonl", with_solution=True)


# --- NeMo-Gym's own code, in its environment ----------------------------------------------------------

def test_nemo_gym_validates_the_samples_and_the_server_config(nemo_gym, samples, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(CONFIG.read_text(encoding="utf-8").replace("domain: knowledge", "domain: alchemy"),
                      encoding="utf-8")
    example = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
    not_a_sample = {"responses_create_params": {"input": 3}, "task_json": "{}"}
    result = nemo_gym({"configs": [str(CONFIG), str(broken)], "samples": [*samples, *example, not_a_sample],
                       "responses": []})
    assert result["version"] == "0.4.0"
    assert result["servers"][str(CONFIG)] == {SERVER_NAME: None, AGENT_NAME: None}
    assert "domain" in result["servers"][str(broken)][SERVER_NAME]
    assert result["offending"] == [len(samples) + len(example)]  # only the malformed one


def test_verify_scores_responses_with_rlvr(nemo_gym, samples, answers):
    tasks = [Task.from_json(s["task_json"]) for s in samples]
    index = {t.id: i for i, t in enumerate(tasks)}
    responses = answers(tasks)
    result = nemo_gym({"configs": [], "samples": samples, "responses": [[index[a.task.id], a.text] for a in responses]})
    assert [r["status"] for r in result["verify"]] == [200] * len(responses)
    bodies = [r["body"] for r in result["verify"]]
    assert [b["reward"] for b in bodies] == [a.reward for a in responses]
    for body, answer in zip(bodies, responses):
        verdict = rlvr.verify(answer.task, answer.text)
        assert body["correct"] == verdict.correct and body["reason"] == str(verdict.reason)
        assert body["task_json"] == answer.task.to_json() and body["id"] == answer.task.id  # the sample comes back
    stoich = next(i for i, t in enumerate(tasks) if t.family == "stoich.t2")
    solution = rlvr.oracle_completion(tasks[stoich])
    partial = solution.replace(solution[solution.index("<answer>") + 8:].split(".")[0] + ".", "", 1)
    expected = rlvr.verify(tasks[stoich], partial, reward="f1").reward
    f1 = nemo_gym({"configs": [], "samples": samples, "responses": [[stoich, partial]], "reward_mode": "f1"})
    assert 0.0 < f1["verify"][0]["body"]["reward"] == expected < 1.0


def test_gym_validates_the_config_and_collates_the_example_data(nemo_gym_python, tmp_path):
    """``gym env validate`` and ``gym dataset collate``, from a working folder holding the server folder."""
    shutil.copytree(SERVER, tmp_path / "resources_servers" / SERVER_NAME)
    gym = str(Path(nemo_gym_python).parent / "gym")
    configs = ["--config", f"resources_servers/{SERVER_NAME}/configs/{SERVER_NAME}.yaml",
               "--config", "responses_api_models/openai_model/configs/openai_model.yaml"]
    model = ["--model", "policy", "--model-url", "http://127.0.0.1:9/v1", "--model-api-key", "x"]
    validate, collate = (subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=180) for argv in (
        [gym, "env", "validate", *configs, *model],
        [gym, "dataset", "collate", *configs, "--mode", "example_validation", "--output-dir", "out"]))
    assert validate.returncode == 0 and "Config is valid" in validate.stdout, validate.stdout[-2000:] + validate.stderr
    assert collate.returncode == 0, collate.stdout[-2000:] + collate.stderr[-2000:]
    collated = [json.loads(line) for line in (tmp_path / "out" / "example.jsonl").read_text().splitlines()]
    assert collated == [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
