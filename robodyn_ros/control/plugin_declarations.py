"""The C++ controller's parameter declarations, written from the node's: the
generate_parameter_library YAML robodyn_controllers builds its parameters from
(robodyn_controllers/src/computed_torque_controller_parameters.yaml) is this module's
:func:`render`, so a setting both paths share is declared once, in control/parameters.py.

A parameter there with ``plugin`` set is declared on the C++ controller too, with the same
name, type, default, range, options, list length and description, read-only unless it may
change while running; ``plugin`` as a dict narrows what the C++ side takes (the bounds it
needs beyond the node's, the list lengths the node checks by a rule). PLUGIN_ONLY holds what
only the C++ controller has: the model rows and frames `robodyn export` writes, and its own
publishing. `robodyn docs` writes the file; `robodyn docs --check` and
test/controllers/test_plugin_declarations.py fail when the file is not what :func:`render`
writes. docs/architecture.md shows adding a parameter.
"""

import json
from typing import Any

from .laws import PLUGIN_MODES
from .parameters import PARAMETERS, Parameter

__all__ = ['PLUGIN_ONLY', 'YAML_PATH', 'declarations', 'render']

#: The file, relative to the repository root.
YAML_PATH = 'robodyn_controllers/src/computed_torque_controller_parameters.yaml'
_TYPES = {'bool': 'bool', 'int': 'int', 'float': 'double', 'str': 'string',
          'float list': 'double_array', 'string list': 'string_array'}
_HEADER = """\
# Parameters of robodyn_controllers/ComputedTorqueController (generate_parameter_library),
# written by `robodyn docs` from robodyn_ros/control/parameters.py (the settings both
# control paths share) and robodyn_ros/control/plugin_declarations.py (the model part
# `robodyn export` writes, and what only this controller has): edit those, not this file.
"""


def _plugin_only(name, kind, default, description, validation=None):
    """(name, declaration) of a read-only parameter only the C++ controller has."""
    entry = {'type': kind, 'default_value': default, 'read_only': True,
             'description': description}
    if validation:
        entry['validation'] = validation
    return name, entry


