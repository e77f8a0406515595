"""A new family, ``mol.mw`` (tests/families/fixtures/mol_mw.py), three ways: as a plugin through every
command, as a built-in family (one module and one provider line in a copy of the package, nothing else
edited) and as an installed package's ``rlvr.families`` entry point; and the conformance checks catch
two classic checker bugs in it."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rlvr.families.conformance import ConformanceError, check_family
from rlvr.registry import register_family, unregister_family

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "mol_mw.py"
sys.path.insert(0, str(FIXTURE.parent))
import mol_mw  # noqa: E402  (the fixture module, imported from its folder)
from package_copy import package_with_family  # noqa: E402

TIMEOUT = 300


def rlvr_cli(*args: str, cwd: Path = REPO, env: dict | None = None, ok: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "rlvr.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, env={**os.environ, **(env or {})})
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


# ---------------------------------------------------------------------------------------- as a plugin
def test_the_plugin_reaches_sample_verify_export_and_eval(tmp_path):
    plugin = ("--plugin", str(FIXTURE))
    assert "mol.mw" in rlvr_cli("sample", "--list", *plugin).stdout
    assert "mol.mw" in rlvr_cli("sample", "--help", *plugin).stdout
    assert "molweight" in rlvr_cli("eval", "--help", *plugin).stdout
    tasks = tmp_path / "tasks.jsonl"
    rlvr_cli("sample", "--family", "mol.mw", "--split", "test", "-n", "3", "--out", str(tasks), *plugin)
    assert [json.loads(line)["family"] for line in tasks.read_text().splitlines()] == ["mol.mw"] * 3
    summary = json.loads(rlvr_cli("verify", "--tasks", str(tasks), "--oracle", *plugin).stdout)
    assert summary["n"] == 3 and summary["accuracy"] == 1.0
    rlvr_cli("export", "--family", "mol.mw", "-n", "4", "--out", str(tmp_path / "export.jsonl"), *plugin)
    assert len((tmp_path / "export.jsonl").read_text().splitlines()) == 4
    rlvr_cli("eval", "--suite", "molweight", "--backend", "oracle", "--out", str(tmp_path / "eval"), "--no-progress",
             "--no-plots", *plugin)
    results = json.loads((tmp_path / "eval" / "results.json").read_text())
    assert results["summary"]["tasks/mol.mw/test/accuracy"] == 100.0
    without = rlvr_cli("sample", "--family", "mol.mw", ok=False)
    assert without.returncode == 2 and "unknown task family 'mol.mw'" in without.stderr


def test_the_plugin_option_of_the_training_commands_is_read_before_their_own_parser(tmp_path):
    for command in ("train", "sft"):
        proc = rlvr_cli(command, "--plugin", str(FIXTURE), "--config", str(tmp_path / "none.yaml"), ok=False)
        assert proc.returncode != 0 and "none.yaml" in proc.stderr and "--plugin" not in proc.stderr
    assert "--plugin" in rlvr_cli("quickstart", "--help").stdout
    broken = tmp_path / "broken.py"
    broken.write_text("def oops(:\n")
    for command in ("train", "quickstart", "sample", "serve-rewards"):
        proc = rlvr_cli(command, "--plugin", str(broken), ok=False)
        assert proc.returncode == 2 and proc.stderr.startswith("rlvr: error: --plugin") and "Traceback" not in proc.stderr


def test_the_plugin_reaches_the_reward_server():
    from rlvr.rewards.server import RewardServer, ServerConfig
    import http.client
    import threading

    srv = RewardServer(ServerConfig(host="127.0.0.1", port=0, timeout=30.0, imports=(str(FIXTURE),)))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        spec = mol_mw.build()
        task = spec.generate(mol_mw.WeightConfig(), "test", 0, 1)
        body = {"query": ["q" + mol_mw.oracle(task), "q<answer>1</answer>"], "prompts": ["q", "q"],
                "labels": [task.to_json()] * 2}
        conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=120)
        conn.request("POST", "/get_reward", json.dumps(body), {"Content-Type": "application/json"})
        assert json.loads(conn.getresponse().read())["rewards"] == [1.0, 0.0]
    finally:
        srv.shutdown()
        srv.server_close()


# ---------------------------------------------------------------------------------------- as built in
def test_one_module_and_one_line_make_a_built_in_family(tmp_path):
    root = package_with_family(tmp_path, "mol_mw", FIXTURE.read_text(), "mol.mw")
    env = {"PYTHONPATH": str(root)}
    probe = subprocess.run(
        [sys.executable, "-c", "import rlvr, rlvr.registry as r; print(rlvr.__file__); "
                               "print(r.get_family('mol.mw').group.name, r.REGISTRY.runtime_names())"],
        cwd=root, capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, **env}, check=True)
    assert probe.stdout.split("\n")[:2] == [str(root / "rlvr" / "__init__.py"), "molweight []"]
    assert "mol.mw" in rlvr_cli("sample", "--list", cwd=root, env=env).stdout
    assert '"family": "mol.mw"' in rlvr_cli("sample", "--family", "mol.mw", "-n", "2", cwd=root, env=env).stdout
    rlvr_cli("eval", "--suite", "molweight", "--backend", "oracle", "--out", str(tmp_path / "eval"), "--no-progress",
             "--no-plots", cwd=root, env=env)
    assert json.loads((tmp_path / "eval" / "results.json").read_text())["summary"]["tasks/mol.mw/test/accuracy"] == 100.0
    tests = [str(REPO / "tests" / "families" / name) for name in ("test_registry_grid.py", "test_registry.py")]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "mol.mw or group or hook",
                           *tests], cwd=root, capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, **env})
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert proc.returncode == 0 and passed and int(passed.group(1)) >= 6, proc.stdout[-3000:]


def test_an_installed_package_provides_families_through_its_entry_point(tmp_path):
    shutil.copy(FIXTURE, tmp_path / "mol_mw_package.py")
    (tmp_path / "broken_family_package.py").write_text("def oops(:\n")
    info = tmp_path / "mol_mw_package-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mol-mw-package\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[rlvr.families]\nmol.mw = mol_mw_package\nbroken = broken_family_package\n")
    env = {"PYTHONPATH": str(tmp_path)}
    listed = rlvr_cli("sample", "--list", env=env)
    assert "mol.mw" in listed.stdout and "stoich.t1" in listed.stdout
    warnings = [line for line in listed.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "broken_family_package" in warnings[0] and "SyntaxError" in warnings[0]
    assert '"family": "mol.mw"' in rlvr_cli("sample", "--family", "mol.mw", "-n", "1", env=env).stdout


# ---------------------------------------------------------------------------------------- conformance
def test_the_family_passes_the_conformance_checks():
    register_family(mol_mw.build())
    try:
        assert len(check_family("mol.mw")) == 2 * len(mol_mw.POOLS)
    finally:
        unregister_family("mol.mw")


def _raises_on_letters(task, completion):
    value, reason = mol_mw.read_number(completion)
    if reason == "unparsable":
        float(completion.split("<answer>")[-1].split("</answer>")[0])  # the bug: the parse error escapes
    return mol_mw.check(task, completion)


def _two_grams_off_is_fine(task, completion):
    value, reason = mol_mw.read_number(completion)
    if value is None:
        return mol_mw.check(task, completion)
    correct = abs(value - task.ground_truth["mw"]) <= 2.0  # the bug: 2 g/mol accepted where 0.1 is asked
    return mol_mw.Verdict(float(correct), correct, {}, "ok" if correct else "wrong_value")


@pytest.mark.parametrize("checker, message", [(_raises_on_letters, "raised on '<answer>abc</answer>'"),
                                              (_two_grams_off_is_fine, "minimal perturbation")])
def test_the_conformance_checks_catch_classic_checker_bugs(checker, message):
    register_family(mol_mw.build("mol.mwbug", checker))
    try:
        with pytest.raises(ConformanceError, match=message):
            check_family("mol.mwbug")
    finally:
        unregister_family("mol.mwbug")
