"""Same (family, options, seed, split, index) -> the same task in any process."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import rlvr

SCRIPT = r"""
import json, sys
import rlvr
out = []
for family, split, options in json.loads(sys.argv[1]):
    for index in (0, 5, 999, 123456):
        t = rlvr.generate(family, split, 17, index, **options)
        out.append([t.id, t.prompt, t.ground_truth, t.meta])
print(json.dumps(out, sort_keys=True))
"""

CASES = [
    ["stoich.t1", "test_out", {"encoding": "formula"}],
    ["stoich.t2", "train_cross", {"encoding": "smiles", "semantics": "paper", "prompt_mode": "open"}],
    ["stoich.t2", "valid", {"encoding": "formula", "augmentation": 5, "split_mode": "mw"}],
    ["stoich.balance", "test", {"encoding": "formula", "corpus": "classic"}],
    ["stoich.byproduct", "train", {"encoding": "smiles", "scale": [1, 3]}],
]


def _generate_here():
    out = []
    for family, split, options in CASES:
        for index in (0, 5, 999, 123456):
            t = rlvr.generate(family, split, 17, index, **options)
            out.append([t.id, t.prompt, t.ground_truth, t.meta])
    return json.loads(json.dumps(out, sort_keys=True))


def test_generation_is_identical_across_processes():
    here = _generate_here()
    hash_seed = "31337" if os.environ.get("PYTHONHASHSEED") != "31337" else "7"  # differs from this process
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    res = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(CASES)], capture_output=True, text=True,
                         env=env, check=True, timeout=300)
    assert json.loads(res.stdout.strip().splitlines()[-1]) == here


def test_ids_regenerate_and_differ_by_options():
    a = rlvr.generate("stoich.t2", "train", 1, 10)
    b = rlvr.generate("stoich.t2", "train", 1, 10, encoding="smiles")
    assert a.id != b.id and a.id.startswith("stoich.t2:train:1:10:")
    assert rlvr.regenerate(json.loads(a.to_json())) == a
    assert rlvr.regenerate(b) == b
    # the same index with the same options is the same task; another index is another task
    assert rlvr.generate("stoich.t2", "train", 1, 10) == a
    assert rlvr.generate("stoich.t2", "train", 1, 11).id != a.id
