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
report``). Every name here is imported when first used (:data:`_LAZY`), so that ``import
qdsim`` loads neither pyarrow nor pydantic, and neither matplotlib nor plotly until a figure
or a report is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ imports each name
    from . import plot as plot
    from . import report as report
    from .api import Results, Table, load, simulate, sweep
    from .errors import BudgetError, SpecError
    from .experiment.resolve import config_json, resolve
    from .experiment.spec import Spec
    from .experiment.spec import load as load_spec
    from .experiment.units import UnitError, parse_bytes, parse_duration, parse_limit, parse_pkts, parse_rate
    from .extras import MissingExtraError
    from .packaged import EXPERIMENT_FILES
    from .report import write_report as write_report
    from .run import RunOutcome, jain_index, run_config, summarize
    from .version import __version__

#: Where each public name lives: ``name: (module, attribute)``, the module relative to this
#: package. A name is imported when first used, so that ``import qdsim`` costs almost nothing
#: and the command line (``qdsim.cli``) loads only what its command needs: ``qdsim list``
#: needs neither pyarrow nor the experiment models, and ``qdsim run`` can set up the process
#: (``OPENBLAS_NUM_THREADS``) before NumPy loads. ``plot`` and ``report`` need matplotlib and
#: plotly.
_LAZY: dict[str, tuple[str, str | None]] = {
    **{name: (".api", name) for name in ("Results", "Table", "load", "simulate", "sweep")},
    **{name: (".errors", name) for name in ("BudgetError", "SpecError")},
    **{name: (".experiment.resolve", name) for name in ("config_json", "resolve")},
    "Spec": (".experiment.spec", "Spec"),
    "load_spec": (".experiment.spec", "load"),
    **{name: (".experiment.units", name) for name in ("UnitError", "parse_bytes", "parse_duration", "parse_limit", "parse_pkts", "parse_rate")},
    "MissingExtraError": (".extras", "MissingExtraError"),
    "EXPERIMENT_FILES": (".packaged", "EXPERIMENT_FILES"),
    **{name: (".run", name) for name in ("RunOutcome", "jain_index", "run_config", "summarize")},
    "__version__": (".version", "__version__"),
    "plot": (".plot", None),
    "report": (".report", None),
    "write_report": (".report", "write_report"),
}

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
    """Imports the public ``name`` on first use (:data:`_LAZY` says from where) and keeps it."""
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = importlib.import_module(module, __name__)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
