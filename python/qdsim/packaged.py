"""Files that ship inside the package: the experiment files.

``qdsim/experiments`` is, in a source checkout, a symlink to the repository's
``experiments/`` and, in the wheel, a copy of it (``[tool.maturin] include`` follows the
symlink), so the same path finds them in both: ``qdsim reproduce codel-dc`` works after
``pip install`` with no clone.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["EXPERIMENT_FILES"]

#: The experiment files: ``quickstart.toml``, ``examples/``, one directory per paper.
EXPERIMENT_FILES = Path(__file__).parent / "experiments"
