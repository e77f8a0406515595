"""Feature screen for the molecules main job: which ``mol.count`` features does a short warm start make learnable?

One short supervised warm start (LoRA SFT on verified worked solutions of the candidate features, one
feature per question, merged), then per feature: greedy accuracy and pass@k (k samples at temperature
1) on a small tuning set, next to the accuracy of the best constant answer (the most common value of
that feature on the tuning tasks: a feature whose warm score does not beat it teaches nothing).

The tuning set is drawn from the ``train`` split with its own task seed, minus every molecule the warm
start saw, so the test splits (``easy``, ``hard``) stay untouched by feature selection.

    OMP_NUM_THREADS=1 python scripts/screen_mol_features.py --sft-steps 24 --tasks 6 --k 4
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rlvr
from rlvr.datasets import FamilyMix, Mixture
from rlvr.files import atomic_open
from rlvr.reasons import answered

#: the system prompt of the terse-style screen in docs/results/quickstart-molecules.md (the recipe's first version)
SYSTEM_PROMPT = ("Atoms are numbered from 0 in the order written (heavy atoms only). Reason in short lines, then "
                 "give the answer as one JSON object inside <answer></answer>.")
#: features screened by default: atom, ring, donor/acceptor and a few functional-group counts
CANDIDATES = (
    "halogen_atom_count", "hetero_atom_count", "carbon_atom_count", "heavy_atom_count", "hbd_count", "hba_count",
    "ring_count", "aromatic_ring_count", "aliphatic_ring_count", "heterocycle_count", "fused_ring_count",
    "stereocenter_count", "functional_group_carbonyl_count", "functional_group_benzene_ring_count",
)


@dataclass
class ScreenConfig:
    """Options of one screen (see ``--help``)."""

    features: tuple[str, ...] = CANDIDATES
    sft_steps: int = 24
    sft_batch_size: int = 8
    sft_learning_rate: float = 1.0e-3
    sft_style: str = "terse"
    tasks: int = 6
    k: int = 4
    max_new_tokens: int = 192
    tune_seed: int = 777
    sft_seed: int = 11
    base: bool = False
    output_dir: str = "outputs/screen-mol"
    system_prompt: str = SYSTEM_PROMPT
    extra: dict[str, Any] = field(default_factory=dict)


def mixture(cfg: ScreenConfig, split: str, seed: int, keys: tuple[str, ...]) -> Mixture:
    """``mol.count`` with one question per task over ``keys``, in the job's prompt."""
    options = {"load": 1, "keys": list(keys), "system_prompt": cfg.system_prompt, **cfg.extra}
    return Mixture([FamilyMix("mol.count", 1.0, options)], split, seed)


def canonical(smiles: str) -> str:
    """RDKit canonical SMILES (the molecule, whatever atom order the prompt shows)."""
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles)
    return Chem.MolToSmiles(mol) if mol is not None else smiles


def warm_start(cfg: ScreenConfig) -> tuple[str, set[str], dict[str, Any]]:
    """LoRA SFT on worked solutions of the candidate features, merged; returns the merged model,
    the canonical SMILES the warm start saw and its info."""
    from datasets import Dataset

    from rlvr.models import resolve_model
    from peft import LoraConfig

    from rlvr.train.sft import run_sft
    from rlvr.train.sft_data import SFTArguments, sft_rows

    n = cfg.sft_steps * cfg.sft_batch_size
    rows, stats = sft_rows(mixture(cfg, "train", cfg.sft_seed, cfg.features), n, style=cfg.sft_style)
    seen = {canonical(json.loads(r["task_json"])["meta"]["smiles"]) for r in rows}
    sft_args = SFTArguments(sft_steps=cfg.sft_steps, sft_train_size=n, sft_batch_size=cfg.sft_batch_size,
                            sft_learning_rate=cfg.sft_learning_rate, sft_lr_scheduler_type="cosine",
                            sft_warmup_steps=2, sft_max_length=512, sft_style=cfg.sft_style)
    peft = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, task_type="CAUSAL_LM",
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
    result = run_sft(resolve_model("default"), Dataset.from_list(rows), sft_args, output_dir=str(Path(cfg.output_dir) / "sft"),
                     peft_config=peft, use_cpu=True, seed=0, merge=True, dataset_stats=stats)
    return str(result.merged_dir), seen, {"steps": result.steps, "seconds": result.seconds, "first_loss": result.first_loss,
                                          "last_loss": result.last_loss, "mean_chars": stats.mean_completion_chars}


def tuning_tasks(cfg: ScreenConfig, feature: str, seen: set[str]) -> list[Any]:
    """``cfg.tasks`` train-split tasks asking ``feature``, none on a molecule the warm start saw."""
    mix, out, i = mixture(cfg, "train", cfg.tune_seed, (feature,)), [], 0
    while len(out) < cfg.tasks and i < 50 * cfg.tasks:
        task = mix.task_at(i)
        i += 1
        if canonical(task.meta["smiles"]) not in seen:
            out.append(task)
    return out


