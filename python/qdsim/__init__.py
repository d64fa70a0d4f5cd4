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
    "RunOutcome",
    "Spec",
    "SpecError",
    "UnitError",
    "__version__",
    "config_json",
    "jain_index",
    "load_spec",
    "parse_bytes",
    "parse_duration",
    "parse_limit",
    "parse_pkts",
    "parse_rate",
    "resolve",
    "run_config",
    "summarize",
]
