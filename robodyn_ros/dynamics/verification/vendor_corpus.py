"""Load vendors' own ROS 2 description packages with robodyn and report, per robot: DH
rows using Hayati's beta, loading warnings, DH FK against the URDF's, and M, g, ID against
Pinocchio (or the one-line refusal).

The packages come from their public repositories as bare git directories (``--mirror
NAME=PATH``, e.g. from ``git clone --bare``); each package folder is exported without its
meshes into a temporary ament prefix, so the vendors' xacros run with their ``$(find ...)``
exactly as under ROS. ``robodyn vendors`` prints the Markdown table (docs/descriptions.md
has the last one):

    robodyn vendors --mirror xarm_ros2=/path/xarm_ros2.git ...
"""

from collections.abc import Iterator
import os
from pathlib import Path
import re
import subprocess
import tempfile

import numpy as np

from ...errors import InputError, RobodynError
from ...model import load_robot
from ..rigid_body_dynamics import RigidBodyDynamics
from .pinocchio_chain import PinocchioChain

__all__ = ['PACKAGES', 'ROBOTS', 'export', 'measure', 'vendor_table']

#: The packages each repository provides: {repository: [(folder in it, package name)]}.
PACKAGES = {
    'xarm_ros2': [('xarm_description', 'xarm_description'),
                  ('xarm_controller', 'xarm_controller')],
    'franka_description': [('', 'franka_description')],
    'Universal_Robots_ROS2_Description': [('', 'ur_description')],
    'lbr_fri_ros2_stack': [('lbr_description', 'lbr_description'),
                           ('lbr_ros2_control', 'lbr_ros2_control')],
    'ros2_kortex': [('kortex_description', 'kortex_description')],
    'doosan-robot2': [('dsr_description2', 'dsr_description2'),
                      ('dsr_control2', 'dsr_control2')],
    'interbotix_ros_manipulators': [
        ('interbotix_ros_xsarms/interbotix_xsarm_descriptions', 'interbotix_xsarm_descriptions')],
    'DOBOT_6Axis_ROS2_V4': [('cra_description', 'cra_description'),
                            ('cr5_moveit', 'cr5_moveit'), ('cr10_moveit', 'cr10_moveit')],
    'mycobot_ros2': [('mycobot_description', 'mycobot_description')],
    'SO-ARM100': [('Simulation/SO101', 'so101_description'),
                  ('Simulation/SO100', 'so100_description')],
}
#: (label, repository, package, xacro in the package, xacro arguments, base, tip).
ROBOTS = [
    ('Lite 6', 'xarm_ros2', 'xarm_description', 'urdf/xarm_device.urdf.xacro',
     ['robot_type:=lite', 'dof:=6'], None, 'link6'),
    ('xArm6', 'xarm_ros2', 'xarm_description', 'urdf/xarm_device.urdf.xacro',
     ['robot_type:=xarm', 'dof:=6'], None, 'link6'),
    ('xArm7', 'xarm_ros2', 'xarm_description', 'urdf/xarm_device.urdf.xacro',
     ['robot_type:=xarm', 'dof:=7'], None, 'link7'),
    ('FER (Panda)', 'franka_description', 'franka_description', 'robots/fer/fer.urdf.xacro',
     ['hand:=false'], None, 'fer_link8'),
    ('FR3', 'franka_description', 'franka_description', 'robots/fr3/fr3.urdf.xacro',
     ['hand:=false'], None, 'fr3_link8'),
    *[(f'{t.upper()}', 'Universal_Robots_ROS2_Description', 'ur_description',
       'urdf/ur.urdf.xacro', [f'ur_type:={t}', 'name:=ur'], 'base', 'tool0')
      for t in ('ur3e', 'ur5e', 'ur10e', 'ur16e', 'ur20', 'ur30')],
    *[(f'KUKA {r}', 'lbr_fri_ros2_stack', 'lbr_description', f'urdf/{r}/{r}.xacro', [],
       None, 'lbr_link_ee') for r in ('iiwa7', 'iiwa14', 'med7', 'med14')],
    ('Kinova Gen3 7-DOF', 'ros2_kortex', 'kortex_description', 'robots/gen3.xacro',
     ['dof:=7'], None, 'end_effector_link'),
    ('Kinova Gen3 6-DOF', 'ros2_kortex', 'kortex_description', 'robots/gen3.xacro',
     ['dof:=6'], None, 'end_effector_link'),
    ('Doosan M1013', 'doosan-robot2', 'dsr_description2', 'xacro/m1013.urdf.xacro', [],
     None, 'link6'),
    ('Doosan M0609', 'doosan-robot2', 'dsr_description2', 'xacro/m0609.urdf.xacro', [],
     None, 'link6'),
    ('Interbotix WX250s', 'interbotix_ros_manipulators', 'interbotix_xsarm_descriptions',
     'urdf/wx250s.urdf.xacro', ['use_gripper:=true'], None, 'wx250s/ee_gripper_link'),
    # Chosen for what the seven above lack: exporters' effort="0" (Dobot), no <inertial>
    # at all (myCobot), hobby arms rounded to 1.5708 with nearly intersecting axes (SO).
    *[(f'Dobot {r.upper()}', 'DOBOT_6Axis_ROS2_V4', 'cra_description',
       f'urdf/{r}_robot.xacro', [], None, 'Link6') for r in ('cr5', 'cr10')],
    ('myCobot 280 M5', 'mycobot_ros2', 'mycobot_description',
     'urdf/mycobot_280_m5/mycobot_280_m5.urdf', [], None, 'joint6_flange'),
    ('myCobot 320 M5', 'mycobot_ros2', 'mycobot_description',
     'urdf/mycobot_320_m5_2022/mycobot_320_m5_2022.urdf', [], None, None),
    ('LeRobot SO-101', 'SO-ARM100', 'so101_description', 'so101_new_calib.urdf', [], None,
     'gripper_link'),
    ('LeRobot SO-100', 'SO-ARM100', 'so100_description', 'so100.urdf', [], None,
     'gripper'),
]


