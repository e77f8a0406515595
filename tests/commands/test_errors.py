"""Every user mistake: one line on stderr saying what is wrong, exit code 2, no traceback; no mistake exits 0."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rlvr.cli import main
from rlvr.errors import report_error


@pytest.fixture(scope="module")
def tasks_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    assert main(["sample", "--family", "stoich.t2", "-n", "4", "--out", str(path)]) == 0
    return path


def _one_line_error(capsys, *needles: str) -> str:
    captured = capsys.readouterr()
    err = captured.err
    assert err.count("\n") == 1 and err.startswith("rlvr") and ": error: " in err, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


def test_verify_without_completions_or_oracle_is_an_error(tasks_file, capsys):
    assert main(["verify", "--tasks", str(tasks_file)]) == 2
    _one_line_error(capsys, "--completions", "--oracle")


def test_verify_with_embedded_completions(tmp_path, capsys):
    path = tmp_path / "solved.jsonl"
    assert main(["sample", "--family", "stoich.t1", "-n", "3", "--with-solution", "--out", str(path)]) == 0
    assert main(["verify", "--tasks", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 3


def test_verify_tasks_folder_and_missing_file(tmp_path, capsys):
    assert main(["verify", "--tasks", str(tmp_path), "--oracle"]) == 2
    _one_line_error(capsys, "is a folder")
    assert main(["verify", "--tasks", str(tmp_path / "nope.jsonl"), "--oracle"]) == 2
    _one_line_error(capsys, "does not exist")


def test_verify_completions_that_match_no_task(tasks_file, tmp_path, capsys):
    completions = tmp_path / "c.jsonl"
    completions.write_text(json.dumps({"id": "other", "completion": "x"}) + "\n")
    assert main(["verify", "--tasks", str(tasks_file), "--completions", str(completions)]) == 2
    _one_line_error(capsys, "no id")
    completions.write_text("not json\n")
    assert main(["verify", "--tasks", str(tasks_file), "--completions", str(completions)]) == 2
    _one_line_error(capsys, "c.jsonl:1", "not valid JSON")


@pytest.mark.parametrize("argv, needle", [
    (["sample", "--family", "stoich.t1", "-n", "-5"], "-n"),
    (["sample", "--family", "stoich.t1", "-n", "0"], "at least 1"),
    (["sample", "--family", "mol.count", "--load", "0"], "--load"),
    (["sample"], "--family"),
    (["export", "--family", "stoich.t1", "--out", "x.jsonl", "--num-proc", "0"], "--num-proc"),
    (["features", "--smiles", "CCO", "--category", "bogus"], "unknown category"),
    (["eval", "--model", "/nonexistent/model", "--suite", "stoich", "--limit", "2"], "/nonexistent/model"),
    (["eval", "--limit", "0"], "--limit"),
    (["quickstart", "--eval-every", "0"], "--eval-every"),
    (["frobnicate"], "invalid choice"),
])
def test_mistakes_exit_2_in_one_line(capsys, argv, needle):
    assert main(argv) == 2
    _one_line_error(capsys, needle)


def test_unknown_family_message_is_not_quoted(capsys):
    assert main(["sample", "--family", "nope", "-n", "1"]) == 2
    err = _one_line_error(capsys, "unknown task family 'nope'")
    assert 'error: "' not in err


def test_corpus_import_of_a_file_without_reactions(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "notes.smi"
    path.write_text("hello world\nthis is not chemistry\n")
    assert main(["corpus", "import", str(path)]) == 2
    _one_line_error(capsys, "no balanced reaction", "reactants>reagents>products")
    assert main(["corpus", "import", str(tmp_path / "missing.smi")]) == 2
    _one_line_error(capsys, "does not exist")


def test_unexpected_error_is_one_line_with_a_traceback_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path))
    try:
        {}["x"]
    except KeyError as exc:
        code = report_error("rlvr sample", exc)
    assert code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unexpected error: KeyError" in err and "--debug" in err
    logs = list((tmp_path / "logs").iterdir())
    assert len(logs) == 1 and logs[0].name in err and "Traceback" in logs[0].read_text()


class _Writes:
    """A stderr that records each ``write`` call."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def write(self, text: str) -> int:
        self.calls.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_an_error_line_is_one_write_so_launched_ranks_cannot_splice_it(tmp_path, monkeypatch):
    # two ranks of one launch share stderr: a line written as text, then its newline, can land as 'AB\n\n'
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path))
    for exc in (ValueError("FSDP needs a CUDA GPU"), KeyError("x")):
        writes = _Writes()
        with monkeypatch.context() as patch:
            patch.setattr(sys, "stderr", writes)
            report_error("scripts/train.py", exc)
        assert len(writes.calls) == 1 and writes.calls[0].endswith("\n") and writes.calls[0].count("\n") == 1


