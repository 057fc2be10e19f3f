#!/usr/bin/env python3
"""Generate the parts of docs/ that come from the code or from running it.

  .venv/bin/python scripts/generate_docs.py            # rewrite the generated sections
  .venv/bin/python scripts/generate_docs.py --check    # exit 1 if a page is out of date

Generated sections sit between ``<!-- generated: NAME -->`` and ``<!-- end -->``:
``formulations`` (every seed equation cited by a public function in robodyn_ros/dynamics),
``dh_tables`` (``robodyn inspect``), ``accuracy`` (``robodyn check``), ``reproduction``
(``robodyn reproduce``), ``parameters`` (control/parameters.py, the controller's
parameter table), ``plugin_parameters`` (the C++ controller's generate_parameter_library
YAML).
"""

import argparse
import ast
import contextlib
import glob
import io
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DYNAMICS = os.path.join(ROOT, 'robodyn_ros', 'dynamics')
#: Public names of dynamics/ that are not seed formulations, and why.
NOT_SEED = {
    'DHChain.n': 'a property', 'PinocchioChain': 'the independent reference',
    'PinocchioChain.q': 'the reference', 'PinocchioChain.terms': 'the reference',
    'PinocchioChain.rnea': 'the reference', 'PinocchioChain.aba': 'the reference',
    'pack_params': 'kernel parameter packing', 'workspace': 'kernel scratch space',
    'workspace_size': 'kernel scratch space', 'DHChain': 'a container (see dh_chain)',
    'RigidBodyDynamics.friction_torque': 'delegates to friction_torque',
    'RigidBodyDynamics.kernel_workspace': 'kernel scratch space',
    'relative_error': 'verification', 'CheckReport': 'verification',
    'CheckReport.format': 'verification', 'CheckReport.passed': 'verification',
    'check_size': 'verification',
    'cross_check': 'verification against Pinocchio',
}
CITATION = re.compile(r'seed (\d{3})((?:,? (?:eqs?\.|Definition|Theorem) ?'
                      r'\(?[\d\u2013\-, .]*\d\)?)?)')


def public_functions():
    """[(qualified name, file, docstring)] of dynamics/'s public functions and methods."""
    out = []
    for path in sorted(glob.glob(os.path.join(DYNAMICS, '**', '*.py'), recursive=True)):
        where = os.path.relpath(path, DYNAMICS)
        tree = ast.parse(open(path, encoding='utf-8').read())
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and \
                    not node.name.startswith('_'):
                out.append((node.name, where, ast.get_docstring(node) or ''))
                if isinstance(node, ast.ClassDef):
                    out += [(f'{node.name}.{m.name}', where,
                             ast.get_docstring(m) or '') for m in node.body
                            if isinstance(m, ast.FunctionDef) and not m.name.startswith('_')]
    return out


def citations():
    """[(name, file, 'seed NNN eq. X; ...', first docstring line)] of the cited ones."""
    rows = []
    for name, path, doc in public_functions():
        found = ['seed ' + re.sub(r'[()]', '', ''.join(m)).strip(' ,')
                 for m in CITATION.findall(' '.join(doc.split()))]
        if found:
            rows.append((name, path, '; '.join(dict.fromkeys(found)), _summary(doc)))
    return rows


def _summary(doc, width=110):
    """The docstring's first paragraph on one line, roles dropped, at most ``width``."""
    text = re.sub(r':\w+:`([^`]+)`', r'\1', ' '.join(doc.split('\n\n')[0].split()))
    return text if len(text) <= width else text[:width - 3].rstrip() + '...'


def uncited():
    """Public dynamics functions citing no seed equation and not listed in NOT_SEED."""
    cited = {row[0] for row in citations()}
    return [n for n, _, _ in public_functions() if n not in cited and n not in NOT_SEED]


def _formulations():
    lines = ['| function | module | seed equations | what |', '|---|---|---|---|']
    for name, path, cites, first in citations():
        lines.append(f'| `{name}` | `dynamics/{path}` | {cites} | {first.replace("|", "/")} |')
    return '\n'.join(lines)


