"""What every reference engine is: the interface, the script it runs, and running it.

An engine (:class:`Engine`) is a plug-in behind one interface, so that a third one (real Linux
in network namespaces, on the roadmap) is one more module and one registry line:

* ``missing()`` says in one line why it cannot run here and what to run (None: ready);
* ``version()`` names its build (part of the key of every stored engine run);
* ``translate(config, seed)`` turns one resolved run configuration (the core's ``RunConfig``
  as a dict, what ``qdsim run`` simulates) into a :class:`Script` in the engine's language,
  or refuses in one line what the engine lacks (:class:`Unsupported`, a ``SpecError``);
* ``command(path)`` is the command line that runs a written script.

Whatever the engine, the script prints the measurement protocol of
:mod:`qdsim.engines.measure` on stdout; :func:`run` executes it with its CPU and wall time,
and hands back a :class:`qdsim.run.RunOutcome` shaped like the core's, which qdsim's own
summary, tables and results store take unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..errors import SpecError
from ..run import RunOutcome
from . import measure

__all__ = ["Engine", "EngineError", "EngineRun", "Script", "Unsupported", "comment_block", "run", "source_digest", "terminate_all"]


class Unsupported(SpecError):
    """A part of the run configuration the engine cannot run: one line naming the key, the
    value and what the engine has instead."""


class EngineError(RuntimeError):
    """The engine ran but failed (a non-zero exit, or output without the protocol's end line):
    the message names the script and the tail of what the engine printed."""


@dataclass(frozen=True)
class Script:
    """One translated run: the text an engine runs, the file suffix it is written with, and
    the notes on each mapping that is not exact (also written into ``text`` as comments)."""

    engine: str
    text: str
    suffix: str
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class EngineRun:
    """One engine run: its outcome in the core's result shape, the script that produced it,
    the engine's CPU time (user + system of the engine's process) and wall time."""

    outcome: RunOutcome
    script: Path
    cpu_s: float
    wall_s: float


class Engine(Protocol):
    """A reference simulator qdsim runs side by side with itself (see the module doc)."""

    #: Short name used on the command line and in results (``ns2``).
    name: str
    #: What people call it (``ns-2.35``).
    title: str

    def missing(self) -> str | None:
        """Returns why the engine cannot run here and what to run, or None when it can."""

    def version(self) -> str:
        """Returns the engine build and translator version (part of a stored run's key)."""

    def translate(self, config: dict[str, Any], seed: int) -> Script:
        """Returns ``config`` (a resolved ``RunConfig``) as a script seeded with ``seed``.

        Raises Unsupported for a part the engine lacks."""

    def command(self, script: Path) -> list[str]:
        """Returns the command line that runs the script written at ``script``."""


def source_digest(*names: str) -> str:
    """Returns the digest of the translator files ``names`` (beside this one) with the
    measurement protocol's and this interface's: part of an engine's version, so a change to
    how qdsim translates or measures reruns the engine's stored runs."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for name in (*names, "measure.py", "base.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()[:12]


def comment_block(prefix: str, lines: list[str] | tuple[str, ...]) -> str:
    """Returns ``lines`` as comment lines starting with ``prefix`` (``#``, ``//``)."""
    return "".join(f"{prefix} {line}".rstrip() + "\n" for line in lines)


#: The engine processes running now, so that an interrupt can end every one of them (they
#: run in sessions of their own, out of reach of the terminal's Ctrl-C).
_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()


def terminate_all() -> None:
    """Kills every engine process still running (after Ctrl-C, from the main thread)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for proc in live:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


#: The CPU seconds an engine run may take before the kernel ends it (``SIGXCPU``), from
#: ``QDSIM_ENGINE_CPU_LIMIT``: a run that hangs fails with a reason instead of holding a
#: validation forever (the suite's longest ns-3 runs take about 10 CPU minutes).
DEFAULT_CPU_LIMIT_S = 1800


def cpu_limit_s() -> int:
    """Returns the CPU limit of an engine run, in seconds (``QDSIM_ENGINE_CPU_LIMIT``)."""
    text = os.environ.get("QDSIM_ENGINE_CPU_LIMIT", "")
    if not text:
        return DEFAULT_CPU_LIMIT_S
    if not text.isdigit() or int(text) < 1:
        raise SpecError("QDSIM_ENGINE_CPU_LIMIT", text, "a whole number of CPU seconds, at least 1")
    return int(text)


def run(engine: Engine, config: dict[str, Any], seed: int, workdir: Path, stem: str) -> EngineRun:
    """Translates ``config`` for ``engine`` with ``seed``, writes the script to
    ``workdir/<stem><suffix>`` (kept, so that a user can read it and run it by hand), runs it
    and returns the outcome. What the engine prints is kept beside it (``<stem>.out``,
    ``<stem>.err``). Safe to call from several threads at once.

    Raises Unsupported before anything runs, EngineError when the engine fails.
    """
    script = engine.translate(config, seed)
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"{stem}{script.suffix}"
    out_path, err_path = workdir / f"{stem}.out", workdir / f"{stem}.err"
    path.write_text(script.text, encoding="utf-8")
    limit = cpu_limit_s()
    started = time.perf_counter()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        # A session of its own: the engine's CPU time is its own (wait4), and ending its
        # group ends whatever it started.
        proc = subprocess.Popen(
            engine.command(path.resolve()),
            cwd=workdir,
            stdout=out,
            stderr=err,
            start_new_session=True,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5)),
        )
        with _LIVE_LOCK:
            _LIVE.add(proc)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(proc)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    stdout = out_path.read_text(encoding="utf-8", errors="replace")
    if proc.returncode == -signal.SIGXCPU or (proc.returncode == -signal.SIGKILL and usage.ru_utime + usage.ru_stime >= limit):
        raise EngineError(f"{engine.title} exceeded its CPU limit of {limit} s on {path} (QDSIM_ENGINE_CPU_LIMIT)")
    if proc.returncode != 0 or not measure.complete(stdout):
        stderr = err_path.read_text(encoding="utf-8", errors="replace")
        tail = " | ".join((stderr.strip() or stdout.strip()).splitlines()[-3:]) or "(no output)"
        raise EngineError(f"{engine.title} failed on {path} (exit {proc.returncode}): {tail}")
    try:
        results = measure.results(config, seed, measure.parse(stdout))
    except ValueError as exc:
        raise EngineError(f"{engine.title}'s output {out_path} is not the measurement protocol: {exc}") from None
    return EngineRun(outcome=RunOutcome(config=config, results=results, wall_s=wall), script=path, cpu_s=usage.ru_utime + usage.ru_stime, wall_s=wall)
