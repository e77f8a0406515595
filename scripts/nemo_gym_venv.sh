#!/usr/bin/env bash
# A virtual environment for NeMo-Gym (Python >= 3.12) with rlvr installed from this checkout.
#   bash scripts/nemo_gym_venv.sh [VENV]    default VENV: .venv-nemo-gym in the checkout
# The Python: $NEMO_GYM_PYTHON, else python3.12 / python3.13 on PATH, else pyenv's 3.12.* / 3.13.*.
# nemo-gym 0.4.0 needs Python >= 3.12 (its later releases >= 3.13.14). An environment that already
# imports nemo_gym 0.4.0 and this checkout's rlvr is kept. tests/integrations/test_nemo_gym.py runs
# NeMo-Gym's own code in it; docs/integrations.md ("NeMo-Gym") runs the resources server from it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=${1:-$ROOT/.venv-nemo-gym}
NEMO_GYM_VERSION=0.4.0

find_python() {
  local candidates=("${NEMO_GYM_PYTHON:-}" python3.12 python3.13)
  local root
  root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
  candidates+=("$root"/versions/3.12.*/bin/python3 "$root"/versions/3.13.*/bin/python3)
  for candidate in "${candidates[@]}"; do
    if [ -n "$candidate" ] && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

ready() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$ROOT" "$NEMO_GYM_VERSION" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
from pathlib import Path
import rlvr
assert version("nemo-gym") == sys.argv[2]
assert Path(rlvr.__file__).resolve().parents[1] == Path(sys.argv[1]).resolve()
EOF
}

if ready; then
  echo "nemo-gym $NEMO_GYM_VERSION environment ready: $VENV/bin/python"
  exit 0
fi
PY=$(find_python) || { echo "scripts/nemo_gym_venv.sh: no Python >= 3.12 found (set NEMO_GYM_PYTHON)" >&2; exit 1; }
"$PY" -m venv --clear "$VENV"
# (pip's notes on index locations it skips are dropped; everything else it says is kept)
"$VENV/bin/python" -m pip install --quiet "nemo-gym==$NEMO_GYM_VERSION" -e "$ROOT" \
  2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
ready || { echo "scripts/nemo_gym_venv.sh: $VENV does not import nemo_gym $NEMO_GYM_VERSION and rlvr" >&2; exit 1; }
echo "nemo-gym $NEMO_GYM_VERSION environment ready: $VENV/bin/python"