def generate(model: Any, tok: Any, tasks: list[Any], *, k: int, greedy: bool, max_new_tokens: int) -> list[list[str]]:
    """``k`` sampled (or one greedy) completions per task, in batches of 8 prompts."""
    import torch

    out: list[list[str]] = []
    for start in range(0, len(tasks), 8):
        chunk = tasks[start:start + 8]
        texts = [tok.apply_chat_template(t.prompt, tokenize=False, add_generation_prompt=True) for t in chunk]
        enc = tok(texts, return_tensors="pt", padding=True)
        n = 1 if greedy else k
        with torch.no_grad():
            gen = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=not greedy, temperature=None if greedy else 1.0,
                                 top_p=None, top_k=None, num_return_sequences=n, pad_token_id=tok.pad_token_id)
        decoded = tok.batch_decode(gen[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        out += [decoded[j * n:(j + 1) * n] for j in range(len(chunk))]
    return out


def score(model_dir: str, cfg: ScreenConfig, by_feature: dict[str, list[Any]]) -> dict[str, dict[str, float]]:
    """Greedy accuracy, mean sampled accuracy, pass@k and answered rate per feature."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir, padding_side="left")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_dir, torch_dtype=torch.float32).eval()
    table: dict[str, dict[str, float]] = {}
    for feature, tasks in by_feature.items():
        greedy = generate(model, tok, tasks, k=1, greedy=True, max_new_tokens=cfg.max_new_tokens)
        sampled = generate(model, tok, tasks, k=cfg.k, greedy=False, max_new_tokens=cfg.max_new_tokens)
        g = [rlvr.verify(t, c[0]) for t, c in zip(tasks, greedy)]
        s = [[rlvr.verify(t, x) for x in c] for t, c in zip(tasks, sampled)]
        truths = Counter(json.dumps(t.ground_truth[feature]) for t in tasks)
        table[feature] = {
            "n": len(tasks),
            "greedy": 100 * sum(v.correct for v in g) / len(tasks),
            "pass@1": 100 * sum(v.correct for vs in s for v in vs) / (len(tasks) * cfg.k),
            f"pass@{cfg.k}": 100 * sum(any(v.correct for v in vs) for vs in s) / len(tasks),
            "answered": 100 * sum(answered(v.reason) for vs in s for v in vs) / (len(tasks) * cfg.k),
            "constant": 100 * truths.most_common(1)[0][1] / len(tasks),
        }
        print(f"  {feature}: {table[feature]}", flush=True)
    return table


def render(table: dict[str, dict[str, float]], k: int) -> str:
    """The screen as a Markdown table."""
    cols = ["n", "greedy", "pass@1", f"pass@{k}", "answered", "constant"]
    lines = ["| feature | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for feature, row in table.items():
        lines.append(f"| {feature} | " + " | ".join(f"{row[c]:.0f}" for c in cols) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse the options, warm-start, score every feature, print and save the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--features", nargs="*", default=list(CANDIDATES))
    p.add_argument("--sft-steps", type=int, default=24)
    p.add_argument("--sft-batch-size", type=int, default=8)
    p.add_argument("--sft-learning-rate", type=float, default=1.0e-3)
    p.add_argument("--tasks", type=int, default=6, help="tuning tasks per feature")
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--max-new-tokens", type=int, default=192)
    p.add_argument("--base", action="store_true", help="also score the base model")
    p.add_argument("--output-dir", default="outputs/screen-mol")
    p.add_argument("--overwrite", action="store_true", help="replace an existing OUTPUT_DIR/screen.json")
    a = p.parse_args(argv)
    out = Path(a.output_dir) / "screen.json"
    if out.exists() and not a.overwrite:
        print(f"error: {out} exists (pass --overwrite to replace it)", file=sys.stderr)
        return 2
    cfg = ScreenConfig(features=tuple(a.features), sft_steps=a.sft_steps, sft_batch_size=a.sft_batch_size,
                       sft_learning_rate=a.sft_learning_rate, tasks=a.tasks, k=a.k, max_new_tokens=a.max_new_tokens,
                       base=a.base, output_dir=a.output_dir)
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    t0 = time.time()
    merged, seen, info = warm_start(cfg)
    print(f"warm start: {info} ({time.time() - t0:.0f} s)", flush=True)
    by_feature = {f: tuning_tasks(cfg, f, seen) for f in cfg.features}
    result: dict[str, Any] = {"config": {k: v for k, v in vars(cfg).items()}, "warm_start": info}
    if cfg.base:
        from rlvr.models import resolve_model

        result["base"] = score(resolve_model("default"), cfg, by_feature)
    result["warm"] = score(merged, cfg, by_feature)
    result["seconds"] = round(time.time() - t0, 1)
    for name in ("base", "warm"):
        if name in result:
            print(f"\n{name} model (%, tuning tasks from train, unseen molecules):\n" + render(result[name], cfg.k))
    with atomic_open(out) as fh:
        fh.write(json.dumps(result, indent=2, default=list))
    print(f"\n{result['seconds']} s in all; {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
