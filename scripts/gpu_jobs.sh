#!/usr/bin/env bash
# The prepared GPU jobs (docs/results/gpu.md): one command of at most 9 minutes each, files into --out.
#
#   bash scripts/gpu_jobs.sh JOB --out DIR [--rehearse] [--tuning FILE] [--budget S] [--overwrite] [--dry-run]
#   JOB, in order of priority: rl-tune | rl | speed | molecules-tune | molecules | fsdp
#
# On the GPU machine, after the set-up of ../shared/device/README.md:
#   export PYTHONPATH=$PWD:/tmp/site && bash scripts/gpu_jobs.sh rl-tune --out "$OUT"
# Here, the same steps on CPU with the tiny model:  bash scripts/gpu_jobs.sh rl-tune --rehearse --out /tmp/rl-tune
#
# The job keeps its own time plan (scripts/gpu_jobs.py) and writes its files even when a step fails; the limit below
# only stops a runner that hangs (SIGTERM: it stops its commands and still writes its files).
# A seeds job (rl, molecules) given --budget over 540 outlasts one device command: docs/results/gpu.md runs it detached.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
# the hard limit follows a seeds job's --budget (default 540 s): 30 s more
limit=570 prev=""
for arg in "$@"; do
  value=""
  case "$arg" in --budget=*) value=${arg#--budget=} ;; *) [[ $prev == --budget ]] && value=$arg ;; esac
  [[ $value =~ ^[0-9]{1,4}$ ]] && limit=$((10#$value + 30))
  prev=$arg
done
exec timeout -k 15 "$limit" python3 scripts/gpu_jobs.py "$@"
