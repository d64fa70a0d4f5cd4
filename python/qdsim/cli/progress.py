"""Progress on stderr: a live bar on a terminal, plain lines every few seconds otherwise.

A sweep, a figure or a long run must not sit silent, also when its output goes to a log or a
pipe: there each :class:`Progress` prints one plain line every ``QDSIM_PROGRESS_INTERVAL``
seconds (default 5; 0 prints every update), such as::

    sweep buffer_sweep: 12/30 runs (40 %), 8 s, about 12 s left

On a terminal it draws a bar (rich) instead. Either way it never writes to stdout, which is
for results.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, TextIO

__all__ = ["INTERVAL_ENV", "QUIET", "Progress", "RunProgress", "duration"]

#: The environment variable setting the seconds between plain progress lines.
INTERVAL_ENV = "QDSIM_PROGRESS_INTERVAL"

#: Shows no progress at all (``qdsim -q``).
QUIET = False


def duration(seconds: float | None) -> str:
    """Returns a duration for people: ``<1 s``, ``45 s``, ``12 min``, ``3.4 h``; ``unknown`` for None."""
    if seconds is None:
        return "unknown"
    if seconds < 1:
        return "<1 s"
    if seconds < 100:
        return f"{seconds:.0f} s"
    if seconds < 6000:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _interval() -> float:
    try:
        return max(0.0, float(os.environ.get(INTERVAL_ENV, "5")))
    except ValueError:
        return 5.0


class Progress:
    """Progress of ``label`` counted in ``unit`` (``runs``, ``grid points``), on ``stream``.

    Use as a context manager; call :meth:`update` with ``done`` and ``total``. ``quiet``
    shows nothing. The plain lines say the count, the percentage, the time so far and the
    time left, estimated from the rate since the first update.
    """

    def __init__(self, label: str, unit: str = "runs", quiet: bool = False, stream: TextIO | None = None):
        self.label, self.unit, self.quiet = label, unit, quiet or QUIET
        self.stream = stream or sys.stderr
        self.interval = _interval()
        self._bar: Any = None
        self._task: Any = None
        self._started = time.monotonic()
        self._first: tuple[float, int] | None = None
        self._last_line = self._started
        self._phase: str | None = None
        self._phase_started = self._started
        self._ticker: threading.Thread | None = None
        self._done = threading.Event()

    def __enter__(self) -> Progress:
        if not self.quiet and self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, TextColumn
            from rich.progress import Progress as Bar

            self._bar = Bar(BarColumn(bar_width=20), TextColumn("{task.description}"), console=Console(file=self.stream), transient=True)
            self._bar.__enter__()
            self._task = self._bar.add_task(self.label, total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop_ticker()
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def phase(self, name: str) -> None:
        """Says what the command does now (``building 10000 flows``, ``writing results``):
        on the bar at once; on a plain stream (a file, a pipe) a line every interval while
        the phase lasts, so that a long set-up or write is never silent."""
        self._phase, self._phase_started = name, time.monotonic()
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.update(self._task, description=f"{self.label}: {name}")
            return
        if self._ticker is None and self.interval > 0:
            self._ticker = threading.Thread(target=self._tick, name="qdsim-progress", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        """Prints the phase's line on a plain stream every interval without another line."""
        while not self._done.wait(self.interval / 4):
            now = time.monotonic()
            if self._phase and now - self._last_line >= self.interval:
                self._last_line = now
                self.stream.write(f"{self.label}: {self._phase}, {duration(now - self._phase_started)}\n")
                self.stream.flush()

    def _stop_ticker(self) -> None:
        self._done.set()
        if self._ticker is not None:
            self._ticker.join()

    def restart(self, label: str, unit: str) -> None:
        """Starts counting something else (``runs`` after ``grid points``) on the same line."""
        self.label, self.unit = label, unit
        self._first = None
        if self._bar is not None:
            self._bar.reset(self._task, total=None)

    def update(self, done: int, total: int) -> None:
        """Records that ``done`` of ``total`` are done; draws or prints when it is time."""
        now = time.monotonic()
        if self._first is None:
            self._first = (now, done)
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total, description=f"{self.label}: {self.text(done, total, now)}")
            return
        self._phase = None  # counted now: the update's own lines say where it is
        if now - self._last_line >= self.interval and done < total:
            self._last_line = now
            self.stream.write(f"{self.label}: {self.text(done, total, now)}\n")
            self.stream.flush()

    def text(self, done: int, total: int, now: float) -> str:
        """Returns the line's text: ``12/30 runs (40 %), 8 s, about 12 s left``."""
        return f"{done}/{total} {self.unit} ({self._percent(done, total)}), {self._times(done, total, now)}"

    @staticmethod
    def _percent(done: int, total: int) -> str:
        return f"{100 * done / total if total else 100.0:.0f} %"

    def _times(self, done: int, total: int, now: float) -> str:
        """Returns the time so far and, once there is a rate, the time left."""
        since, at_first = self._first or (now, done)
        rate = (done - at_first) / (now - since) if now > since else 0.0
        left = f", about {duration((total - done) / rate)} left" if rate > 0 and done < total else ""
        return f"{duration(now - self._started)}{left}"


class RunProgress(Progress):
    """Progress of one long run: simulated seconds, events per second and time left.

    Its :meth:`callback` is the ``progress`` of :func:`qdsim.run.one.run_config`.
    """

    def __init__(self, label: str, quiet: bool = False, stream: TextIO | None = None):
        super().__init__(label, unit="s simulated", quiet=quiet, stream=stream)
        self._events = (self._started, 0)
        self._rate = 0.0

    def callback(self, now_s: float, end_s: float, events: int, memory_bytes: int) -> None:
        """Takes a report of the core: simulated time, end time, events, memory."""
        now = time.monotonic()
        since, at = self._events
        if now > since:
            self._rate = (events - at) / (now - since)
        self._events = (now, events)
        # Counted in milliseconds of simulated time, so the bar and the percentage move smoothly.
        self.update(int(now_s * 1000), int(end_s * 1000))

    def text(self, done: int, total: int, now: float) -> str:
        """Returns ``12.3/30 s simulated (41 %), 8.1 M events/s, 9 s, about 13 s left``."""
        simulated = f"{done / 1000:g}/{total / 1000:g} s simulated"
        return f"{simulated} ({self._percent(done, total)}), {self._rate / 1e6:.1f} M events/s, {self._times(done, total, now)}"
