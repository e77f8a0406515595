"""The README's commands and its Python snippet run as written, so the README cannot drift from the code.

Every line starting with ``rlvr`` in a ``bash`` block of README.md runs in one temporary folder, in
order, exactly as written, with these documented reductions:

- ``RLVR_TEST_MAX_N`` caps every ``-n`` (the README's sizes are for real use; a few tasks show the
  command works);
- files the README presents as the user's own (``outputs.jsonl``: a model's completions,
  ``my_reactions.smi``: a reaction file) are written by the test first;
- ``rlvr train`` / ``rlvr sft`` lines resolve and parse their recipe with the line's overrides exactly
  as the command does, but do not train (tests/train trains);
- ``rlvr eval`` lines run with ``--backend oracle`` appended (same suite, limit, tables, report and
  plots; no model);
- ``rlvr serve-rewards`` is started, asked ``/health`` and one reward, and stopped with Ctrl-C;
- ``rlvr bench`` lines run with :data:`BENCH_REDUCTION` appended (a few tasks, half a second of server
  load per row: the command's every step, in seconds);
- ``rlvr quickstart`` (the install block) is left to its own test; the test install line is the one
  ``.ci/run`` runs, verbatim.

A comment ``# {"key": value, ...}`` after a command is checked against the JSON the command prints
(``n`` against the capped size), and a comment holding a Python literal after a snippet line is
asserted equal to that line's value.
"""
from __future__ import annotations

import ast
import http.client
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import rlvr

README = Path(__file__).resolve().parents[1] / "README.md"
MAX_N = 12
TIMEOUT = 180
#: the README's length limit: a front door, the analysis lives in docs/
MAX_CHARS = 12_000
BENCH_REDUCTION = ["-n", "3", "--duration", "0.5", "--clients", "1", "--batch", "8", "--group", "2", "--workers", "2"]
CI_RUN = README.parent / ".ci" / "run"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def readme_commands() -> list[tuple[str, list[str], str]]:
    """``(line, argv, comment)`` of every ``rlvr`` line in the README's bash blocks."""
    out = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            if not line.startswith("rlvr "):
                continue
            code, _, comment = line.partition("  #")
            out.append((line, shlex.split(code), comment.strip()))
    return out


def _rlvr() -> list[str]:
    exe = shutil.which("rlvr")
    return [exe] if exe else [sys.executable, "-m", "rlvr.cli"]


def _env() -> dict[str, str]:
    return {**os.environ, "RLVR_TEST_MAX_N": str(MAX_N), "PYTHONWARNINGS": "ignore", "MPLBACKEND": "Agg"}


def _check_json_comment(comment: str, stdout: str) -> None:
    if not comment.startswith("{"):
        return
    printed = json.loads(stdout.strip().splitlines()[-1])
    for key, value in re.findall(r'"(\w+)":\s*([^,}]+)', comment):
        expected = json.loads(value)
        if key == "n":
            expected = min(expected, MAX_N)
        assert printed[key] == expected, (comment, printed)


