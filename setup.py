"""ament_python setup for robodyn_ros."""

from glob import glob
import os

from setuptools import find_packages, setup

package_name = 'robodyn_ros'


def share(folder, pattern):
    """data_files entry installing folder/pattern into share/robodyn_ros/folder."""
    return (os.path.join('share', package_name, folder), sorted(glob(os.path.join(folder,
                                                                                  pattern))))


setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    package_data={package_name: ['py.typed']},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        share('launch', '*.launch.py'),
        share('config', '*.yaml'),
        share('urdf', '*.urdf'),
    ],
    install_requires=['setuptools', 'numpy', 'pyyaml'],
    zip_safe=False,
    maintainer='robodyn_ros maintainers',
    maintainer_email='robodyn@example.com',
    description='Computed-torque dynamics for ROS 2 arms: URDF -> DH -> M, C, g.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'robodyn = robodyn_ros.cli:main',
            'controller = robodyn_ros.nodes.controller:main',
            'sim = robodyn_ros.nodes.sim_node:main',
            'recorder = robodyn_ros.nodes.recorder:main',
            'jtc_feedforward = robodyn_ros.nodes.feedforward_node:main',
            'describe = robodyn_ros.nodes.description_publisher:main',
            'physics_gate = robodyn_ros.nodes.physics_gate:main',
        ],
    },
)
