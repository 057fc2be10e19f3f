#!/usr/bin/env bash
# Set up .venv and run lint + the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID=${ROS_DOMAIN_ID:-57}
.venv/bin/ruff check robodyn_ros test launch scripts setup.py
exec .venv/bin/python -m pytest -q test "$@"
