"""scripts/update_time_per_law.py: a workspace without the C++ package is one line and
exit 2 (the measurement itself is docs/benchmarks.md's, on a quiet machine)."""

from pathlib import Path
import subprocess
import sys

SCRIPT = Path(__file__).resolve().parents[2] / 'scripts' / 'update_time_per_law.py'


def test_a_workspace_without_the_controller_is_one_line_and_exit_2(tmp_path):
    result = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and 'has no install/robodyn_controllers' in lines[0], result.stderr
    assert result.stdout == ''
