"""The first-start bench's machine floor: a new interpreter's imports, timed."""

from robodyn_testing import first_start


def test_the_floor_times_a_new_interpreter_running_the_imports(monkeypatch):
    monkeypatch.setattr(first_start, 'FLOOR_IMPORTS', 'import time; time.sleep(0.2)')
    low, high = first_start.import_floor(runs=2)
    assert 0.2 <= low <= high, (low, high)
