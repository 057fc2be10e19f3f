"""One declaration of the controller's parameters drives the node, ControllerConfig and
the docs: they cannot diverge."""

from dataclasses import fields
import os
import typing

import pytest

from robodyn_ros.control import ControllerConfig
from robodyn_ros.control.options import OPTION_TYPES
from robodyn_ros.control.parameters import NODE_ONLY, PARAMETERS, config_name
from robodyn_ros.errors import ConfigError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TYPES = {'bool': bool, 'int': int, 'float': float, 'str': str,
         'float list': tuple[float, ...], 'string list': tuple[str, ...]}
CONTROLLER = [p for p in PARAMETERS.values() if p.name not in NODE_ONLY]


def test_config_fields_are_the_parameters_with_their_types_and_defaults():
    hints = typing.get_type_hints(ControllerConfig)
    assert sorted(f.name for f in fields(ControllerConfig)) == \
        sorted(config_name(p.name) for p in CONTROLLER)
    config = ControllerConfig()
    for p in CONTROLLER:
        name = config_name(p.name)
        option = OPTION_TYPES.get(p.name)
        assert hints[name] == (option or TYPES[p.type]), p.name
        if option is not None:  # an option parameter holds its enum's member
            assert tuple(option) == p.options and isinstance(getattr(config, name), option)
        default = tuple(p.default) if isinstance(p.default, list) else p.default
        assert getattr(config, name) == default, p.name
    given = ControllerConfig.from_parameters({p.name: p.default for p in PARAMETERS.values()})
    assert all(isinstance(getattr(given, config_name(n)), t) for n, t in OPTION_TYPES.items())


@pytest.mark.parametrize('p', [p for p in CONTROLLER if p.low is not None or p.high is not None
                               or p.options], ids=lambda p: p.name)
def test_every_declared_range_is_enforced(p):
    """Just outside each declared bound (or an unknown option) is refused naming the
    parameter; the bound itself is taken."""
    def value(x):
        if p.type == 'float list':  # as many values as the default (a fixed size)
            return [x] * max(1, len(p.default or []))
        return int(x) if p.type == 'int' else x
    bad, good = [], []
    if p.options:
        bad.append('no_such_option')
        good.extend(p.options)
    if p.low is not None:
        bad.append(value(p.low - (0 if p.low_open else 1)))
        if not p.low_open:
            good.append(value(p.low))
    if p.high is not None:
        bad.append(value(p.high * 1.5 + 1))
        good.append(value(p.high))
    for x in bad:
        with pytest.raises(ConfigError, match=p.name):
            ControllerConfig.from_parameters({p.name: x, **_room(p)})
    for x in good:
        ControllerConfig.from_parameters({p.name: x, **_room(p)})


def _room(p):
    """Other parameters that let ``p`` take its whole range (cross-parameter rules)."""
    return {'position_margin': 0.0} if p.name == 'reference_margin' else \
        {'reference_margin': 1.0} if p.name == 'position_margin' else {}


def test_unknown_names_are_refused_and_the_node_s_own_ignored():
    cfg = ControllerConfig.from_parameters(dict(use_sim_time=True, robot='panda', kp=[1.0]))
    assert cfg.kp == (1.0,)
    with pytest.raises(ConfigError, match='kpp: not a controller parameter; valid: .*kp'):
        ControllerConfig.from_parameters(dict(kpp=[1.0]))


def test_the_docs_table_is_generated_from_the_declarations():
    from robodyn_ros import generated_docs as generator
    page = os.path.join(ROOT, 'docs', 'real_arm.md')
    text = open(page, encoding='utf-8').read()
    assert '<!-- generated: parameters -->' in text
    assert generator.render(text, ['parameters']) == text, \
        'docs/real_arm.md is out of date: run robodyn docs --only parameters'
    for p in PARAMETERS.values():
        assert f'`{p.name}`' in text


def test_every_cross_parameter_rule_is_named_and_every_named_rule_exists():
    """A declaration's note (its rule in words) names the validator that checks it, and
    each validator is named by a declaration: no rule in prose only, none in code only."""
    from robodyn_ros.control.controller_config import MODEL_RULES, RULES
    named = {p.rule for p in PARAMETERS.values() if p.rule}
    assert named == set(RULES) | set(MODEL_RULES)
    assert [p.name for p in PARAMETERS.values() if p.note and not p.rule] == []
