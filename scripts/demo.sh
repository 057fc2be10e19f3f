#!/usr/bin/env bash
# Main job: set up .venv and run the closed-loop demo (extra args go to `robodyn demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export AMENT_PREFIX_PATH="$PWD/.venv${AMENT_PREFIX_PATH:+:$AMENT_PREFIX_PATH}"
export ROS_DOMAIN_ID=${ROS_DOMAIN_ID:-42}
exec .venv/bin/robodyn demo "$@"
