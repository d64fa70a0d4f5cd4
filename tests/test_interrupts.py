"""Ctrl-C and a killed parent, as a user meets them: real processes, real signals, the clock
and the process table."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from qdsim.results import store

# Two short runs, then three that would take minutes: a Ctrl-C after the first two finished.
LONG = """
[experiment]
name = "long"
duration = "1s"
seed = 1

[topology]
kind = "dumbbell"
bottleneck_rate = "100Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "100pkt" }

[[flows]]
group = "bulk"
count = 20
access_delay = "10ms"

[sweep]
"experiment.duration" = ["0.3s", "0.4s", "300s", "301s", "302s"]
"""

#: Ctrl-C must end a command within this many seconds.
PROMPT_S = 2.0


def _start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    """Starts `qdsim ARGS` in its own process group (as a shell starts a foreground job),
    printing every progress line."""
    spec = tmp_path / "long.toml"
    spec.write_text(LONG)
    env = {**os.environ, "QDSIM_PROGRESS_INTERVAL": "0"}
    command = [sys.executable, "-m", "qdsim", *[a.replace("SPEC", str(spec)) for a in args]]
    # Ctrl-C's default action, as a terminal's foreground job has it: a test suite started in
    # the background (`make test &`, nohup) passes SIGINT on ignored, and Python then leaves
    # it ignored.
    return subprocess.Popen(
        command,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for(proc: subprocess.Popen[str], text: str) -> list[str]:
    """Returns the stderr lines up to the first containing ``text``."""
    lines: list[str] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stderr.readline()  # type: ignore[union-attr]
        if not line:
            raise AssertionError(f"exited before {text!r}: {''.join(lines)}")
        lines.append(line)
        if text in line:
            return lines
    raise AssertionError(f"no {text!r} in time: {''.join(lines)}")


def _alive(processes: list[psutil.Process]) -> list[int]:
    out = []
    for p in processes:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p.pid)
        except psutil.NoSuchProcess:
            pass
    return out


def _gone_within(processes: list[psutil.Process], seconds: float) -> list[int]:
    """Returns the processes still alive after ``seconds`` (none: all ended)."""
    deadline = time.monotonic() + seconds
    while _alive(processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _alive(processes)


@pytest.mark.parametrize(
    ("jobs", "sent_signal", "code", "word"),
    [
        ("1", signal.SIGINT, 130, "interrupted"),
        ("2", signal.SIGINT, 130, "interrupted"),
        # What a batch scheduler sends the whole job at its time limit: the same, exit 143.
        ("2", signal.SIGTERM, 143, "terminated"),
    ],
)
def test_ctrl_c_ends_a_sweep_at_once_keeping_every_finished_run(tmp_path, jobs, sent_signal, code, word):
    proc = _start(tmp_path, "sweep", "SPEC", "--jobs", jobs, "--out", "out")
    _wait_for(proc, "2/5 runs")
    time.sleep(0.5)  # the long runs are under way
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert len(workers) >= int(jobs) - 1
    sent = time.monotonic()
    os.killpg(proc.pid, sent_signal)  # Ctrl-C (and a scheduler's SIGTERM) reaches the whole group
    _, stderr = proc.communicate(timeout=30)
    took = time.monotonic() - sent
    assert proc.returncode == code and took < PROMPT_S, (proc.returncode, took, stderr)
    assert "Traceback" not in stderr and "Exception" not in stderr, stderr
    assert stderr.strip().splitlines()[-1] == f"error: {word} (the finished runs are kept: rerun the command to resume)"
    assert len(store.committed_runs(tmp_path / "out")) == 2
    assert store.read_table(tmp_path / "out", "points").num_rows == 2
    assert _gone_within(workers, 1.0) == []


def test_a_killed_parent_leaves_no_worker_behind(tmp_path):
    proc = _start(tmp_path, "sweep", "SPEC", "--jobs", "2", "--out", "out")
    _wait_for(proc, "2/5 runs")
    time.sleep(0.5)
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert len(_alive(workers)) >= 2
    proc.kill()  # SIGKILL: the parent runs no handler at all
    proc.communicate(timeout=10)
    assert _gone_within(workers, 2.0) == []


def test_ctrl_c_ends_a_long_single_run_and_progress_shows_while_piped(tmp_path):
    proc = _start(tmp_path, "run", "SPEC", "--set", "experiment.duration=600s", "--out", "run")
    lines = _wait_for(proc, "s simulated")
    lines += _wait_for(proc, "s simulated")
    assert any(" M events/s" in line and "/600 s simulated (" in line for line in lines), lines
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - sent < PROMPT_S
    assert "Traceback" not in stderr and stderr.strip().splitlines()[-1] == "error: interrupted"


def test_a_second_sweep_into_a_held_directory_is_refused_and_nothing_is_stored_twice(tmp_path):
    first = _start(tmp_path, "sweep", "SPEC", "--jobs", "1", "--out", "out")
    try:
        _wait_for(first, "2/5 runs")
        second = subprocess.run(
            [sys.executable, "-m", "qdsim", "sweep", str(tmp_path / "long.toml"), "--jobs", "1", "--out", "out"], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert second.returncode == 2, second.stderr
        line = second.stderr.strip()
        assert line.startswith('error: --out: "out" is not allowed; a results directory no other qdsim is writing to; held by pid ' + str(first.pid)), line
        assert "qdsim sweep" in line and len(line.splitlines()) == 1
    finally:
        os.killpg(first.pid, signal.SIGINT)
        first.communicate(timeout=30)
    # The first sweep's two finished runs, once each; the directory is free again.
    keys = store.stored_runs(tmp_path / "out").column("point_key").to_pylist()
    assert len(keys) == len(set(keys)) == 2
    with store.locked(tmp_path / "out"):
        pass
