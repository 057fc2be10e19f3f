"""The tool's pose error to the tool pose of the joint reference (``robodyn validate
--task-space``): the tracking error in task space, cycle by cycle.

Why beside the joint error: a task-space law (cartesian_impedance, operational_space) is
built to put the tool where the reference's tool is, not each joint where the reference's
joint is (a redundant arm's elbow is free in the nullspace); and a figure the tool draws
(control/reference/figures.py) is a joint trajectory whose tool lies on the figure to
1e-12 m, so this error is the tool's error to the figure.

Each state is paired with the reference message of its header stamp, within
PAIRING_TOLERANCE (both paths publish ``~/reference`` stamped with the cycle of the state
it answers; a reference of another cycle is never its pair); both poses by forward
kinematics through the DH table (seed 000 eqs. 23-24's frames), in the base link frame.
Per axis: position [mm], orientation [mrad] (the rotation vector of R_ref R_tool^T).
Memory is bounded: a message waits for its pair at most PAIRING_WINDOW of stamps.
"""

import bisect
from dataclasses import dataclass, field
import os

import numpy as np

from ..defaults import REFERENCE_TOPIC
from ..errors import BagError
from ..io.bag_reader import BagReader
from ..model.robot_model import RobotModel
from .report_schema import ValidationReport

__all__ = ['PAIRING_TOLERANCE', 'PAIRING_WINDOW', 'ToolTracking', 'add_tool_tracking',
           'scan_tool_tracking', 'task_space_modes', 'tool_tracking_lines']

#: A state or reference without its pair within this many seconds of stamps is dropped
#: (counted as unpaired) [s].
PAIRING_WINDOW = 1.0
#: Stamps this close [s] are one cycle's: on the default path joint_state_broadcaster and
#: the controller read the clock apart (10-30 us on the MuJoCo hardware); at 1 kHz the next
#: cycle is 1e-3 away.
PAIRING_TOLERANCE = 2e-4


@dataclass
class ToolTracking:
    """The tool against the reference's tool, per axis of the base link frame."""

    samples: int = 0  # paired states
    unpaired: int = 0  # states without a reference of their stamp
    position_rms: np.ndarray = field(default_factory=lambda: np.zeros(3))  # [mm]
    position_max: np.ndarray = field(default_factory=lambda: np.zeros(3))  # |e| [mm]
    orientation_rms: np.ndarray = field(default_factory=lambda: np.zeros(3))  # [mrad]
    orientation_max: np.ndarray = field(default_factory=lambda: np.zeros(3))  # [mrad]
    distance_rms: float = 0.0  # RMS of |p_ref - p| [mm]


def task_space_modes() -> tuple[str, ...]:
    """The modes whose law acts at the tool (a bag of theirs is judged in task space too)."""
    from ..control.laws import LAWS
    from ..control.laws.cartesian_impedance import TipFrameLaw
    return tuple(name for name, law in LAWS.items() if isinstance(law, TipFrameLaw))


