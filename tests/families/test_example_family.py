"""The family of docs/writing-a-family.md, run from the page itself (the code block is this test's
module): registered at run time, it works through rlvr.sample / verify, the Gymnasium environment, a
TRL reward function and ``rlvr eval --backend oracle``, and the registry-wide checks pick it up; as a
built-in family (the block as a module plus one provider line) it passes the same conformance and
group tests as the built-in families."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import rlvr
from rlvr.cli import main as cli_main
from rlvr.envs import ChemEnv
from rlvr.families.conformance import check_family
from rlvr.registry import get_family, register_module, unregister_family
from rlvr.rewards import chem_reward

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "writing-a-family.md"
sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
from package_copy import package_with_family  # noqa: E402
MARKER = "<!-- family-example -->"


def example_source() -> str:
    """The Python block right after the marker in the doc."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(re.escape(MARKER) + r"\s*```python\n(.*?)```", text, re.S)
    assert match, f"{DOC} has no python block after {MARKER}"
    return match.group(1)


@pytest.fixture(scope="module")
def family():
    module = types.ModuleType("toy_atoms_example")
    sys.modules[module.__name__] = module
    exec(compile(example_source(), str(DOC), "exec", dont_inherit=True), module.__dict__)
    register_module(module)
    try:
        yield module
    finally:
        unregister_family(module.FAMILY)
        del sys.modules[module.__name__]


def test_the_doc_block_is_short_and_registers_the_family(family):
    assert len(example_source().splitlines()) < 100
    assert get_family("toy.atoms") is family.SPEC
    assert "toy.atoms" in rlvr.list_families()


def test_the_registry_wide_checks_pass(family):
    # the module runs from the page, with no file another process could import: the cross-process check of
    # this family is test_another_process_running_the_doc_generates_the_same_tasks
    tasks = check_family("toy.atoms", cross_process=False)
    assert len(tasks) == 2 * len(family.POOLS) * len(family.SPEC.option_grid)


def test_sample_verify_and_regenerate(family):
    tasks = list(rlvr.sample("toy.atoms", n=8, split="test", seed=2))
    assert len({t.id for t in tasks}) == 8
    for task in tasks:
        assert task.meta["formula"] in family.POOLS["test"]
        assert rlvr.verify(task, rlvr.oracle_completion(task)).reward == 1.0
        wrong = rlvr.verify(task, f"<answer>{task.ground_truth['count'] + 1}</answer>")
        assert wrong.reward == 0.0 and wrong.reason == "wrong_value"
        assert rlvr.regenerate(task.to_dict()).to_dict() == task.to_dict()
    assert rlvr.verify(tasks[0], "<answer></answer>").reason == "unparsable"
    assert rlvr.verify(tasks[0], None).reason == "not_text"
    oxygen = next(rlvr.sample("toy.atoms", n=1, split="train", element="O"))
    assert oxygen.meta["element"] == "O" and oxygen.meta["config"] == {"element": "O"}
    with pytest.raises(TypeError, match="unknown option"):
        next(rlvr.sample("toy.atoms", n=1, colour="blue"))
    with pytest.raises(TypeError, match="unexpected keyword"):
        rlvr.verify(tasks[0], "<answer>1</answer>", reward="f1")


def test_prompt_options_apply_to_a_new_family(family):
    task = rlvr.generate("toy.atoms", "test", 0, 3, system_prompt="Be brief.", few_shot=2)
    assert [m["role"] for m in task.prompt] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert rlvr.regenerate(task).to_dict() == task.to_dict()
    with pytest.raises(ValueError, match="prompt_style"):
        rlvr.generate("toy.atoms", "test", 0, 3, prompt_style="compact")


def test_gymnasium_environment_with_the_family_feedback(family):
    env = ChemEnv("toy.atoms", split="test", max_turns=2)
    _, info = env.reset(seed=5)
    assert info["family"] == "toy.atoms"
    truth = env.unwrapped.task.ground_truth["count"]
    obs, reward, done, _, info = env.step(f"<answer>{truth + 2}</answer>")
    assert reward == 0.0 and not done and "subscripts included" in obs and str(truth) not in obs.split("\n", 1)[1]
    obs, reward, done, _, info = env.step(f"<answer>{truth}</answer>")
    assert done and info["solved"] and reward == pytest.approx(0.9)


def test_trl_reward_function(family):
    tasks = list(rlvr.sample("toy.atoms", n=3, split="train", seed=1))
    completions = [rlvr.oracle_completion(tasks[0]), "<answer>-1</answer>", "no answer"]
    rewards = chem_reward([t.prompt for t in tasks], completions, task_json=[t.to_json() for t in tasks])
    assert rewards == [1.0, 0.0, 0.0]


def test_rlvr_eval_with_the_oracle_backend(family, tmp_path, capsys):
    assert cli_main(["eval", "--suite", "toy", "--backend", "oracle", "--out", str(tmp_path), "--no-progress"]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["eval_set"]["n_tasks"] == 6
    assert results["summary"]["tasks/toy.atoms/test/accuracy"] == 100.0
    assert results["summary"]["tasks/toy.atoms/test/answered"] == 100.0
    assert "toy.atoms" in (tmp_path / "report.md").read_text()
    assert not (tmp_path / "plots").exists()  # the generic layout draws no plots (rlvr eval --help says so)
    assert cli_main(["eval", "--suite", "toy", "--backend", "copy-input", "--out", str(tmp_path / "floor"),
                     "--no-progress"]) == 0
    floor = json.loads((tmp_path / "floor" / "results.json").read_text())["summary"]
    assert floor["tasks/toy.atoms/test/accuracy"] == 0.0


def test_another_process_running_the_doc_generates_the_same_tasks(family):
    child = (
        "import json, sys, types\n"
        "module = types.ModuleType('toy_atoms_example')\n"
        "sys.modules[module.__name__] = module\n"
        "exec(sys.stdin.read(), module.__dict__)\n"
        "import rlvr\n"
        "rlvr.registry.register_module(module)\n"
        "print(json.dumps([t.to_dict() for t in rlvr.sample('toy.atoms', n=5, split='train', seed=9)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", child], input=example_source(), capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert json.loads(out) == [t.to_dict() for t in rlvr.sample("toy.atoms", n=5, split="train", seed=9)]


def test_the_doc_block_as_a_built_in_family_passes_the_built_in_checks(tmp_path):
    root = package_with_family(tmp_path, "toy_atoms", example_source(), "toy.atoms")
    tests = [str(REPO / "tests" / "families" / name) for name in ("test_registry_grid.py", "test_registry.py")]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "toy.atoms or group or hook",
                           *tests], cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(root)})
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert proc.returncode == 0 and passed, proc.stdout[-3000:]
    assert int(passed.group(1)) >= 6  # its 4 grid cells, its perturbation and hostile checks, the group checks
