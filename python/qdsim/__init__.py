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
import sys
from collections.abc import Callable
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


def _names_from(module: str, names: tuple[str, ...]) -> dict[str, tuple[str, str | None]]:
    """Returns ``names`` as entries of a lazy table (:func:`_lazy_names`), each the attribute of
    the same name of ``module``."""
    return {name: (module, name) for name in names}


def _lazy_names(package: str, table: dict[str, tuple[str, str | None]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Returns the ``__getattr__`` and ``__dir__`` (PEP 562) of a package whose names are
    imported when first used: ``table`` maps each to ``(module, attribute)``, the module
    relative to the package and the attribute None for the module itself. A name, once
    imported, is kept in the package, so it is looked up once."""

    def getattr_(name: str) -> Any:
        try:
            module, attribute = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = importlib.import_module(module, package)
        if attribute is not None:
            value = getattr(value, attribute)
        setattr(sys.modules[package], name, value)
        return value

    def dir_() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table})

    return getattr_, dir_


#: Where each public name lives: ``name: (module, attribute)``, the module relative to this
#: package. A name is imported when first used, so that ``import qdsim`` costs almost nothing
#: and the command line (``qdsim.cli``) loads only what its command needs: ``qdsim list``
#: needs neither pyarrow nor the experiment models, and ``qdsim run`` can set up the process
#: (``OPENBLAS_NUM_THREADS``) before NumPy loads. ``plot`` and ``report`` need matplotlib and
#: plotly.
_LAZY: dict[str, tuple[str, str | None]] = {
    **_names_from(".api", ("Results", "Table", "load", "simulate", "sweep")),
    **_names_from(".errors", ("BudgetError", "SpecError")),
    **_names_from(".experiment.resolve", ("config_json", "resolve")),
    "Spec": (".experiment.spec", "Spec"),
    "load_spec": (".experiment.spec", "load"),
    **_names_from(".experiment.units", ("UnitError", "parse_bytes", "parse_duration", "parse_limit", "parse_pkts", "parse_rate")),
    "MissingExtraError": (".extras", "MissingExtraError"),
    "EXPERIMENT_FILES": (".packaged", "EXPERIMENT_FILES"),
    **_names_from(".run", ("RunOutcome", "jain_index", "run_config", "summarize")),
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


__getattr__, __dir__ = _lazy_names(__name__, _LAZY)
