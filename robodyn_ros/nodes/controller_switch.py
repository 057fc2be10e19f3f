"""The forward effort controller switched off when the robodyn node lets go of the arm, and
on again when it takes it: controller_manager's switch_controller, called without waiting
(a lifecycle transition runs in the executor that would deliver the answer).

Why: the forward controller keeps applying the last message it got. After a deactivate
that is the final safe command, g(q) at the release position, held with no damping and no
position term for as long as nobody sends another: a moving arm coasts on. Switched off,
its joints are the hardware's again, and hardware that holds unclaimed joints
(robodyn_controllers/MujocoLockstepSystem; a real arm's driver, see docs/real_arm.md)
holds the arm where it is.
"""

__all__ = ['ControllerSwitch', 'SWITCH_SERVICE']

SWITCH_SERVICE = '/controller_manager/switch_controller'


class ControllerSwitch:
    """Switches ``name`` off (``release``) and on (``claim``) through ``node``'s client of
    controller_manager; the outcome of each request is logged and kept in ``note`` (the
    node's /diagnostics show it)."""

    def __init__(self, node, name: str):
        from controller_manager_msgs.srv import SwitchController
        self.name = name
        self.logger = node.get_logger()
        self.note = ''
        self.request_type = SwitchController
        self.client = node.create_client(SwitchController, SWITCH_SERVICE)

    def release(self) -> None:
        """Switch the controller off: the hardware holds its joints from here."""
        self._switch([], [self.name], 'switched off: the hardware holds the arm')

    def claim(self) -> None:
        """Switch the controller on again (it applies the node's commands)."""
        self._switch([self.name], [], 'switched on: it applies the commands')

    def _switch(self, activate, deactivate, what):
        if not self.client.service_is_ready():
            self.said(f'{self.name} not {what.split(":")[0]}: {SWITCH_SERVICE} is not '
                      'available', False)
            return
        request = self.request_type.Request(
            activate_controllers=activate, deactivate_controllers=deactivate,
            strictness=self.request_type.Request.BEST_EFFORT)
        future = self.client.call_async(request)
        future.add_done_callback(lambda done: self._answered(done, what))

    def said(self, text: str, ok: bool) -> None:
        """One outcome: logged (INFO, or ERROR when the switch failed) and kept."""
        self.note = text
        (self.logger.info if ok else self.logger.error)(text)

    def _answered(self, future, what):
        try:
            ok = bool(future.result() and future.result().ok)
        except Exception as exc:  # noqa: BLE001 - said, never raised into the executor
            self.said(f'{self.name}: switch failed: {exc}', False)
            return
        self.said(f'{self.name} {what}' if ok else
                  f'{self.name}: controller_manager refused the switch', ok)
