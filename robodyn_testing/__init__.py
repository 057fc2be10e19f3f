"""robodyn's test tooling, apart from the product: the fault campaign (``faults``: scripted
faults against the controller in its own process, its probe, the stall witness) that
``robodyn faults``, the tests and CI run from a checkout.

Not installed with robodyn_ros (setup.py leaves this package out): a user's install carries
no scripted fault, probe or witness. A checkout's development environment sees it through a
path file that scripts/setup.sh writes (``robodyn_testing.pth``).
"""

import os

__all__ = ['ROOT', 'environment']

#: The checkout folder that holds this package.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def environment(base=None) -> dict:
    """``base`` (default: this process's environment) with ROOT first on PYTHONPATH, so that
    a Python child process started with it imports this package."""
    env = dict(os.environ if base is None else base)
    path = env.get('PYTHONPATH', '')
    env['PYTHONPATH'] = ROOT + (os.pathsep + path if path else '')
    return env
