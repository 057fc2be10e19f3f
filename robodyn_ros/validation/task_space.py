"""The tool's pose error to the pose targets of a bag (``robodyn validate --task-space``).

Why a pass of its own: a pose target is a goal the controller moves to within its speed
bounds (control/reference/pose_target.py), not a reference for every cycle, so the joint
tracking error says nothing of whether the tool reached it. Here each recorded state's tool
pose (forward kinematics of its positions through the DH table, seed 000 eqs. 23-24's
frames; the base link frame, as targets are given) is compared with the target in force
when it was recorded (bag receive times: a sender need not stamp its targets), from
``settle`` seconds after that target was first received until ARRIVAL before the next
different target: the transit in between is the follower's bounded motion, not an error.

Errors per axis of the base link frame: position [mm], orientation [mrad] (the rotation
vector of R_target R_tool^T). Targets the controller refuses (not finite, another frame, not
a unit quaternion) are counted and not judged, and so are those it moved into its workspace
box (its /diagnostics ``target`` says 'clamped' after the target came): the tool then goes
to the box's wall, not to the point that was sent.
"""

from dataclasses import dataclass, field
import os

import numpy as np

from ..defaults import CONTROLLER_NAME, DIAGNOSTICS_TOPIC, TARGET_TOPIC
from ..errors import BagError
from ..io.bag_reader import BagReader
from ..model.robot_model import RobotModel
from .report_schema import ValidationReport

__all__ = ['ARRIVAL', 'SETTLE', 'TARGET_TOPIC', 'TaskSpaceScan', 'add_task_space',
           'scan_task_space']

#: Seconds after a new target before the tool is judged against it [s] (a 0.3 m jump at
#: the default 0.25 m/s and its acceleration takes about 1.5 s).
SETTLE = 2.0
#: States received this long before the next target are not judged against the one before
#: [s]: the recorder receives each topic in its own time, and under load a target reaches
#: the bag later than the states of the motion it started (35 mm judged against the old
#: target seen beside two CPU hogs).
ARRIVAL = 1.0
#: No workspace box: a target is judged where it was sent.
_UNBOUNDED = (-np.inf,) * 3 + (np.inf,) * 3


@dataclass
class TaskSpaceScan:
    """What the tool did against the bag's targets (errors in the base link frame)."""

    targets: int = 0  # distinct targets received
    refused: int = 0  # not judged: refused by the controller's checks
    clamped: int = 0  # not judged: moved into the workspace box by the controller
    judged_targets: int = 0  # with states in their settled window
    samples: int = 0  # states judged
    position_rms: np.ndarray = field(default_factory=lambda: np.zeros(3))  # [mm]
    position_max: np.ndarray = field(default_factory=lambda: np.zeros(3))  # |e| [mm]
    orientation_rms: np.ndarray = field(default_factory=lambda: np.zeros(3))  # [mrad]
    orientation_max: np.ndarray = field(default_factory=lambda: np.zeros(3))  # [mrad]


def scan_task_space(bag_path: str | os.PathLike, model: RobotModel,
                    state_topic: str = '/joint_states', target_topic: str = TARGET_TOPIC,
                    settle: float = SETTLE, until: float | None = None) -> TaskSpaceScan:
    """The tool's settled pose error to each target of ``target_topic`` (module docstring),
    over the messages received before ``until`` [s, the bag's clock] (None: all of them:
    a trajectory goal after the last target takes the arm away from it).

    Raises:
        BagError: the bag lacks the state or the target topic, or no state falls in a
            settled window (nothing to judge: said, not passed).
    """
    from ..dynamics import RigidBodyDynamics
    from ..dynamics.recursive.tip_frame import TipFrame
    from .contacts import _StateOrder
    frame, base = TipFrame(RigidBodyDynamics(model)), model.dh_table('standard').base
    order = _StateOrder(model, state_topic, need_velocity=False)
    scan, errors = TaskSpaceScan(), []  # type: tuple[TaskSpaceScan, list[list[tuple]]]
    target, since, clamped = None, 0.0, set()
    with BagReader(bag_path) as bag:
        bag.require(state_topic, 'state')
        bag.require(target_topic, 'pose target')
        topics = [state_topic, target_topic] + [DIAGNOSTICS_TOPIC] * (DIAGNOSTICS_TOPIC in
                                                                      bag.topics)
        for topic, msgtype, stamp, raw in bag.messages(topics):
            t = stamp * 1e-9
            if until is not None and t >= until:
                break
            if topic == DIAGNOSTICS_TOPIC:
                if errors and t > since and _said_clamped(bag.store.deserialize_cdr(
                        raw, msgtype)):
                    clamped.add(len(errors) - 1)
            elif topic == target_topic:
                pose = _target(bag.store.deserialize_cdr(raw, msgtype), model.base_link)
                if pose is None:
                    scan.refused += 1
                elif target is None or not _same(pose, target):
                    if errors:  # a recorder's topics arrive each in its own time
                        errors[-1] = [(s, e) for s, e in errors[-1] if s < t - ARRIVAL]
                    target, since = pose, t
                    scan.targets += 1
                    errors.append([])
            elif target is not None and t >= since + settle:
                _, q, _, _ = order(raw)
                _, rotation, point = frame.at(q)
                errors[-1].append((t, _pose_error(target, base[:3, :3] @ rotation,
                                                  base[:3, :3] @ point + base[:3, 3])))
    scan.clamped = len(clamped)
    judged = [np.array([e for _, e in w]) for k, w in enumerate(errors)
              if w and k not in clamped]
    if not judged:
        raise BagError(f'{target_topic}: no state {settle:g} s or more after a target: '
                       'nothing to judge in task space')
    every = np.concatenate(judged)
    scan.judged_targets, scan.samples = len(judged), len(every)
    scan.position_rms = np.sqrt(np.mean(every[:, :3] ** 2, axis=0)) * 1e3
    scan.position_max = np.max(np.abs(every[:, :3]), axis=0) * 1e3
    scan.orientation_rms = np.sqrt(np.mean(every[:, 3:] ** 2, axis=0)) * 1e3
    scan.orientation_max = np.max(np.abs(every[:, 3:]), axis=0) * 1e3
    return scan


