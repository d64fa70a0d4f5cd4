"""Builds the extension with profile-guided optimisation (PGO): the wheel users install.

`make wheel` and `make dev-pgo` run this with the virtualenv's interpreter:

    python scripts/pgo.py wheel DIST     # the manylinux wheel, into DIST
    python scripts/pgo.py develop        # the extension, into python/qdsim (as `make dev`)

Three steps, each in its own target directory under target/pgo/ so that `target/release`
(what `make dev` and the tests build) stays warm:

1. the extension built with LLVM's instrumentation (`-Cprofile-generate`);
2. that extension runs the training workload (`train`, below, in a child process), which
   writes how often each branch and call was taken;
3. the counts merged (`llvm-profdata`, from rustup's `llvm-tools`, the LLVM rustc itself
   uses) and the extension built again with them (`-Cprofile-use`): the compiler lays out,
   inlines and unrolls by what runs, not by guesses.

Then `check`: every run of the workload with the profile-guided extension and with the
instrumented one (the same sources compiled without the profile) must write the same tables,
byte for byte. A profile is kept while its instrumented build and workload are unchanged
(`profile`), so a second build from it (`develop` after `wheel`) relinks the extension alone.
Neither build carries debug information (the wheel is stripped; line tables cost each
whole-program build about half a minute).

A result never depends on it: the same sources give the same program, only its machine code
is arranged differently (the digests of every experiment file's runs are the same with and
without it, docs/performance.md "Profile-guided optimisation"). The training workload runs
every queue discipline, congestion control and TCP profile of the core's catalog and each
traffic kind of the papers' files, so that no algorithm's code is left laid out as never run
(PGO optimises code it saw no run of for size), and weighs the hot loop by realistic runs:
the benchmark's scenario and the papers' own files, shortened.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PGO = ROOT / "target" / "pgo"
PROFILES = PGO / "profiles"
MERGED = PGO / "qdsim.profdata"
#: The training key (`training_key`) of the profile in MERGED.
TRAINED = PGO / "qdsim.profdata.key"


def run(cmd: list[str], **kwargs: object) -> None:
    """Runs `cmd`, stopping this script with its status if it fails."""
    print("pgo:", " ".join(str(c) for c in cmd), flush=True)
    status = subprocess.run(cmd, check=False, **kwargs).returncode  # type: ignore[call-overload]
    if status != 0:
        raise SystemExit(f"pgo: {cmd[0]} failed (exit status {status})")


def profdata_tool() -> Path | None:
    """Returns rustup's `llvm-profdata` for the compiler in use, adding the `llvm-tools`
    component when it is missing (Debian's llvm-profdata reads its own LLVM's format only), or
    None, having said why, when it cannot be had."""
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
    host = next(line.split()[1] for line in subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines() if line.startswith("host:"))
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.exists() and shutil.which("rustup") is not None:
        # A machine that cannot reach rustup's servers may take long to say so.
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(["rustup", "component", "add", "llvm-tools"], check=False, timeout=120)
    if not tool.exists():
        print(f"pgo: warning: {tool} is missing (rustup component add llvm-tools): building WITHOUT profile-guided optimisation, about 7-13 % slower", file=sys.stderr, flush=True)
        return None
    return tool


def with_rustflags(flag: str, target_dir: Path) -> dict[str, str]:
    """Returns the environment of a cargo or maturin build with `flag` added to RUSTFLAGS and
    its own target directory, without debug information: the wheel strips it anyway, and the
    line tables cost each of the two whole-program builds about half a minute (the profile
    matches either way: debug information does not change the code the counts describe)."""
    env = dict(os.environ)
    env["RUSTFLAGS"] = " ".join(filter(None, [env.get("RUSTFLAGS", ""), flag]))
    env["CARGO_TARGET_DIR"] = str(target_dir)
    env["CARGO_PROFILE_RELEASE_DEBUG"] = "false"
    return env


def instrumented() -> Path:
    """The extension step 1 builds: compiled without the profile, so also what the
    profile-guided build's results are checked against (`check`)."""
    return PGO / "gen" / "release" / "lib_core.so"


def profile() -> bool:
    """Steps 1-3: builds the instrumented extension, trains it and merges the counts into
    MERGED; returns False, building nothing, where there is no `llvm-profdata`.

    A profile made from the same instrumented build and the same workload is kept, not made
    again: every crate's build depends on the profile's file (rustc lists it among a crate's
    inputs), and the counts of two trainings differ a little (the run looks at the clock
    every 2^14 events), so a new one would rebuild all 86 crates where only the extension's
    last link is needed — `make dev-pgo` after `make wheel`, as CI runs them, relinks it alone."""
    tool = profdata_tool()
    if tool is None:
        return False
    run(["cargo", "build", "--release", "-p", "qdsim-py"], cwd=ROOT, env=with_rustflags(f"-Cprofile-generate={PROFILES}", PGO / "gen"))
    key = training_key()
    if MERGED.exists() and TRAINED.exists() and TRAINED.read_text() == key:
        print(f"pgo: {MERGED.relative_to(ROOT)} is this instrumented build's and workload's profile: kept", flush=True)
        return True
    shutil.rmtree(PROFILES, ignore_errors=True)
    PROFILES.mkdir(parents=True)
    TRAINED.unlink(missing_ok=True)
    run([sys.executable, __file__, "train", str(instrumented())], cwd=ROOT, env=counting_into(PROFILES))
    run([str(tool), "merge", "-o", str(MERGED), str(PROFILES)])
    TRAINED.write_text(key)
    return True


