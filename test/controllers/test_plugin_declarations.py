"""The C++ controller's parameter declarations (its generate_parameter_library YAML) agree
with the node's (control/parameters.py) on every setting the two share, and its event
names are the node's vocabulary: one source of meaning for both control paths."""

import glob
import os
import re

import pytest
import yaml

from robodyn_ros.control.cycle_events import EVENT_NAMES
from robodyn_ros.control.parameters import PARAMETERS
from robodyn_ros.control.plugin_parameters import _SHARED

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, 'robodyn_controllers')
#: Ranges the plugin narrows on purpose, and why.
NARROWER = {'max_torque_rate': 'the node takes any rate > 0; the plugin at least 1 N m/s',
            'kp': 'the plugin bounds the gains (1e6): the node leaves them open',
            'kd': 'the plugin bounds the gains (1e5): the node leaves them open'}
#: Events only the plugin has: a chained reference that stops or leaves the limits; its
#: release; its hold softened (the node says that in its safe mode's reason, as a FAULT).
PLUGIN_EVENTS = {'stale_reference', 'reference_outside_limits', 'deactivated', 'none',
                 'state_continuous', 'hold_softened'}


def _declarations():
    path = os.path.join(PACKAGE, 'src', 'computed_torque_controller_parameters.yaml')
    with open(path, encoding='utf-8') as handle:
        (body,) = yaml.safe_load(handle).values()
    return body


def _bounds(declaration):
    rules = declaration.get('validation') or {}
    for key in ('bounds<>', 'element_bounds<>'):
        if key in rules:
            return tuple(float(v) for v in rules[key])
    low = next((float(rules[k][0]) for k in ('gt<>', 'gt_eq<>') if k in rules), None)
    high = next((float(rules[k][0]) for k in ('lt<>', 'lt_eq<>') if k in rules), None)
    return low, high


def test_the_declarations_file_is_what_the_node_declarations_write():
    """One source: the C++ controller's YAML is control/plugin_declarations.render() of
    control/parameters.py (run `robodyn docs` after changing a parameter)."""
    from robodyn_ros.control.plugin_declarations import YAML_PATH, render
    with open(os.path.join(ROOT, YAML_PATH), encoding='utf-8') as handle:
        assert handle.read() == render(), 'stale: run robodyn docs'
    assert yaml.safe_load(render())['robodyn_controllers']['adaptive']['gamma'][
        'default_value'] == [0.2, 0.005, 5e-5]  # floats stay floats in YAML 1.1


@pytest.mark.parametrize('name', sorted(set(_SHARED) | {'kp', 'kd', 'hold_kp', 'hold_kd',
                                                        'damping'}))
def test_a_shared_setting_has_one_meaning(name):
    plugin = _declarations()
    for part in name.split('.'):
        plugin = plugin[part]
    node = PARAMETERS[name]
    default = plugin['default_value']
    node_default = node.default[0] if isinstance(node.default, list) and \
        not isinstance(default, list) else node.default
    assert default == node_default, (default, node.default)
    # settable while running on one path exactly when on the other (kp, kd)
    assert plugin.get('read_only', False) == (not node.runtime), name
    if name == 'mode':  # the laws the C++ controller has (the registry says which)
        from robodyn_ros.control.laws import PLUGIN_MODES
        (options,) = plugin['validation']['one_of<>']
        assert tuple(options) == PLUGIN_MODES
        assert set(PLUGIN_MODES) <= set(node.options)
        return
    low, high = _bounds(plugin)
    if name in NARROWER:
        return
    assert low == (node.low if node.low is not None else low), (low, node.low)
    assert high == (node.high if node.high is not None else high), (high, node.high)


def test_every_setting_export_writes_is_declared_by_the_plugin():
    from robodyn_ros.control.plugin_parameters import plugin_config, plugin_parameters
    from robodyn_ros.model import load_robot
    declared = set(_declarations())
    assert {name.split('.')[0] for name in _SHARED} <= declared
    exported = plugin_parameters(load_robot('panda'), plugin_config(
        {'collision': {'thresholds': [1.0]}, 'hold_kp': [100.0]}))
    assert {'model_name', 'base_link', 'base_rotation', 'tool_point', 'collision',
            'hold_kp'} <= set(exported)
    assert set(exported) <= declared, set(exported) - declared


def test_the_plugin_reports_events_in_the_node_vocabulary():
    source = ''  # the core's cycle (supervisor.cpp) and the adapter's files
    for path in glob.glob(os.path.join(PACKAGE, 'src', 'computed_torque_*.cpp')) + \
            [os.path.join(PACKAGE, 'src', 'supervisor.cpp')]:
        with open(path, encoding='utf-8') as handle:
            source += handle.read()
    used = set(re.findall(r'fault\("(\w+)"', source)) | \
        set(re.findall(r'event_ = "(\w+)"', source))
    assert used, 'no event names found in the plugin source'
    assert used - PLUGIN_EVENTS <= set(EVENT_NAMES), used - set(EVENT_NAMES)


