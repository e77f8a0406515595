"""Help that says what each option does, with its default, and the one ``--out`` rule."""
from __future__ import annotations

import argparse

from rlvr.cli import build_parser, main


def _parsers(parser: argparse.ArgumentParser, prefix: str = "rlvr"):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, f"{prefix} {name}")


def test_every_option_has_help_and_every_out_states_the_rule():
    seen_out = []
    for prog, parser in _parsers(build_parser()):
        for action in parser._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{prog} {action.option_strings[0]} has no help text"
            if "--out" in action.option_strings and prog not in ("rlvr eval",):
                assert "path ending in /" in action.help and "--overwrite" in action.help, prog
                seen_out.append(prog)
    assert {"rlvr sample", "rlvr verify", "rlvr export", "rlvr corpus import", "rlvr eval compare"} <= set(seen_out)


def test_sample_help_shows_defaults_and_list_works(capsys):
    assert main(["sample", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "number of tasks (default: 10)" in text and "rlvr sample --list" in text
    assert "1-10 (the paper uses 1, 2, 3, 5)" in text
    assert main(["sample", "--list"]) == 0
    out = capsys.readouterr().out
    assert "stoich.t2" in out and "test_out" in out and "mol.index" in out


def test_eval_help_explains_limit(capsys):
    assert main(["eval", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "entries x N x --samples completions" in text
    # plots/ is promised only where it is made: a group layout that draws plots, some answered completion
    assert "plots/ when a family group's report layout draws plots" in text and "generic per-family layout draws none" in text


def test_train_and_sft_help_mention_plugin(capsys):
    for command in ("train", "sft"):
        assert main([command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "--plugin MODULE_OR_FILE" in text and "docs/writing-a-family.md" in text, command


def test_features_and_corpus_take_plugin(tmp_path, capsys):
    plugin = tmp_path / "marker_plugin.py"
    marker = tmp_path / "imported.txt"
    plugin.write_text(f"open({str(marker)!r}, 'a').write('x')\n")
    assert main(["features", "--plugin", str(plugin), "--smiles", "CCO", "--key", "carbon_atom_count", "--json"]) == 0
    assert '"carbon_atom_count": 2' in capsys.readouterr().out and marker.read_text() == "x"
    assert main(["corpus", "stats", "--corpus", "embedded-small", "--json", "--plugin", str(plugin)]) == 0
    assert "reactions" in capsys.readouterr().out and marker.read_text() == "x"  # imported once per process
    for command in (["features"], ["corpus"], ["corpus", "stats"], ["corpus", "import", "x.smi"], ["corpus", "build"]):
        assert main([*command, "--help"]) in (0, None)
        assert "--plugin" in capsys.readouterr().out, command


def test_corpus_takes_plugin_before_its_action(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RLVR_CACHE", str(tmp_path / "cache"))
    plugin = tmp_path / "marker_before_action.py"
    marker = tmp_path / "imported.txt"
    plugin.write_text(f"open({str(marker)!r}, 'a').write('x')\n")
    reactions = tmp_path / "mine.smi"
    reactions.write_text("CC(=O)O.NC>>CNC(C)=O\n")
    assert main(["corpus", "--plugin", str(plugin), "import", str(reactions), "--json"]) == 0
    assert marker.read_text() == "x" and "reactions" in capsys.readouterr().out
    assert main(["corpus", f"--plugin={plugin}", "stats", "--corpus", "embedded-small", "--json"]) == 0
    assert "reactions" in capsys.readouterr().out
