"""Runs a command as a child process and measures its CPU time: what the whole-process
benchmarks (``vs_ns2.py``, ``flow_scaling.py``) share."""

from __future__ import annotations

import os
import subprocess
import tempfile


def run_measured(command: list[str]) -> tuple[float, int, str, str]:
    """Runs ``command`` to its end; returns its CPU seconds (user + system, from ``wait4``),
    its exit code, its standard output and its standard error. Interrupted, it kills the child
    rather than leave it running, and re-raises."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except KeyboardInterrupt:
            proc.kill()
            proc.wait()
            raise
        out.seek(0)
        err.seek(0)
        return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status), out.read(), err.read()
