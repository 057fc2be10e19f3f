"""dds_transport.remove_dead_segments: the Fast DDS files of a process that died (their
`_el` lock free) are removed with the port's mutex, a live owner's (lock held) and a young
file are kept."""

import fcntl
import os
import time

from robodyn_ros.nodes.dds_transport import remove_dead_segments


def _files(folder, name):
    for path in (name, f'{name}_el', f'sem.{name}_mutex'):
        (folder / path).write_bytes(b'')
    old = time.time() - 60.0
    for path in (name, f'{name}_el'):
        os.utime(folder / path, (old, old))


def test_only_the_dead_owners_files_go(tmp_path):
    _files(tmp_path, 'fastdds_port7413')  # its process died
    _files(tmp_path, 'fastdds_0123456789abcdef')  # alive: its lock held below
    (tmp_path / 'fastdds_fedcba9876543210').write_bytes(b'')
    (tmp_path / 'fastdds_fedcba9876543210_el').write_bytes(b'')  # young: still starting
    live = os.open(tmp_path / 'fastdds_0123456789abcdef_el', os.O_RDONLY)
    fcntl.flock(live, fcntl.LOCK_EX)
    try:
        assert remove_dead_segments(str(tmp_path)) == 3
    finally:
        os.close(live)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ['fastdds_0123456789abcdef', 'fastdds_0123456789abcdef_el',
                    'fastdds_fedcba9876543210', 'fastdds_fedcba9876543210_el',
                    'sem.fastdds_0123456789abcdef_mutex']