def _target(msg, base_link: str):
    """(position (3,), rotation (3, 3)) in the base link frame of a PoseStamped the
    controller would take, else None: control/reference/pose_target.pose_target's own
    checks, without the box (validation does not know it)."""
    from ..control.reference.pose_target import pose_target
    from ..errors import InputError
    p, o = msg.pose.position, msg.pose.orientation
    try:
        target = pose_target((p.x, p.y, p.z), (o.x, o.y, o.z, o.w), msg.header.frame_id,
                             base_link, np.eye(4), _UNBOUNDED)
    except InputError:
        return None
    return target.position, target.rotation


def _said_clamped(msg) -> bool:
    """The controller's /diagnostics says its last target was put inside the box."""
    return any(kv.key == 'target' and kv.value.startswith('clamped')
               for status in msg.status if status.name == CONTROLLER_NAME
               for kv in status.values)


def _same(a, b) -> bool:
    return bool(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]))


def _pose_error(target, rotation: np.ndarray, point: np.ndarray) -> np.ndarray:
    """(6,) position [m] and rotation vector [rad] from the tool's pose to ``target``."""
    from ..control.laws.cartesian_kernel import rotation_vector_into
    out = np.empty(6)
    out[:3] = target[0] - point
    rotation_vector_into(np.ascontiguousarray(target[1] @ rotation.T), out[3:])
    return out


def add_task_space(report: ValidationReport, scan: TaskSpaceScan, max_position: float,
                   max_orientation: float) -> None:
    """Put the scan in ``report['task_space']``; a settled error over ``max_position`` [mm]
    or ``max_orientation`` [mrad] (the largest per-axis RMS) fails the run."""
    report['task_space'] = {
        'targets': scan.targets, 'refused': scan.refused, 'clamped': scan.clamped,
        'judged_targets': scan.judged_targets, 'samples': scan.samples, 'settle': SETTLE,
        **pose_errors(scan, max_position, max_orientation)}
    judge_pose_errors(report, scan, max_position, max_orientation, 'the targets',
                      f'{scan.samples} settled states of {scan.judged_targets} targets')


def pose_errors(scan, max_position: float | None, max_orientation: float | None) -> dict:
    """A scan's per-axis pose errors and its bounds as report values (mm, mrad)."""
    return {'position_rms_mm': scan.position_rms.tolist(),
            'position_max_mm': scan.position_max.tolist(),
            'orientation_rms_mrad': scan.orientation_rms.tolist(),
            'orientation_max_mrad': scan.orientation_max.tolist(),
            'max_position_mm': max_position, 'max_orientation_mrad': max_orientation}


def judge_pose_errors(report: ValidationReport, scan, max_position: float | None,
                      max_orientation: float | None, against: str, over: str) -> None:
    """Fail the run when the largest per-axis RMS of ``scan`` is over a bound (None:
    not judged); the failure names ``against`` what and ``over`` which states."""
    if max_position is None or max_orientation is None:
        return
    worst_p, worst_r = float(scan.position_rms.max()), float(scan.orientation_rms.max())
    if worst_p > max_position or worst_r > max_orientation:
        report['failures'].append(
            f'tool pose error to {against}: position RMS {worst_p:.3g} mm (max '
            f'{max_position:g}), orientation RMS {worst_r:.3g} mrad (max {max_orientation:g}) '
            f'over {over}')
        report['passed'] = False


def task_space_lines(summary: dict) -> list[str]:
    """The report's markdown lines of ``report['task_space']``."""
    axes = ('x', 'y', 'z')
    lines = ['', f"Tool pose to the targets (base link frame; {summary['samples']} states "
             f"from {summary['settle']:g} s after each of {summary['judged_targets']} "
             f"targets; not judged: {summary['refused']} refused, {summary['clamped']} "
             'clamped to the workspace box):', '',
             '| axis | position RMS [mm] | max [mm] | orientation RMS [mrad] | max [mrad] |',
             '|---|---|---|---|---|']
    for k, axis in enumerate(axes):
        lines.append(f"| {axis} | {summary['position_rms_mm'][k]:.3f} | "
                     f"{summary['position_max_mm'][k]:.3f} | "
                     f"{summary['orientation_rms_mrad'][k]:.3f} | "
                     f"{summary['orientation_max_mrad'][k]:.3f} |")
    return lines