def _command(argv):
    from robodyn_ros.cli import build_parser, run
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = run(build_parser().parse_args(argv))
    if code != 0:
        raise SystemExit(f'robodyn {" ".join(argv)} exited {code}')
    return buffer.getvalue().rstrip()


def _dh_tables():
    return '\n\n'.join(f'`robodyn inspect {robot}`\n\n```text\n{_command(["inspect", robot])}\n```'
                       for robot in ('three_link', 'panda', 'ur5'))


def _accuracy():
    return '\n\n'.join(
        f'`robodyn check {robot} --samples 200`\n\n```text\n'
        f'{_command(["check", robot, "--samples", "200"])}\n```'
        for robot in ('three_link', 'panda', 'ur5', 'kinova', 'xarm7'))


def _reproduction():
    return '```text\n' + _command(['reproduce', '--out', os.path.join(ROOT, 'docs',
                                                                    'reproduction')]) + '\n```'


def _parameters():
    from robodyn_ros.control.parameters import PARAMETERS, ROBOT_PARAMETERS

    def cell(text):
        return str(text).replace('|', '\\|')
    lines = ['| parameter | type | default | valid | at runtime | description |',
             '|---|---|---|---|---|---|']
    for p in (*ROBOT_PARAMETERS, *PARAMETERS.values()):
        default = '(none)' if p.default in ('', []) else \
            str(p.default).lower() if isinstance(p.default, bool) else p.default
        lines.append(f'| `{p.name}` | {p.type} | {cell(default)} | {cell(p.valid_text())} | '
                     f'{"yes" if p.runtime else "no"} | {cell(p.description)} |')
    return '\n'.join(lines)


def _flat_declarations(node, prefix=''):
    """(name, declaration) of a generate_parameter_library YAML, nested names joined."""
    for key, value in node.items():
        if isinstance(value, dict) and 'type' not in value:
            label = f'<{key[len("__map_"):].rstrip("s")}>' if key.startswith('__map_') \
                else key
            yield from _flat_declarations(value, f'{prefix}{label}.')
        else:
            yield prefix + key, value


def _plugin_parameters():
    import yaml
    path = os.path.join(ROOT, 'robodyn_controllers', 'src',
                        'computed_torque_controller_parameters.yaml')
    with open(path, encoding='utf-8') as handle:
        (body,) = yaml.safe_load(handle).values()
    lines = ['| parameter | type | default | valid | description |', '|---|---|---|---|---|']
    for name, p in _flat_declarations(body):
        rules = '; '.join(f'{k.rstrip("<>")} {v}' for k, v in (p.get('validation') or
                                                              {}).items())
        default = p.get('default_value')
        default = '(none)' if default in ('', []) else str(default).lower() \
            if isinstance(default, bool) else default
        lines.append(f'| `{name}` | {p["type"]} | {default} | {rules.replace("|", "/")} | '
                     f'{p["description"].replace("|", "/")} |')
    return '\n'.join(lines)


SECTIONS = {'formulations': _formulations, 'dh_tables': _dh_tables, 'accuracy': _accuracy,
            'reproduction': _reproduction, 'parameters': _parameters,
            'plugin_parameters': _plugin_parameters}


def render(text, names=None):
    """``text`` with every generated section (or those in ``names``) rewritten."""
    def replace(match):
        name = match.group(1)
        if names is not None and name not in names:
            return match.group(0)
        return f'<!-- generated: {name} -->\n{SECTIONS[name]()}\n<!-- end -->'
    return re.sub(r'<!-- generated: (\w+) -->\n.*?<!-- end -->', replace, text, flags=re.S)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--check', action='store_true', help='exit 1 if out of date')
    parser.add_argument('--only', nargs='*', default=None, choices=sorted(SECTIONS))
    args = parser.parse_args()
    stale = []
    for path in sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md'))):
        text = open(path, encoding='utf-8').read()
        new = render(text, args.only)
        if new != text:
            stale.append(os.path.relpath(path, ROOT))
            if not args.check:
                open(path, 'w', encoding='utf-8').write(new)
    print(('out of date: ' if args.check else 'rewritten: ') + (', '.join(stale) or 'none'))
    return 1 if args.check and stale else 0


if __name__ == '__main__':
    sys.exit(main())
