#!/usr/bin/env bash
# GRPO with OpenRLHF 0.11 on rlvr tasks, rewarded by rlvr's verifiers (needs GPUs, Ray, vLLM,
# DeepSpeed and OpenRLHF; not run in CI). The prompts are the exported chat prompts
# (--data.input_key prompt --data.apply_chat_template) and each label is the task record
# (--data.label_key task_json), which the reward reads.
#
#   REWARD=file   bash recipes/openrlhf/grpo.sh   # OpenRLHF imports rlvr/rewards/openrlhf.py:reward_func
#   REWARD=server bash recipes/openrlhf/grpo.sh   # or POSTs to `rlvr serve-rewards` (started here)
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}
NGPUS=${NGPUS:-1}
DATA=${DATA:-data/openrlhf}
FAMILIES=${FAMILIES:-stoich.t2,mol.count}
REWARD=${REWARD:-file}

[ -f "$DATA/train.parquet" ] || rlvr export --family "$FAMILIES" --split train -n 50000 --format parquet --out "$DATA/train.parquet"
if [ "$REWARD" = server ]; then
  rlvr serve-rewards --port 5000 --workers 4 &
  trap 'kill $!' EXIT
  REMOTE_URL=http://127.0.0.1:5000/get_reward
else
  REMOTE_URL=$(python3 -c "import rlvr.rewards.openrlhf as m; print(m.__file__)")
fi

python3 -m openrlhf.cli.train_ppo_ray \
    --actor.model_name_or_path "$MODEL" \
    --actor.num_gpus_per_node "$NGPUS" \
    --ref.num_gpus_per_node "$NGPUS" \
    --vllm.num_engines "$NGPUS" \
    --vllm.tensor_parallel_size 1 \
    --vllm.gpu_memory_utilization 0.5 \
    --vllm.enable_sleep \
    --ds.enable_sleep \
    --train.colocate_all \
    --data.prompt_dataset "$DATA/train.parquet" \
    --data.input_key prompt \
    --data.label_key task_json \
    --data.apply_chat_template \
    --data.max_len 2048 \
    --rollout.max_new_tokens 1024 \
    --reward.remote_url "$REMOTE_URL" \
    --algo.advantage.estimator group_norm \
    --algo.kl.use_loss \
    --algo.kl.estimator k3 \
    --algo.kl.init_coef 0.001 \
    --rollout.n_samples_per_prompt 8 \
    --rollout.batch_size 64 \
    --train.batch_size 512 \
    --train.micro_batch_size 8 \
    --rollout.micro_batch_size 16 \
    --actor.adam.lr 1e-6 \
    --ds.zero_stage 3 \
    --ds.param_dtype bf16 \
    --actor.gradient_checkpointing_enable \
    --train.num_episodes 1 \
    --ckpt.output_dir outputs/openrlhf-grpo "$@"
