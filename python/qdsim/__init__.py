"""qdsim: packet-level simulation of queue disciplines and TCP.

The public Python surface (``docs/python-api.md``). ``qdsim._core`` (the compiled
simulator) is private; use the functions re-exported here::

    import qdsim
    run = qdsim.simulate("experiments/quickstart.toml", set={"flows.0.count": 2})
    print(run.summary["jain_index"], run.groups.to_pandas())

:func:`simulate`, :func:`sweep` and :func:`load` return :class:`Results` (``api.py``); the
lower layers they are built on stay available: ``load_spec`` → ``resolve`` → ``run_config``
→ ``summarize``. Figures are :mod:`qdsim.plot` (``qdsim.plot.draw_sweep(results)``), imported
when first used so that ``import qdsim`` loads no matplotlib.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .api import Results, Table, load, simulate, sweep
from .errors import BudgetError, SpecError
from .experiment.resolve import config_json, resolve
from .experiment.spec import Spec
from .experiment.spec import load as load_spec
from .experiment.units import UnitError, parse_bytes, parse_duration, parse_limit, parse_pkts, parse_rate
from .extras import MissingExtraError
from .packaged import EXPERIMENT_FILES
from .run import RunOutcome, jain_index, run_config, summarize
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


def __getattr__(name: str) -> ModuleType:
    """Imports :mod:`qdsim.plot` on first use of ``qdsim.plot``: it needs matplotlib, which
    ``import qdsim`` does not load."""
    if name == "plot":
        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