def training_key() -> str:
    """What a profile was made from: the instrumented extension, this script (the workload)
    and the package's Python, which turns the workload's files into the core's runs."""
    h = hashlib.sha256(instrumented().read_bytes())
    for f in [Path(__file__).resolve(), *sorted((ROOT / "python" / "qdsim").rglob("*.py"))]:
        h.update(f"{f.relative_to(ROOT)}\0".encode() + f.read_bytes())
    return h.hexdigest()


def counting_into(directory: Path) -> dict[str, str]:
    """The environment of a child process that runs the instrumented extension: the package
    from the checkout, the counts written into `directory`."""
    return dict(os.environ, PYTHONPATH=str(ROOT / "python"), LLVM_PROFILE_FILE=str(directory / "qdsim-%p-%m.profraw"))


def build(kind: str, dist: Path | None, profiled: bool) -> None:
    """Step 3's build: the wheel into `dist`, or the extension into python/qdsim; without the
    profile (`profiled` false) as `make dev` builds, in target/."""
    env = with_rustflags(f"-Cprofile-use={MERGED}", PGO / "use") if profiled else dict(os.environ)
    maturin = str(Path(sys.executable).parent / "maturin")
    if kind == "wheel":
        assert dist is not None
        for old in dist.glob("qdsim-*.whl"):
            old.unlink()
        run([maturin, "build", "--release", "--strip", "--interpreter", sys.executable, "--out", str(dist)], cwd=ROOT, env=env)
        if profiled:
            check(wheel_extension(dist))
    else:
        env["VIRTUAL_ENV"] = str(Path(sys.executable).parent.parent)
        run([maturin, "develop", "--release", "--quiet"], cwd=ROOT, env=env)
        run([sys.executable, "-m", "qdsim", "--version"], cwd=ROOT)
        if profiled:
            check(next((ROOT / "python" / "qdsim").glob("_core*.so")))


