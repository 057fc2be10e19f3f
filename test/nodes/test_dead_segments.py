"""dds_transport.remove_dead_segments: the Fast DDS files no process maps (their process
died) go with their lock file and the port's mutex; a file this process maps, and a young
one, stay."""

import mmap
import os
import time

from robodyn_ros.nodes.dds_transport import remove_dead_segments


def _files(folder, name, el=True):
    paths = [name, f'sem.{name}_mutex'] + ([f'{name}_el'] if el else [])
    for path in paths:
        (folder / path).write_bytes(b'\0' * 4096)
    old = time.time() - 60.0
    for path in paths:
        os.utime(folder / path, (old, old))


def test_only_unmapped_old_files_go(tmp_path):
    _files(tmp_path, 'fastdds_port7413', el=False)  # a port its dead listener left
    _files(tmp_path, 'fastdds_0123456789abcdef')  # its process died
    _files(tmp_path, 'fastdds_aaaaaaaaaaaaaaaa')  # alive: mapped below
    (tmp_path / 'fastdds_fedcba9876543210').write_bytes(b'\0' * 4096)  # young: starting
    with open(tmp_path / 'fastdds_aaaaaaaaaaaaaaaa', 'r+b') as handle:
        view = mmap.mmap(handle.fileno(), 4096)
        try:
            assert remove_dead_segments(str(tmp_path)) == 5
        finally:
            view.close()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ['fastdds_aaaaaaaaaaaaaaaa', 'fastdds_aaaaaaaaaaaaaaaa_el',
                    'fastdds_fedcba9876543210', 'sem.fastdds_aaaaaaaaaaaaaaaa_mutex']
