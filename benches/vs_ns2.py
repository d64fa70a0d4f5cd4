"""qdsim against ns-2.35 on the same simulated work: CPU time of the whole process, alternated.

The run is benches/vs_ns2.toml (100 ns-2 Sack1 flows over a 500 Mb/s FIFO, 20 s, exact
timing) unless ``--file`` names another experiment file. Each round runs, one after the
other, ``qdsim run FILE`` as a user would (a fresh interpreter: imports, building, the
simulation, the tables and files written) and the ns-2 script ``qdsim validate`` writes for
the same configuration (``ns`` with the measurement protocol, docs/engine-ns2.md), and takes
each process's CPU time (user + system, from ``wait4``). Rounds alternate so that a change in
the machine's load falls on both; the medians, their ratio, the bottleneck packets each
simulator carried (the same work, or the ratio means nothing) and the load average are
printed, and with ``--json`` also written as one JSON object. Beside them, qdsim's own
figures against issue 23's way-points: the Python around the core (each round's whole
process minus its core, target at most 0.2 s) and the core's events per bottleneck packet
(target at most 4). Without ns-2 (Debian's ``ns2``,
``make engines``) the ratio is left out with a note and qdsim's own figures are still given::

    .venv/bin/python benches/vs_ns2.py [--rounds 5] [--file FILE] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import at_least, run_measured

from qdsim import __version__, _core
from qdsim.engines import base
from qdsim.engines.ns2 import Ns2
from qdsim.experiment.resolve import resolve
from qdsim.experiment.spec import load
from qdsim.run.one import summarize

FILE = Path(__file__).resolve().with_name("vs_ns2.toml")


def qdsim_round(spec: Path, out: Path) -> tuple[float, dict[str, Any]]:
    """Runs ``qdsim run`` in a process of its own; returns its CPU seconds and its summary."""
    command = [sys.executable, "-m", "qdsim", "-q", "run", str(spec), "--out", str(out), "--force", "--json"]
    cpu_s, code, text, err = run_measured(command)
    if code != 0:
        raise SystemExit(f"qdsim run failed: {err.strip()}")
    return cpu_s, json.loads(text)


def compile_package() -> None:
    """Compiles qdsim's modules to bytecode, as installing its wheel does. Where the
    environment sets ``PYTHONDONTWRITEBYTECODE`` (a CI machine's, this project's sandbox) an
    editable install never caches its bytecode, and every round would compile each module it
    imports again: 0.15 s more of "Python around the core" on the 2-core VM."""
    import compileall

    import qdsim

    compileall.compile_dir(Path(qdsim.__file__).parent, quiet=1)


def bottleneck_packets(summary: dict[str, Any]) -> int:
    """Returns the packets the bottleneck transmitted in the summary's window."""
    return next(link["tx_pkts"] for link in summary["links"] if link["name"] == summary["bottleneck"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", type=Path, default=FILE, help="the experiment file both simulators run (default: benches/vs_ns2.toml)")
    parser.add_argument("--rounds", type=int, default=5, help="alternated rounds (medians are kept)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    args = parser.parse_args()
    at_least(args.rounds, "--rounds", 1)
    _, spec = load(args.file)
    config = resolve(spec)
    seed = config["seed"]
    ns2 = Ns2()
    missing = ns2.missing()
    cpu: dict[str, list[float]] = {"qdsim": [], "ns-2.35": []}
    core_s: list[float] = []
    packets: dict[str, int] = {}
    events = 0
    compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            seconds, summary = qdsim_round(args.file, Path(tmp) / "qdsim")
            cpu["qdsim"].append(seconds)
            core_s.append(summary["wall_s"])
            packets["qdsim"] = bottleneck_packets(summary)
            events = summary["events"]
            if missing is None:
                run = base.run(ns2, config, seed, Path(tmp) / "ns2", "bench")
                cpu["ns-2.35"].append(run.cpu_s)
                packets["ns-2.35"] = bottleneck_packets(summarize(run.outcome))
    load1, load5, _ = os.getloadavg()
    medians = {name: statistics.median(values) for name, values in cpu.items() if values}
    report: dict[str, Any] = {
        "file": str(args.file),
        "rounds": args.rounds,
        "cpu_s_median": medians,
        "cpu_s": cpu,
        "qdsim_core_wall_s_median": statistics.median(core_s),
        # The Python around the core, round by round: the whole process less its simulation.
        "qdsim_python_s_median": statistics.median(whole - core for whole, core in zip(cpu["qdsim"], core_s, strict=True)),
        "qdsim_events_per_bottleneck_packet": events / packets["qdsim"] if packets["qdsim"] else None,
        "bottleneck_packets": packets,
        "load_average": [load1, load5],
        "cores": os.cpu_count(),
        # How the extension measured was compiled (`make bench-ns2` builds it as the wheel is).
        "qdsim_build": _core.BUILD,
    }
    print(f"{args.file.name}, {args.rounds} alternated rounds, CPU seconds of the whole process (median):")
    print(f"  (qdsim {__version__}, core: {_core.BUILD} build)")
    for name, median in medians.items():
        print(f"  {name:8s} {median:7.3f} s   bottleneck packets {packets[name]:,}")
        print(f"           rounds: {', '.join(f'{v:.3f}' for v in cpu[name])} s")
    print(f"  qdsim's core alone (the simulation, from its summary): {report['qdsim_core_wall_s_median']:.3f} s")
    print(f"  qdsim's Python around it (whole process less core, per round): {report['qdsim_python_s_median']:.3f} s (target <= 0.2 s)")
    if report["qdsim_events_per_bottleneck_packet"] is not None:
        print(f"  qdsim's events per bottleneck packet: {report['qdsim_events_per_bottleneck_packet']:.2f} (target <= 4)")
    if missing is None:
        report["ratio"] = medians["ns-2.35"] / medians["qdsim"]
        print(f"  ns-2.35 / qdsim: {report['ratio']:.2f}x")
    else:
        print(f"  ns-2.35 not run ({missing}): no ratio")
    print(f"machine: {os.cpu_count()} cores, load average {load1:.1f} (1 min) {load5:.1f} (5 min) at the end")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
