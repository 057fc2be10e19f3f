"""Random chains against Pinocchio (``robodyn check-random``): revolute, continuous and
prismatic joints, random axes and rpy offsets, fixed joints between moving ones, off-chain
branches (model/random_chain.py), each cross-checked by every method, and the DH table's FK
against the URDF's."""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...model import load_robot
from ...model.random_chain import random_chain
from .cross_check import cross_check

__all__ = ['RandomChainsReport', 'check_random_chains']

#: The figures compared per chain: cross_check's relative errors and the DH FK's.
FIGURES = ('mass_matrix', 'coriolis', 'gravity', 'inverse_dynamics', 'skew', 'dh_fk')


@dataclass
class RandomChainsReport:
    """Worst relative error per figure over all chains, and the failed checks."""

    chains: int
    samples: int
    worst: dict[str, float] = field(default_factory=dict)
    failed: int = 0

    def format(self) -> str:
        """One line: the worst errors."""
        return (f'{self.chains} chains x {self.samples} states x 3 methods, worst relative '
                'errors: ' + ', '.join(f'{k} {v:.1e}' for k, v in self.worst.items()))


def check_random_chains(chains: int, samples: int,
                        progress: Callable[[str], None] | None = None) -> RandomChainsReport:
    """Cross-check ``chains`` random chains (n = 2..12, seeds 0..chains-1) with ``samples``
    random states each; ``progress`` gets one line per chain."""
    report = RandomChainsReport(chains, samples, {k: 0.0 for k in FIGURES})
    for seed in range(chains):
        n = 2 + seed % 11
        model = load_robot(random_chain(n, seed, special_axes=seed % 2 == 0), tip_link='tip')
        for method in ('kronecker', 'christoffel', 'recursive'):
            r = cross_check(model, method, samples, seed)
            report.failed += not r.passed
            for key in FIGURES[:-1]:
                report.worst[key] = max(report.worst[key], getattr(r, key))
        table = model.dh_table()
        rng = np.random.default_rng(seed)
        fk = max(np.abs(table.fk(q) - model.fk(q)).max()
                 for q in rng.uniform(-3, 3, (200, model.n)))
        report.worst['dh_fk'] = max(report.worst['dh_fk'], float(fk))
        if progress is not None:
            progress(f'chain {seed:2d}: n={n:2d}, locked {len(model.locked)}, '
                     f'{"ok" if report.failed == 0 else "FAILED"}')
    return report
