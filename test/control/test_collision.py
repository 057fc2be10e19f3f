"""Collision detection on the residual: debounce, contact span, peaks, thresholds."""

import numpy as np
import pytest

from robodyn_ros.control.collision import (
    CollisionDetector,
    CollisionSettings,
    Reaction,
    derive_thresholds,
)
from robodyn_ros.errors import InputError


def _feed(detector, values):
    found = []
    for k, r in enumerate(values):
        contact = detector.update(k * 1e-3, np.asarray(r, dtype=float))
        if contact is not None:
            found.append(contact)
    return found


def test_a_contact_needs_debounce_samples_in_a_row_and_starts_at_the_first():
    detector = CollisionDetector(CollisionSettings(np.array([1.0, 2.0]), debounce=3))
    quiet, over = [0.5, 0.5], [1.5, 0.0]
    found = _feed(detector, [quiet, over, over, quiet, over, over, over, [0.0, -2.5], quiet])
    assert len(found) == 1
    contact = found[0]
    assert contact.start == pytest.approx(4e-3) and contact.detected == pytest.approx(6e-3)
    assert contact.end == pytest.approx(8e-3)
    assert contact.joints == {0, 1} and contact.peak == {0: 1.5, 1: 2.5}
    assert detector.contact is None


def test_a_contact_is_reported_once_while_it_lasts():
    detector = CollisionDetector(CollisionSettings(np.array([1.0]), debounce=1))
    found = _feed(detector, [[2.0]] * 50)
    assert len(found) == 1 and detector.contact is found[0] and found[0].end is None


def test_thresholds_are_the_free_runs_peak_times_the_margin_with_a_floor():
    np.testing.assert_allclose(derive_thresholds([0.5, 0.01], 2.0), [1.0, 0.1])
    with pytest.raises(InputError, match='margin'):
        derive_thresholds([0.5], 0.9)


@pytest.mark.parametrize('kwargs, words', [
    (dict(thresholds=[1.0, 0.0]), 'thresholds'), (dict(thresholds=[np.nan]), 'thresholds'),
    (dict(thresholds=[1.0], debounce=0), 'debounce'),
    (dict(thresholds=[1.0], debounce=2.5), 'debounce'),
    (dict(thresholds=[1.0], reaction='stop'), 'hold, compliant, report')])
def test_settings_out_of_range_are_refused_naming_the_valid_values(kwargs, words):
    with pytest.raises(InputError, match=words):
        CollisionSettings(**kwargs)


def test_reaction_names_are_the_parameter_values():
    assert CollisionSettings([1.0], reaction='compliant').reaction is Reaction.COMPLIANT