def test_eval_out_is_a_folder_and_keeps_other_files(tmp_path, capsys):
    existing = tmp_path / "notes.txt"
    existing.write_text("mine\n")
    assert main(["eval", "--backend", "oracle", "--suite", "stoich", "--limit", "1", "--out", str(existing)]) == 2
    _one_line_error(capsys, "is a file", "give a folder")
    assert existing.read_text() == "mine\n"
    run = tmp_path / "run"
    run.mkdir()
    (run / "keep.txt").write_text("mine\n")
    for extra in ([], ["--overwrite"]):
        assert main(["eval", "--backend", "oracle", "--suite", "stoich", "--limit", "1", "--out", str(run), *extra]) == 0
        assert (run / "keep.txt").read_text() == "mine\n" and (run / "results.json").is_file()
    capsys.readouterr()


def test_only_option_type_errors_are_user_mistakes(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path))
    assert report_error("rlvr sample", TypeError("stoich.t1: unknown option(s) ['bogus']; valid options: [...]")) == 2
    assert "unknown option" in capsys.readouterr().err
    try:
        1 + "x"
    except TypeError as exc:
        assert report_error("rlvr sample", exc) == 1
    assert "unexpected error: TypeError" in capsys.readouterr().err
    assert main(["sample", "--family", "stoich.t1", "-n", "1", "-o", "bogus=1"]) == 2
    _one_line_error(capsys, "bogus")


