"""What the command line's commands share: the exit status of a user error, ``-q``/``-v``,
notes on stderr, the checks of ``--seed`` and ``--memory-limit``, and where a command's
results go by default.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from ..errors import SpecError

__all__ = ["EXIT_USER_ERROR", "check_seed", "clip", "memory_limit", "note", "options_dir", "verbosity", "version"]

#: The exit status of every user error (a bad file, option or directory).
EXIT_USER_ERROR = 2

#: -q (-1), neither (0) or -v (1): set by :func:`qdsim.cli.main.main`, read by :func:`note`.
verbosity = 0


def version() -> str:
    """Returns qdsim's version, the one every results directory records."""
    from .. import __version__

    return __version__


def version_line() -> str:
    """Returns what ``qdsim --version`` prints: the version and how the core was compiled
    (``_core.BUILD``: profile-guided for the wheel, which speed figures depend on)."""
    from .. import _core

    return f"qdsim {version()} (core: {_core.BUILD} build)"


def note(text: str) -> None:
    """Prints ``note: <text>`` on stderr, unless ``-q``."""
    if verbosity >= 0:
        print(f"note: {text}", file=sys.stderr)


def check_seed(seed: int | None) -> None:
    """Refuses a ``--seed`` that is not a 64-bit unsigned number."""
    if seed is not None and not 0 <= seed < 2**64:
        raise SpecError("--seed", seed, "a whole number from 0 to 2^64-1")


def memory_limit(text: str | None) -> int | None:
    """Returns ``--memory-limit`` in bytes (None: the default budget)."""
    if text is None:
        return None
    from ..experiment import units

    try:
        limit = units.parse_bytes(text)
    except units.UnitError as exc:
        raise SpecError("--memory-limit", text, exc.allowed) from None
    if limit < 10**6:
        raise SpecError("--memory-limit", text, "at least 1MB")
    return limit


def options_dir(out: Path | None, name: str, what: str, sets: list[str], seed: int | None) -> Path:
    """Returns a command's results directory: ``out`` (``--out``), else
    ``results/<name>-<what>/`` for the file as it is and ``results/<name>-<what>-<digest>/``
    with ``--set`` or ``--seed`` (the digest of those options), so that runs of one file with
    different options never share one."""
    if out is not None:
        return out
    if not sets and seed is None:
        return Path("results") / f"{name}-{what}"
    digest = hashlib.sha256(json.dumps({"set": sets, "seed": seed}).encode()).hexdigest()[:8]
    return Path("results") / f"{name}-{what}-{digest}"


def clip(text: str, width: int) -> str:
    """Returns ``text`` cut to ``width`` characters, ``...`` marking a cut."""
    return text if len(text) <= width else text[: width - 3] + "..."
