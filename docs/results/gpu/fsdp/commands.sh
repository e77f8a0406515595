#!/usr/bin/env bash
# gpu_jobs fsdp: the commands as they ran, from the project root, with
# HF_HUB_OFFLINE=1 OMP_NUM_THREADS=5 TOKENIZERS_PARALLELISM=false
# phase fsdp_lora: started at 0.1 s, deadline 170 s
/opt/torch/.venv/bin/python3 -m accelerate.commands.launch --config_file /work/main/recipes/accelerate/fsdp.yaml --num_processes 1 /work/main/scripts/train.py --config /work/main/recipes/grpo/stoich_t1_formula.yaml --max_steps 2 --eval_strategy no --save_strategy no --report_to none --output_dir /work/main/outputs/gpu-jobs/fsdp/fsdp_lora  # fsdp_lora: exit 0, 48.5 s
# phase fsdp_full: started at 48.6 s, deadline 330 s
/opt/torch/.venv/bin/python3 -m accelerate.commands.launch --config_file /work/main/recipes/accelerate/fsdp.yaml --num_processes 1 /work/main/scripts/train.py --config /work/main/recipes/grpo/stoich_t1_formula.yaml --max_steps 2 --eval_strategy no --save_strategy no --report_to none --output_dir /work/main/outputs/gpu-jobs/fsdp/fsdp_full --use_peft false  # fsdp_full: exit 0, 39.0 s
# phase zero2: started at 87.6 s, deadline 500 s
/opt/torch/.venv/bin/python3 -m accelerate.commands.launch --config_file /work/main/recipes/accelerate/zero2.yaml --num_processes 1 /work/main/scripts/train.py --config /work/main/recipes/grpo/stoich_t1_formula.yaml --max_steps 2 --eval_strategy no --save_strategy no --report_to none --output_dir /work/main/outputs/gpu-jobs/fsdp/zero2  # zero2: exit 1, 4.5 s