def export(mirror: str, folder: str, package: str, prefix: Path) -> None:
    """The package folder of a bare repository as share/<package>: every file but meshes
    (a snapshot may lack its largest files)."""
    share = prefix / 'share' / package
    listing = subprocess.run(['git', '--git-dir', mirror, 'ls-tree', '-r', 'HEAD', '--',
                              folder or '.'], check=True, capture_output=True,
                             text=True).stdout
    for line in listing.splitlines():
        meta, path = line.split('\t', 1)
        if meta.split()[1] != 'blob' or '/meshes/' in f'/{path}':
            continue
        blob = subprocess.run(['git', '--git-dir', mirror, 'cat-file', 'blob',
                               meta.split()[2]], capture_output=True)
        if blob.returncode:
            continue
        target = share / (path[len(folder) + 1:] if folder else path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)
    index = prefix / 'share' / 'ament_index' / 'resource_index' / 'packages'
    index.mkdir(parents=True, exist_ok=True)
    (index / package).touch()


def measure(path: str, args: list[str], base: str | None, tip: str | None) -> dict:
    """One robot: dict of the measured figures, or the refusal's line."""
    try:  # as the command-line tools load: effort limits and inertials may be missing
        model = load_robot(path, base, tip, mappings=args, require_effort_limits=False,
                           require_inertials=False)
        table = model.dh_table()
    except RobodynError as exc:
        return {'refused': str(exc)}
    rng = np.random.default_rng(0)
    reach = 1.0 + sum(np.linalg.norm(j.origin[:3, 3]) for j in model.joints)
    if model.massless:  # kinematics only: the DH table, its FK against the URDF's
        fk = max(np.abs(table.fk(q) - model.fk(q))[:3].max() / reach
                 for q in rng.uniform(-2.0, 2.0, (20, model.n)))
        return {'n': model.n, 'hayati': [r.joint_name for r in table.rows if r.beta],
                'max_d': max(abs(r.d) for r in table.rows), 'fk': fk, 'M': None,
                'g': None, 'ID': None, 'warnings': list(model.warnings)}
    pin, dyn = PinocchioChain(model), RigidBodyDynamics(model)
    fk = m_err = g_err = id_err = 0.0
    for _ in range(20):
        q, qd, qdd = rng.uniform(-2.0, 2.0, (3, model.n))
        fk = max(fk, np.abs(table.fk(q) - model.fk(q))[:3].max() / reach)
        pm, _, pg = pin.terms(q, qd)
        m, _, g = dyn.terms(q, qd)
        m_err = max(m_err, np.abs(m - pm).max() / np.abs(pm).max())
        g_err = max(g_err, np.abs(g - pg).max() / max(np.abs(pg).max(), 1e-300))
        tau = pin.rnea(q, qd, qdd)
        id_err = max(id_err, np.abs(dyn.inverse_dynamics(q, qd, qdd) - tau).max()
                     / np.abs(tau).max())
    return {'n': model.n, 'hayati': [r.joint_name for r in table.rows if r.beta],
            'max_d': max(abs(r.d) for r in table.rows), 'fk': fk, 'M': m_err, 'g': g_err,
            'ID': id_err, 'warnings': list(model.warnings)}


