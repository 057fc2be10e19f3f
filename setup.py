"""ament_python setup for robodyn_ros."""

from glob import glob
import os
import subprocess
import sys

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py
from setuptools.command.install import install
from setuptools.command.install_lib import install_lib

package_name = 'robodyn_ros'


class BuildPy(build_py):
    """build_py without byte-compiling when the interpreter may not write bytecode (colcon
    sets PYTHONDONTWRITEBYTECODE): setuptools would say so on stderr for every build."""

    def byte_compile(self, files):
        if not sys.dont_write_bytecode:
            super().byte_compile(files)


class InstallLib(install_lib):
    """install_lib without byte-compiling when bytecode may not be written (see BuildPy)."""

    def byte_compile(self, files):
        if not sys.dont_write_bytecode:
            super().byte_compile(files)


class InstallAndCompile(install):
    """install, then fill the installed copy's numba cache (robodyn_ros.control.kernel_cache):
    the first configure after ``colcon build`` then loads the kernels instead of compiling
    them for seconds. A failure leaves a cold cache, never a failed install."""

    def run(self):
        super().run()
        if os.environ.get('ROBODYN_SKIP_KERNEL_CACHE'):
            return
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [self.install_lib] + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep)
                                  if p]))
        out = subprocess.run([sys.executable, '-m', 'robodyn_ros.control.kernel_cache'],
                             cwd=self.install_lib, env=env, capture_output=True, text=True)
        lines = (out.stdout or out.stderr).strip().splitlines()
        print(lines[-1] if lines else 'kernel cache: no output', flush=True)


def share(folder, pattern):
    """data_files entry installing folder/pattern into share/robodyn_ros/folder."""
    return (os.path.join('share', package_name, folder), sorted(glob(os.path.join(folder,
                                                                                  pattern))))


setup(
    name=package_name,
    version='0.1.0',
    # robodyn_testing (the fault campaign, its probe and witness) is a checkout's, not the
    # product's: an install carries no test tooling
    packages=find_packages(exclude=['test', 'test.*', 'robodyn_testing', 'robodyn_testing.*']),
    package_data={package_name: ['py.typed', 'nodes/fastdds_loopback.xml']},
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
    cmdclass={'install': InstallAndCompile, 'build_py': BuildPy, 'install_lib': InstallLib},
    entry_points={
        'console_scripts': [
            'robodyn = robodyn_ros.cli:main',
            'controller = robodyn_ros.nodes.controller_main:main',
            'sim = robodyn_ros.nodes.sim_node:main',
            'recorder = robodyn_ros.nodes.recorder:main',
            'jtc_feedforward = robodyn_ros.nodes.feedforward_node:main',
            'describe = robodyn_ros.nodes.description_publisher:main',
            'physics_gate = robodyn_ros.nodes.physics_gate:main',
            'controller_starter = robodyn_ros.nodes.controller_starter:main',
            'reference_sender = robodyn_ros.nodes.reference_sender:main',
            'controller_statistics = robodyn_ros.nodes.controller_statistics:main',
            'save_payload = robodyn_ros.nodes.save_payload:main',
        ],
    },
)
