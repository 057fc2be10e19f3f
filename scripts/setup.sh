#!/usr/bin/env bash
# Create .venv/ at the repository root and install robodyn_ros with everything it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip 2>/dev/null || true
.venv/bin/python -m pip install --quiet -r requirements.txt 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -m pip install --quiet --no-deps -e . 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c 'import robodyn_ros, rclpy, pinocchio, mujoco, numba' \
  || { echo 'setup failed: a dependency does not import' >&2; exit 1; }
