"""Digests of what every committed experiment file resolves to and produces.

A refactoring that must not change behaviour is checked by running this before and after
and comparing the two files::

    python scripts/results_digest.py > before.txt      # on the old commit
    python scripts/results_digest.py > after.txt       # on the new one
    diff before.txt after.txt                           # empty: byte-identical

For each experiment file (default: every ``experiments/**/*.toml``) and each point of its
``[sweep]`` grid (one repetition, the file's seed), it prints the SHA-256 of the resolved
configuration's canonical JSON and of the core's results (the JSON summary plus every
sampled series column, byte for byte). ``--set KEY=VALUE`` applies to every file (for a
quicker check, e.g. ``--set experiment.duration=1s``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from qdsim import _core
from qdsim.errors import SpecError
from qdsim.experiment.resolve import config_json
from qdsim.experiment.spec import load
from qdsim.results.arrays import arrow_column
from qdsim.results.rows import rows_of
from qdsim.run.sweep import plan


def digest_results(config: dict) -> str:
    """Returns the SHA-256 of one run's results: the JSON text and every series column."""
    text, columns, rows = _core.run(config_json(config))
    summary = json.loads(text)
    # The flows and links as rows, as the core gave them in its JSON before it gave them as
    # Arrow columns: a digest of the values, whatever their layout.
    for kind, table in rows.items():
        summary[kind] = rows_of({name: arrow_column(*column) for name, column in table.items()})
    # How many events the core processed is the simulator's work, not the network's: a
    # change for speed may lower it and must leave everything else as it was.
    summary.pop("events", None)
    h = hashlib.sha256(json.dumps(summary, sort_keys=True).encode())
    for kind in sorted(columns):
        for name in sorted(columns[kind]):
            dtype, data = columns[kind][name]
            h.update(f"{kind}.{name}:{dtype}:".encode())
            h.update(data)
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="experiment files (default: experiments/**/*.toml)")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    files = args.files or sorted(Path("experiments").rglob("*.toml"))
    for path in files:
        try:
            raw, _ = load(path, [*args.sets, "sweep.repetitions=1"] if _has_sweep(path) else args.sets)
            points = plan(raw)
        except SpecError as e:  # a --set the file cannot take (a start after a shortened end)
            print(f"{path} refused: {e}", flush=True)
            continue
        for i, point in enumerate(points):
            cfg = hashlib.sha256(config_json(point.config).encode()).hexdigest()[:16]
            res = digest_results(point.config)[:16]
            params = json.dumps(point.params, sort_keys=True)
            print(f"{path} {i} config={cfg} results={res} {params}", flush=True)
    return 0


def _has_sweep(path: Path) -> bool:
    import tomllib

    return "sweep" in tomllib.loads(path.read_text())


if __name__ == "__main__":
    sys.exit(main())
