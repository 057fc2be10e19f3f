#!/usr/bin/env bash
# Build robodyn_ros and the C++ controller package robodyn_controllers into a colcon
# workspace: bash scripts/build_workspace.sh [WS] (default $HOME/robodyn_ws). WS/src gets a
# link to this repository unless it already holds a copy. Needs the .venv of
# scripts/setup.sh; the C++ package is built when setup could install its build tools
# (.venv/robodyn_cpp_ready), otherwise only robodyn_ros, and it says why.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ws=${1:-$HOME/robodyn_ws}
wheels=${ROBODYN_ROS_WHEELS:-$root/../shared/wheels}
mkdir -p "$ws/src"
[ -e "$ws/src/robodyn_ros" ] || ln -s "$root" "$ws/src/robodyn_ros"
# shellcheck disable=SC1091
. "$root/.venv/bin/activate"
cd "$ws"
# The C++ package gets a link of its own in src (colcon does not look inside a package's
# folder), so that plain `colcon build` / `colcon test --packages-select
# robodyn_controllers` in WS find it.
cpp=src/robodyn_controllers
if [ -f "$root/.venv/robodyn_cpp_ready" ] && [ -f "$wheels/ros2_control_env.sh" ]; then
  # shellcheck disable=SC1091
  . "$wheels/ros2_control_env.sh"
  [ -e "$cpp" ] || ln -s robodyn_ros/robodyn_controllers "$cpp"
else
  [ -L "$cpp" ] && rm "$cpp"
  echo 'build_workspace: robodyn_controllers (C++) not built: scripts/setup.sh could not' \
    'install its build tools (see .venv/setup.log)' >&2
fi
export CMAKE_PREFIX_PATH="$VIRTUAL_ENV${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
pylib=$(python -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))')
# Executables link libpython: the index's *__rosidl_generator_py libraries need it.
exec colcon build --base-paths src --cmake-args -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_TESTING="${ROBODYN_BUILD_TESTING:-OFF}" \
  "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--no-as-needed -L$pylib -lpython3.11"
