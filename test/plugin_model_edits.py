"""Edits of the model file `robodyn export` writes for the Panda, one field at a time, that
the C++ controller must refuse at configure: loaded into a real controller_manager
(test/launch/test_plugin_model_files.py) and into the controller alone
(robodyn_controllers/test/test_computed_torque_controller.cpp through
test/controllers/test_gtests.py)."""

import math

#: The Panda's joints, in chain order.
J = [f'panda_joint{i}' for i in range(1, 8)]


def plugin_model_edits():
    """{controller name: (edit of the exported values, text the refusal must contain)}."""
    from robodyn_ros.control.plugin_parameters import plugin_config, plugin_parameters
    from robodyn_ros.model import load_robot
    ur5 = plugin_parameters(load_robot('ur5'), plugin_config({}))

    def row(joint, field, value):
        return lambda v: v['model'][joint].__setitem__(field, value)

    def ur5_rows(v):
        for panda, ur in zip(J, ur5['joints']):
            v['model'][panda]['dh'] = ur5['model'][ur]['dh']

    def nan_inertia(v):
        v['model'][J[3]]['inertia'] = [math.nan] + v['model'][J[3]]['inertia'][1:]

    return {
        'effort_inf': (row(J[0], 'effort_limit', math.inf), f'model.{J[0]}.effort_limit'),
        'position_inf': (row(J[1], 'position_limits', [-math.inf, math.inf]),
                         f'model.{J[1]}.position_limits'),
        'gravity_huge': (lambda v: v.__setitem__('gravity', [0.0, 0.0, -1e300]), 'gravity'),
        'mass_huge': (row(J[2], 'mass', 1e6), f'model.{J[2]}.mass'),
        'velocity_above_urdf': (row(J[4], 'velocity_limit', 50.0),
                                f'model.{J[4]}.velocity_limit'),
        'ur5_rows': (ur5_rows, 'do not reproduce the robot_description'),
        'nan_inertia': (nan_inertia, f'model.{J[3]}.inertia[0]: not finite (joint 4'),
        'inertia_huge': (row(J[5], 'inertia', [1e4, 0.0, 0.0, 1e4, 0.0, 1e4]),
                         f'model.{J[5]}.inertia'),
        'base_not_a_rotation': (
            lambda v: v.__setitem__('base_rotation', [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
                                                      1.1]),
            'base_rotation: not a rotation'),
        'tool_far': (lambda v: v.__setitem__('tool_point', [0.0, 0.0, 50.0]),
                     "tool_point: 50.000000 m from DH frame 7, beyond the arm's reach"),
    }
