#!/usr/bin/env bash
# Create .venv/ at the repository root and install robodyn_ros with everything it needs.
# pip's output goes to .venv/setup.log (printed if a step fails).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
log=.venv/setup.log
: > "$log"
run() { "$@" >>"$log" 2>&1 || { cat "$log" >&2; echo "setup failed: $*" >&2; exit 1; }; }
run .venv/bin/python -m pip install --upgrade pip
run .venv/bin/python -m pip install -r requirements.txt
# launch, launch_ros, the ros2 CLI and control_msgs have no wheel on the package index: this
# team's machines and CI have them in ../shared/wheels (ROBODYN_ROS_WHEELS overrides). Without
# them the launch tests skip and say why.
wheels=${ROBODYN_ROS_WHEELS:-../shared/wheels}
if [ -n "${ROS_DISTRO:-}" ] && .venv/bin/python -c 'import launch_ros, ros2launch, control_msgs' \
    >/dev/null 2>&1; then
  echo "setup: using the launch system of the sourced ROS 2 $ROS_DISTRO"
elif [ -f "$wheels/requirements-ros-extra.txt" ]; then
  run .venv/bin/python -m pip install --find-links "$wheels" -r "$wheels/requirements-ros-extra.txt"
else
  echo "setup: no $wheels and no sourced ROS 2: the ros2 launch / control_msgs tests will skip"
fi
# ros2_control (controller_manager, the standard controllers, mock hardware) and the MuJoCo
# hardware plugin: from the same folder when it has them (the spawner imports filelock).
if [ -n "${ROS_DISTRO:-}" ] && [ -d "/opt/ros/$ROS_DISTRO/share/controller_manager" ]; then
  echo "setup: using the ros2_control of the sourced ROS 2 $ROS_DISTRO"
elif [ -f "$wheels/requirements-ros2-control.txt" ]; then
  run .venv/bin/python -m pip install --find-links "$wheels" \
    -r "$wheels/requirements-ros2-control.txt" filelock
  if [ -f "$wheels/requirements-mujoco-ros2-control.txt" ]; then
    run .venv/bin/python -m pip install --find-links "$wheels" \
      -r "$wheels/requirements-mujoco-ros2-control.txt"
  fi
else
  echo "setup: no ros2_control wheels in $wheels: the ros2_control tests will skip"
fi
run .venv/bin/python -m pip install --no-deps -e .
.venv/bin/python -c 'import robodyn_ros, rclpy, pinocchio, mujoco, numba' \
  || { echo 'setup failed: a dependency does not import' >&2; exit 1; }
echo "setup: .venv ready ($(.venv/bin/python --version))"
