"""Every parameter file the package writes or ships is parsed by rcl itself (the parser
controller_manager and every node use), not only by PyYAML."""

from pathlib import Path

import pytest

from robodyn_ros.io import dump_parameters
from robodyn_ros.model import load_urdf
from robodyn_ros.model.ros2_control_urdf import controllers_config

ROOT = Path(__file__).resolve().parents[2]
ARM = ROOT / 'test' / 'data' / 'descriptions' / 'vendor_arm.urdf.xacro'


def _rcl_parses(path):
    """None when rcl accepts ``path`` as a --params-file, else its error."""
    rclpy = pytest.importorskip('rclpy', reason='rclpy (ROS 2 wheels) not installed')
    context = rclpy.Context()
    try:
        rclpy.init(args=['--ros-args', '--params-file', str(path)], context=context)
    except Exception as exc:  # noqa: BLE001 - rcl's error is the answer
        return str(exc)
    rclpy.shutdown(context=context)
    return None


def test_shared_lists_are_written_again_not_aliased(tmp_path):
    joints = ['a', 'b']
    text = dump_parameters({'x': {'ros__parameters': {'joints': joints}},
                            'y': {'ros__parameters': {'joints': joints}}})
    assert '&' not in text and '*' not in text
    path = tmp_path / 'p.yaml'
    path.write_text(text)
    assert _rcl_parses(path) is None
    import yaml
    aliased = tmp_path / 'aliased.yaml'
    aliased.write_text(yaml.safe_dump(yaml.safe_load(text) | {'z': {'ros__parameters': {
        'joints': joints}}, 'w': {'ros__parameters': {'joints': joints}}}))
    assert 'aliasing' in (_rcl_parses(aliased) or '')  # what the fix is for


def test_generated_controllers_yaml_loads_through_rcl(tmp_path):
    model = load_urdf(str(ARM), tip_link='tool0')
    path = tmp_path / 'controllers.yaml'
    with open(path, 'w', encoding='utf-8') as handle:
        dump_parameters(controllers_config(model, 1000), handle)
    assert _rcl_parses(path) is None


@pytest.mark.parametrize('path', sorted((ROOT / 'config').glob('*.yaml')), ids=lambda p: p.name)
def test_shipped_config_files_load_through_rcl(path):
    assert _rcl_parses(path) is None
