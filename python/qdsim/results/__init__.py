"""Results: what runs and sweeps store, and every way to read them.

:mod:`~qdsim.results.tables` makes the results tables (fixed schemas, the rows of one run),
:mod:`~qdsim.results.store` writes and reads results directories, :mod:`~qdsim.results.status`
says which stored runs are stale and prunes them, :mod:`~qdsim.results.selection` picks and
groups a sweep's runs (``--where``, lines, panels), :mod:`~qdsim.results.stats` gives means
with confidence intervals, and :mod:`~qdsim.results.compare` holds two results side by side
(``qdsim compare``). The notebook's view of them is :class:`qdsim.Results` (:mod:`qdsim.api`).
"""
