"""The wrench at the tool that explains an external joint torque, when the contact is at the
tool: tau_ext = J(q)^T w, solved by least squares.

J is the geometric Jacobian of the tip_link origin in the base_link frame
(:mod:`.tool_point`: joint k turns about its axis z_k through o_k, column
[z_k x (p_tip - o_k); z_k], or [z_k; 0] for a prismatic joint). The wrench w = [f; m] is
in the base_link frame, the moment about the tip_link origin. With fewer than six joints,
or near a singularity, some wrench directions leave no trace in the joint torques: the
condition number of J says how far to trust the estimate (the residual's error is
amplified up to that many times).
"""

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..model.kinematics import check_vector
from ..model.robot_model import RobotModel
from .tool_point import tool_jacobian

__all__ = ['ToolWrench', 'tool_jacobian', 'tool_wrench']


class ToolWrench(NamedTuple):
    """wrench: (6,) [N, N m], force then moment, base_link frame, about the tip origin;
    condition: the condition number of J (inf when J loses rank); explained: the joint
    torque J^T w reproduces [N m], the rest of tau_ext is not a wrench at the tool."""

    wrench: np.ndarray
    condition: float
    explained: np.ndarray


def tool_wrench(model: RobotModel, q: ArrayLike, tau_ext: ArrayLike) -> ToolWrench:
    """Least-squares wrench at the tool for the external joint torque ``tau_ext``: tau_ext
    = J^T w, the virtual-work map of seed 000 eqs. (23)-(24)'s Jacobian."""
    jac = tool_jacobian(model, q)
    tau = check_vector(tau_ext, model.n, 'tau_ext')
    wrench, *_ = np.linalg.lstsq(jac.T, tau, rcond=None)
    singular = np.linalg.svd(jac, compute_uv=False)
    condition = float(singular[0] / singular[-1]) if singular[-1] > 1e-12 * singular[0] \
        else float('inf')
    return ToolWrench(wrench, condition, jac.T @ wrench)
