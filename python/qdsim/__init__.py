"""qdsim: packet-level simulation of queue disciplines and TCP.

The public Python surface (``docs/python-api.md``). ``qdsim._core`` (the compiled
simulator) is private; use the functions re-exported here::

    import qdsim
    run = qdsim.simulate("experiments/quickstart.toml", set={"flows.0.count": 2})
    print(run.summary["jain_index"], run.groups.to_pandas())

:func:`simulate`, :func:`sweep` and :func:`load` return :class:`Results` (``api.py``); the
lower layers they are built on stay available: ``load_spec`` → ``resolve`` → ``run_config``
→ ``summarize``.
"""

from __future__ import annotations

from .api import Results, Table, load, simulate, sweep
from .errors import BudgetError, SpecError
from .extras import MissingExtraError
from .packaged import EXPERIMENT_FILES
from .resolve import config_json, resolve
from .run import RunOutcome, jain_index, run_config, summarize
from .spec import Spec
from .spec import load as load_spec
from .units import UnitError, parse_bytes, parse_duration, parse_limit, parse_pkts, parse_rate
from .version import __version__

__all__ = [
    "EXPERIMENT_FILES",
    "BudgetError",
    "MissingExtraError",
    "Results",
    "RunOutcome",
    "Spec",
    "SpecError",
    "Table",
    "UnitError",
    "__version__",
    "config_json",
    "jain_index",
    "load",
    "load_spec",
    "parse_bytes",
    "parse_duration",
    "parse_limit",
    "parse_pkts",
    "parse_rate",
    "resolve",
    "run_config",
    "simulate",
    "summarize",
    "sweep",
]
