"""Verification against an independent implementation: Pinocchio on the same chain.

``pinocchio_chain`` builds Pinocchio's model of a RobotModel's chain (locking what the
chain locks); ``cross_check`` compares M, C, g and inverse dynamics with it, offline
(``robodyn check``) and online (control/online_cross_check.py).
"""
from .cross_check import (
    PINOCCHIO_MAX_LINKS,
    SEED_MAX_N,
    CheckReport,
    check_size,
    cross_check,
    relative_error,
)
from .pinocchio_chain import PinocchioChain

__all__ = ['PinocchioChain', 'CheckReport', 'cross_check', 'relative_error', 'SEED_MAX_N',
           'PINOCCHIO_MAX_LINKS', 'check_size']
