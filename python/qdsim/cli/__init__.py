"""The ``qdsim`` command line (:mod:`~qdsim.cli.main`), with what it prints: progress on
stderr (:mod:`~qdsim.cli.progress`) and human-readable tables (:mod:`~qdsim.cli.report`).

:func:`main` is the ``qdsim`` script's entry point (``[project.scripts]``) and
``python -m qdsim``'s.
"""

from .main import main

__all__ = ["main"]
