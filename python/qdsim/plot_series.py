"""Time-series plots of one run: congestion window per flow, queue length per link.

These read the ``series_tcp`` / ``series_queue`` tables that ``qdsim run --out DIR`` writes
when ``[sampling]`` is on (``tcp = true`` or ``tcp_on_change = true`` for the window,
``queues = true`` for queues). Augé & Roberts' Fig. 3/5/6/7 are of the first form.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from . import store
from .errors import SpecError

__all__ = ["UNLIMITED_SSTHRESH", "plot_cwnd", "plot_queue"]

#: The core reports an ssthresh that is still "arbitrarily high" (RFC 5681) as 2^31 - 1.
UNLIMITED_SSTHRESH = 2**31 - 1


def _table(results_dir: Path, name: str, how: str) -> dict[str, list]:
    path = Path(results_dir) / f"{name}.parquet"
    if not path.exists():
        raise SpecError("RESULTS_DIR", str(results_dir), f"a results directory with {name}.parquet (run with {how})")
    return store.read_table(results_dir, name).to_pydict()


def _finish(fig, ax, ylabel: str, target: Path, legend: bool = True) -> Path:
    """Labels the time axis, saves the figure to ``target`` and closes it."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(target)
    plt.close(fig)
    return target


def _select(available: list[int], wanted: list[int] | None, key: str) -> list[int]:
    if wanted is None:
        return available
    missing = [w for w in wanted if w not in available]
    if missing:
        raise SpecError(key, ",".join(map(str, missing)), f"ids present in the results ({', '.join(map(str, available[:20]))})")
    return wanted


def plot_cwnd(results_dir: Path, out: Path | None = None, flows: list[int] | None = None) -> Path:
    """Draws cwnd (and ssthresh, dashed, while finite) against time, one line per flow.

    Returns the path of the figure written (default ``RESULTS_DIR/cwnd.png``).
    """
    series = _table(results_dir, "series_tcp", "[sampling] tcp = true or tcp_on_change = true")
    groups = {}
    flows_path = Path(results_dir) / "flows.parquet"
    if flows_path.exists():
        ft = store.read_table(results_dir, "flows").to_pydict()
        groups = dict(zip(ft["id"], ft["group"], strict=True))
    chosen = _select(sorted(set(series["flow"])), flows, "--flows")
    fig, ax = plt.subplots(figsize=(7, 4))
    for flow in chosen:
        rows = [i for i, f in enumerate(series["flow"]) if f == flow]
        t = [series["t"][i] for i in rows]
        label = f"flow {flow}" + (f" ({groups[flow]})" if flow in groups else "")
        (line,) = ax.step(t, [series["cwnd"][i] for i in rows], where="post", label=label, linewidth=1)
        ssthresh = [series["ssthresh"][i] if series["ssthresh"][i] < UNLIMITED_SSTHRESH else float("nan") for i in rows]
        ax.step(t, ssthresh, where="post", linestyle="--", linewidth=0.7, color=line.get_color())
    ax.set_title("cwnd (solid) and ssthresh (dashed)")
    return _finish(fig, ax, "congestion window (segments)", out or Path(results_dir) / "cwnd.png", len(chosen) <= 12)


def plot_queue(results_dir: Path, out: Path | None = None, links: list[str] | None = None) -> Path:
    """Draws the queue length in packets against time, one line per link with traffic.

    Returns the path of the figure written (default ``RESULTS_DIR/queue.png``).
    """
    series = _table(results_dir, "series_queue", "[sampling] queues = true")
    names = sorted(set(series["link_name"]))
    busy = [n for n in names if any(p > 0 for p, ln in zip(series["pkts"], series["link_name"], strict=True) if ln == n)]
    chosen = links or busy or names
    unknown = [n for n in chosen if n not in names]
    if unknown:
        raise SpecError("--links", ",".join(unknown), f"link names in the results ({', '.join(names[:20])})")
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in chosen:
        rows = [i for i, ln in enumerate(series["link_name"]) if ln == name]
        ax.step([series["t"][i] for i in rows], [series["pkts"][i] for i in rows], where="post", label=name, linewidth=1)
    return _finish(fig, ax, "queue (packets)", out or Path(results_dir) / "queue.png")
