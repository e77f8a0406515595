"""Every framework key in a Markdown code block (README.md, docs/, environments/) is one the installed framework reads.

The recipe tests check recipes/verl and recipes/openrlhf; this does the same for the snippets a user
copies: verl hydra overrides (and that the reward file is set where verl's trainer looks for it),
OpenRLHF ``train_ppo_ray`` flags, the fields of TRL's config classes and trainer keywords, and
``accelerate launch`` flags with the launcher config files they name.
"""
from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MARKDOWN = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "environments").rglob("*.md"))]


def code_blocks() -> list[tuple[str, str]]:
    """``(file, block)`` of every fenced code block, backslash continuations joined."""
    out = []
    for path in MARKDOWN:
        for block in re.findall(r"```[\w-]*\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S):
            out.append((str(path.relative_to(ROOT)), re.sub(r"\\\n\s*", " ", block)))
    return out


def blocks_naming(word: str) -> list[tuple[str, str]]:
    return [(name, block) for name, block in code_blocks() if word in block]


def test_the_markdown_files_hold_framework_snippets():
    assert blocks_naming("verl") and blocks_naming("train_ppo_ray") and blocks_naming("GRPOConfig")


# --- verl ---------------------------------------------------------------------------------------------

def _verl_config():
    verl = pytest.importorskip("verl", reason="verl is not installed (bash scripts/install.sh --dev installs it)")
    from omegaconf import OmegaConf

    return OmegaConf.load(Path(verl.__file__).parent / "trainer/config/_generated_ppo_trainer.yaml")


def verl_overrides(config) -> list[tuple[str, str, str]]:
    """``(file, key, value)`` of every ``[+]section.key=value`` whose section is one of verl's, in a verl block."""
    found = []
    for name, block in blocks_naming("verl"):
        for plus, key, value in re.findall(r"(?<![\w.\-/$])(\+?)([a-z_]+(?:\.[a-z_0-9]+)+)=(\S*)", block):
            if key.split(".")[0] in config.keys():
                found.append((name, plus + key, value))
    return found


def test_verl_keys_in_the_docs_exist_in_verl_0_9():
    config = _verl_config()
    overrides = verl_overrides(config)
    assert any(key == "reward.custom_reward_function.path" for _, key, _ in overrides)
    for name, key, _ in overrides:
        *parents, leaf = key.lstrip("+").split(".")
        node = config
        for part in parents[: len(parents) - 1 if key.startswith("+") else len(parents)]:
            assert part in node.keys(), f"{name}: {key} is not a verl config key"  # noqa: SIM118
            node = node[part]
        if not key.startswith("+"):  # `+` adds a key; its parent must exist
            assert leaf in node.keys(), f"{name}: {key} is not a verl config key"  # noqa: SIM118


def test_every_reward_file_key_in_the_docs_is_where_verl_reads_it():
    """verl 0.9's trainer loads the reward from ``reward.custom_reward_function``; the top-level key is ignored."""
    config = _verl_config()
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn

    import rlvr.rewards.verl as rlvr_verl

    keys = {key.lstrip("+") for _, key, _ in verl_overrides(config) if key.endswith("custom_reward_function.path")}
    keys |= {m for _, block in code_blocks() for m in re.findall(r"(?<![\w.])([\w.]*custom_reward_function\.path)", block)}
    assert keys
    for key in sorted(keys):
        trial = config.copy()
        OmegaConf.update(trial, key, rlvr_verl.__file__, force_add=True)
        OmegaConf.update(trial, key.rsplit(".", 1)[0] + ".name", "compute_score", force_add=True)
        assert get_custom_reward_fn(trial) is not None, f"verl 0.9 ignores {key}: use reward.custom_reward_function.*"


# --- OpenRLHF -----------------------------------------------------------------------------------------

def openrlhf_flags() -> set[str]:
    """The flags ``openrlhf.cli.train_ppo_ray`` declares."""
    pytest.importorskip("openrlhf", reason="OpenRLHF is not installed (bash scripts/install.sh --dev installs it)")
    source = Path(importlib.util.find_spec("openrlhf").submodule_search_locations[0], "cli", "train_ppo_ray.py")
    text = source.read_text()
    declared = set(re.findall(r'add_argument\(\s*"(--[\w.]+)"', text))
    for prefix in ("actor", "critic"):  # flags declared as f"--{prefix}...."
        declared |= {f"--{prefix}{rest}" for rest in re.findall(r'add_argument\(\s*f"--\{prefix\}([\w.]+)"', text)}
    return declared


def test_openrlhf_flags_in_the_docs_are_train_ppo_ray_flags():
    declared = openrlhf_flags()
    used = {}
    for name, block in blocks_naming("train_ppo_ray"):
        for command in block.split("openrlhf.cli.train_ppo_ray")[1:]:
            for flag in re.findall(r"(?<![\w-])(--[\w.]+)", command.split("\n")[0]):
                used.setdefault(flag, name)
    assert "--reward.remote_url" in used
    unknown = {flag: name for flag, name in used.items() if flag not in declared}
    assert not unknown, f"flags train_ppo_ray does not declare: {unknown}"


# --- TRL ----------------------------------------------------------------------------------------------

def _calls(block: str, names: set[str]) -> list[tuple[str, list[str]]]:
    try:
        tree = ast.parse(block)
    except SyntaxError:
        return []
    return [(node.func.id, [k.arg for k in node.keywords if k.arg])
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names]


def test_trl_config_fields_and_trainer_keywords_in_the_docs_exist():
    trl = pytest.importorskip("trl", reason="TRL is not installed (bash scripts/install.sh installs it)")
    configs = {name: {f.name for f in dataclasses.fields(getattr(trl, name))}
               for name in ("GRPOConfig", "RLOOConfig", "SFTConfig")}
    trainers = {name: set(inspect.signature(getattr(trl, name).__init__).parameters)
                for name in ("GRPOTrainer", "RLOOTrainer", "SFTTrainer")}
    seen = 0
    for name, block in blocks_naming("trl"):
        for call, keywords in _calls(block, set(configs) | set(trainers)):
            allowed = configs.get(call) or trainers[call]
            unknown = sorted(set(keywords) - allowed)
            assert not unknown, f"{name}: {call} has no {unknown}"
            seen += 1
    assert seen >= 2


# --- accelerate ---------------------------------------------------------------------------------------

def accelerate_launches() -> list[tuple[str, list[str]]]:
    """``(file, argv)`` of every ``accelerate launch`` line, up to the script or ``-m``."""
    out = []
    for name, block in blocks_naming("accelerate launch"):
        for line in block.splitlines():
            if "accelerate launch" not in line or line.lstrip().startswith("#"):
                continue
            argv = shlex.split(line.split("accelerate launch", 1)[1].split("#")[0])
            launcher = []
            for arg in argv:
                if arg == "-m" or arg.endswith(".py") or arg == "...":
                    break
                launcher.append(arg)
            out.append((name, launcher))
    return out


def test_accelerate_flags_and_config_files_in_the_docs_exist():
    pytest.importorskip("accelerate", reason="accelerate is not installed (bash scripts/install.sh installs it)")
    from accelerate.commands.config.config_args import ClusterConfig
    from accelerate.commands.launch import launch_command_parser

    declared = set(launch_command_parser()._option_string_actions)
    launches = accelerate_launches()
    assert launches
    for name, argv in launches:
        flags = [a.split("=")[0] for a in argv if a.startswith("-")]
        assert set(flags) <= declared, f"{name}: accelerate launch has no {sorted(set(flags) - declared)}"
        if "--config_file" in argv:
            config = ROOT / argv[argv.index("--config_file") + 1]
            assert config.is_file(), f"{name}: {config} does not exist"
            ClusterConfig.from_yaml_file(str(config))  # raises on a key accelerate does not know


def test_every_accelerate_recipe_loads_in_accelerate():
    pytest.importorskip("accelerate", reason="accelerate is not installed (bash scripts/install.sh installs it)")
    from accelerate.commands.config.config_args import ClusterConfig

    recipes = sorted((ROOT / "recipes" / "accelerate").glob("*.yaml"))
    assert recipes
    for recipe in recipes:
        ClusterConfig.from_yaml_file(str(recipe))
