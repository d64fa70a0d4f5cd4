"""qdsim: packet-level simulation of queue disciplines and TCP.

The public Python surface. ``qdsim._core`` (the compiled simulator) is private; use the
functions re-exported here::

    import qdsim
    raw, spec = qdsim.load_spec("experiments/quickstart.toml", ["flows.0.count=2"])
    outcome = qdsim.run_config(qdsim.resolve(spec))
    print(qdsim.summarize(outcome)["jain_index"])
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .errors import SpecError
from .resolve import config_json, resolve
from .run import RunOutcome, jain_index, run_config, summarize
from .spec import Spec
from .spec import load as load_spec
from .units import UnitError, parse_bytes, parse_duration, parse_limit, parse_pkts, parse_rate

try:
    __version__ = version("qdsim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

__all__ = [
    "__version__",
    "Spec",
    "SpecError",
    "UnitError",
    "RunOutcome",
    "load_spec",
    "resolve",
    "config_json",
    "run_config",
    "summarize",
    "jain_index",
    "parse_rate",
    "parse_duration",
    "parse_bytes",
    "parse_pkts",
    "parse_limit",
]
