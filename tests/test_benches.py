"""The benchmark scripts refuse a wrong value in one line, before they run anything."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCHES = Path(__file__).resolve().parents[1] / "benches"


@pytest.mark.parametrize(
    ("script", "args", "message"),
    [
        ("flow_scaling.py", ["--flows", "100,x"], "error: --flows '100,x': give whole numbers of at least 2, separated by commas"),
        ("flow_scaling.py", ["--flows", "100,101"], "error: --flows '100,101': every count must be even"),
        ("flow_scaling.py", ["--seconds", "5,3"], "error: --seconds '5,3': give two lengths, the shorter first"),
        ("flow_scaling.py", ["--rounds", "0"], "error: --rounds 0: give a whole number of at least 1"),
        ("vs_ns2.py", ["--rounds", "0"], "error: --rounds 0: give a whole number of at least 1"),
        ("sweep_speedup.py", ["--dask", "1,0"], "error: --dask '1,0': give whole numbers of at least 1, separated by commas"),
        ("sweep_speedup.py", ["--jobs", "0"], "error: --jobs 0: give a whole number of at least 1"),
        ("sweep_speedup.py", ["--repeat", "-1"], "error: --repeat -1: give a whole number of at least 1"),
    ],
)
def test_a_wrong_value_is_one_line_naming_it(script: str, args: list[str], message: str) -> None:
    proc = subprocess.run([sys.executable, str(BENCHES / script), *args], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and proc.stdout == ""
    assert proc.stderr.startswith(message) and proc.stderr.count("\n") == 1, proc.stderr
