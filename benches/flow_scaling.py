"""The core's cost per bottleneck packet against the number of flows, and its memory per flow.

Issue 23's scaling target: at 10⁴ and 10⁵ flows, the cost of a bottleneck packet within
1.5× of its cost at 100 flows. Each flow count runs the whole-run benchmark
(``benches/dumbbell.rs``) with ``--scaled 1``: the bottleneck's rate and buffer grow with the
flows (5 Mb/s and 10 packets a flow), so that every count runs the 100-flow regime and the
comparison measures the simulator, not TCP at another operating point (at a fixed 500 Mb/s,
10⁴ flows get windows of a segment or two: timeouts and an ACK per segment).

The loop alone, without set-up and report, is the difference of two runs of the same flow
count, ``--seconds SHORT`` and ``--seconds LONG``: their CPU time (user + system, from
``wait4``) over the bottleneck packets the longer run carried more. Runs alternate between
the two lengths so that a change in the machine's load falls on both, and repeat until the
loops measured add up to two seconds of CPU (at 100 flows one is a tenth of a second); each
length's fastest run is kept, since a shared machine's noise only ever adds (on this 2-core VM
the same run's CPU time varies by up to 2x between minutes). Printed per flow count:
the loop's cost per bottleneck packet and its ratio to the first count's, events per
bottleneck packet, CPU per event, and the longer run's peak resident memory, in all and per
flow added to the first count (the process's own memory and the first count's set apart); with
``--json`` also as one JSON object::

    cargo build --release -p qdsim-benches --bin dumbbell
    python benches/flow_scaling.py [--flows 100,1000,10000] [--seconds 3,5] [--rounds 1] [--json OUT]

A count of 10⁵ flows takes minutes and some 8 GB; ask for it with ``--flows``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from common import at_least, run_measured, whole_numbers

BINARY = Path(__file__).resolve().parents[1] / "target" / "release" / "dumbbell"

#: What the benchmark prints, by the figure each line gives.
_LINES = {
    "events": re.compile(r"^events: (\d+)", re.M),
    "bottleneck_packets": re.compile(r"^bottleneck over the run: .*?, (\d+) packets", re.M),
    "peak_rss_mib": re.compile(r"^peak resident memory: ([\d.]+) MiB", re.M),
}


def run_once(flows: int, seconds: int) -> dict[str, float]:
    """Runs the benchmark once; returns its CPU seconds (user + system) and the figures it
    printed."""
    command = [str(BINARY), "--repeat", "1", "--seconds", str(seconds), "--flows", str(flows), "--scaled", "1"]
    cpu_s, code, text, err = run_measured(command)
    if code != 0:
        raise SystemExit(f"{' '.join(command)} failed: {err.strip() or text.strip()}")
    figures: dict[str, float] = {"cpu_s": cpu_s}
    for name, pattern in _LINES.items():
        match = pattern.search(text)
        if match is None:
            raise SystemExit(f"{BINARY.name} printed no {name} line; its output:\n{text}")
        figures[name] = float(match.group(1))
    return figures


#: CPU seconds of loop a flow count's rounds add up to at least (up to :data:`MOST_ROUNDS`): a
#: 100-flow loop of two simulated seconds is a tenth of a second, as noisy as it is long.
LEAST_LOOP_CPU_S = 2.0
MOST_ROUNDS = 15


def measure(flows: int, short: int, long: int, rounds: int) -> dict[str, Any]:
    """Runs ``flows`` at both lengths, alternately, ``rounds`` times — more while the loops
    measured add up to less than :data:`LEAST_LOOP_CPU_S` — and returns the loop's figures."""
    runs: dict[int, list[dict[str, float]]] = {short: [], long: []}

    def loop_cpu_so_far() -> float:
        return sum(runs[long][i]["cpu_s"] - runs[short][i]["cpu_s"] for i in range(len(runs[long])))

    while len(runs[long]) < rounds or (loop_cpu_so_far() < LEAST_LOOP_CPU_S and len(runs[long]) < MOST_ROUNDS):
        for seconds in (short, long):
            runs[seconds].append(run_once(flows, seconds))
    # The counts are the same in every run of a length (a run is deterministic); the CPU is not.
    fastest = {s: min(rs, key=lambda r: r["cpu_s"]) for s, rs in runs.items()}
    packets = fastest[long]["bottleneck_packets"] - fastest[short]["bottleneck_packets"]
    events = fastest[long]["events"] - fastest[short]["events"]
    cpu = fastest[long]["cpu_s"] - fastest[short]["cpu_s"]
    rss = fastest[long]["peak_rss_mib"]
    return {
        "flows": flows,
        "loop_us_per_bottleneck_packet": cpu / packets * 1e6,
        "events_per_bottleneck_packet": events / packets,
        "us_per_event": cpu / events * 1e6,
        "peak_rss_mib": rss,
        "cpu_s": {str(s): [r["cpu_s"] for r in rs] for s, rs in runs.items()},
        "bottleneck_packets": {str(s): fastest[s]["bottleneck_packets"] for s in runs},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flows", default="100,1000,10000", help="flow counts, even, the first the reference (default 100,1000,10000)")
    parser.add_argument("--seconds", default="3,5", help="the two simulated lengths whose difference is the loop (default 3,5)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help=f"alternated rounds per flow count, at least; more until the loops add up to {LEAST_LOOP_CPU_S:g} s of CPU (at most {MOST_ROUNDS}); the fastest of each length is kept",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    args = parser.parse_args()
    flow_counts = whole_numbers(args.flows, "--flows", 2)
    if any(n % 2 for n in flow_counts):
        raise SystemExit(f"error: --flows {args.flows!r}: every count must be even (half the flows at each RTT)")
    lengths = whole_numbers(args.seconds, "--seconds", 2)
    if len(lengths) != 2 or lengths[0] >= lengths[1]:
        raise SystemExit(f"error: --seconds {args.seconds!r}: give two lengths, the shorter first (at least 2 s: the flows start within the first second)")
    at_least(args.rounds, "--rounds", 1)
    if not BINARY.exists():
        raise SystemExit(f"error: {BINARY} is missing: build it with `cargo build --release -p qdsim-benches --bin dumbbell`")
    rows = []
    print(f"{'flows':>7} {'loop/pkt':>9} {'vs first':>8} {'events/pkt':>10} {'per event':>9} {'peak RSS':>10} {'per flow':>9}")
    try:
        for flows in flow_counts:
            row = measure(flows, lengths[0], lengths[1], args.rounds)
            first = rows[0] if rows else row
            row["vs_first"] = row["loop_us_per_bottleneck_packet"] / first["loop_us_per_bottleneck_packet"]
            # Memory a flow adds: the process's own and the first count's network set apart.
            added = (row["peak_rss_mib"] - first["peak_rss_mib"]) * 1024 / (flows - first["flows"]) if rows else None
            row["peak_rss_kib_per_added_flow"] = added
            rows.append(row)
            print(
                f"{flows:>7} {row['loop_us_per_bottleneck_packet']:>7.2f}µs {row['vs_first']:>7.1f}x "
                f"{row['events_per_bottleneck_packet']:>10.1f} {row['us_per_event']:>7.3f}µs "
                f"{row['peak_rss_mib']:>6.0f} MiB {'—' if added is None else f'{added:.1f} KiB':>9}",
                flush=True,
            )
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: the rows above are complete", file=sys.stderr)
    else:
        interrupted = False
    load1, load5, _ = os.getloadavg()
    print(f"loop/pkt: CPU of the {lengths[1]}-s run minus the {lengths[0]}-s run, per bottleneck")
    print("packet between (--scaled 1); per flow: peak RSS over the first count's,")
    print("per flow added")
    print(f"machine: {os.cpu_count()} cores, load average {load1:.1f} (1 min) {load5:.1f} (5 min) at the end")
    if args.json is not None:
        report = {"seconds": lengths, "rounds": args.rounds, "rows": rows, "load_average": [load1, load5], "cores": os.cpu_count()}
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if interrupted:
        raise SystemExit(130)


if __name__ == "__main__":
    main()
