"""Compile the controller's kernels into numba's on-disk cache ahead of the first start.

numba compiles a kernel at its first call and caches the machine code beside the module
(``__pycache__``). Without a cache the first configure of a fresh install compiles for
about 7 s on this project's 2-core machine (a cold ``ros2 launch`` then says nothing for
longer); with it, the whole configure takes under a second. ``scripts/setup.sh`` runs this
for the source tree and ``colcon build`` (setup.py's install step) for the installed
copy: each copy of the package has its own cache, keyed on its files.

    python -m robodyn_ros.control.kernel_cache
"""

import sys
import time

__all__ = ['compile_kernels', 'main']


def compile_kernels() -> float:
    """Build a controller core on a bundled robot and run every compiled path once, as a
    configure does (the kernels specialise on array types, not on the robot, so one robot
    serves every description); returns the seconds it took."""
    t0 = time.perf_counter()
    from ..model import load_robot
    from .controller_config import ControllerConfig
    from .controller_core import ControllerCore
    model = load_robot('three_link')
    for params in (dict(kp=[100.0], kd=[20.0]), dict(mode='feedforward', include_friction=True),
                   dict(mode='adaptive')):  # adaptive: its regressor's kernel
        core = ControllerCore(model, ControllerConfig.from_parameters(params))
        core.warm_up()
        core.verify_model()
    return time.perf_counter() - t0


def main() -> int:
    """Compile, say how long it took (one line), exit 0; a failure is one line, exit 1 (the
    controller then compiles at its first configure)."""
    try:
        seconds = compile_kernels()
    except Exception as exc:  # noqa: BLE001 - a cold cache is slower, never broken
        print(f'kernel cache: not filled ({type(exc).__name__}: {exc}); the first configure '
              'will compile', file=sys.stderr)
        return 1
    print(f'kernel cache: controller kernels compiled or loaded in {seconds:.1f} s')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
