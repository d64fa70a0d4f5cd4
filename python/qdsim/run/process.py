"""What a process running qdsim is tuned for: it loads NumPy once, then builds large object
graphs (a run's configuration, summary and tables: dicts by the hundred thousand at 10^4
flows). The command line tunes its whole process (:func:`tuned`), and a sweep its workers
(:func:`tuned` while they start, :func:`tune_collector` in each).

The command line also ends its process without the interpreter's teardown
(:func:`exit_without_teardown`).

This module imports nothing heavy: the command line enters :func:`tuned` before NumPy loads.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
import threading
from collections.abc import Iterator
from typing import NoReturn

__all__ = ["BLAS_THREADS_ENV", "COLLECT_AFTER", "PYDANTIC_PLUGINS_ENV", "collector_paused", "exit_without_teardown", "owned", "tune_collector", "tuned"]

#: OpenBLAS's thread count (NumPy's BLAS in its wheels). OpenBLAS starts a thread per core as
#: it loads and each spins for tens of milliseconds before it sleeps: on two cores 0.11 s of
#: CPU, a third of what ``qdsim run`` spent in Python, paid again by a sweep's every worker
#: (63 spinning threads each on 64 cores). qdsim does no linear algebra: one thread.
BLAS_THREADS_ENV = "OPENBLAS_NUM_THREADS"

#: Pydantic's plugins (``PYDANTIC_DISABLE_PLUGINS``). Pydantic looks for them in every
#: installed distribution's entry points as the first model class is made — in the command
#: line, the experiment file's models, which no plugin has any business watching. The
#: search reads the metadata of every package in the environment: with this project's
#: locked dependencies 15-19 ms of CPU on the 2-core VM (measured alone; 2-3 % of a short
#: ``qdsim run``), more in a larger environment.
PYDANTIC_PLUGINS_ENV = "PYDANTIC_DISABLE_PLUGINS"

#: What :func:`tuned` sets unless the user chose a value: one BLAS thread, no pydantic plugins.
_TUNED_ENV = {BLAS_THREADS_ENV: "1", PYDANTIC_PLUGINS_ENV: "__all__"}

#: New container objects between two passes of the cycle collector (Python's default: 700).
#: A run's objects are long-lived, none garbage; the passes over them were 6 % of a
#: 2·10^4-flow ``qdsim run``'s CPU.
COLLECT_AFTER = 10_000


def tune_collector() -> None:
    """Makes the cycle collector run after :data:`COLLECT_AFTER` new containers."""
    gc.set_threshold(COLLECT_AFTER, *gc.get_threshold()[1:])


#: Whether the command line owns this process (:func:`owned`).
_owned = False


@contextlib.contextmanager
def owned() -> Iterator[None]:
    """Marks this process as the command line's own while the block runs: ``qdsim`` and
    ``python -m qdsim``, not a caller of :func:`qdsim.cli.main` in its own process (a
    notebook, the tests). Only then does the command make settings that cannot be put back,
    such as :func:`collector_paused`'s freeze."""
    global _owned
    before, _owned = _owned, True
    try:
        yield
    finally:
        _owned = before


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Keeps the cycle collector off while the block runs, then leaves what it made out of
    every later pass (:func:`gc.freeze`), and turns the collector back on — in a process the
    command line owns (:func:`owned`) whose collector is on; elsewhere it does nothing, so a
    caller's objects are never frozen.

    For a command's imports: NumPy, pyarrow, pydantic and the experiment file's models make
    tens of thousands of objects that last as long as the process, none of them garbage. The
    collector's passes over them were 9 ms of a short ``qdsim run``'s 0.2 s of CPU; paused
    alone, it scanned them all in its first pass after (15 ms)."""
    if not (_owned and gc.isenabled()):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


@contextlib.contextmanager
def tuned() -> Iterator[None]:
    """Tunes this process while the block runs, and the processes it starts meanwhile (they
    inherit the environment): one BLAS thread unless the user chose a count
    (:data:`BLAS_THREADS_ENV`), no pydantic plugins unless the user set
    :data:`PYDANTIC_PLUGINS_ENV` (to anything, an empty value included), and
    :func:`tune_collector`. All are put back after, so that a caller's own process (a
    notebook, the tests) keeps its settings. The BLAS setting takes effect only if NumPy
    has not loaded yet; the plugins' only for the model classes made inside the block."""
    unset = [name for name in _TUNED_ENV if name not in os.environ]
    for name in unset:
        os.environ[name] = _TUNED_ENV[name]
    threshold = gc.get_threshold()
    tune_collector()
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        for name in unset:
            os.environ.pop(name, None)


def exit_without_teardown(code: int) -> NoReturn:
    """Ends the process with status ``code`` as ``sys.exit`` would, but without the
    interpreter's teardown.

    The teardown frees every object and module one by one — with NumPy, pyarrow, pydantic's
    models and a run's results loaded, 37 ms of CPU, 15 % of the Python of a ``qdsim run``
    — only for the operating system to free the memory at once anyway. What an exit must do
    is done here: the :mod:`atexit` handlers (where libraries flush and close: logging,
    multiprocessing, coverage), then stdout and stderr flushed, then :func:`os._exit`. Python
    does not promise to finalize the objects still alive at exit, so nothing may rely on it.

    It exits normally instead (``sys.exit``) while another thread that the interpreter would
    wait for still runs, or under a tracer or profiler (a debugger, ``cProfile``, coverage):
    they write their results as the interpreter ends.
    """
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    if others or sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(code)
    # The handlers the interpreter would run at exit, in its order (the module's one way to
    # run them before the interpreter ends; they are then cleared, as at a normal exit).
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the reader left, or the stream was closed
            code = code or 120  # what Python's own exit gives when its flush fails
    os._exit(code)
