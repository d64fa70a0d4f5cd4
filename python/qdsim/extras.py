"""qdsim's optional parts: which extra installs each, and the error when one is missing.

The wheel's required dependencies are what every run needs (pydantic, NumPy, PyArrow,
matplotlib, rich). The heavy parts that only some uses need are extras
(``pip install "qdsim[sql,pandas]"``): DuckDB for SQL over results (``sql``), pandas and
polars for data frames, xarray for a sweep as an array (``xarray``, with pandas), Dask for
sweeps on a cluster (``dask``); ``all`` installs every one. :func:`require` imports one of
them where it is used and, when it is missing, raises :class:`MissingExtraError` naming the
extra to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "MissingExtraError", "require"]

#: The module each extra provides → the extra's name (``pyproject.toml``'s
#: ``[project.optional-dependencies]``; a test checks the two agree).
EXTRAS = {
    "duckdb": "sql",
    "pandas": "pandas",
    "polars": "polars",
    "xarray": "xarray",
    "distributed": "dask",
}


class MissingExtraError(ImportError):
    """An optional part of qdsim that is not installed; the message names the extra.

    Attributes: ``module`` (what could not be imported), ``extra`` (the extra that installs
    it) and ``what`` (the feature that needs it).
    """

    def __init__(self, module: str, extra: str, what: str):
        self.module, self.extra, self.what = module, extra, what
        super().__init__(f'{what} needs {module}, which is not installed: pip install "qdsim[{extra}]"', name=module)

    def __reduce__(self):
        return (MissingExtraError, (self.module, self.extra, self.what))


def require(module: str, what: str) -> ModuleType:
    """Returns the optional ``module`` (a key of :data:`EXTRAS`), imported; raises
    :class:`MissingExtraError` naming its extra when it is not installed. ``what`` names the
    feature that needs it, e.g. ``"Results.to_pandas"``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(module, EXTRAS[module], what) from None
