"""What the command line says when a family is missing or its name is taken: one line that says what to do.

``verify`` on tasks of a plugin's family without ``--plugin`` names ``--plugin``; a plugin that reuses a
built-in family's name is told where that name comes from and how to rename its own (a command-line user
cannot pass ``replace=True``).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import rlvr
from rlvr.cli import main
from rlvr.registry import register_module, unregister_family

FIXTURES = Path(__file__).resolve().parents[1] / "families" / "fixtures"
MOL_MW = FIXTURES / "mol_mw.py"  # a plugin family, mol.mw


def _one_line_error(capsys, *needles: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rlvr") and ": error: " in err, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


def test_verify_of_a_plugin_family_without_plugin_names_the_option(tmp_path, capsys):
    sys.path.insert(0, str(FIXTURES))
    try:
        import mol_mw
    finally:
        sys.path.remove(str(FIXTURES))
    register_module(mol_mw)
    try:
        tasks = list(rlvr.sample("mol.mw", n=2, split="test"))
    finally:
        unregister_family("mol.mw")
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in tasks), encoding="utf-8")
    assert main(["verify", "--tasks", str(path), "--oracle"]) == 2
    _one_line_error(capsys, "unknown task family 'mol.mw'", "--plugin MODULE_OR_FILE")
    assert main(["verify", "--tasks", str(path), "--oracle", "--plugin", str(MOL_MW)]) == 0
    assert json.loads(capsys.readouterr().out)["accuracy"] == 1.0
    unregister_family("mol.mw")


def test_a_misspelt_family_gets_a_suggestion_not_the_plugin_hint(capsys):
    assert main(["sample", "--family", "mol.cuont", "-n", "1"]) == 2
    err = _one_line_error(capsys, "unknown task family 'mol.cuont'", "did you mean 'mol.count'?")
    assert "--plugin" not in err


def test_a_plugin_reusing_a_built_in_name_is_told_how_to_rename(tmp_path, capsys):
    plugin = tmp_path / "clash.py"
    plugin.write_text(MOL_MW.read_text(encoding="utf-8").replace('FAMILY = "mol.mw"', 'FAMILY = "mol.count"'),
                      encoding="utf-8")
    assert 'FAMILY = "mol.count"' in plugin.read_text(encoding="utf-8")
    assert main(["sample", "--plugin", str(plugin), "--list"]) == 2
    err = _one_line_error(capsys, f"--plugin {plugin}", "task family 'mol.count' is already registered",
                          "built in, from rlvr.families.molecules", "name='mine.count'")
    assert "replace=True" not in err.split("; in Python")[0]
