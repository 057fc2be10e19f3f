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
all the same, and the log says the physics was never paused. A call unanswered after
``CALL_TIMEOUT`` (a response lost while a service's endpoints still match, seen on a busy
machine) is asked again: pause and resume as they are, configure and activate by first
asking the controller's state (a transition already made is not made twice). The node
exits when done.
"""

from lifecycle_msgs.msg import State, Transition
from lifecycle_msgs.srv import ChangeState, GetState
from rclpy.client import Client
from rclpy.node import Node

from ..defaults import CONTROLLER_NAME
from .node_parameters import declare
from .node_runner import run_node

__all__ = ['PhysicsGate', 'main']

#: Seconds before an unanswered service call is asked again (a cold configure answers in
#: about 10 s: the configure call gets CONFIGURE_TIMEOUT).
CALL_TIMEOUT, CONFIGURE_TIMEOUT = 5.0, 120.0


class PhysicsGate(Node):
    """pause -> configure -> resume -> activate, one step at a time (see module doc)."""

    #: run_node ends the process right after a signal: nothing here to save, and tearing
    #: down its DDS entities has taken past the 2 s exit deadline on a loaded machine.
    exit_after_close = True

    def __init__(self, **kwargs):
        super().__init__('robodyn_physics_gate', **kwargs)
        from mujoco_ros2_control_msgs.srv import SetPause
        self.request = SetPause.Request
        service = declare(self, 'service', '/mujoco_ros2_control_node/set_pause',
                          "the hardware plugin's set_pause service")
        controller = declare(self, 'controller', f'/{CONTROLLER_NAME}',
                             'the lifecycle controller to configure and activate')
        self.pause_wait = float(declare(self, 'pause_wait', 30.0,
                                        'seconds to wait for the set_pause service'))
        self.pause: Client = self.create_client(SetPause, service)
        self.change: Client = self.create_client(ChangeState, f'{controller}/change_state')
        self.get_state: Client = self.create_client(GetState, f'{controller}/get_state')
        self.deadline = 0.0  # when the pending call is given up and asked again
        self.asking_state = False  # the pending call is a GetState after a lost answer
        self.step = 'pause'
        self.paused = False
        self.pending = None  # the future of the step under way
        self.finished = False  # run_node ends the process when set
        self.started = self.get_clock().now()
        self.timer = self.create_timer(0.05, self.on_timer)

    def _now(self):
        return (self.get_clock().now() - self.started).nanoseconds * 1e-9

    def _call(self, client, request, timeout=CALL_TIMEOUT):
        self.pending, self.deadline = client.call_async(request), self._now() + timeout

    def on_timer(self):
        """Start the next step once the previous one has answered (or ask again)."""
        if self.pending is not None:
            if not self.pending.done():
                if self._now() > self.deadline:
                    self._lost()
                return
            future, self.pending = self.pending, None
            if self.asking_state:
                self.asking_state = False
                self._state_known(future.result())
            else:
                self._done(future.result())
            return
        waited = self._now()
        if self.step == 'pause':
            if self.pause.service_is_ready():
                self._call(self.pause, self.request(paused=True))
            elif waited > self.pause_wait:
                self.get_logger().warning(f'no set_pause service after {waited:.0f} s: the '
                                          'physics runs while the controller configures')
                self.step = 'configure'
        elif self.step in ('configure', 'activate') and self.change.service_is_ready():
            configure = self.step == 'configure'
            transition = Transition.TRANSITION_CONFIGURE if configure else \
                Transition.TRANSITION_ACTIVATE
            self._call(self.change, ChangeState.Request(transition=Transition(id=transition)),
                       CONFIGURE_TIMEOUT if configure else CALL_TIMEOUT)
        elif self.step == 'resume':
            self._call(self.pause, self.request(paused=False))

    def _lost(self):
        """The pending call went unanswered: ask again (see the module docstring)."""
        self.get_logger().warning(f'{self.step}: no answer within the time allowed; asking '
                                  'again')
        self.pending = None
        if self.step in ('configure', 'activate') and self.get_state.service_is_ready():
            self.asking_state = True
            self._call(self.get_state, GetState.Request())

    def _state_known(self, response):
        """The controller's state after a lost answer: skip what is already done."""
        if response is None:
            return
        state = response.current_state.id
        if self.step == 'configure' and state == State.PRIMARY_STATE_INACTIVE:
            self._done(ChangeState.Response(success=True))
        elif self.step == 'activate' and state == State.PRIMARY_STATE_ACTIVE:
            self._done(ChangeState.Response(success=True))

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
