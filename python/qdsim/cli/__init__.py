"""The ``qdsim`` command line (:mod:`~qdsim.cli.main`), with what it prints: progress on
stderr (:mod:`~qdsim.cli.progress`) and human-readable tables (:mod:`~qdsim.cli.report`).

:func:`command` is the ``qdsim`` script's entry point (``[project.scripts]``) and
``python -m qdsim``'s; :func:`main` runs a command and returns its exit status.
"""

from .main import command, main

__all__ = ["command", "main"]
