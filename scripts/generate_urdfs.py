#!/usr/bin/env python3
"""Regenerate urdf/*.urdf from the seeds' DH values (robodyn_ros.model.seed_robots)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from robodyn_ros.model.seed_robots import seed_urdfs  # noqa: E402


def main():
    out = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'urdf')
    for name, xml in seed_urdfs().items():
        with open(os.path.join(out, name), 'w', encoding='utf-8') as handle:
            handle.write(xml)
        print('wrote', os.path.join('urdf', name))


if __name__ == '__main__':
    main()
