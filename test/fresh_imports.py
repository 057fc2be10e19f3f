"""Which modules a fresh interpreter has imported after running some code: for tests that
keep a process's imports lean (each heavy one costs a start or an exit)."""

import json
import subprocess
import sys

__all__ = ['imported_after']


def imported_after(code: str, modules: tuple[str, ...]) -> list[str]:
    """The names in ``modules`` found in ``sys.modules`` after a new interpreter ran
    ``code`` (sorted); the test fails with its stderr if the code fails."""
    probe = (f'{code}\nimport json, sys\n'
             f'print(json.dumps(sorted(m for m in {modules!r} if m in sys.modules)))\n')
    out = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])
