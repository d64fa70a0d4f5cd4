"""Running: one resolved configuration on the core (:mod:`~qdsim.run.one`: the run, its
summary and the code version that keys stored runs), a sweep's grid of them on a process
pool or any executor, resumable (:mod:`~qdsim.run.sweep`), and how the processes that run
them are tuned (:mod:`~qdsim.run.process`).

The names re-exported here are what the rest of the package and the reference engines
(:mod:`qdsim.engines`) run through. Each is imported when first used, so that the command
line can import :mod:`~qdsim.run.process` before NumPy and pyarrow load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy_names, _names_from

if TYPE_CHECKING:
    from .one import RunOutcome, code_version, jain_index, run_config, summarize
    from .sweep import SweepReport, run_sweep

#: Where each name lives (``qdsim._lazy_names``).
_LAZY = {
    **_names_from(".one", ("RunOutcome", "code_version", "jain_index", "run_config", "summarize")),
    **_names_from(".sweep", ("SweepReport", "run_sweep")),
}

__all__ = ["RunOutcome", "SweepReport", "code_version", "jain_index", "run_config", "run_sweep", "summarize"]

__getattr__, __dir__ = _lazy_names(__name__, _LAZY)