_JOINT_ROW = 'model.__map_joints.'
#: What only the C++ controller declares (generate_parameter_library's names and rules).
PLUGIN_ONLY = dict((
    _plugin_only('model_name', 'string', '', 'Where the model came from (robot, description '
                 'file); written by robodyn export.', {'not_empty<>': []}),
    _plugin_only('joints', 'string_array', [], 'Joints in chain order: state interfaces '
                 'position/velocity(/effort), command interface effort.',
                 {'not_empty<>': [], 'unique<>': []}),
    _plugin_only('gravity', 'double_array', [0.0, 0.0, -9.81], 'Gravitational acceleration '
                 'in DH frame 0 [m/s^2].', {'fixed_size<>': 3}),
    _plugin_only('base_link', 'string', '', "The description's base link: the frame of "
                 '~/tool_wrench, ~/target_pose and ~/target_wrench; written by robodyn '
                 'export (empty: no ~/tool_wrench).'),
    _plugin_only('base_point', 'double_array', [0.0, 0.0, 0.0], "DH frame 0's origin in "
                 'base_link [m]; written by robodyn export.', {'fixed_size<>': 3}),
    _plugin_only('base_rotation', 'double_array', [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                 "DH frame 0's axes in base_link, row-major 3x3 (a rotation); written by "
                 'robodyn export.', {'fixed_size<>': 9}),
    _plugin_only('tool_point', 'double_array', [0.0, 0.0, 0.0], "The tip link's origin in DH "
                 'frame n [m]; written by robodyn export.', {'fixed_size<>': 3}),
    _plugin_only('tool_rotation', 'double_array', [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                 "The tip link's axes in DH frame n, row-major 3x3 (a rotation): the frame of "
                 "the adaptive law's payload estimate; written by robodyn export.",
                 {'fixed_size<>': 9}),
    _plugin_only('tip_link', 'string', '', 'The tip link: the frame_id of ~/payload_estimate '
                 "(the adaptive law's); written by robodyn export."),
    _plugin_only(_JOINT_ROW + 'dh', 'double_array', [], 'Standard DH row a [m], alpha [rad], '
                 'd [m], theta offset [rad], Hayati beta [rad].', {'fixed_size<>': 5}),
    _plugin_only(_JOINT_ROW + 'prismatic', 'bool', False, 'The joint slides along z (d '
                 'moves) instead of turning about it.'),
    _plugin_only(_JOINT_ROW + 'mass', 'double', -1.0, 'Link mass [kg]; the default (-1) '
                 'marks a joint the model does not describe.', {'gt_eq<>': [0.0]}),
    _plugin_only(_JOINT_ROW + 'com', 'double_array', [], 'Centre of mass in DH frame i [m].',
                 {'fixed_size<>': 3}),
    _plugin_only(_JOINT_ROW + 'inertia', 'double_array', [], 'Inertia about the centre of '
                 'mass, DH frame i axes: xx xy xz yy yz zz [kg m^2].', {'fixed_size<>': 6}),
    _plugin_only(_JOINT_ROW + 'viscous', 'double', 0.0, 'Viscous friction [N m s/rad or N '
                 's/m].', {'gt_eq<>': [0.0]}),
    _plugin_only(_JOINT_ROW + 'coulomb', 'double', 0.0, 'Coulomb friction [N m or N].',
                 {'gt_eq<>': [0.0]}),
    _plugin_only(_JOINT_ROW + 'effort_limit', 'double', 0.0, 'Largest |command| [N m or N].',
                 {'gt<>': [0.0]}),
    _plugin_only(_JOINT_ROW + 'velocity_limit', 'double', 0.0, 'Largest |velocity| of the '
                 'state and the reference [rad/s or m/s].', {'gt<>': [0.0]}),
    _plugin_only(_JOINT_ROW + 'acceleration_limit', 'double', 0.0, 'Largest |acceleration| '
                 'of the reference [rad/s^2 or m/s^2]; 0: derived from the model, '
                 'effort_limit / the largest M_jj(q) over the joint ranges.',
                 {'gt_eq<>': [0.0]}),
    _plugin_only(_JOINT_ROW + 'position_limits', 'double_array', [], 'Lower and upper joint '
                 'limit [rad or m].', {'fixed_size<>': 2}),
    _plugin_only('reference_timeout', 'double', 0.02, 'A chained reference not written for '
                 'this long [s] is stale: the controller stops and holds.',
                 {'bounds<>': [0.0, 1.0]}),
    _plugin_only('use_effort_state', 'bool', True, 'Claim <joint>/effort states: the first '
                 'command starts from the effort the hardware applies (else from g(q)).'),
    _plugin_only('publish_every', 'int', 1, '~/reference and ~/commands once every this '
                 "many cycles (a ring the controller's publishing thread drains).",
                 {'bounds<>': [1, 1000]}),
))


def _number(value, kind):
    return int(value) if kind == 'int' else float(value)


def _range(p: Parameter, kind: str, low, high) -> dict[str, Any]:
    """A number's (or each element's) range as the library's validators."""
    if low is None and high is None:
        return {}
    if p.type.endswith('list'):
        return {'element_bounds<>': [_number(low, kind), _number(high, kind)]}
    if high is None:
        return {('gt<>' if p.low_open else 'gt_eq<>'): [_number(low, kind)]}
    if p.low_open:
        return {'gt<>': [_number(low, kind)], 'lt_eq<>': [_number(high, kind)]}
    return {'bounds<>': [_number(low, kind), _number(high, kind)]}


def _shared(p: Parameter) -> dict[str, Any]:
    """The declaration of a node parameter on the C++ controller (module docstring)."""
    narrow = p.plugin if isinstance(p.plugin, dict) else {}
    kind = 'int' if p.type == 'int' else 'float'
    validation: dict[str, Any] = {}
    if p.min_length:
        validation['size_gt<>'] = p.min_length - 1
    validation.update({k: v for k, v in narrow.items() if k not in ('low', 'high')})
    if p.options:
        options = PLUGIN_MODES if p.name == 'mode' else p.options
        validation['one_of<>'] = [list(options)]
    validation.update(_range(p, kind, narrow.get('low', p.low), narrow.get('high', p.high)))
    entry = {'type': _TYPES[p.type], 'default_value': p.default, 'read_only': not p.runtime,
             'description': p.description[0].upper() + p.description[1:] + '.'}
    if validation:
        entry['validation'] = validation
    return entry


def declarations() -> dict[str, dict[str, Any]]:
    """{dotted name: declaration} of every C++ controller parameter, in the file's order
    (the plugin's own first, then the shared ones in control/parameters.py's order)."""
    out = dict(PLUGIN_ONLY)
    out.update({name: _shared(p) for name, p in PARAMETERS.items() if p.plugin})
    return out


def _value(value) -> str:
    """YAML's flow style: strings quoted, lists inline, every float with a decimal point
    (YAML 1.1, which the library's parser reads, takes 5e-05 for a string)."""
    if isinstance(value, list):
        return '[' + ', '.join(_value(v) for v in value) + ']'
    if isinstance(value, float):
        mantissa, _, exponent = repr(value).partition('e')
        if '.' not in mantissa:
            mantissa += '.0'
        return mantissa + ('e' + exponent if exponent else '')
    return json.dumps(value)


def _entry_lines(entry: dict[str, Any], indent: str) -> list[str]:
    lines = [f'{indent}type: {entry["type"]}']
    for key in ('default_value', 'read_only', 'description'):
        lines.append(f'{indent}{key}: {_value(entry[key])}')
    if 'validation' in entry:
        lines.append(f'{indent}validation:')
        lines += [f'{indent}  {k}: {_value(v)}' for k, v in entry['validation'].items()]
    return lines


def render() -> str:
    """The YAML text of :func:`declarations`, nested by the names' dots."""
    lines = [_HEADER.rstrip('\n'), 'robodyn_controllers:']
    opened: list[str] = []
    for name, entry in declarations().items():
        parts = name.split('.')
        common = 0
        while common < min(len(opened), len(parts) - 1) and opened[common] == parts[common]:
            common += 1
        opened = opened[:common]
        for depth in range(common, len(parts) - 1):
            lines.append(f'{"  " * (depth + 1)}{parts[depth]}:')
            opened.append(parts[depth])
        lines.append(f'{"  " * len(parts)}{parts[-1]}:')
        lines += _entry_lines(entry, '  ' * (len(parts) + 1))
    return '\n'.join(lines) + '\n'
