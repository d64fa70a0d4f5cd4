"""Running: one resolved configuration on the core (:mod:`~qdsim.run.one`: the run, its
summary and the code version that keys stored runs) and a sweep's grid of them on a process
pool or any executor, resumable (:mod:`~qdsim.run.sweep`).

The names re-exported here are what the rest of the package and the reference engines
(:mod:`qdsim.engines`) run through.
"""

from .one import RunOutcome, code_version, jain_index, run_config, summarize
from .sweep import SweepReport, run_sweep

__all__ = ["RunOutcome", "SweepReport", "code_version", "jain_index", "run_config", "run_sweep", "summarize"]
