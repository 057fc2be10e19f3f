"""Every import in bringup/, the ones inside functions too (the launch files' start stays
fast by importing late), names a module and a name that exist: a moved module fails here,
not in the first launch that reaches the line."""

import ast
import glob
import importlib
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'robodyn_ros')
MODULES = sorted(glob.glob(os.path.join(ROOT, 'bringup', '*.py')))


def _imports(path):
    """(module, names) of each `from X import names` in the module at ``path``, X made
    absolute."""
    package = 'robodyn_ros.bringup'
    for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ''
            if node.level:
                base = package.rsplit('.', node.level - 1)[0] if node.level > 1 else package
                module = f'{base}.{module}' if module else base
            yield module, [alias.name for alias in node.names]


@pytest.mark.parametrize('path', MODULES, ids=os.path.basename)
def test_every_import_resolves(path):
    for module, names in _imports(path):
        if not module.startswith('robodyn_ros'):
            continue
        found = importlib.import_module(module)
        for name in names:
            assert hasattr(found, name) or importlib.util.find_spec(f'{module}.{name}'), \
                f'{os.path.basename(path)}: from {module} import {name}'
