"""Where the package's data is (urdf/, config/, launch/).

* In the source tree (a checkout, also behind ``pip install -e``): the repository root,
  recognised by its package.xml beside the robodyn_ros package.
* Installed (``colcon build``, ``pip install``): ``<prefix>/share/robodyn_ros``, where
  ``<prefix>`` is the install prefix holding ``lib/pythonX.Y/site-packages/robodyn_ros``;
  else the ament index's share directory of robodyn_ros.
"""

import os
import sys

from .errors import ModelError

__all__ = ['share_dir']

PACKAGE = 'robodyn_ros'


def _installed_share(here):
    site = os.path.dirname(here)  # .../lib/pythonX.Y/site-packages
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(site)))
    return os.path.join(prefix, 'share', PACKAGE)


def share_dir():
    """The directory holding urdf/ and config/ (source tree or install share)."""
    here = os.path.dirname(os.path.abspath(__file__))
    source = os.path.dirname(here)
    if os.path.isfile(os.path.join(source, 'package.xml')) and \
            os.path.isdir(os.path.join(source, 'urdf')):
        return source
    candidates = [_installed_share(here), os.path.join(sys.prefix, 'share', PACKAGE)]
    try:
        from ament_index_python.packages import get_package_share_directory
        candidates.append(get_package_share_directory(PACKAGE))
    except Exception:  # noqa: BLE001 - no ament index or not registered: other candidates
        pass
    for path in candidates:
        if os.path.isdir(os.path.join(path, 'urdf')):
            return path
    raise ModelError(f'robodyn_ros data (urdf/, config/) not found; looked in '
                     f'{", ".join(candidates)}')
