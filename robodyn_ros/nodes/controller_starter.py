"""Load, configure and activate a launch's ros2_control controllers from one process that
joins DDS with the stack and stays in it until the launch ends: what the spawners do, in
an order that cannot pause the robodyn node.

Why not the spawners: a spawner joins DDS only once it holds controller_manager's spawner
lock, so the second of a chain joins while the first one's controllers already run. On
Fast DDS's shared memory (ROS 2's default) a participant that joins while the node
commands can hold every send, and with them the receipts, of the node and of
ros2_control_node for up to a third of a second (docs/reliability.md, "A process that
joins DDS"): the spawner that loaded the JointTrajectoryController inactive, joining 2 s
after the node had ramped in, stopped its commands for 0.2 s. This node is in DDS from the
start, says nothing on the wire once the controllers are up, and leaves with the rest of
the launch.

It works from controller_manager's own list (``list_controllers``), one call at a time:
every controller of ``inactive`` then of ``active`` is loaded and configured, then the
``active`` ones are activated together (strict). An answer that does not come within
``CALL_TIMEOUT`` is given up and the list asked again, so a lost answer repeats nothing
that was done. A refusal is said once, naming the controller; the node then stays as it
is (the arm stays with what holds it: the hardware, or the controllers already active).
"""

from rclpy.client import Client
from rclpy.node import Node

from .node_parameters import declare
from .node_runner import run_node

__all__ = ['ControllerStarter', 'main']

#: Seconds before an unanswered call is given up (a controller's configure can take a
#: few seconds on a busy machine).
CALL_TIMEOUT = 10.0
#: Seconds without controller_manager's services before the log says it waits for them.
WAIT_NOTE = 30.0
#: controller_manager's service of each step.
SERVICES = {'list': 'list_controllers', 'load': 'load_controller',
            'configure': 'configure_controller', 'switch': 'switch_controller'}


class ControllerStarter(Node):
    """list -> (load | configure | activate) -> list ..., until every controller is up."""

    #: run_node ends the process right after a signal: nothing here to save.
    exit_after_close = True

    def __init__(self, **kwargs):
        super().__init__('robodyn_controller_starter', **kwargs)
        from controller_manager_msgs.srv import (
            ConfigureController,
            ListControllers,
            LoadController,
            SwitchController,
        )
        self.srv = {'list': ListControllers, 'load': LoadController,
                    'configure': ConfigureController, 'switch': SwitchController}
        manager = declare(self, 'controller_manager', '/controller_manager',
                          'the controller_manager to ask')
        self.active = [c for c in declare(self, 'active', [''], 'controllers to activate')
                       if c]
        self.inactive = [c for c in declare(self, 'inactive', [''],
                                            'controllers to load and configure only') if c]
        self._calls: dict[str, Client] = {
            k: self.create_client(self.srv[k], f'{manager}/{v}') for k, v in SERVICES.items()}
        self.pending = None  # (what, name, future, deadline [s since start])
        self.refused = False
        self.up = False
        self.said_waiting = False
        self.started = self.get_clock().now()
        self.timer = self.create_timer(0.05, self.on_timer)

    def _now(self) -> float:
        return (self.get_clock().now() - self.started).nanoseconds * 1e-9

    def _call(self, what: str, name: str, request) -> None:
        client = self._calls[what]
        if client.service_is_ready():
            self.pending = (what, name, client.call_async(request), self._now() + CALL_TIMEOUT)
        elif not self.said_waiting and self._now() > WAIT_NOTE:
            self.said_waiting = True
            self.get_logger().warning(f'no {client.srv_name} service after {WAIT_NOTE:.0f} s: '
                                      'waiting for controller_manager')

    def on_timer(self) -> None:
        """Take the pending answer, or ask the list, or do the next step from it."""
        if self.up or self.refused:
            return
        if self.pending is None:
            self._call('list', '', self.srv['list'].Request())
            return
        what, name, future, deadline = self.pending
        if not future.done():
            if self._now() > deadline:
                self.get_logger().warning(f'{what} {name}: no answer within {CALL_TIMEOUT} '
                                          's; asking controller_manager where it stands')
                self.pending = None
            return
        self.pending = None
        response = future.result()
        if what == 'list':
            if response is not None:
                self._next({c.name: c.state for c in response.controller})
        elif response is None or not response.ok:
            self.refused = True
            self.get_logger().error(f'controller_manager refused to {what} {name} (its log '
                                    'says why); nothing more is started')

    def _next(self, states: dict[str, str]) -> None:
        """The next step for controller_manager's ``states`` ({name: state})."""
        for name in self.inactive + self.active:
            if name not in states:
                return self._call('load', name, self.srv['load'].Request(name=name))
            if states[name] == 'unconfigured':
                return self._call('configure', name,
                                  self.srv['configure'].Request(name=name))
        todo = [c for c in self.active if states.get(c) != 'active']
        if todo:
            request = self.srv['switch'].Request(activate_controllers=todo, strictness=2)
            return self._call('switch', ', '.join(todo), request)
        self.up = True
        self.get_logger().info(f'active: {", ".join(self.active) or "none"}; inactive: '
                               f'{", ".join(self.inactive) or "none"}')
        return None


def main(args=None):
    """Run until SIGINT / SIGTERM (the controllers stay as they are)."""
    return run_node(ControllerStarter, 'robodyn_controller_starter', args)


if __name__ == '__main__':
    raise SystemExit(main())