def _user_files(folder: Path) -> None:
    """The inputs the README calls the user's own."""
    (folder / "my_reactions.smi").write_text(
        "CC(=O)O.NC>>CNC(C)=O\nCC(=O)Cl.NC>>CNC(C)=O\nC=C.[H][H]>>CC\n", encoding="utf-8")
    if (folder / "tasks.jsonl").exists():
        tasks = [rlvr.Task.from_dict(json.loads(line)) for line in (folder / "tasks.jsonl").read_text().splitlines()]
        lines = [json.dumps({"id": t.id, "completion": rlvr.oracle_completion(t) if i % 2 else "<answer>{1}H2O</answer>"})
                 for i, t in enumerate(tasks)]
        (folder / "outputs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _parse_recipe(argv: list[str], folder: Path) -> None:
    code = (
        "import sys\n"
        "from rlvr.train.entry import prepare_argv\n"
        + "from rlvr.train.recipe import parse_recipe as parse\n"
        + "args = prepare_argv(sys.argv[1:], '')\n"
        "parse(args)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, *argv[2:]], cwd=folder, env=_env(), capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]


def _free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _serve(argv: list[str], folder: Path) -> None:
    port = int(argv[argv.index("--port") + 1])
    if not _free(port):
        pytest.skip(f"port {port} is in use here; the README's serve-rewards line needs it")
    proc = subprocess.Popen(_rlvr() + argv[1:], cwd=folder, env=_env(), stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "reward server on http://" in line, line
        task = rlvr.generate("stoich.t1", split="train", seed=0, index=0)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/health")
        health = conn.getresponse()
        assert health.status == 200 and json.loads(health.read())["status"] == "ok"
        body = json.dumps({"query": [rlvr.oracle_completion(task)], "labels": [task.to_json()]})
        conn.request("POST", "/get_reward", body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["rewards"] == [1.0]
        conn.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("rlvr serve-rewards did not stop on Ctrl-C")
        proc.stderr.close()
    assert code == 0


def test_readme_lists_the_commands():
    commands = {argv[1] for _, argv, _ in readme_commands()}
    assert {"sample", "verify", "corpus", "features", "export", "serve-rewards", "train", "sft", "eval",
            "bench"} <= commands


def test_readme_is_a_front_door():
    text = README.read_text(encoding="utf-8")
    assert len(text) <= MAX_CHARS, f"README.md has {len(text)} characters; move analysis to docs/"
    assert "## Results" in text


def test_readme_install_lines_are_the_main_job_and_the_ci_test_command():
    lines = [line for block in _blocks("bash") for line in block.splitlines() if line.startswith("bash scripts/install.sh")]
    assert lines == ["bash scripts/install.sh && rlvr quickstart", "bash scripts/install.sh --dev && python3 -m pytest -q"]
    ci = CI_RUN.read_text(encoding="utf-8").splitlines()
    assert lines[1] in ci and "export RLVR_REQUIRE_INTEGRATIONS=1" in ci


def test_readme_commands_run_as_written(tmp_path):
    for line, argv, comment in readme_commands():
        _user_files(tmp_path)
        command = argv[1]
        if command in ("train", "sft"):
            _parse_recipe(argv, tmp_path)
            continue
        if command == "serve-rewards":
            _serve(argv, tmp_path)
            continue
        extra = {"eval": ["--backend", "oracle"], "bench": BENCH_REDUCTION}.get(command, [])
        run = _rlvr() + argv[1:] + extra
        proc = subprocess.run(run, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=TIMEOUT)
        assert proc.returncode == 0, f"{line}\n{proc.stderr[-3000:]}"
        assert "Traceback" not in proc.stderr, line
        _check_json_comment(comment, proc.stdout)
        if "--out" in argv:
            out = argv[argv.index("--out") + 1]
            assert (tmp_path / out).exists(), line
    assert (tmp_path / "mix" / "train.parquet").is_file()  # `--out mix/` is a folder


def _snippet_with_checks(code: str) -> str:
    """The snippet, each ``expr  # literal`` line turned into ``assert (expr) == literal``."""
    lines = []
    for line in code.splitlines():
        stmt, sep, comment = line.partition("  #")
        try:
            expected = ast.literal_eval(comment.strip()) if sep else None
            ast.parse(stmt.strip(), mode="eval")
        except (ValueError, SyntaxError):
            lines.append(line)
            continue
        lines.append(f"assert ({stmt.strip()}) == {expected!r}, {stmt.strip()!r}")
    return "\n".join(lines)


def test_readme_python_snippet_runs(tmp_path):
    snippet = _blocks("python")[0]
    assert "import rlvr" in snippet
    code = _snippet_with_checks(snippet)
    assert code.count("assert (") >= 2
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings, and the explicit ``<a id="...">`` anchors that keep an
    older heading's links working after it was renamed."""
    text = path.read_text(encoding="utf-8")
    out = set(re.findall(r'<a id="([^"]+)"></a>', text))
    for heading in re.findall(r"^#+ (.*)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


def _broken_links(page: Path) -> list[str]:
    """The relative links and images of ``page`` whose file or heading anchor does not exist."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.exists() or (anchor and path.suffix == ".md" and anchor not in _anchors(path)):
            broken.append(target)
    return broken


def test_the_readme_figure_is_the_main_jobs_and_exists():
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", README.read_text(encoding="utf-8"))
    assert images and all((README.parent / image).is_file() for image in images), images
    results = README.read_text(encoding="utf-8").split("## Results", 1)[1].split("\n## ", 1)[0]
    assert "docs/img/quickstart.png" in results and "outputs/quickstart/quickstart.png" in results


def test_links_of_the_readme_and_the_training_guides_resolve():
    pages = [README, README.parent / "docs" / "training.md", *sorted((README.parent / "docs" / "results").glob("*.md"))]
    assert len(pages) >= 5
    broken = {page.name: _broken_links(page) for page in pages}
    assert not any(broken.values()), broken
