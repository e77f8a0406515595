"""`rlvr eval` and `rlvr eval compare` from the command line; the before/after table."""
import json

from rlvr.cli import main
from rlvr.eval import before_after_table, compare_files, load_results


def _run(tmp_path, name, backend, *extra):
    out = tmp_path / name
    code = main(["eval", "--backend", backend, "--suite", "stoich", "--limit", "1", "--out", str(out),
                 "--no-progress", "--no-plots", *extra])
    assert code == 0
    return out


def test_cli_run_compare_and_before_after(tmp_path, capsys):
    a = _run(tmp_path, "copy", "copy-input")
    b = _run(tmp_path, "oracle", "oracle")
    capsys.readouterr()
    target = tmp_path / "cmp.md"
    assert main(["eval", "compare", str(a / "results.json"), str(b), "--out", str(target)]) == 0
    text = capsys.readouterr().out
    assert text == target.read_text()
    assert "| run | copy-input | oracle |" in text
    assert "| metric (%) | copy-input | oracle | Δ (B − A) | n |" in text
    ra, rb = load_results(a), load_results(b)
    em_key = next(k for k in rb["summary"] if k.startswith("stoich/table4/") and k.endswith("/EM"))
    row = em_key[len("stoich/table4/"):]
    line = next(line for line in text.splitlines() if line.startswith(f"| {row} |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert float(cells[2]) == 100.0 and float(cells[3]) == 100.0 - ra["summary"][em_key]
    assert "different eval sets" not in text
    table = before_after_table(ra, rb)
    assert "| stoich in |" in table and "| stoich out |" in table and "EM before" in table
    assert compare_files(a, b) == text


def test_cli_export_and_tasks_file(tmp_path, capsys):
    export = tmp_path / "set.jsonl"
    assert main(["eval", "--suite", "stoich", "--limit", "1", "--export", str(export)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["exported"] == len(export.read_text().splitlines()) > 0
    out = _run(tmp_path, "from_file", "oracle", "--tasks", str(export))
    results = load_results(out)
    assert results["eval_set"]["digest"] == info["digest"]
    assert results["summary"]["stoich/overall/in/EM"] == 100.0


def test_cli_reports_config_mismatch(tmp_path, capsys):
    out = _run(tmp_path, "run", "oracle")
    capsys.readouterr()
    code = main(["eval", "--backend", "oracle", "--suite", "stoich", "--limit", "1", "--out", str(out),
                 "--samples", "2", "--no-progress", "--no-plots"])
    assert code == 2
    assert "different configuration" in capsys.readouterr().err


def test_missing_vllm_is_a_clear_error(tmp_path, capsys):
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        import pytest

        pytest.skip("vllm is installed here")
    code = main(["eval", "--backend", "vllm", "--suite", "stoich", "--limit", "1", "--out", str(tmp_path / "v"),
                 "--no-progress"])
    assert code == 2
    assert "pip install 'rlvr-chem[vllm]'" in capsys.readouterr().err


def test_cli_draw_reaches_the_run_and_an_unknown_one_is_one_line(tmp_path, tiny_gqa_model, capsys):
    out = _run(tmp_path, "raced", "transformers", "--model", tiny_gqa_model, "--samples", "2", "--temperature", "0.8",
               "--max-new-tokens", "3", "--threads", "1", "--draw", "block_race")
    assert json.loads((out / "run.json").read_text())["generation"]["draw"] == "block_race"
    capsys.readouterr()
    assert main(["eval", "--backend", "transformers", "--draw", "gumbel"]) == 2
    assert "invalid choice: 'gumbel'" in capsys.readouterr().err
