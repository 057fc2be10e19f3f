#!/usr/bin/env bash
# Create .venv/ at the repository root and install robodyn_ros with everything it needs.
# Each step says what it does; pip's output goes to .venv/setup.log (printed if a step
# fails).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
start=$SECONDS
step() { echo "setup: [$1/9] $2 ($((SECONDS - start)) s so far)"; }
if [ ! -x .venv/bin/python ]; then
  step 1 'creating .venv'
  "$PY" -m venv .venv
else
  step 1 'using the existing .venv'
fi
log=.venv/setup.log
: > "$log"
run() { "$@" >>"$log" 2>&1 || { cat "$log" >&2; echo "setup failed: $*" >&2; exit 1; }; }
run .venv/bin/python -m pip install --upgrade pip
step 2 'installing requirements.txt: ROS 2 wheels, Pinocchio, MuJoCo, numba (about a minute on a fresh .venv)'
run .venv/bin/python -m pip install -r requirements.txt
# launch, launch_ros, the ros2 CLI and control_msgs have no wheel on the package index: this
# team's machines and CI have them in ../shared/wheels (ROBODYN_ROS_WHEELS overrides). Without
# them the launch tests skip and say why.
wheels=${ROBODYN_ROS_WHEELS:-../shared/wheels}
step 3 "the launch system, the ros2 CLI and control_msgs (from $wheels)"
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
step 4 "ros2_control and the MuJoCo hardware plugin (from $wheels)"
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
step 5 'robodyn_ros itself (editable)'
run .venv/bin/python -m pip install --no-deps -e .
# The checkout's test tooling (robodyn_testing: robodyn faults, the tests), which the package
# does not install, importable in this environment through a path file.
.venv/bin/python -c 'import site, sys; open(site.getsitepackages()[0] + "/robodyn_testing.pth", "w").write(sys.argv[1] + "\n")' "$PWD"
.venv/bin/python -c 'import robodyn_ros, rclpy, pinocchio, mujoco, numba' \
  || { echo 'setup failed: a dependency does not import' >&2; exit 1; }
# The controller's compiled kernels into numba's cache: the first configure then takes
# about a second instead of about ten (colcon build does the same for its install).
step 6 'compiling the controller kernels into the numba cache (once)'
.venv/bin/python -m robodyn_ros.control.kernel_cache || true
# The C++ ros2_control controller (robodyn_controllers) builds with colcon from the same
# wheels plus Debian's -dev packages (apt-get as root) and ament_cmake from the package index.
step 7 'build tools of the C++ controller (Debian -dev packages, ament_cmake; about a minute the first time)'
rm -f .venv/robodyn_cpp_ready
cpp_env=$wheels/examples/cpp_controller/setup_build_env.sh
if [ ! -f "$cpp_env" ]; then
  echo "setup: no $cpp_env: the C++ controller is not built and its tests skip"
elif bash "$cpp_env" "$PWD/.venv" >>"$log" 2>&1; then
  touch .venv/robodyn_cpp_ready
else
  echo "setup: the C++ controller's build tools did not install (apt-get needs root; see" \
    ".venv/setup.log): the C++ controller is not built and its tests skip"
fi
# Gazebo (the headless Fortress server and gz_ros2_control): Debian's Ignition run-time
# packages (apt-get as root) and two wheels from the same folder. Without them hardware:=gz
# says what is missing and its tests skip.
step 8 'Gazebo: the Fortress server and gz_ros2_control (Debian run-time packages, 2 wheels)'
if [ -f "$wheels/requirements-gazebo.txt" ]; then
  gz_debs=$(grep -v '^#' "$wheels/apt-gazebo.txt" | tr '\n' ' ')
  gz_missing=$(for d in $gz_debs; do dpkg -s "$d" >/dev/null 2>&1 || echo "$d"; done)
  if [ -n "$gz_missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends $gz_missing; } >>"$log" 2>&1 || true
    gz_missing=$(for d in $gz_debs; do dpkg -s "$d" >/dev/null 2>&1 || echo "$d"; done)
  fi
  if [ -n "$gz_missing" ]; then
    echo "setup: Gazebo needs these Debian packages (apt-get install as root):" $gz_missing
  fi
  .venv/bin/python -m pip install --find-links "$wheels" -r "$wheels/requirements-gazebo.txt" \
    >>"$log" 2>&1 || echo "setup: the Gazebo wheels did not install (see .venv/setup.log)"
else
  echo "setup: no Gazebo wheels in $wheels: hardware:=gz and its tests skip"
fi
# A headless Chromium (Debian's chromium-headless-shell, apt-get as root) renders the fleet
# report's HTML page in its test; without it that test skips and says so.
step 9 'a headless browser for the fleet report test (Debian chromium-headless-shell)'
if ! command -v chromium-headless-shell >/dev/null 2>&1 && ! command -v chromium >/dev/null 2>&1
then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends chromium-headless-shell; } >>"$log" 2>&1 || true
  fi
  command -v chromium-headless-shell >/dev/null 2>&1 || echo "setup: no headless" \
    "Chromium (apt-get install chromium-headless-shell as root): the fleet page's" \
    "browser test skips"
fi
echo "setup: .venv ready ($(.venv/bin/python --version)) in $((SECONDS - start)) s"
