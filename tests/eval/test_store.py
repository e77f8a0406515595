import json

from rlvr.eval.store import VerdictLog, load_verdict_log


def test_torn_last_line_is_dropped_and_file_repaired(tmp_path):
    path = tmp_path / "verdicts.jsonl"
    with VerdictLog(path) as log:
        log.append([{"task_id": "a", "rollouts": []}, {"task_id": "b", "rollouts": []}])
    with path.open("a") as fh:
        fh.write('{"task_id": "c", "rol')  # killed mid-write
    records = load_verdict_log(path)
    assert sorted(records) == ["a", "b"]
    assert path.read_text().endswith("\n")
    with VerdictLog(path) as log:
        log.append([{"task_id": "c", "rollouts": []}])
    lines = path.read_text().splitlines()
    assert [json.loads(line)["task_id"] for line in lines] == ["a", "b", "c"]


def test_missing_log_is_empty(tmp_path):
    assert load_verdict_log(tmp_path / "none.jsonl") == {}
