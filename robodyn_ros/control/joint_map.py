"""Joint-name mapping between messages (any order, extra joints) and the chain order."""

import math

import numpy as np

from ..errors import ConfigError, InputError, short_list

__all__ = ['JointMap', 'command_order']


def command_order(chain, joints):
    """(out_order, in_order) between the chain's joint names ``chain`` and the command
    order ``joints`` (empty: the chain's): index arrays that put a chain-order vector in
    command order and back, or (None, None) when the two orders agree. ConfigError when
    ``joints`` names other joints than the chain's."""
    joints = list(joints) or list(chain)
    if sorted(joints) != sorted(chain):
        raise ConfigError(f'joints: {joints} does not match the chain {list(chain)}')
    order = [list(chain).index(j) for j in joints]
    if order == list(range(len(order))):
        return None, None
    return np.array(order), np.argsort(order)


class JointMap:
    """Pick the chain's joints out of name-indexed arrays, caching the index per layout.

    Args:
        joint_names: the chain's joints, in chain order.
    """

    def __init__(self, joint_names):
        self.names = tuple(joint_names)
        self.n = len(self.names)
        self._key = None
        self._index = None
        self._error = None

    def index(self, names):
        """(n,) indices of the chain's joints in ``names``; InputError naming the missing."""
        names = tuple(names)
        if names != self._key:
            lookup = {name: i for i, name in enumerate(names)}
            missing = [j for j in self.names if j not in lookup]
            if len(lookup) != len(names):
                self._index, self._error = None, \
                    f'duplicate joint names in {short_list(names)}'
            elif missing:
                self._index, self._error = None, (f'lacks joints {missing}; '
                                                  f'has {short_list(names)}')
            else:
                self._index, self._error = np.array([lookup[j] for j in self.names]), None
            self._key = names
        if self._index is None:
            raise InputError(self._error)
        return self._index

    def reported_effort(self, names, effort):
        """(chain-order effort [N m or N], '') of a JointState's effort field when it is
        usable as the torque the hardware applied, else (None, why not): the field is not
        one value per name, the names are not the chain's, or its values are not finite
        or all 0 (a driver that fills no effort reports zeros)."""
        if len(effort) != len(names):
            return None, 'no effort in the joint state'
        try:
            applied = np.asarray(effort, dtype=float)[self.index(names)]
        except InputError as exc:
            return None, str(exc)
        if not np.all(np.isfinite(applied)) or not np.any(applied):
            return None, 'effort not finite or all 0'
        return applied, ''

    def cached_index(self, names):
        """The index of the last layout seen when ``names`` is that layout, else None."""
        return self._index if tuple(names) == self._key else None

    def extract(self, names, position, velocity):
        """(q, qd) in chain order from a JointState's fields; InputError when unusable.

        Rejects missing joints, lengths that differ from ``names`` and non-finite values.
        """
        index = self.index(names)
        m = len(names)  # index() has made ``names`` the cached layout
        if len(position) != m or len(velocity) != m:
            raise InputError(f'position and velocity must have {m} values (one per name), '
                             f'got {len(position)} and {len(velocity)}')
        q = np.asarray(position, dtype=float)[index]
        qd = np.asarray(velocity, dtype=float)[index]
        if not math.isfinite(q.sum() + qd.sum()):
            raise InputError('non-finite position or velocity')
        return q, qd

    def positions(self, names, values, fill):
        """(n,) chain-order vector from a partial name list; joints absent keep ``fill``.

        InputError for unknown or duplicate names or a length mismatch.
        """
        columns = self.columns(names)
        if len(values) != len(columns):
            raise InputError(f'expected {len(columns)} values (one per joint name), '
                             f'got {len(values)}')
        out = np.array(fill, dtype=float)
        out[columns] = values
        return out

    def columns(self, names):
        """(k,) chain indices of a partial name list, in its order: where its values go.

        InputError for unknown or duplicate names.
        """
        names = list(names)
        unknown = [j for j in names if j not in self.names]
        if unknown or len(set(names)) != len(names):
            raise InputError(f'unknown or duplicate joints {short_list(unknown or names)}; '
                             f'valid joints {list(self.names)}')
        return np.array([self.names.index(name) for name in names], dtype=np.intp)
