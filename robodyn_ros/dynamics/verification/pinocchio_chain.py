"""Pinocchio model of a RobotModel's chain: the independent reference implementation the
dynamics are checked against (offline by ``robodyn check``, online by the controller)."""

import numpy as np

from ...defaults import GRAVITY
from ...errors import ModelError

__all__ = ['PinocchioChain']


class PinocchioChain:
    """Pinocchio model of a RobotModel's chain: off-chain joints locked at the same values.

    Args:
        model: RobotModel.
        gravity: gravity in the base_link frame [m/s^2].
    """

    def __init__(self, model, gravity=GRAVITY):
        import pinocchio as pin
        self.pin = pin
        try:
            full = pin.buildModelFromXML(model.xml)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f'Pinocchio cannot read the URDF of {model.name!r}: {exc}') \
                from None
        chain = set(model.joint_names)
        q_ref = pin.neutral(full)
        lock = []
        for jid in range(1, full.njoints):
            name = full.names[jid]
            if name in chain:
                continue
            lock.append(jid)
            value = model.locked.get(name, 0.0)
            joint = full.joints[jid]
            if joint.nq == 2:
                q_ref[joint.idx_q:joint.idx_q + 2] = (np.cos(value), np.sin(value))
            elif joint.nq == 1:
                q_ref[joint.idx_q] = value
        _rename_clashing_joints(pin, full, lock)
        reduced = pin.buildReducedModel(full, lock, q_ref) if lock else full
        names = list(reduced.names)[1:]
        if names != list(model.joint_names):
            raise ModelError(f'Pinocchio chain {names} differs from {list(model.joint_names)}')
        self.model = reduced
        self.data = reduced.createData()
        base_id = reduced.getFrameId(model.base_link)
        pin.framesForwardKinematics(reduced, self.data, pin.neutral(reduced))
        rot = self.data.oMf[base_id].rotation
        reduced.gravity.linear = rot @ np.asarray(gravity, dtype=float)
        self.nq2 = [reduced.joints[j].nq == 2 for j in range(1, reduced.njoints)]

    def q(self, q):
        """Pinocchio configuration vector (continuous joints as cos, sin)."""
        out: list[float] = []
        for qi, two in zip(q, self.nq2):
            out.extend((np.cos(qi), np.sin(qi)) if two else (qi,))
        return np.array(out)

    def terms(self, q, qd):
        """(M, C, g) from crba, computeCoriolisMatrix and computeGeneralizedGravity."""
        pin, model, data = self.pin, self.model, self.data
        qp = self.q(q)
        mass = pin.crba(model, data, qp)
        mass = np.triu(mass) + np.triu(mass, 1).T
        cor = pin.computeCoriolisMatrix(model, data, qp, qd).copy()
        grav = pin.computeGeneralizedGravity(model, data, qp).copy()
        return mass.copy(), cor, grav

    def tool_motion(self, q, qd, tip_link, base_link):
        """(J, J̇ q̇) of the ``tip_link`` origin, axes of ``base_link`` (what seed 000 eqs.
        (23)-(24) give): Pinocchio's frame Jacobian and classical frame acceleration at
        q̈ = 0 (LOCAL_WORLD_ALIGNED, turned)."""
        pin, model, data = self.pin, self.model, self.data
        qp, frame = self.q(q), model.getFrameId(tip_link)
        pin.forwardKinematics(model, data, qp, qd, np.zeros(model.nv))
        pin.updateFramePlacements(model, data)
        rot = data.oMf[model.getFrameId(base_link)].rotation.T
        acc = pin.getFrameClassicalAcceleration(model, data, frame, pin.LOCAL_WORLD_ALIGNED)
        jac = np.asarray(pin.computeFrameJacobian(  # (6,) for one joint: as (6, 1)
            model, data, qp, frame, pin.LOCAL_WORLD_ALIGNED)).reshape(6, model.nv)
        return (np.vstack([rot @ jac[:3], rot @ jac[3:]]),
                np.concatenate([rot @ acc.linear, rot @ acc.angular]))

    def rnea(self, q, qd, qdd):
        """Inverse dynamics by Pinocchio's RNEA."""
        return self.pin.rnea(self.model, self.data, self.q(q), qd, qdd).copy()

    def aba(self, q, qd, tau):
        """Forward dynamics qdd = M^-1 (tau - C qd - g) by Pinocchio's ABA (no friction)."""
        return self.pin.aba(self.model, self.data, self.q(q), qd, tau).copy()


def _rename_clashing_joints(pin, full, joint_ids):
    """A joint to be locked that shares its name with a link (LeRobot's SO-100 has a joint
    and a link both called 'gripper') would make Pinocchio's buildReducedModel find two
    frames by that name: the joint and its frame are renamed (it is locked away anyway)."""
    links = {f.name for f in full.frames if f.type != pin.FrameType.JOINT}
    for jid in joint_ids:
        name = full.names[jid]
        if name not in links:
            continue
        full.names[jid] = f'{name}#joint'
        for frame in full.frames:
            if frame.type == pin.FrameType.JOINT and frame.parentJoint == jid:
                frame.name = f'{name}#joint'