@pytest.mark.parametrize('name', ['thresholds', 'gain', 'debounce', 'reaction'])
def test_the_collision_settings_have_one_meaning(name):
    plugin, node = _declarations()['collision'][name], PARAMETERS[f'collision.{name}']
    assert plugin['default_value'] == node.default
    if name == 'reaction':
        (options,) = plugin['validation']['one_of<>']
        assert tuple(options) == tuple(node.options)
        return
    low, high = _bounds(plugin)
    # the node's open lower bounds (> 0) are the plugin's closed ones just above 0; the
    # plugin's and the node's checks both refuse 0
    assert (node.low, node.high) == (0.0 if node.low_open else low, high) or \
        (node.low, node.high) == (low, high), (low, high, node.low, node.high)


@pytest.mark.parametrize('name', ['gamma', 'mass_max', 'rest_speed'])
def test_the_adaptive_settings_have_one_meaning(name):
    plugin, node = _declarations()['adaptive'][name], PARAMETERS[f'adaptive.{name}']
    assert plugin['default_value'] == node.default
    assert plugin.get('read_only', False) == (not node.runtime), name
    rules = plugin['validation']
    if node.low_open:  # > low: the plugin's gt<>
        assert (rules['gt<>'][0], rules['lt_eq<>'][0]) == (node.low, node.high)
        return
    assert _bounds(plugin) == (node.low, node.high)
    if name == 'gamma':  # 1 or 3 values: the plugin's YAML admits 1 to 3, configure 1 or 3
        assert (rules['size_gt<>'], rules['size_lt<>']) == (0, 4)


@pytest.mark.parametrize('name', ['stiffness', 'damping_ratio'])
def test_the_cartesian_settings_have_one_meaning(name):
    plugin, node = _declarations()['cartesian'][name], PARAMETERS[f'cartesian.{name}']
    assert plugin['default_value'] == node.default
    assert plugin.get('read_only', False) == (not node.runtime), name
    assert _bounds(plugin) == (node.low, node.high)
    if name == 'stiffness':
        assert plugin['validation']['fixed_size<>'] == len(node.default) == 6


@pytest.mark.parametrize('name', ['speed', 'rotation_speed', 'workspace'])
def test_the_target_settings_have_one_meaning(name):
    plugin, node = _declarations()['target'][name], PARAMETERS[f'target.{name}']
    assert plugin['default_value'] == node.default
    assert plugin.get('read_only', False) == (not node.runtime), name
    if name != 'workspace':
        assert _bounds(plugin) == (node.low, node.high)


def test_the_exported_target_settings_are_the_configs():
    from robodyn_ros.control.plugin_parameters import plugin_config, plugin_parameters
    from robodyn_ros.model import load_robot
    box = [-0.5, -0.6, 0.0, 0.5, 0.6, 1.0]
    values = plugin_parameters(load_robot('panda'), plugin_config(
        {'target': {'speed': 0.1, 'workspace': box}}))
    assert values['target'] == {'speed': 0.1, 'rotation_speed': 1.0, 'workspace': box}


def test_every_node_setting_reaches_the_plugin_or_export_says_why_not():
    from robodyn_ros.control.plugin_parameters import (
        IN_MODEL_ROWS,
        NOT_EXPORTED,
        OWNED_ELSEWHERE,
    )
    declarations = _declarations()
    declared = set(declarations) | {f'{group}.{k}' for group in ('collision', 'adaptive',
                                                                  'cartesian', 'target', 'wrench')
                                    for k in declarations[group]}
    accounted = declared | set(IN_MODEL_ROWS) | set(NOT_EXPORTED) | set(OWNED_ELSEWHERE)
    assert set(PARAMETERS) - accounted == set()
    assert not (set(NOT_EXPORTED) | set(OWNED_ELSEWHERE)) & declared


def test_export_notes_name_each_setting_left_out_and_a_law_without_feedback():
    from robodyn_ros.control.plugin_parameters import export_notes
    notes = export_notes({'state_timeout': 0.02, 'ramp_time': 0.5, 'rate': 1000.0,
                          'trigger': 'state', 'kp': [100.0], 'kd': [20.0]})
    assert [n.split(':')[0] for n in notes] == ['ramp_time', 'state_timeout', 'rate, trigger']
    assert any('no feedback' in n for n in export_notes({}))
    assert export_notes({'kp': [0.0], 'kd': [1.0]}) == []
