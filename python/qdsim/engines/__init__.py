"""Reference engines: the same experiment in ns-2.35 and ns-3, side by side with qdsim.

Each engine is one module behind the interface of :mod:`qdsim.engines.base` and one line of
:data:`ENGINES`; :mod:`qdsim.engines.measure` is the measurement protocol they all print.
``qdsim validate`` (:mod:`qdsim.validation.validate`) runs them.
"""

from __future__ import annotations

from ..errors import SpecError
from .base import Engine, EngineError, EngineRun, Script, Unsupported, run

__all__ = ["ENGINES", "Engine", "EngineError", "EngineRun", "Script", "Unsupported", "get", "run"]


def _registry() -> dict[str, Engine]:
    from .ns2 import Ns2
    from .ns3 import Ns3

    return {engine.name: engine for engine in (Ns2(), Ns3())}


#: Every engine by its command-line name, in the order ``--engine all`` runs them.
ENGINES: dict[str, Engine] = _registry()


def get(name: str, option: str = "--engine") -> Engine:
    """Returns the engine called ``name``; a SpecError naming ``option`` if there is none."""
    if name not in ENGINES:
        raise SpecError(option, name, f"one of {', '.join(ENGINES)} or all")
    return ENGINES[name]