def test_no_traceback_from_the_installed_command(tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run([sys.executable, "-m", "rlvr.cli", "verify", "--tasks", str(tmp_path), "--oracle"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert not list(tmp_path.iterdir())
    debug = subprocess.run([sys.executable, "-m", "rlvr.cli", "--debug", "verify", "--tasks", str(tmp_path), "--oracle"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert debug.returncode != 0 and "Traceback" in debug.stderr


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MOL_MW = os.path.join(REPO, "tests", "families", "fixtures", "mol_mw.py")  # a plugin family without a solution writer


def _cli(tmp_path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "RLVR_CACHE": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "rlvr.cli", *argv], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=300)


def test_train_checks_its_families_before_any_model(tmp_path):
    """An unknown family is reported before the model is looked at (a missing model would be reported otherwise)."""
    model = str(tmp_path / "no-such-model")
    for command, recipe in (("train", "recipes/grpo/stoich_t2_formula.yaml"), ("sft", "recipes/sft/stoich_t1_formula.yaml")):
        proc = _cli(tmp_path, command, "--plugin", MOL_MW, "--config", os.path.join(REPO, recipe), "--families", "mol.mww",
                    "--model_name_or_path", model, "--output_dir", str(tmp_path / "out"))
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-2000:]
        assert "unknown task family 'mol.mww'" in proc.stderr and "mol.mw'" in proc.stderr and model not in proc.stderr
        assert "Traceback" not in proc.stderr
    proc = _cli(tmp_path, "train", "--config", os.path.join(REPO, "recipes/grpo/mol_count.yaml"), "--model_name_or_path",
                model, "--output_dir", str(tmp_path / "out"), "--eval_sets", '{"x": {"split": "test", "families": "nope"}}')
    assert proc.returncode == 2 and "unknown task family 'nope'" in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache" / "models").exists()
    # the quickstart too: its eval set names a family nobody registered, and no model is looked at
    proc = _cli(tmp_path, "quickstart", "--output-dir", str(tmp_path / "qs"), "-s", f"model_name_or_path={model}",
                "-s", 'eval_sets={"x": {"split": "test", "families": "nope"}}')
    assert proc.returncode == 2 and "unknown task family 'nope'" in proc.stderr and model not in proc.stderr, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and not (tmp_path / "cache" / "models").exists()


def test_sft_on_a_family_without_a_solution_writer_says_so(tmp_path):
    proc = _cli(tmp_path, "sft", "--plugin", MOL_MW, "--config", os.path.join(REPO, "recipes/sft/stoich_t1_formula.yaml"),
                "--families", "mol.mw", "--model_name_or_path", str(tmp_path / "no-such-model"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    assert "family mol.mw has no worked-solution writer" in proc.stderr and "sft_max_chars" not in proc.stderr


def test_sft_rows_name_the_family_without_a_solution_writer():
    from rlvr.registry import register_family, unregister_family
    from rlvr.train.sft_data import sft_rows

    sys.path.insert(0, os.path.dirname(MOL_MW))
    import mol_mw

    register_family(mol_mw.build("mol.mwsft"))
    try:
        with pytest.raises(ValueError, match="family mol.mwsft has no worked-solution writer"):
            sft_rows("mol.mwsft", 4, split="train")
        rows, stats = sft_rows("stoich.t1", 2, split="train")
        assert stats.rows == 2 and len(rows) == 2
    finally:
        unregister_family("mol.mwsft")


@pytest.mark.parametrize("argv", [["-m", "rlvr.train"], [os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "train.py")]])
def test_the_launch_entry_points_end_a_mistake_in_one_line(tmp_path, argv):
    """``python -m rlvr.train`` and ``scripts/train.py`` (what ``accelerate launch`` starts) keep the command line's
    contract: a missing recipe is one line and exit 2, not a traceback."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "RLVR_CACHE": str(tmp_path)}
    proc = subprocess.run([sys.executable, *argv, "--config", str(tmp_path / "missing.yaml")],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "not found" in proc.stderr


def test_an_unexpected_error_of_a_launch_entry_point_names_its_traceback_file(tmp_path, capsys, monkeypatch):
    from rlvr.errors import run_reporting

    monkeypatch.setenv("RLVR_CACHE", str(tmp_path))
    monkeypatch.delenv("RLVR_DEBUG", raising=False)
    assert run_reporting("scripts/train.py", lambda: {}["x"]) == 1
    err = capsys.readouterr().err
    [log] = (tmp_path / "logs").iterdir()
    assert err.count("\n") == 1 and log.name in err and "RLVR_DEBUG=1" in err and log.name.startswith("scripts-train.py-")
    assert run_reporting("scripts/train.py", lambda: 0) == 0
    monkeypatch.setenv("RLVR_DEBUG", "1")
    with pytest.raises(KeyError):
        run_reporting("scripts/train.py", lambda: {}["x"])
    # the command line passes its own --debug (False here wins over RLVR_DEBUG) and hint
    assert run_reporting("rlvr sample", lambda: {}["x"], debug=False, debug_hint="--debug shows it") == 1
    assert "--debug shows it" in capsys.readouterr().err


def test_an_interrupt_is_130(capsys):
    from rlvr.errors import run_reporting

    def interrupted():
        raise KeyboardInterrupt

    assert run_reporting("rlvr eval", interrupted) == 130
    assert capsys.readouterr().err == "rlvr eval: interrupted\n"


def test_a_closed_output_pipe_is_0(monkeypatch):
    import io
    import sys

    from rlvr.errors import run_reporting

    def closed():  # e.g. `rlvr features | head` after head has exited
        raise BrokenPipeError

    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    assert run_reporting("rlvr features", closed) == 0
    assert stderr.closed
