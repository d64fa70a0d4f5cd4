"""Figures of results: metrics of a sweep against a swept key (:mod:`~qdsim.plot.sweep`),
time series of a run or a sweep (:mod:`~qdsim.plot.series`), the packet record
(:mod:`~qdsim.plot.packets`), with the columns' display names (:mod:`~qdsim.plot.labels`)
and censored completion times marked (:mod:`~qdsim.plot.censored`).

The ``draw_*`` functions return a matplotlib ``Figure`` (made without pyplot, so importing
this selects no backend); the ``plot_*`` functions save a figure with the numbers drawn::

    import qdsim

    fig = qdsim.plot.draw_sweep(qdsim.load("results/buffer_sweep"), y="goodput_bps")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy_names, _names_from

if TYPE_CHECKING:
    from .series import draw_cwnd, draw_queue, draw_series, plot_cwnd, plot_queue, plot_series
    from .sweep import draw_sweep, figure_data, plot_sweep

#: Where each name lives (``qdsim._lazy_names``): imported when first used, so that a module
#: of this package (``labels``, which ``qdsim report`` uses) loads without matplotlib.
_LAZY = {
    **_names_from(".series", ("draw_cwnd", "draw_queue", "draw_series", "plot_cwnd", "plot_queue", "plot_series")),
    **_names_from(".sweep", ("draw_sweep", "figure_data", "plot_sweep")),
}

__all__ = ["draw_cwnd", "draw_queue", "draw_series", "draw_sweep", "figure_data", "plot_cwnd", "plot_queue", "plot_series", "plot_sweep"]

__getattr__, __dir__ = _lazy_names(__name__, _LAZY)
