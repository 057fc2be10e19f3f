"""A script of scripts/ loaded as a module, for its tests."""

import importlib.util
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / 'scripts'


def load(name):
    """scripts/<name>.py as a module (its main guard not run)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
