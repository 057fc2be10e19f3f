"""The parts of the source tree that come from the code or from running it (``robodyn docs``).

Generated sections of docs/*.md sit between ``<!-- generated: NAME -->`` and
``<!-- end -->``: ``formulations`` (every seed equation cited by a public function in
robodyn_ros/dynamics), ``dh_tables`` (``robodyn inspect``), ``accuracy`` (``robodyn
check``), ``reproduction`` (``robodyn reproduce``), ``parameters`` (control/parameters.py,
the controller's parameter table), ``plugin_parameters`` (the C++ controller's
generate_parameter_library YAML). The seed robots' URDFs in urdf/ come from
model/seed_robots.py, and that YAML itself from control/plugin_declarations.py.
``--check`` rewrites nothing and fails when any of them is stale.
"""

import ast
from collections.abc import Callable, Sequence
import contextlib
import glob
import io
import os
import re

from .errors import InputError

__all__ = ['SECTIONS', 'citations', 'uncited', 'render', 'generate', 'source_root']

DYNAMICS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dynamics')
#: Public names of dynamics/ that are not seed formulations, and why.
NOT_SEED = {
    'DHChain.n': 'a property', 'PinocchioChain': 'the independent reference',
    'PinocchioChain.q': 'the reference', 'PinocchioChain.terms': 'the reference',
    'PinocchioChain.rnea': 'the reference', 'PinocchioChain.aba': 'the reference',
    'pack_params': 'kernel parameter packing', 'workspace': 'kernel scratch space',
    'workspace_size': 'kernel scratch space', 'DHChain': 'a container (see dh_chain)',
    'RigidBodyDynamics.friction_torque': 'delegates to friction_torque',
    'RigidBodyDynamics.kernel_workspace': 'kernel scratch space',
    'RigidBodyDynamics.packed_rows': 'kernel parameter packing',
    'relative_error': 'verification', 'CheckReport': 'verification',
    'CheckReport.format': 'verification', 'CheckReport.passed': 'verification',
    'check_size': 'verification',
    'ToolWrench': 'a container (see tool_wrench)',
    'ObserverSettings': 'settings (see MomentumObserver)',
    'MomentumObserver.residual': 'a property', 'MomentumObserver.started': 'a property',
    'MomentumObserver.reset': 'state reset',
    'cross_check': 'verification against Pinocchio',
    'RandomChainsReport': 'verification', 'RandomChainsReport.format': 'verification',
    'check_random_chains': 'verification against Pinocchio',
    'export': "vendors' packages into an ament prefix", 'measure': 'verification',
    'vendor_table': 'verification against Pinocchio',
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


def _formulations(root, run):
    lines = ['| function | module | seed equations | what |', '|---|---|---|---|']
    for name, path, cites, first in citations():
        lines.append(f'| `{name}` | `dynamics/{path}` | {cites} | {first.replace("|", "/")} |')
    return '\n'.join(lines)


def _command(run, argv):
    """What ``robodyn ARGV`` prints, ``run`` being the CLI's (argv -> exit code): given by
    the CLI, so this module never imports it back."""
    if run is None:
        raise InputError(f'robodyn {" ".join(argv)}: the generated section runs robodyn; '
                         'generate it with `robodyn docs`')
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = run(argv)
    if code != 0:
        raise SystemExit(f'robodyn {" ".join(argv)} exited {code}')
    return buffer.getvalue().rstrip()


def _dh_tables(root, run):
    return '\n\n'.join(f'`robodyn inspect {robot}`\n\n```text\n'
                       f'{_command(run, ["inspect", robot])}\n```'
                       for robot in ('three_link', 'panda', 'ur5'))


def _accuracy(root, run):
    return '\n\n'.join(
        f'`robodyn check {robot} --samples 200`\n\n```text\n'
        f'{_command(run, ["check", robot, "--samples", "200"])}\n```'
        for robot in ('three_link', 'panda', 'ur5', 'kinova', 'xarm7'))


def _reproduction(root, run):
    return '```text\n' + _command(run, ['reproduce', '--out', os.path.join(root, 'docs',
                                                                    'reproduction')]) + '\n```'


def _parameters(root, run):
    from .control.parameters import PARAMETERS, ROBOT_PARAMETERS

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


def _plugin_parameters(root, run):
    import yaml
    path = os.path.join(root, 'robodyn_controllers', 'src',
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


def render(text: str, names: Sequence[str] | None = None, root: str | None = None,
           run: Callable[[list[str]], int] | None = None) -> str:
    """``text`` with every generated section (or those in ``names``) rewritten; ``root``:
    the source tree (default: :func:`source_root`); ``run``: the CLI (argv -> exit code)
    for the sections that show robodyn's output."""
    root = source_root(root)

    def replace(match):
        name = match.group(1)
        if names is not None and name not in names:
            return match.group(0)
        return f'<!-- generated: {name} -->\n{SECTIONS[name](root, run)}\n<!-- end -->'
    return re.sub(r'<!-- generated: (\w+) -->\n.*?<!-- end -->', replace, text, flags=re.S)


def source_root(root: str | None = None) -> str:
    """The source tree to generate into: ``root``, else the checkout this package runs from.

    Raises:
        InputError: no docs/ and urdf/ there (an installed package has no source tree).
    """
    path = os.path.abspath(root or os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not (os.path.isdir(os.path.join(path, 'docs')) and
            os.path.isdir(os.path.join(path, 'urdf'))):
        raise InputError(f'{path}: not a robodyn_ros source tree (no docs/ and urdf/); '
                         'give --root')
    return path


def _seed_urdfs(root, check):
    """urdf/'s seed robots that differ from model/seed_robots.py (rewritten unless check)."""
    from .model.seed_robots import seed_urdfs
    stale = []
    for name, xml in seed_urdfs().items():
        path = os.path.join(root, 'urdf', name)
        old = open(path, encoding='utf-8').read() if os.path.exists(path) else None
        if old != xml:
            stale.append(os.path.join('urdf', name))
            if not check:
                with open(path, 'w', encoding='utf-8') as handle:
                    handle.write(xml)
    return stale


def _plugin_yaml(root, check):
    """The C++ controller's parameter YAML, if it differs from what
    control/plugin_declarations.py writes (rewritten unless check)."""
    from .control.plugin_declarations import YAML_PATH
    from .control.plugin_declarations import render as declarations
    path = os.path.join(root, YAML_PATH)
    old = open(path, encoding='utf-8').read() if os.path.exists(path) else None
    text = declarations()
    if old == text:
        return []
    if not check:
        with open(path, 'w', encoding='utf-8') as handle:
            handle.write(text)
    return [YAML_PATH]


def generate(root: str, names: Sequence[str] | None = None, check: bool = False,
             run: Callable[[list[str]], int] | None = None) -> list[str]:
    """Rewrite the generated sections of ``root``/docs/*.md (those in ``names``, default
    all), and with every section the seed URDFs and the C++ controller's parameter YAML
    (control/plugin_declarations.py); with ``check``, only compare. ``run``:
    the CLI (argv -> exit code), for the sections that show robodyn's output.

    Returns:
        The files that were (or, with ``check``, would be) rewritten, relative to root.
    """
    unknown = [n for n in names or () if n not in SECTIONS]
    if unknown:
        raise InputError(f'no generated section {unknown[0]!r}; valid: {", ".join(SECTIONS)}')
    stale = [] if names else _seed_urdfs(root, check) + _plugin_yaml(root, check)
    for path in sorted(glob.glob(os.path.join(root, 'docs', '*.md'))):
        text = open(path, encoding='utf-8').read()
        new = render(text, names, root, run)
        if new != text:
            stale.append(os.path.relpath(path, root))
            if not check:
                with open(path, 'w', encoding='utf-8') as handle:
                    handle.write(new)
    return stale
