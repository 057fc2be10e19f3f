#!/usr/bin/env python3
"""Cross-check random chains against Pinocchio: revolute/continuous/prismatic joints,
random axes and rpy offsets, fixed joints between moving ones, off-chain branches.

Usage: check_random_chains.py [--chains 20] [--samples 1000]
"""

import argparse

import numpy as np

from robodyn_ros.dynamics.verification import cross_check
from robodyn_ros.model import load_urdf
from robodyn_ros.model.random_chain import random_chain


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--chains', type=int, default=20)
    parser.add_argument('--samples', type=int, default=1000)
    args = parser.parse_args()
    worst = {}
    failed = 0
    for seed in range(args.chains):
        n = 2 + seed % 11
        model = load_urdf(random_chain(n, seed, special_axes=seed % 2 == 0), tip_link='tip')
        for method in ('kronecker', 'christoffel', 'recursive'):
            r = cross_check(model, method, args.samples, seed)
            failed += not r.passed
            for key in ('mass_matrix', 'coriolis', 'gravity', 'inverse_dynamics', 'skew'):
                worst[key] = max(worst.get(key, 0.0), getattr(r, key))
        table = model.dh_table()
        rng = np.random.default_rng(seed)
        fk = max(np.abs(table.fk(q) - model.fk(q)).max()
                 for q in rng.uniform(-3, 3, (200, model.n)))
        worst['dh_fk'] = max(worst.get('dh_fk', 0.0), fk)
        print(f'chain {seed:2d}: n={n:2d}, locked {len(model.locked)}, '
              f'{"ok" if failed == 0 else "FAILED"}')
    print(f'{args.chains} chains x {args.samples} states x 3 methods, worst relative errors: '
          + ', '.join(f'{k} {v:.1e}' for k, v in worst.items()))
    return 1 if failed else 0


if __name__ == '__main__':
    raise SystemExit(main())
