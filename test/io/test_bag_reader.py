"""io.bag_reader: a folder that is not a bag is named as such, with what it lacks."""

import pytest

from robodyn_ros.errors import BagError
from robodyn_ros.io.bag_reader import BagReader


def test_a_folder_without_metadata_or_storage_says_what_it_lacks(tmp_path):
    (tmp_path / 'notes.md').write_text('not a bag')
    with pytest.raises(BagError, match='neither metadata.yaml nor an .mcap or .db3 file'):
        BagReader(tmp_path)


def test_a_missing_path_is_named(tmp_path):
    with pytest.raises(BagError, match='bag not found'):
        BagReader(tmp_path / 'nothing')