class _Poses:
    """The tool pose (point, rotation; base link frame) of joint positions."""

    def __init__(self, model: RobotModel):
        from ..dynamics import RigidBodyDynamics
        from ..dynamics.recursive.tip_frame import TipFrame
        self.frame, self.base = TipFrame(RigidBodyDynamics(model)), \
            model.dh_table('standard').base

    def __call__(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, rotation, point = self.frame.at(q)
        r = self.base[:3, :3]
        return r @ point + self.base[:3, 3], r @ rotation


def scan_tool_tracking(bag_path: str | os.PathLike, model: RobotModel,
                       state_topic: str = '/joint_states',
                       reference_topic: str = REFERENCE_TOPIC) -> ToolTracking:
    """The tool's error to the reference's tool over the bag (module docstring).

    Raises:
        BagError: the bag lacks either topic, or no state has a reference of its stamp.
    """
    from .contacts import _StateOrder
    from .task_space import _pose_error
    poses = _Poses(model)
    orders = {state_topic: _StateOrder(model, state_topic, need_velocity=False),
              reference_topic: _StateOrder(model, reference_topic, need_velocity=False)}
    waiting = {state_topic: _Pending(), reference_topic: _Pending()}
    errors, scan = [], ToolTracking()
    with BagReader(bag_path) as bag:
        bag.require(state_topic, 'state')
        bag.require(reference_topic, 'reference')
        for topic, _, _, raw in bag.messages([state_topic, reference_topic]):
            stamp, q, _, _ = orders[topic](raw)
            other = reference_topic if topic == state_topic else state_topic
            pair = waiting[other].pop_near(stamp)
            if pair is None:
                waiting[topic].add(stamp, q)
                scan.unpaired += waiting[state_topic].forget(stamp - PAIRING_WINDOW)
                waiting[reference_topic].forget(stamp - PAIRING_WINDOW)
                continue
            state, ref = (q, pair) if topic == state_topic else (pair, q)
            point, rotation = poses(state)
            errors.append(_pose_error(poses(ref), rotation, point))
    scan.unpaired += len(waiting[state_topic].stamps)
    if not errors:
        raise BagError(f"{reference_topic}: no reference of a state's stamp on "
                       f'{state_topic}: nothing to judge in task space')
    every = np.array(errors)
    scan.samples = len(every)
    scan.position_rms = np.sqrt(np.mean(every[:, :3] ** 2, axis=0)) * 1e3
    scan.position_max = np.max(np.abs(every[:, :3]), axis=0) * 1e3
    scan.orientation_rms = np.sqrt(np.mean(every[:, 3:] ** 2, axis=0)) * 1e3
    scan.orientation_max = np.max(np.abs(every[:, 3:]), axis=0) * 1e3
    scan.distance_rms = float(np.sqrt(np.mean(np.sum(every[:, :3] ** 2, axis=1)))) * 1e3
    return scan


class _Pending:
    """Messages waiting for their pair, sorted by stamp (they arrive nearly in order)."""

    def __init__(self):
        self.stamps: list[float] = []
        self.values: list[np.ndarray] = []

    def add(self, stamp: float, q: np.ndarray) -> None:
        k = bisect.bisect(self.stamps, stamp)
        self.stamps.insert(k, stamp)
        self.values.insert(k, q)

    def pop_near(self, stamp: float) -> np.ndarray | None:
        """The waiting message within PAIRING_TOLERANCE of ``stamp`` (removed), or None."""
        k = bisect.bisect(self.stamps, stamp)
        for i in (k - 1, k):
            if 0 <= i < len(self.stamps) and abs(self.stamps[i] - stamp) <= PAIRING_TOLERANCE:
                del self.stamps[i]
                return self.values.pop(i)
        return None

    def forget(self, before: float) -> int:
        """Drop the messages stamped before ``before`` [s]; how many."""
        k = bisect.bisect_left(self.stamps, before)
        del self.stamps[:k], self.values[:k]
        return k


def add_tool_tracking(report: ValidationReport, scan: ToolTracking,
                      max_position: float | None, max_orientation: float | None) -> None:
    """Put the scan in ``report['tool_tracking']``; a per-axis RMS over ``max_position``
    [mm] or ``max_orientation`` [mrad] fails the run (None: reported, not judged)."""
    from .task_space import judge_pose_errors, pose_errors
    report['tool_tracking'] = {'samples': scan.samples, 'unpaired': scan.unpaired,
                               'distance_rms_mm': scan.distance_rms,
                               **pose_errors(scan, max_position, max_orientation)}
    judge_pose_errors(report, scan, max_position, max_orientation, "the reference's tool",
                      f'{scan.samples} states')


def tool_tracking_lines(summary: dict) -> list[str]:
    """The report's markdown lines of ``report['tool_tracking']``."""
    lines = ['', f"Tool pose to the reference's tool pose (base link frame; "
             f"{summary['samples']} states, {summary['unpaired']} without a reference of "
             f"their stamp; distance RMS {summary['distance_rms_mm']:.3f} mm):", '',
             '| axis | position RMS [mm] | max [mm] | orientation RMS [mrad] | max [mrad] |',
             '|---|---|---|---|---|']
    for k, axis in enumerate(('x', 'y', 'z')):
        lines.append(f"| {axis} | {summary['position_rms_mm'][k]:.3f} | "
                     f"{summary['position_max_mm'][k]:.3f} | "
                     f"{summary['orientation_rms_mrad'][k]:.3f} | "
                     f"{summary['orientation_max_mrad'][k]:.3f} |")
    return lines
