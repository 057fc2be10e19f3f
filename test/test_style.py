"""Code-size rules: no function over 60 lines outside the numba kernels; long modules are
reported as warnings."""

import ast
import glob
import os
import warnings

import pytest

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


#: Modules above WARN_LINES are listed in the test summary (one concept per module is the
#: rule, not a size); none may pass MAX_LINES, where a module surely holds two concepts.
WARN_LINES, MAX_LINES = 420, 450


def _module_sizes():
    return {os.path.relpath(p, ROOT): len(open(p, encoding='utf-8').read().splitlines())
            for p in SOURCES}


def _report(sizes):
    """Warn for each module over WARN_LINES; return those over MAX_LINES."""
    for path, lines in sorted(sizes.items()):
        if lines > WARN_LINES:
            warnings.warn(f'{path}: {lines} lines', stacklevel=2)
    return {p: n for p, n in sizes.items() if n > MAX_LINES}


def test_long_modules_are_reported_and_none_is_too_long():
    sizes = _module_sizes()
    assert len(sizes) > 100, 'the package sources were not found'
    assert _report(sizes) == {}


def test_the_size_report_warns_and_refuses():
    with pytest.warns(UserWarning, match=f'a.py: {WARN_LINES + 1} lines'):
        assert _report({'a.py': WARN_LINES + 1, 'b.py': 10}) == {}
    with pytest.warns(UserWarning):
        assert _report({'c.py': MAX_LINES + 1}) == {'c.py': MAX_LINES + 1}


#: A ROS domain a test module fixes for the processes it starts, as the tests write it.
_DOMAIN = r"(?:ROS_DOMAIN_ID='|DOMAIN = |_Launch\(\w+, |Probe\(|domain=)(\d+)\b"


def _domains_by_module():
    import re
    tests = os.path.join(os.path.dirname(ROOT), 'test')
    found: dict[str, set[str]] = {}
    for path in glob.glob(os.path.join(tests, '**', '*.py'), recursive=True):
        with open(path, encoding='utf-8') as handle:
            for domain in re.findall(_DOMAIN, handle.read()):
                found.setdefault(domain, set()).add(os.path.relpath(path, tests))
    return found


def test_no_two_test_modules_share_a_ros_domain():
    # DDS remembers a stopped process's participants until their lease ends: a launch in
    # the domain another module used just before it meets them (the real JTC tracked 10x
    # worse right after another module's launch in its domain than in a domain of its own)
    found = _domains_by_module()
    assert len(found) >= 10, found  # the pattern still finds the tests' domains
    shared = {domain: sorted(modules) for domain, modules in found.items() if len(modules) > 1}
    assert not shared, shared
    from conftest import MODULE_DOMAINS  # the domains the other modules are given in turn
    given = {domain: sorted(modules) for domain, modules in found.items()
             if int(domain) in MODULE_DOMAINS}
    assert not given, given