def _notes(warnings):
    """The loading warnings, short enough for a table cell."""
    triangle = re.findall(r"link '([^']+)': inertia violates the triangle inequality by "
                          r'([\d.]+%)', ' '.join(warnings))
    notes = ['triangle inequality violated (warning): ' +
             '; '.join(f'`{link}` {pct}' for link, pct in triangle)] if triangle else []
    for text in warnings:
        if text.startswith('effort limits missing'):
            notes.append('effort limits missing or 0 (warning; the controller needs its '
                         '`effort_limits`)')
        elif text.startswith('no <inertial>'):
            notes.append('no inertials: DH table and kinematics only (warning)')
    return '; '.join(notes)


def vendor_table(mirrors: dict[str, str]) -> Iterator[str]:
    """One Markdown row per ROBOTS entry (docs/descriptions.md's table): ``mirrors`` maps a
    repository name to its bare git directory; a robot whose repository is not given is a
    'skipped' row. Sets AMENT_PREFIX_PATH to the temporary prefix while it runs."""
    unknown = [name for name in mirrors if name not in PACKAGES]
    if unknown:
        raise InputError(f'no vendor repository {unknown[0]!r}; valid: {", ".join(PACKAGES)}')
    saved = os.environ.get('AMENT_PREFIX_PATH')
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp)
        for repo, packages in PACKAGES.items():
            for folder, package in packages if repo in mirrors else []:
                export(mirrors[repo], folder, package, prefix)
        try:
            os.environ['AMENT_PREFIX_PATH'] = str(prefix)
            for label, repo, package, xacro, xargs, base, tip in ROBOTS:
                if repo not in mirrors:
                    yield f'| {label} | {repo} | skipped: no --mirror {repo}=... | | | | |'
                    continue
                yield _row(label, repo, xacro, xargs,
                           measure(str(prefix / 'share' / package / xacro), xargs, base, tip))
        finally:
            if saved is None:
                os.environ.pop('AMENT_PREFIX_PATH', None)
            else:
                os.environ['AMENT_PREFIX_PATH'] = saved


def _row(label, repo, xacro, xargs, r):
    """A robot's Markdown row from measure()'s figures."""
    if 'refused' in r:
        return f'| {label} | {repo} | refused: {r["refused"]} | | | | |'
    dyn = [f'{r[k]:.1e}' if r[k] is not None else 'no inertials' for k in ('M', 'g', 'ID')]
    return (f'| {label} | {repo} `{xacro}` {" ".join(xargs)} | exact, {r["n"]} joints'
            f'{", beta on " + ", ".join(r["hayati"]) if r["hayati"] else ""} | '
            f'{r["max_d"]:.3f} | {r["fk"]:.1e} | {" | ".join(dyn)} | {_notes(r["warnings"])} |')
