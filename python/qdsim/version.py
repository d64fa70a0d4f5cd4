"""The version of qdsim: ``qdsim --version`` and the ``qdsim_version`` every results
directory records.

It is the compiled core's (the binding's ``CARGO_PKG_VERSION``), the number maturin gives
the wheel too, taken from the same ``Cargo.toml``: a test holds it equal to the installed
distribution's. Read from the extension, which every command loads anyway, rather than from
the distribution's metadata, whose import (``importlib.metadata`` and the ``email`` parser)
cost about 12 ms of every command. (A pre-release would differ in spelling — Cargo's
``1.0.0-rc.1`` is the wheel's ``1.0.0rc1`` — and the test would say so.)
"""

from __future__ import annotations

from . import _core

__all__ = ["__version__"]

__version__: str = _core.__version__
