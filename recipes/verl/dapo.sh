#!/usr/bin/env bash
# GRPO with dynamic sampling (DAPO's group filtering) on verl 0.9, rewarded by rlvr's verifiers (GPU only).
#
#   MODEL=Qwen/Qwen2.5-0.5B-Instruct NGPUS=1 bash recipes/verl/dapo.sh [more hydra overrides]
#
# rlvr's TRL trainer replaces groups whose rewards all agree with groups of fresh prompts
# (`dynamic_sampling` in a recipe, rlvr/train/dynamic.py). verl does the same with its own replay buffer
# (V1 trainer): a finished group whose `algorithm.filter_groups.metric` is identical across its
# responses is evicted and replaced by a fresh prompt. The metric is a key of what rlvr's
# compute_score returns: `score` (the verifier reward, rlvr's own rule: no reward spread) or `acc`
# (exact correctness, DAPO's rule). `max_inflight_gen_batches` bounds the extra generation, as
# `max_rounds` does in rlvr's TRL trainer. Everything else is recipes/verl/grpo.sh.
set -euo pipefail
exec bash "$(dirname "$0")/grpo.sh" \
    trainer.use_v1=True \
    algorithm.filter_groups.enable=True \
    algorithm.filter_groups.metric=score \
    algorithm.filter_groups.max_inflight_gen_batches=2 "$@"
