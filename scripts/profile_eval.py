"""What a quickstart evaluation costs, lever by lever (a benchmark, not part of rlvr).

    python scripts/profile_eval.py --model outputs/quickstart/warm_start/merged --n 64 [--repeats 2]
    python scripts/profile_eval.py --device cuda --model default --n 512 --batch 64 256 \
        [--adapter outputs/quickstart/train]

On ``--device cuda`` (or ``--rlvr-path``), rlvr's own eval path (:func:`rlvr.bench.gpu.measure_eval`:
merged adapter, eval mode, KV cache, length-sorted batches) is timed lever by lever, one at a time:
``batch B`` for each ``--batch``; ``unsorted`` (task order, more padding); ``static cache`` (compiled
on CUDA; the first batch, not counted, pays for the compilation); ``unmerged adapter`` (with
``--adapter``). Each row says whether its answers equal the first row's. Otherwise (CPU):

Greedy generation of the first ``n`` tasks of the quickstart's eval set (its prompts, its 80-token
limit), sorted by prompt length and left-padded as ``rlvr eval`` does, once per lever:

- ``baseline``: batch 64, 2 threads, float32, KV cache, 80 new tokens;
- ``batch 32``; ``1 thread``; ``bfloat16``; ``no KV cache``; ``64 new tokens``;
- ``stop at </answer>``: generation also ends at the answer block's closing tag (``stop_strings``).

For each: seconds (median of ``repeats``), completions/s, generated tokens, and whether the answers
equal the baseline's (same exact-match verdicts). Prints a Markdown table.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig  # noqa: E402

from rlvr.api import verify  # noqa: E402
from rlvr.bench.gpu import eval_tasks, measure_eval  # noqa: E402
from rlvr.eval.backends.hf import render_prompt  # noqa: E402
from rlvr.models import configure_tokenizer  # noqa: E402

LEVERS = {
    "baseline": {},
    "batch 32": {"batch": 32},
    "1 thread": {"threads": 1},
    "bfloat16": {"dtype": torch.bfloat16},
    "no KV cache": {"use_cache": False},
    "64 new tokens": {"max_new_tokens": 64},
    "stop at </answer>": {"stop": True},
}


def run(model_dir: str, tasks: list, *, batch: int = 64, threads: int = 2, dtype=torch.float32, use_cache: bool = True,
        max_new_tokens: int = 80, stop: bool = False) -> tuple[float, list[str], int]:
    torch.set_num_threads(threads)
    tokenizer = configure_tokenizer(AutoTokenizer.from_pretrained(model_dir))
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype).eval()
    texts = [render_prompt(tokenizer, t.prompt) for t in tasks]
    order = sorted(range(len(tasks)), key=lambda i: len(tokenizer(texts[i])["input_ids"]))
    config = GenerationConfig(max_new_tokens=max_new_tokens, do_sample=False, use_cache=use_cache,
                              pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                              stop_strings=["</answer>"] if stop else None)
    answers: dict[int, str] = {}
    generated = 0
    t0 = time.perf_counter()
    for start in range(0, len(order), batch):
        rows = order[start:start + batch]
        enc = tokenizer([texts[i] for i in rows], return_tensors="pt", padding=True, add_special_tokens=False)
        with torch.inference_mode():
            out = model.generate(**enc, generation_config=config, tokenizer=tokenizer if stop else None)
        new = out[:, enc["input_ids"].shape[1]:]
        for i, ids in zip(rows, new):
            ids = [t for t in ids.tolist() if t != tokenizer.pad_token_id]
            generated += len(ids)
            answers[i] = tokenizer.decode(ids, skip_special_tokens=True)
    return time.perf_counter() - t0, [answers[i] for i in range(len(tasks))], generated


def rlvr_path(args: argparse.Namespace, tasks: list) -> int:
    """rlvr's eval path on ``args.device``, one lever at a time (see the module docstring)."""
    first = args.batch[0]
    levers: list[tuple[str, dict]] = [(f"batch {b}", {"batch_size": b}) for b in args.batch]
    levers += [(f"unsorted, batch {first}", {"batch_size": first, "sort_by_length": False}),
               (f"static cache, batch {first}", {"batch_size": first, "static_cache": True})]
    if args.adapter:
        levers.append((f"unmerged adapter, batch {first}", {"batch_size": first, "merge_adapter": False}))
    print("| lever | seconds | completions/s | tokens/s | utilisation | same answers as the first row |")
    print("|---|---|---|---|---|---|")
    reference = None
    for name, lever in levers:
        if args.only and name.split(",")[0] not in args.only:
            continue
        row = measure_eval(args.model, device=args.device, tasks=tasks, max_new_tokens=args.max_new_tokens,
                           adapter=args.adapter, **lever)
        reference = row.texts if reference is None else reference
        same = "yes" if row.texts == reference else f"no ({sum(a != b for a, b in zip(row.texts, reference))} differ)"
        print(f"| {name} | {row.seconds:.2f} | {row.completions_per_s:.1f} | {row.tokens_per_s:.0f} | {row.utilisation} "
              f"| {same} |", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="a local model folder (e.g. the quickstart's warm_start/merged) "
                        "or default (the embedded model)")
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", nargs="*", help="levers to run (default: all)")
    parser.add_argument("--device", default="cpu", help="cpu (the CPU levers below) or cuda / cuda:N (rlvr's path)")
    parser.add_argument("--rlvr-path", action="store_true", help="time rlvr's eval path lever by lever on --device")
    parser.add_argument("--batch", type=int, nargs="+", default=[64, 256], help="rlvr's path: batch sizes")
    parser.add_argument("--adapter", help="rlvr's path: a LoRA adapter (adds the unmerged-adapter lever)")
    parser.add_argument("--max-new-tokens", type=int, default=80)
    args = parser.parse_args()
    tasks = eval_tasks(args.n)  # the quickstart's test_in tasks, as it evaluates them
    if args.device.startswith("cuda") or args.rlvr_path:
        return rlvr_path(args, tasks)
    rows = []
    reference: list[bool] | None = None
    for name, lever in LEVERS.items():
        if args.only and name not in args.only and name != "baseline":
            continue
        times, answers, tokens = [], [], 0
        for _ in range(args.repeats):
            seconds, answers, tokens = run(args.model, tasks, **lever)
            times.append(seconds)
        right = [bool(verify(t, a).correct) for t, a in zip(tasks, answers)]
        if reference is None:
            reference = right
        same = "yes" if right == reference else f"no ({sum(r != b for r, b in zip(right, reference))} differ)"
        median = statistics.median(times)
        rows.append(f"| {name} | {median:.1f} | {len(tasks) / median:.2f} | {tokens} | {sum(right)} | {same} |")
        print(rows[-1], flush=True)
    print("\n| lever | seconds | completions/s | tokens generated | exact | same verdicts as baseline |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
