"""What the benchmark scripts share: a child process's CPU time, and their options' checks
(a wrong value is one line naming the option and what is allowed)."""

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


def at_least(value: int, option: str, least: int) -> int:
    """Returns ``value``, an option's whole number, or exits naming ``option`` if it is below
    ``least``."""
    if value < least:
        raise SystemExit(f"error: {option} {value}: give a whole number of at least {least}")
    return value


def whole_numbers(text: str, option: str, least: int) -> list[int]:
    """Returns the comma-separated whole numbers of ``text``, each at least ``least``, or exits
    naming ``option``."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < least:
        raise SystemExit(f"error: {option} {text!r}: give whole numbers of at least {least}, separated by commas")
    return values
