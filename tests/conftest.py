"""Shared helpers: small experiment files, a way to run the CLI as users do, and the figure
tests' one way to get results (``quick``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from qdsim.reproduce import find_figures, quick_raw, sweep_figure

#: A short dumbbell run (2 s simulated) used by most CLI tests.
SMALL_SPEC = """
[experiment]
name = "small"
duration = "2s"
warmup = "0.5s"
seed = 3

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "50pkt" }

[[flows]]
group = "near"
count = 2
access_delay = "5ms"
start_window = "0.5s"

[[flows]]
group = "far"
count = 2
cc = "reno"
access_delay = "20ms"
start_window = "0.5s"
"""

#: SMALL_SPEC shortened, over a 2 × 2 grid with two repetitions: 8 runs of a second.
SMALL_SWEEP = (
    SMALL_SPEC.replace('duration = "2s"', 'duration = "1s"').replace('warmup = "0.5s"', 'warmup = "0.2s"')
    + """
[sweep]
"topology.qdisc.limit" = [10, 40]
"topology.bottleneck_rate" = ["5Mbps", "10Mbps"]
repetitions = 2
"""
)


@pytest.fixture
def small_spec(tmp_path: Path) -> Path:
    """Returns the path of a copy of SMALL_SPEC."""
    path = tmp_path / "small.toml"
    path.write_text(SMALL_SPEC)
    return path


@pytest.fixture
def write_spec(tmp_path: Path):
    """Returns a function writing TOML text to a new file and returning its path."""
    counter = iter(range(10**6))

    def write(text: str) -> Path:
        path = tmp_path / f"spec{next(counter)}.toml"
        path.write_text(text)
        return path

    return write


class CliResult:
    """Exit status and output of one `qdsim` invocation."""

    def __init__(self, proc: subprocess.CompletedProcess[str]):
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def json(self):
        return json.loads(self.stdout)


@pytest.fixture
def qdsim(tmp_path: Path):
    """Returns a function running `python -m qdsim ARGS...` in tmp_path."""

    def run(*args: str) -> CliResult:
        proc = subprocess.run([sys.executable, "-m", "qdsim", *map(str, args)], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
        return CliResult(proc)

    return run


#: The committed experiment files: one directory per paper.
EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture(scope="session")
def quick(tmp_path_factory) -> Callable[[Path], Path]:
    """Returns a function giving the results directory of an experiment file's ``[quick]`` run.

    Each file runs once per session, through the sweep ``qdsim reproduce --quick`` runs (into
    a results directory); the figure tests read its tables (helpers in
    ``figures/figure_results.py``). Drawing the quick figures is tested in
    ``test_reproduce.py``, once per figure kind, and left out here to save time.
    """
    done: dict[Path, Path] = {}

    def results(path: Path) -> Path:
        if path not in done:
            (figure,) = find_figures([str(path)], root=EXPERIMENTS)
            out = tmp_path_factory.mktemp(f"{figure.paper}-{figure.stem}")
            assert sweep_figure(figure, quick_raw(figure.raw), out, jobs=1).missing == 0
            done[path] = out
        return done[path]

    return results
