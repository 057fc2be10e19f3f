"""The files robodyn_controllers' gtests read (robodyn_controllers/test/data/panda/), written
from robodyn_ros so that the C++ tests check what the Python side exports, and committed so
that `colcon test --packages-select robodyn_controllers` needs nothing written first:

  robot.urdf   the Panda's description with mock hardware
  good.yaml    the parameter file `robodyn export` writes for it; observer.yaml the same
               with the collision observer (reaction report); bad_<edit>.yaml one file per
               impossible edit (plugin_model_edits), each refused at configure;
               adaptive.yaml the export with the adaptive law
  state.txt    one line per quantity, its name then its values: Q the home pose [rad],
               GRAVITY g(Q) from robodyn_ros' dynamics [N m], UPPER the upper limits less
               reference_margin [rad], ACCELERATION the limits the node path derives
               [rad/s^2]

Regenerate after a change of the model, the export or the edits (test_gtests.py fails
until then): .venv/bin/python test/controllers/gtest_fixtures.py
"""

import copy
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
#: Where the committed fixtures live (the gtests' default folder).
DATA = os.path.join(ROOT, 'robodyn_controllers', 'test', 'data', 'panda')


def fixture_texts() -> dict[str, str]:
    """{file name: its text} of every fixture."""
    import numpy as np

    sys.path.insert(0, os.path.dirname(HERE))
    from plugin_model_edits import plugin_model_edits

    from robodyn_ros.control.controller_config import acceleration_limits
    from robodyn_ros.control.plugin_parameters import plugin_config, plugin_parameters
    from robodyn_ros.dynamics import RigidBodyDynamics
    from robodyn_ros.io.params_yaml import dump_parameters
    from robodyn_ros.model import load_robot
    from robodyn_ros.model.registry import PANDA_HOME
    from robodyn_ros.model.ros2_control_urdf import MOCK_SYSTEM, control_urdf
    model = load_robot('panda')
    texts = {'robot.urdf': control_urdf(model.xml, model, MOCK_SYSTEM)[0]}
    base = plugin_parameters(model, plugin_config({}))
    files = {'good': base, 'observer': copy.deepcopy(base),
             'adaptive': plugin_parameters(model, plugin_config({'mode': 'adaptive'}))}
    files['observer']['collision'] = {'thresholds': [1.0] * model.n, 'gain': 50.0,
                                      'debounce': 3, 'reaction': 'report'}
    for name, (edit, _) in plugin_model_edits().items():
        files[f'bad_{name}'] = copy.deepcopy(base)
        edit(files[f'bad_{name}'])
    import io
    for name, values in files.items():
        out = io.StringIO()
        dump_parameters({'/**': {'ros__parameters': values}}, out)
        texts[f'{name}.yaml'] = out.getvalue()
    q = np.array(PANDA_HOME)
    dynamics = RigidBodyDynamics(model)
    config = plugin_config({})
    state = {'Q': q, 'GRAVITY': dynamics.gravity_vector(q),
             'UPPER': model.upper - config.reference_margin,
             'ACCELERATION': acceleration_limits(model, config, dynamics.mass_matrix)}
    texts['state.txt'] = ''.join(
        f'{key} ' + ' '.join(repr(float(v)) for v in values) + '\n'
        for key, values in state.items())
    return texts


def write(folder: str = DATA) -> None:
    """Write every fixture into ``folder`` (and remove fixtures no longer written)."""
    os.makedirs(folder, exist_ok=True)
    texts = fixture_texts()
    for name in os.listdir(folder):
        if name not in texts:
            os.remove(os.path.join(folder, name))
    for name, text in texts.items():
        with open(os.path.join(folder, name), 'w', encoding='utf-8') as handle:
            handle.write(text)


if __name__ == '__main__':
    write()
    print(f'gtest fixtures written to {DATA}')
