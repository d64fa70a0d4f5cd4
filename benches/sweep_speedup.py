"""How much faster a sweep runs on two local worker processes than on one (`make bench-sweep`),
and, with ``--dask``, on a Dask cluster of N workers over loopback TCP than on one.

The sweep: experiments/examples/buffer_sweep.toml made heavier (100 Mb/s, 16 flows, 40 s
simulated) over 64 FIFO limits, one repetition each — 64 runs of about half a second. It
runs from scratch into a temporary directory with ``--jobs 1`` and then ``--jobs 2`` (the
whole command: planning, worker start-up, storing, the tables), best of ``--repeat``
alternating rounds, and prints the wall times, the speed-up and the load average, which on
a shared machine decides the result more than the code does::

    .venv/bin/python benches/sweep_speedup.py [--repeat 3] [--jobs 2]
    .venv/bin/python benches/sweep_speedup.py --dask 1,2,4   # needs qdsim[dask]

With ``--dask``, each worker count gets a ``distributed.LocalCluster`` of that many worker
processes of one thread each, talking over TCP on 127.0.0.1 as a cluster of machines would;
the time is the sweep's on the running cluster (its start is not counted), best of
``--repeat``, and the speed-up is against the cluster of one worker. A worker count above the
machine's cores cannot be linear: the workers share the cores.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from concurrent.futures import Executor
from pathlib import Path

from common import at_least, whole_numbers

from qdsim.experiment.spec import load
from qdsim.run.sweep import run_sweep

SPEC = Path(__file__).resolve().parents[1] / "experiments" / "examples" / "buffer_sweep.toml"
SETTINGS = [
    "topology.bottleneck_rate=100Mbps",
    "flows.0.count=16",
    "experiment.duration=40s",
    'sweep."topology.qdisc.limit"=[' + ", ".join(str(10 * i) for i in range(1, 65)) + "]",
    "sweep.repetitions=1",
]


def timed(raw: dict, jobs: int, executor: Executor | None = None) -> float:
    """Returns the wall seconds of the whole sweep on ``jobs`` local workers (or on
    ``executor``), from nothing stored."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        report = run_sweep(raw, Path(tmp) / "out", jobs=None if executor else jobs, executor=executor)
        took = time.perf_counter() - started
    assert report.ran == 64 and report.missing == 0
    return took


def dask_speedup(raw: dict, workers: list[int], repeat: int) -> None:
    """Prints the sweep's best time on a loopback Dask cluster of each worker count, and the
    speed-up over one worker."""
    from distributed import Client, LocalCluster

    best = {}
    for n in workers:
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1", protocol="tcp", dashboard_address=None) as cluster, Client(cluster) as client:
            executor = client.get_executor(pure=False)
            timed(raw, 1, executor)  # the workers import qdsim once, as a long-lived cluster has
            best[n] = min(timed(raw, 1, executor) for _ in range(repeat))
    one = best.get(1)
    for n, took in best.items():
        speedup = f", speed-up {one / took:.2f}x ({one / took / n:.2f} of linear)" if one else ""
        print(f"64-run sweep on a loopback Dask cluster, best of {repeat}: {n} worker(s) {took:.1f} s{speedup}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="alternating rounds; the best of each is kept")
    parser.add_argument("--jobs", type=int, default=2, help="workers of the parallel sweep")
    parser.add_argument("--dask", default=None, metavar="N,N,...", help="instead: Dask clusters of these worker counts over loopback TCP (1 first)")
    args = parser.parse_args()
    at_least(args.repeat, "--repeat", 1)
    at_least(args.jobs, "--jobs", 1)
    workers = whole_numbers(args.dask, "--dask", 1) if args.dask is not None else None
    raw, _ = load(SPEC, SETTINGS)
    if workers:
        dask_speedup(raw, workers, args.repeat)
        load1, load5, _ = os.getloadavg()
        print(f"machine: {os.cpu_count()} cores, load average {load1:.1f} (1 min) {load5:.1f} (5 min) at the end")
        return
    best = {1: float("inf"), args.jobs: float("inf")}
    for _ in range(args.repeat):
        for jobs in best:
            best[jobs] = min(best[jobs], timed(raw, jobs))
    serial, parallel = best[1], best[args.jobs]
    load1, load5, _ = os.getloadavg()
    print(f"64-run sweep, best of {args.repeat}: 1 worker {serial:.1f} s, {args.jobs} workers {parallel:.1f} s, speed-up {serial / parallel:.2f}x")
    print(f"machine: {os.cpu_count()} cores, load average {load1:.1f} (1 min) {load5:.1f} (5 min) at the end")


if __name__ == "__main__":
    main()
