"""robodyn_ros.io's package: its names are imported at first use, so that the controller's
process, which needs only the CDR codecs, does not import the bag reader and writer."""

from fresh_imports import imported_after
import pytest

import robodyn_ros.io as io


def test_the_controller_imports_no_bag_library():
    found = imported_after('import robodyn_ros.nodes.controller',
                           ('rosbags', 'ruamel', 'xml.sax', 'urllib.request'))
    assert found == [], found


@pytest.mark.parametrize('name', io.__all__)
def test_every_exported_name_is_its_modules(name):
    from importlib import import_module
    home = import_module(f'robodyn_ros.io.{io._HOMES[name]}')
    assert getattr(io, name) is getattr(home, name)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'BagWritter'"):
        io.BagWritter  # noqa: B018
