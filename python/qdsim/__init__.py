"""qdsim: packet-level simulation of queue disciplines and TCP.

The public Python surface (``docs/python-api.md``). ``qdsim._core`` (the compiled
simulator) is private; use the functions re-exported here::

    import qdsim
    run = qdsim.simulate("experiments/quickstart.toml", set={"flows.0.count": 2})
    print(run.summary["jain_index"], run.groups.to_pandas())

:func:`simulate`, :func:`sweep` and :func:`load` return :class:`Results` (``api.py``); the
lower layers they are built on stay available: ``load_spec`` → ``resolve`` → ``run_config``
→ ``summarize``. Figures are :mod:`qdsim.plot` (``qdsim.plot.draw_sweep(results)``), and a
results directory's HTML page is :func:`write_report` (:mod:`qdsim.report`, ``qdsim
report``): both imported when first used, so that ``import qdsim`` loads neither matplotlib
nor plotly.
"""

from __future__ import annotations

import importlib
from typing import Any

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


def __getattr__(name: str) -> Any:
    """Imports :mod:`qdsim.plot` and :mod:`qdsim.report` on first use (``qdsim.plot``,
    ``qdsim.report``, ``qdsim.write_report``): they need matplotlib and plotly, which
    ``import qdsim`` does not load."""
    if name in ("plot", "report"):
        return importlib.import_module(f".{name}", __name__)
    if name == "write_report":
        return importlib.import_module(".report", __name__).write_report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
