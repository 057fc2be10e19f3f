#!/usr/bin/env bash
# Set up .venv and run lint + the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export AMENT_PREFIX_PATH="$PWD/.venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_DOMAIN_ID=${ROS_DOMAIN_ID:-57}
.venv/bin/ruff check robodyn_ros robodyn_testing test launch scripts setup.py
.venv/bin/mypy robodyn_ros robodyn_testing
exec .venv/bin/python -m pytest -q -rs --durations=30 test "$@"
