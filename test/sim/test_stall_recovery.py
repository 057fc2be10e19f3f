"""A stalled state stream on the simulated Panda, with the shipped simulation config: the
controller goes safe (hold), comes back through a ramp-in holding the position it finds,
and brings the moving arm to rest without a guard trip or a torque step.

The sim applies the last command it received while the controller hears nothing, as
ros2_control's forward command controller does.
"""

from array import array

import numpy as np
import pytest

from robodyn_ros.control import ControllerConfig, ControllerCore
from robodyn_ros.control.safety.supervisor import ACTIVE, SAFE
from robodyn_ros.demo.config import load_config
from robodyn_ros.model import load_robot
from robodyn_ros.sim.mujoco_sim import MujocoSim

NOT_LAW = ('robot', 'tip_link', 'command_topic', 'trigger', 'rate')
DT = 1e-3


def _setup():
    config = load_config('panda')  # the shipped config/panda.yaml
    ctrl = config['robodyn_controller']
    model = load_robot('panda', tip_link=ctrl['tip_link'])
    core = ControllerCore(model, ControllerConfig.from_parameters(
        {k: v for k, v in ctrl.items() if k not in NOT_LAW}))
    q0 = np.array(config['robodyn_sim']['q0'])
    return core, MujocoSim(model, q0), list(model.joint_names)


@pytest.mark.parametrize('stall_at', [1.7, 2.5])
def test_stall_goes_safe_then_recovers_to_rest_within_guards(stall_at):
    """States lost for 80 ms in full motion (sum-of-sines, ~1 rad/s): the node's watchdog
    timer publishes the safe command once they are ``state_timeout`` old."""
    core, sim, names = _setup()
    core.activate(0.0)
    sup = core.supervisor
    states_back = stall_at + 0.08
    step = sup.limits.max_torque_rate * DT
    # The first command is the hold torque (initial_output: hold), steps are counted from it.
    last, safe_at, peak = None, None, 0.0
    for _ in range(int((states_back + 1.5) / DT)):
        t = sim.time
        q, qd = sim.state()[:2]
        if stall_at <= t < states_back:  # as ControllerNode.on_timer with trigger 'state'
            command = core.update(t) if sup.needs_timer(t) else None
        else:
            command = core.cycle(t, names, array('d', q), array('d', qd), t)
        if command is not None:
            assert last is None or np.all(np.abs(command.effort - last) <= step + 1e-9), t
            last = command.effort
            sim.set_command(last)
        if safe_at is None and sup.state == SAFE:
            safe_at = t
        if t >= stall_at:
            peak = max(peak, float(np.max(np.abs(qd) / sup.limits.velocity)))
        sim.step()
    assert safe_at is not None and safe_at <= stall_at + sup.limits.state_timeout + 3 * DT
    assert sup.state == ACTIVE and not sup.latched and core.reference.kind == 'hold'
    assert peak < 0.8, peak  # never near the velocity guard
    q, qd = sim.state()[:2]
    assert np.max(np.abs(qd)) < 1e-2  # at rest 1.4 s after the states came back
    np.testing.assert_allclose(q, core.reference(sim.time)[0], atol=1e-3)
