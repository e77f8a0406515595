"""What the sampling draw costs: torch.multinomial against rlvr's block race, alone and inside sampled generation.

    python scripts/bench_draw.py [--rows 32] [--new-tokens 80] [--repeats 4] [--dtypes float32,bfloat16]

1. The draw alone: ``--rows`` rows over the embedded model's vocabulary (49,152 tokens), milliseconds per
   decoded token (median of 50 calls): ``torch.multinomial`` after a softmax, as transformers samples, and
   :class:`rlvr.generation.draw.BlockRaceDraw`.
2. Sampled generation with the embedded SmolLM2-135M-Instruct: ``--rows`` completions (``--rows / 8`` prompts x 8,
   a GRPO group each) of exactly ``--new-tokens`` tokens at temperature 1, the model in each of ``--dtypes`` (a
   bfloat16 model, as RL's merged copy on a CPU where bfloat16 is the faster dtype), the two draws alternated ``--repeats``
   times; seconds per generation, medians and the ratio.

A benchmark, not a test: run it alone. Prints one line per measurement.
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
from transformers import GenerationConfig, LogitsProcessorList  # noqa: E402

from rlvr.generation.draw import BlockRaceDraw, drawn_generate  # noqa: E402
from rlvr.models import load_model_and_tokenizer  # noqa: E402

PROMPT = ("The mixture is the reaction's left side times n. Answer with its right side times n inside "
          "<answer></answer>. Mixture: {n} C2H6 + {m} O2")


def milliseconds(fn, calls: int = 50) -> float:
    """Median milliseconds of ``fn()`` over ``calls`` calls, after one warm-up."""
    fn()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def draw_alone(rows: int, vocab: int) -> None:
    scores = torch.randn(rows, vocab, generator=torch.Generator().manual_seed(0))
    race = BlockRaceDraw(LogitsProcessorList())
    multinomial = milliseconds(lambda: torch.multinomial(torch.softmax(scores, dim=-1), 1))
    block = milliseconds(lambda: race(None, scores))
    print(f"draw alone, {rows} rows x {vocab} tokens: multinomial {multinomial:.1f} ms, block_race {block:.2f} ms "
          f"a decoded token ({multinomial / block:.0f}x)", flush=True)


def generation(rows: int, new_tokens: int, repeats: int, dtype: str) -> None:
    model, tok = load_model_and_tokenizer("default", dtype=dtype)
    model.eval()
    plain = model.generate
    raced = drawn_generate(model, "block_race").generate
    prompts = [PROMPT.format(n=i + 1, m=2 * i + 5) for i in range(max(1, rows // 8))]
    enc = tok(prompts, return_tensors="pt", padding=True)
    config = GenerationConfig(max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=True, temperature=1.0,
                              top_p=1.0, num_return_sequences=rows // len(prompts), pad_token_id=tok.pad_token_id)
    seconds: dict[str, list[float]] = {"multinomial": [], "block_race": []}
    for repeat in range(repeats):
        for name, generate in (("multinomial", plain), ("block_race", raced)):
            torch.manual_seed(repeat)
            start = time.perf_counter()
            with torch.inference_mode():
                generate(**enc, generation_config=config)
            seconds[name].append(time.perf_counter() - start)
    a, b = (statistics.median(seconds[k]) for k in ("multinomial", "block_race"))
    runs = "; ".join(f"{k} " + ", ".join(f"{s:.2f}" for s in v) for k, v in seconds.items())
    print(f"generation, {dtype}, {rows} completions x {new_tokens} tokens: multinomial {a:.2f} s, block_race "
          f"{b:.2f} s (median of {repeats}; {b / a:.2f}x) [{runs}]", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=80)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--dtypes", default="float32,bfloat16")
    args = parser.parse_args(argv)
    if args.rows < 8 or args.rows % 8:
        parser.error("--rows must be a multiple of 8 (prompts x 8 completions)")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads", flush=True)
    draw_alone(args.rows, 49_152)
    for dtype in args.dtypes.split(","):
        generation(args.rows, args.new_tokens, args.repeats, dtype.strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
