"""The parameters that may change while the controller runs: each has the function that
applies it (RUNTIME_APPLIERS), and a change goes through it or is refused with its reason."""

from types import SimpleNamespace

from robodyn_ros.control.parameters import PARAMETERS, RUNTIME
from robodyn_ros.errors import ConfigError
from robodyn_ros.nodes.runtime_parameters import RUNTIME_APPLIERS, apply_runtime_parameters


def test_every_runtime_parameter_has_its_applier():
    assert set(RUNTIME_APPLIERS) == set(RUNTIME)
    assert RUNTIME == tuple(p.name for p in PARAMETERS.values() if p.runtime)


class _Core:
    def __init__(self):
        self.checked = []

    def check_payload(self, mass, com, inertia):
        if mass < 0:
            raise ConfigError(f'payload.mass: {mass} is negative')
        self.checked.append((mass, com, inertia))


def _get(name):
    return SimpleNamespace(value=PARAMETERS[name].default)


def test_a_payload_change_is_checked_then_submitted_once():
    core, submitted = _Core(), []
    params = [SimpleNamespace(name='payload.mass', value=1.5),
              SimpleNamespace(name='payload.com', value=[0.0, 0.0, 0.1])]
    assert apply_runtime_parameters(core, params, _get, submitted.append) == ''
    assert submitted == [(1.5, [0.0, 0.0, 0.1], [0.0] * 6)] and len(core.checked) == 1


def test_a_refused_payload_is_not_submitted_and_says_why():
    core, submitted = _Core(), []
    reason = apply_runtime_parameters(core, [SimpleNamespace(name='payload.mass', value=-1.0)],
                                      _get, submitted.append)
    assert reason == 'payload refused: payload.mass: -1.0 is negative' and not submitted


def test_other_parameters_and_an_unconfigured_node_change_nothing():
    submitted = []
    mass = [SimpleNamespace(name='payload.mass', value=1.0)]
    assert apply_runtime_parameters(_Core(), [SimpleNamespace(name='rate', value=500.0)], _get,
                                    submitted.append) == ''
    assert apply_runtime_parameters(None, mass, _get, submitted.append) == ''
    assert not submitted
