"""machine_stalls.rerun_after_stalls: a run is repeated only when it failed in a stall."""

from machine_stalls import RUNS, rerun_after_stalls


def _runs(results):
    """rerun_after_stalls over ``results`` (dicts with 'failed' and 'stalls'): (the result
    judged, how many runs were made)."""
    made = []

    def run():
        made.append(results[len(made)])
        return made[-1]
    judged = rerun_after_stalls(run, lambda result: result['failed'], 'test')
    return judged, len(made)


def test_a_run_that_passes_is_not_repeated():
    assert _runs([{'failed': None, 'stalls': [(1.0, 80)]}])[1] == 1


def test_a_failure_without_a_stall_is_judged_at_once():
    judged, made = _runs([{'failed': 'tracking', 'stalls': []},
                          {'failed': None, 'stalls': []}])
    assert made == 1 and judged['failed'] == 'tracking'


def test_a_failure_in_a_stall_is_run_again_and_the_last_run_judged():
    failing = {'failed': 'tracking', 'stalls': [(2.5, 120)]}
    judged, made = _runs([failing, {'failed': None, 'stalls': []}])
    assert made == 2 and judged['failed'] is None
    judged, made = _runs([dict(failing) for _ in range(RUNS + 1)])
    assert made == RUNS and judged['failed'] == 'tracking'
