"""The version of qdsim: ``qdsim --version`` and the ``qdsim_version`` every results
directory records.

It is the installed distribution's version (the wheel's metadata, taken from the binding's
``Cargo.toml`` by maturin); in a source tree that was never installed, the compiled core's
own (the same number, built from the same ``Cargo.toml``).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from . import _core

__all__ = ["__version__"]

try:
    __version__: str = version("qdsim")
except PackageNotFoundError:  # a source tree whose extension was built without installing it
    __version__ = _core.__version__
