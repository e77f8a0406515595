#!/usr/bin/env bash
# GRPO with verl 0.9 on rlvr tasks, rewarded by rlvr's verifiers (needs GPUs, vLLM and verl;
# not run in CI). The reward lines (reward.*) are the whole integration: verl loads
# rlvr/rewards/verl.py by path and calls compute_score for every response (naive reward manager).
#
#   MODEL=Qwen/Qwen2.5-0.5B-Instruct NGPUS=1 bash recipes/verl/grpo.sh [more hydra overrides]
#
# Shaped rewards: add +reward.custom_reward_function.reward_kwargs.reward_mode=shaped
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}
NGPUS=${NGPUS:-1}
DATA=${DATA:-data/verl}
FAMILIES=${FAMILIES:-stoich.t1,stoich.t2,mol.count}

[ -f "$DATA/train.parquet" ] || rlvr export --family "$FAMILIES" --split train -n 50000 --format verl --out "$DATA/train.parquet"
[ -f "$DATA/test_out.parquet" ] || rlvr export --family "stoich.t1,stoich.t2" --split test_out -n 1000 --format verl --out "$DATA/test_out.parquet"
REWARD_FILE=$(python3 -c "import rlvr.rewards.verl as m; print(m.__file__)")

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    algorithm.use_kl_in_reward=False \
    data.train_files="$DATA/train.parquet" \
    data.val_files="$DATA/test_out.parquet" \
    data.prompt_key=prompt \
    data.train_batch_size=64 \
    data.max_prompt_length=1024 \
    data.max_response_length=1024 \
    data.filter_overlong_prompts=True \
    data.truncation=error \
    reward.custom_reward_function.path="$REWARD_FILE" \
    reward.custom_reward_function.name=compute_score \
    reward.reward_manager.name=naive \
    reward.num_workers=4 \
    actor_rollout_ref.model.path="$MODEL" \
    actor_rollout_ref.model.use_remove_padding=True \
    actor_rollout_ref.model.enable_gradient_checkpointing=True \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.actor.ppo_mini_batch_size=32 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.actor.kl_loss_coef=0.001 \
    actor_rollout_ref.actor.kl_loss_type=low_var_kl \
    actor_rollout_ref.actor.entropy_coeff=0 \
    actor_rollout_ref.rollout.name=vllm \
    actor_rollout_ref.rollout.n=8 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.5 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=16 \
    actor_rollout_ref.ref.fsdp_config.param_offload=True \
    trainer.critic_warmup=0 \
    trainer.logger='["console"]' \
    trainer.project_name=rlvr \
    trainer.experiment_name=grpo-verl \
    trainer.n_gpus_per_node="$NGPUS" \
    trainer.nnodes=1 \
    trainer.save_freq=-1 \
    trainer.test_freq=20 \
    trainer.total_epochs=1 "$@"
