"""The command line's bad inputs for the fault campaign's command-line cases: each writes
one into a folder and returns its path."""


def damaged_bag(folder):
    """A recorded bag with 4 KB zeroed in the middle, as a disk error leaves it."""
    from pathlib import Path

    from robodyn_ros.io.synthetic_bags import write_tracking_bag
    bag = Path(folder) / 'bag'
    write_tracking_bag(bag, duration=2.0)
    mcap = next(bag.glob('*.mcap'))
    data = bytearray(mcap.read_bytes())
    middle = int(len(data) * 0.45)
    data[middle:middle + 4096] = bytes(4096)
    mcap.write_bytes(bytes(data))
    return str(bag)


def foreign_bag(folder):
    from robodyn_ros.io.synthetic_bags import write_tracking_bag
    write_tracking_bag(f'{folder}/bag', duration=1.0, joints=list('abcdefg'))
    return f'{folder}/bag'


def bag_without_commands(folder):
    from robodyn_ros.io.synthetic_bags import write_tracking_bag
    write_tracking_bag(f'{folder}/bag', duration=1.0)
    return f'{folder}/bag'


def self_including(folder):
    path = f'{folder}/self.urdf.xacro'
    with open(path, 'w') as handle:
        handle.write('<?xml version="1.0"?>\n<robot xmlns:xacro="http://www.ros.org/wiki/'
                     'xacro" name="r"><xacro:include filename="self.urdf.xacro"/></robot>\n')
    return path


def symlink_loop(folder):
    import os
    os.symlink(f'{folder}/b.urdf', f'{folder}/a.urdf')
    os.symlink(f'{folder}/a.urdf', f'{folder}/b.urdf')
    return f'{folder}/a.urdf'


def fifo(folder):
    import os
    os.mkfifo(f'{folder}/f.urdf')
    return f'{folder}/f.urdf'
