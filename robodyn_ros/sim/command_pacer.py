"""When a free-running simulator waits for its controller: simulated time pauses rather
than the arm running on a stale command.

Why: the simulator node steps on the wall clock, and its controller is another process.
On a loaded machine the controller can be descheduled for tens of milliseconds while the
simulator steps on, applying one old torque open loop; a computed-torque loop with a
crossover near 40 rad/s loses its phase margin at about 30 ms of such delay, and the arm
runs into the velocity guard. A simulator that is synchronous with its controller (Gazebo
and MuJoCo with ros2_control step the controller inside the physics step) makes the result
a property of the controller, not of the machine's speed. This pacer gives the free-running
node the same property, bounded: it steps at most ``max_ahead`` steps past the last command,
then waits for the next one, and resumes free running after ``timeout`` seconds of wall time
without one (a state the controller never received, a controller that stopped), until a
command arrives again. Pure: no ROS, no clock of its own.
"""

__all__ = ['CommandPacer']


class CommandPacer:
    """Decides, at each tick of the simulator's wall-clock timer, whether it steps.

    Args:
        max_ahead: steps the simulator may take past the last command (0: never wait).
        timeout: wall time [s] a wait lasts at most before free running resumes.

    Attributes:
        waits: ticks skipped waiting for a command.
        timeouts: waits that ended without a command.
        longest: longest wait [s] that a command ended.
    """

    def __init__(self, max_ahead: int, timeout: float):
        if not isinstance(max_ahead, int) or not 0 <= max_ahead <= 1000:
            raise ValueError(f'wait_for_command: {max_ahead!r} is not a whole number of '
                             'steps in [0, 1000] (0: never wait)')
        if not 1e-3 <= timeout <= 1.0:
            raise ValueError(f'command_wait_timeout: {timeout!r} s is outside [0.001, 1] s')
        self.max_ahead, self.timeout = max_ahead, float(timeout)
        self.ahead = 0
        self.armed = False  # a command arrived since the last wait timed out
        self.waiting_since: float | None = None
        self.waits = self.timeouts = 0
        self.longest = 0.0

    def on_command(self, now: float) -> None:
        """A command arrived at wall time ``now`` [s]."""
        if self.waiting_since is not None:
            self.longest = max(self.longest, now - self.waiting_since)
        self.ahead, self.armed, self.waiting_since = 0, True, None

    def may_step(self, now: float) -> bool:
        """True when the simulator steps at this tick (wall time ``now`` [s])."""
        if not self.armed or self.max_ahead == 0 or self.ahead < self.max_ahead:
            self.ahead += 1
            return True
        if self.waiting_since is None:
            self.waiting_since = now
        if now - self.waiting_since < self.timeout:
            self.waits += 1
            return False
        self.armed, self.waiting_since = False, None
        self.timeouts += 1
        self.ahead += 1
        return True

    def summary(self) -> str:
        """One line for the log: how often and how long the simulator waited."""
        return (f'waited for the controller at {self.waits} ticks (longest '
                f'{self.longest * 1e3:.1f} ms), {self.timeouts} waits timed out')
