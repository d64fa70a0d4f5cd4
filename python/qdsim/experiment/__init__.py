"""The experiment file: from its TOML text to the core's ``RunConfig``.

:mod:`~qdsim.experiment.spec` loads and validates a file (its pydantic models, ``--set``
overrides), :mod:`~qdsim.experiment.units` parses its quantities and
:mod:`~qdsim.experiment.fields` types its keys, and
:mod:`~qdsim.experiment.resolve` turns a validated :class:`~qdsim.experiment.spec.Spec` into
the plain dict the core runs, built by :mod:`~qdsim.experiment.topologies` (nodes, links),
:mod:`~qdsim.experiment.traffic` (flow groups: one module per traffic kind, and their registry), :mod:`~qdsim.experiment.algorithms` (the
core's catalog of qdiscs and congestion controls) and :mod:`~qdsim.experiment.tcp_options`.
The experiment files themselves are in ``qdsim/experiments`` (:mod:`qdsim.packaged`).
"""
