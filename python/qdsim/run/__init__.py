"""Running: one resolved configuration on the core (:mod:`~qdsim.run.one`: the run, its
summary and the code version that keys stored runs), a sweep's grid of them on a process
pool or any executor, resumable (:mod:`~qdsim.run.sweep`), and how the processes that run
them are tuned (:mod:`~qdsim.run.process`).

The names re-exported here are what the rest of the package and the reference engines
(:mod:`qdsim.engines`) run through. Each is imported when first used, so that the command
line can import :mod:`~qdsim.run.process` before NumPy and pyarrow load.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .one import RunOutcome, code_version, jain_index, run_config, summarize
    from .sweep import SweepReport, run_sweep

#: Where each name lives: ``name: module`` (relative to this package).
_LAZY = {
    **dict.fromkeys(("RunOutcome", "code_version", "jain_index", "run_config", "summarize"), ".one"),
    **dict.fromkeys(("SweepReport", "run_sweep"), ".sweep"),
}

__all__ = ["RunOutcome", "SweepReport", "code_version", "jain_index", "run_config", "run_sweep", "summarize"]


def __getattr__(name: str) -> Any:
    """Imports ``name`` on first use (:data:`_LAZY` says from where) and keeps it."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value
