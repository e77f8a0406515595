#!/usr/bin/env bash
# The prepared GPU jobs (docs/results/gpu.md): one command of at most 9 minutes each, files into --out.
#
#   bash scripts/gpu_jobs.sh JOB --out DIR [--rehearse] [--tuning FILE] [--overwrite] [--dry-run]
#   JOB, in order of priority: rl-tune | rl | speed | molecules-tune | molecules | fsdp
#
# On the GPU machine, after the set-up of ../shared/device/README.md:
#   export PYTHONPATH=$PWD:/tmp/site && bash scripts/gpu_jobs.sh rl-tune --out "$OUT"
# Here, the same steps on CPU with the tiny model:  bash scripts/gpu_jobs.sh rl-tune --rehearse --out /tmp/rl-tune
#
# The job keeps its own time plan (scripts/gpu_jobs.py) and writes its files even when a step fails; the limit below
# only stops a runner that hangs (SIGTERM: it stops its commands and still writes its files).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
exec timeout -k 15 570 python3 scripts/gpu_jobs.py "$@"
