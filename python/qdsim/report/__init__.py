"""``qdsim report``: a results directory as one self-contained, interactive HTML page.

:func:`write_report` reads a run's, a sweep's (``qdsim sweep``, ``qdsim reproduce``) or a
validation's (``qdsim validate``) results directory (:mod:`~qdsim.report.source`) and writes
one HTML file that opens offline (plotly.js inline; :mod:`~qdsim.report.page`): the
experiment and its resolved TCP options (:mod:`~qdsim.report.tcp`), summary tables with
units (:mod:`~qdsim.report.summary`), and the figures the results have data for — a run's
throughput, queues, drops, TCP state and completion times (:mod:`~qdsim.report.figures`), a
sweep's metrics against its swept keys with 95 % confidence intervals
(:mod:`~qdsim.report.sweep_figures`), in the palette and units of every qdsim figure
(:mod:`~qdsim.report.style`)::

    import qdsim

    qdsim.report.write_report("results/buffer_sweep")   # results/buffer_sweep/report.html
"""

from .page import write_report

__all__ = ["write_report"]
