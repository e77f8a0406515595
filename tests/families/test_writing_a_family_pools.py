"""The pool example of docs/writing-a-family.md runs as written, and draws what the page says."""
from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-a-family.md"
MARKER = "<!-- pool-example -->"


def test_the_pool_example_runs_and_draws_from_held_out_splits():
    match = re.search(re.escape(MARKER) + r"\s*```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert match, f"{DOC} has no python block after {MARKER}"
    scope: dict = {}
    exec(compile(match.group(1), str(DOC), "exec", dont_inherit=True), scope)
    pool, corpus, test = scope["pool"], scope["corpus"], scope["test"]
    assert set(pool.sizes()) >= {"train", "easy", "hard"} and scope["smiles"] in pool.smiles
    assert scope["smiles"] not in {pool.smiles[i] for i in pool.members("train")}
    train = set(scope["reaction_pool"](corpus, "formula", "products", scope["SplitSpec"](), "train"))
    assert test and not train & set(test)
    assert not {corpus.key(i) for i in train} & {corpus.key(i) for i in test}  # no key in two splits
