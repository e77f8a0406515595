"""pyproject's extras install where rlvr's tests run: none pulls OpenRLHF, whose pinned DeepSpeed ships
only as source and fails to build on a CPU machine; the docs give its install instead."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: packages whose full dependency set installs only on a CUDA machine: installed with --no-deps or apart
GPU_ONLY = {"openrlhf"}


def _extras() -> dict[str, list[str]]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_no_extra_pulls_a_gpu_only_package():
    extras = _extras()
    assert "train" in extras and "dev" in extras
    trapped = {extra: _name(req) for extra, reqs in extras.items() for req in reqs if _name(req) in GPU_ONLY}
    assert not trapped, f"extras that cannot install on a CPU machine: {trapped}"
    assert "openrlhf" not in extras


def test_the_docs_say_how_to_install_openrlhf_and_name_no_missing_extra():
    docs = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    for path in docs:
        for extra in re.findall(r"rlvr-chem\[([a-z,-]+)\]", path.read_text(encoding="utf-8")):
            assert set(extra.split(",")) <= set(_extras()), f"{path.name} names the extra [{extra}]"
    text = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    assert "### Installing OpenRLHF" in text and 'pip install --no-deps "openrlhf~=0.11.2"' in text
    assert '"openrlhf~=0.11.2"' in (REPO / "scripts" / "install.sh").read_text(encoding="utf-8")
