"""Type stub of ``qdsim._core``, the compiled simulation core (crate ``crates/qdsim-py``).

Private: use the ``qdsim`` package. Keep in step with ``crates/qdsim-py/src/lib.rs``.
"""

from collections.abc import Callable

__all__ = [
    "BUILD",
    "SOURCE_DIGEST",
    "BudgetError",
    "ConfigError",
    "SimulationError",
    "__version__",
    "catalog",
    "check_qdisc",
    "check_tcp",
    "pcap_file_name",
    "run",
    "stream_seed",
    "write_parquet",
    "write_parquet_stream",
]

__version__: str

#: SHA-256 (hex) of the sources that decide a run's results: the core's and the binding's
#: Rust sources and manifests, and Cargo.lock (computed when the extension is built).
SOURCE_DIGEST: str

#: How the extension was compiled: cargo's profile (``release``), then ``, profile-guided``
#: for the wheel's build (``scripts/pgo.py``) or ``, instrumented for a profile`` for its
#: training build. Speed only: results never depend on it.
BUILD: str

class ConfigError(ValueError):
    """A run configuration value the core refuses.

    ``key`` is the dotted path in the RunConfig (e.g. ``links[2].rate_bps``), ``value`` the
    rendered value and ``allowed`` what is allowed.
    """

    key: str
    value: str
    allowed: str

class SimulationError(RuntimeError):
    """The core failed to finish a run (a bug: please report it)."""

class BudgetError(SimulationError):
    """A run went over its memory budget (``run``'s ``memory_limit``).

    ``what`` names the growing part that held the most bytes (e.g. ``"sampled series
    rows"``), ``detail`` its count or largest contributor, ``used`` and ``limit`` are bytes
    and ``at_s`` the simulated time of the check that found it; ``before_build``: the
    network alone exceeded the budget and the run was refused before it was built.
    """

    what: str
    detail: str
    used: int
    limit: int
    at_s: float
    before_build: bool

def run(
    config_json: str,
    memory_limit: int | None = None,
    progress: Callable[[float, float, int, int], object] | None = None,
) -> tuple[str, dict[str, dict[str, tuple[str, bytes]]], dict[str, dict[str, tuple[str, int, int, bytes | None, list[bytes]]]]]:
    """Runs one simulation of the resolved RunConfig ``config_json``.

    Returns ``(results_json, series, rows)``: RunResults as JSON, except that the ``queue`` and
    ``tcp`` time series (and the ``qdisc`` series and the ``packets`` record, when recorded;
    the queue series' ``tx_bytes`` column too) are moved out of it into
    ``series[kind][column] = (dtype, data)``, the column's NumPy dtype (``"<f8"``, ``"<u4"``,
    ``"<u8"``, ``"<i8"``, ``"|b1"``, and ``"<U<n>"`` for the qdisc series' variable names) and
    its values as little-endian bytes (``numpy.frombuffer(data, dtype)``). The TCP event log
    stays in the JSON. The ``flows`` and ``links`` rows are not in it: they are
    ``rows["flows"]`` and ``rows["links"]``, one column per field in the struct's order,
    each ``(arrow_type, length, null_count, validity, buffers)`` in Arrow's memory layout
    (``qdsim_core::arrow``: ``"int64"``, ``"float64"``, ``"bool"``, ``"string"`` or
    ``"map<string, int64>"``; ``validity`` None when no value is null), which
    :func:`qdsim.results.arrays.arrow_column` makes an Arrow array of without a copy.

    The GIL is released while the simulation runs; about every 0.1 s of wall time it is
    taken back to handle signals (Ctrl-C raises KeyboardInterrupt from here) and to call
    ``progress(now_s, end_s, events, memory_bytes)``, whose exceptions stop the run and
    propagate. ``memory_limit`` bounds the bytes held by what grows with the run (packets
    in queues and on links, series rows, the event log, transfer records, connections,
    pending events); None: no bound.

    Raises ConfigError for a value the core refuses, BudgetError when the run goes over
    ``memory_limit`` and SimulationError if the core fails.
    """

def catalog() -> str:
    """Returns the catalog as JSON: ``{"qdiscs": [...], "cc": [...], "traffic": [...], "tcp": [...], "drop_reasons": [...]}``.

    Each qdisc and traffic kind has ``name``, ``summary`` and ``params`` (each with
    ``name``, ``unit``, ``default``, ``help``); each congestion control ``name`` and ``summary``;
    each TCP option ``name``, ``field`` (its ``TcpConfig`` field), ``unit``, ``default``,
    ``help`` and ``max`` (the largest value of a numeric option, else null);
    ``drop_reasons`` lists every name a link's ``drops_by_reason`` can hold.
    """

def stream_seed(seed: int, name: str, index: int) -> int:
    """Returns the seed of random stream ``(name, index)`` of a run seeded with ``seed``."""

def pcap_file_name(link: str, drops: bool) -> str:
    """Returns the file name of link ``link``'s packet capture (of its dropped packets with ``drops``), as the core writes it into ``pcap.dir``."""

def check_qdisc(qdisc_json: str, rate_bps: int) -> None:
    """Checks one QdiscConfig as the core does on a link of ``rate_bps``; raises ConfigError keyed by the core's parameter name."""

def check_tcp(tcp_json: str) -> None:
    """Checks one TcpConfig as the core does; raises ConfigError keyed by the core's parameter name."""

def write_parquet(path: str, fields: list[tuple[str, str]], columns: list[list[object] | tuple[str, int, int, bytes | None, list[bytes]]], rows: int) -> None:
    """Writes one table to the Parquet file ``path`` (Snappy, the Arrow schema embedded).

    ``fields`` are its columns' names and type names (``int64``, ``uint64``, ``float64``,
    ``string``, ``bool``, ``list<float64>``); ``columns`` one per field, a list of Python
    values (None for null) or one of the core's columns as ``run`` hands it over; ``rows``
    the table's rows. A value a column cannot hold raises TypeError naming the column and
    the row; a file that cannot be written, OSError naming it.
    """

def write_parquet_stream(path: str, table: object) -> None:
    """Writes a table that offers the Arrow C stream interface (``__arrow_c_stream__``: a
    ``pyarrow.Table``) to the Parquet file ``path``, with the settings of :func:`write_parquet`."""
