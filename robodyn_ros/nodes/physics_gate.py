"""Bring the robodyn controller up on MuJoCo physics inside ros2_control, in an order that
cannot race: pause the physics, configure the controller, resume the physics, and only
then activate the controller.

The hardware plugin runs its physics from the moment controller_manager activates it; the
arm would drift off its start under the open-loop g(q0) hold while the controller is still
configuring (seconds on a cold start: model, compiled kernels, the check against
Pinocchio). So the physics is paused as soon as the plugin's ``set_pause`` service exists,
and resumed once the controller is configured. The controller is activated after the
plugin has answered the resume: it never ramps in, and its reference never starts, on
paused physics, however late any message arrives on a busy machine. (Its tracking guard
would hold the arm if it ever did: control/controller_core.py.)

Without the service (within ``pause_wait``) the controller is configured and activated
all the same, and the log says the physics was never paused. The node exits when done.
"""

from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState
from rclpy.node import Node

from .node_support import declare, run_node

__all__ = ['PhysicsGate', 'main']


class PhysicsGate(Node):
    """pause -> configure -> resume -> activate, one step at a time (see module doc)."""

    def __init__(self, **kwargs):
        super().__init__('robodyn_physics_gate', **kwargs)
        from mujoco_ros2_control_msgs.srv import SetPause
        self.request = SetPause.Request
        service = declare(self, 'service', '/mujoco_ros2_control_node/set_pause',
                          "the hardware plugin's set_pause service")
        controller = declare(self, 'controller', '/robodyn_controller',
                             'the lifecycle controller to configure and activate')
        self.pause_wait = float(declare(self, 'pause_wait', 30.0,
                                        'seconds to wait for the set_pause service'))
        self.pause = self.create_client(SetPause, service)
        self.change = self.create_client(ChangeState, f'{controller}/change_state')
        self.step = 'pause'
        self.paused = False
        self.pending = None  # the future of the step under way
        self.finished = False  # run_node ends the process when set
        self.started = self.get_clock().now()
        self.timer = self.create_timer(0.05, self.on_timer)

    def on_timer(self):
        """Start the next step once the previous one has answered."""
        if self.pending is not None:
            if not self.pending.done():
                return
            future, self.pending = self.pending, None
            self._done(future.result())
            return
        waited = (self.get_clock().now() - self.started).nanoseconds * 1e-9
        if self.step == 'pause':
            if self.pause.service_is_ready():
                self.pending = self.pause.call_async(self.request(paused=True))
            elif waited > self.pause_wait:
                self.get_logger().warning(f'no set_pause service after {waited:.0f} s: the '
                                          'physics runs while the controller configures')
                self.step = 'configure'
        elif self.step in ('configure', 'activate') and self.change.service_is_ready():
            transition = Transition.TRANSITION_CONFIGURE if self.step == 'configure' else \
                Transition.TRANSITION_ACTIVATE
            self.pending = self.change.call_async(
                ChangeState.Request(transition=Transition(id=transition)))
        elif self.step == 'resume':
            self.pending = self.pause.call_async(self.request(paused=False))

    def _done(self, response):
        """The current step answered with ``response`` (None: the call failed)."""
        log = self.get_logger()
        ok = response is not None and getattr(response, 'success', True)
        if self.step == 'pause':
            self.paused, self.step = True, 'configure'
            log.info('physics paused while the controller configures')
        elif self.step == 'configure':
            if not ok:
                log.error('the controller did not configure (its log says why): the '
                          'physics stays paused')
                self.finished = True
                return
            self.step = 'resume' if self.paused else 'activate'
        elif self.step == 'resume':
            log.info('physics resumed: activating the controller')
            self.step = 'activate'
        elif self.step == 'activate':
            log.info('controller active' if ok else 'the controller did not activate')
            self.finished = True


def main(args=None):
    """Run until the controller is active (or SIGINT / SIGTERM)."""
    return run_node(PhysicsGate, 'robodyn_physics_gate', args)


if __name__ == '__main__':
    raise SystemExit(main())
