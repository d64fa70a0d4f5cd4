"""Figures of results: metrics of a sweep against a swept key (:mod:`~qdsim.plot.sweep`),
time series of a run or a sweep (:mod:`~qdsim.plot.series`), the packet record
(:mod:`~qdsim.plot.packets`), with the columns' display names (:mod:`~qdsim.plot.labels`)
and censored completion times marked (:mod:`~qdsim.plot.censored`).

The ``draw_*`` functions return a matplotlib ``Figure`` (made without pyplot, so importing
this selects no backend); the ``plot_*`` functions save a figure with the numbers drawn::

    import qdsim

    fig = qdsim.plot.draw_sweep(qdsim.load("results/buffer_sweep"), y="goodput_bps")
"""

from .series import draw_cwnd, draw_queue, draw_series, plot_cwnd, plot_queue, plot_series
from .sweep import draw_sweep, figure_data, plot_sweep

__all__ = ["draw_cwnd", "draw_queue", "draw_series", "draw_sweep", "figure_data", "plot_cwnd", "plot_queue", "plot_series", "plot_sweep"]