def wheel_extension(dist: Path) -> Path:
    """The extension inside the wheel just built into `dist`, unpacked under target/pgo/."""
    wheel = next(dist.glob("qdsim-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if re.fullmatch(r"qdsim/_core[^/]*\.so", n))
        out = PGO / "wheel" / Path(name).name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(archive.read(name))
    return out


def check(extension: Path) -> None:
    """The profile-guided build gives the results of the build without the profile: every
    run of the training workload, with both, each table, summary and configuration byte for
    byte (`digest`). The profile only rearranges machine code; this holds it so for the
    extension shipped, which `make test` in CI then tests."""
    outputs = []
    for so in (instrumented(), extension):
        with tempfile.TemporaryDirectory() as counts:
            # The instrumented build counts as it runs: into a directory thrown away, not the profile.
            result = subprocess.run([sys.executable, __file__, "digest", str(so)], cwd=ROOT, env=counting_into(Path(counts)), capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise SystemExit(f"pgo: the check's runs failed with {so}:\n{result.stderr}")
        outputs.append(result.stdout.splitlines())
    plain, guided = outputs
    for a, b in zip(plain, guided, strict=True):
        if a != b:
            raise SystemExit(f"pgo: the profile-guided build's results differ from the build without the profile:\n  without: {a}\n  with:    {b}")
    print(f"pgo: the profile-guided build gives the same results as the build without it ({len(plain)} runs, every table byte for byte)", flush=True)


#: The files of the papers and examples run with their own values, shortened: the
#: benchmark's scenario (ns-2 agents, a 500 Mb/s FIFO) and one or more of each paper's, which
#: between them hold every topology, traffic kind and recorded series (dumbbell, star, parking
#: lot and graph; saturated, on-off, incast, Poisson packets, UDP CBR, short flows; the time
#: series and the packet log).
FILES: list[tuple[str, dict[str, object]]] = [
    ("benches/vs_ns2.toml", {"experiment.duration": "4s"}),
    ("experiments/kantawala-discard/fig4c.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
    ("experiments/kantawala-discard/fig6.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
    ("experiments/codel-dc/fig5.toml", {"experiment.duration": "2s"}),
    ("experiments/codel-dc/fig9.toml", {"experiment.duration": "2s"}),
    ("experiments/codel-dc/fig8b.toml", {"experiment.duration": "2s"}),
    ("experiments/menth-lds/fig3a.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
    ("experiments/menth-lds/fig5a.toml", {"experiment.duration": "8s", "experiment.warmup": "1s"}),
    ("experiments/lu-ewfq/fig2.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
    ("experiments/lu-ewfq/fig4a.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
    ("experiments/auge-buffer-sizing/fig3.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
    ("experiments/auge-buffer-sizing/fig4.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
    ("experiments/examples/parking_lot.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
    ("experiments/validation/highspeed.toml", {"experiment.duration": "3s", "experiment.warmup": "1s"}),
]

QUICKSTART = "experiments/quickstart.toml"
SHORT = {"experiment.duration": "3s", "experiment.warmup": "1s"}

#: DRR's buffer policies, each with what it needs beyond the defaults.
DRR_BUFFERS: dict[str, dict[str, object]] = {
    "shared": {"limit": "100pkt"},
    "drop_on_dequeue": {"limit": "100pkt", "t_d": "20ms"},
    "per_queue": {"queue_limits": [15000]},
    "ewfq": {"limit": "150KB", "ewfq_rtt_o": "200ms"},
    "ns2_lqd": {"limit": "100pkt"},
    "qsdrr": {"limit": "100pkt"},
    "tdrr": {"limit": "100pkt"},
    "dtdrr": {"limit": "100pkt"},
    "dsdrr": {"limit": "100pkt"},
}


def workload() -> list[tuple[str, dict[str, object]]]:
    """Returns the training runs: (experiment file, overrides)."""
    from qdsim.experiment import algorithms

    runs = list(FILES)
    for kind in algorithms.qdisc_names():
        runs.append((QUICKSTART, {**SHORT, "topology.qdisc": {"kind": kind, "limit": "100pkt"}}))
    for buffer, params in DRR_BUFFERS.items():
        runs.append((QUICKSTART, {**SHORT, "topology.qdisc": {"kind": "drr", "buffer": buffer, **params}}))
    for cc in algorithms.cc_names():
        runs.append((QUICKSTART, {**SHORT, "flows.0.cc": cc, "flows.1.cc": cc}))
    for profile in algorithms.tcp_profiles():
        tcp = {"profile": profile["name"]}
        runs.append((QUICKSTART, {**SHORT, "flows.0.tcp": tcp, "flows.1.tcp": tcp}))
    return runs


def load_core(extension: str) -> Any:
    """In a child process: loads `extension` as `qdsim._core` (before anything imports the
    checkout's) and returns it."""
    import importlib.machinery
    import importlib.util

    import qdsim

    loader = importlib.machinery.ExtensionFileLoader("qdsim._core", extension)
    spec = importlib.util.spec_from_loader("qdsim._core", loader, origin=extension)
    assert spec is not None
    core = importlib.util.module_from_spec(spec)
    loader.exec_module(core)
    sys.modules["qdsim._core"] = core
    qdsim._core = core  # type: ignore[attr-defined]
    return core


def train(extension: str) -> None:
    """Step 2, in the child process: loads the instrumented extension as `qdsim._core` and
    runs the workload through the package, as `qdsim run` runs a file."""
    import qdsim

    core = load_core(extension)
    if "instrumented" not in core.BUILD:
        raise SystemExit(f"pgo: {extension} is not the instrumented build ({core.BUILD}): nothing would be counted")
    runs = workload()
    for i, (path, overrides) in enumerate(runs, 1):
        print(f"pgo: training {i}/{len(runs)}: {path} {overrides}", flush=True)
        qdsim.simulate(ROOT / path, set=overrides)


def digest(extension: str) -> None:
    """`check`'s child process: runs the workload with `extension` as `qdsim run --out`
    writes it and prints one line a run, the SHA-256 of every file written (`written`)."""
    import qdsim

    load_core(extension)
    for path, overrides in workload():
        with tempfile.TemporaryDirectory() as out:
            qdsim.simulate(ROOT / path, set=overrides, out=out)
            h = hashlib.sha256()
            for f in sorted(f for f in Path(out).rglob("*") if f.is_file()):
                data = written(f)
                h.update(f"{f.relative_to(out)}:{len(data)}:".encode() + data)
        print(f"{path} {json.dumps(overrides, sort_keys=True)} {h.hexdigest()}", flush=True)


def written(f: Path) -> bytes:
    """Returns what results file `f` holds but the run's wall-clock time (`wall_s`, in
    `summary.json` and `points.parquet`), which differs from one run to the next of one build."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if f.name == "summary.json":
        summary = json.loads(f.read_bytes())
        summary.pop("wall_s")
        return json.dumps(summary, sort_keys=True).encode()
    if f.suffix == ".parquet" and "wall_s" in pq.read_schema(f).names:
        table = pq.read_table(f).drop_columns(["wall_s"])
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as stream:
            stream.write_table(table)
        return sink.getvalue().to_pybytes()
    return f.read_bytes()


def main(argv: list[str]) -> None:
    usage = "usage: python scripts/pgo.py wheel DIST | develop"
    if argv[:1] == ["train"] and len(argv) == 2:
        train(argv[1])
    elif argv[:1] == ["digest"] and len(argv) == 2:
        digest(argv[1])
    elif argv[:1] == ["wheel"] and len(argv) == 2:
        build("wheel", Path(argv[1]).resolve(), profile())
    elif argv == ["develop"]:
        build("develop", None, profile())
    else:
        print(usage, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:
        print("pgo: interrupted", file=sys.stderr)
        sys.exit(130)
