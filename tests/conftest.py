"""Shared helpers: small experiment files, a way to run the CLI as users do, and the figure
tests' one way to get results (``quick``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

from qdsim.papers.reproduce import find_figures, quick_raw, sweep_figure

# Property tests check values, never time: hypothesis's default 200-ms deadline per example
# failed a correct test on a loaded 2-core CI machine (440 ms). Speed lives in benches/.
settings.register_profile("qdsim", deadline=None)
settings.load_profile("qdsim")

#: A short dumbbell run (2 s simulated) used by most CLI tests.
SMALL_SPEC = """
[experiment]
name = "small"
duration = "2s"
warmup = "0.5s"
seed = 3

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "50pkt" }

[[flows]]
group = "near"
count = 2
access_delay = "5ms"
start_window = "0.5s"

[[flows]]
group = "far"
count = 2
cc = "reno"
access_delay = "20ms"
start_window = "0.5s"
"""

#: SMALL_SPEC shortened, over a 2 × 2 grid with two repetitions: 8 runs of a second.
SMALL_SWEEP = (
    SMALL_SPEC.replace('duration = "2s"', 'duration = "1s"').replace('warmup = "0.5s"', 'warmup = "0.2s"')
    + """
[sweep]
"topology.qdisc.limit" = [10, 40]
"topology.bottleneck_rate" = ["5Mbps", "10Mbps"]
repetitions = 2
"""
)


@pytest.fixture
def small_spec(tmp_path: Path) -> Path:
    """Returns the path of a copy of SMALL_SPEC."""
    path = tmp_path / "small.toml"
    path.write_text(SMALL_SPEC)
    return path


@pytest.fixture
def write_spec(tmp_path: Path):
    """Returns a function writing TOML text to a new file and returning its path."""
    counter = iter(range(10**6))

    def write(text: str) -> Path:
        path = tmp_path / f"spec{next(counter)}.toml"
        path.write_text(text)
        return path

    return write


class CliResult:
    """Exit status and output of one `qdsim` invocation."""

    def __init__(self, code: int, stdout: str, stderr: str):
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    def json(self):
        return json.loads(self.stdout)


#: Set to run every `qdsim` fixture call in a fresh interpreter (`python -m qdsim`), as the
#: tests did before they ran the command in-process.
IN_PROCESS = os.environ.get("QDSIM_TEST_CLI", "in-process") != "process"


@pytest.fixture
def qdsim(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Returns a function running the `qdsim` command with ARGS... in tmp_path.

    In this process (:func:`qdsim.cli.main`, its output captured): a fresh interpreter would
    prove nothing these tests check and costs a quarter second of start-up per call. What
    only a process shows — the entry point, signals, an interrupted sweep, the wheel — is
    tested with processes of its own (test_packaging, test_interrupts, scripts/test_wheel.sh).
    """

    def run(*args: str) -> CliResult:
        argv = [str(a) for a in args]
        if not IN_PROCESS:
            proc = subprocess.run([sys.executable, "-m", "qdsim", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
            return CliResult(proc.returncode, proc.stdout, proc.stderr)
        from qdsim.cli import main

        capsys.readouterr()
        with monkeypatch.context() as scoped:
            scoped.chdir(tmp_path)
            # The command sets these for its process (matplotlib's backend, -v's progress):
            # each is put back as it was after the call.
            for name in ("MPLBACKEND", "QDSIM_PROGRESS_INTERVAL"):
                if name in os.environ:
                    scoped.setenv(name, os.environ[name])
                else:
                    scoped.delenv(name, raising=False)
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: --help, a bad option
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
        out, err = capsys.readouterr()
        return CliResult(code, out, err)

    return run


#: The committed experiment files: one directory per paper.
EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def load_script(name: str):
    """Imports ``scripts/<name>.py`` (the scripts are not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--engine",
        default=None,
        help="run the figure tests' sweeps in a reference engine (ns2, ns3) instead of qdsim: does each finding hold there? (use with --runxfail)",
    )
    parser.addoption("--verdicts", default=None, metavar="PATH", help="write each figure test's outcome (and the engine points it lacked) to PATH as JSON")


#: The figure test running now, and the refusals of the engine sweeps its module used (by the
#: module's node id: a module's fixtures run a sweep once for all its tests).
_CURRENT: list[str] = []
_REFUSALS: dict[str, set[str]] = {}
_OUTCOMES: dict[str, dict[str, str]] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _CURRENT[:] = [item.nodeid]
    yield
    _CURRENT.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = (yield).get_result()
    if item.config.getoption("verdicts") is None or "figure" not in item.keywords:
        return
    failed = report.failed and call.excinfo is not None
    if report.when == "call" or failed or report.skipped:
        lacked = sorted(_REFUSALS.get(item.nodeid.split("::")[0], ()))
        outcome = "skipped" if report.skipped and not hasattr(report, "wasxfail") else "xfailed" if hasattr(report, "wasxfail") else report.outcome
        detail = str(call.excinfo.value).strip().splitlines()[0][:300] if call.excinfo is not None and str(call.excinfo.value).strip() else ""
        error = call.excinfo.typename if call.excinfo is not None else ""
        _OUTCOMES[item.nodeid] = {"outcome": outcome, "when": report.when, "error": error, "detail": detail, "lacked": "; ".join(lacked)}


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("verdicts")
    if path is not None:
        Path(path).write_text(json.dumps({"engine": session.config.getoption("engine"), "tests": _OUTCOMES}, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="session")
def quick(tmp_path_factory, request) -> Callable[[Path], Path]:
    """Returns a function giving the results directory of an experiment file's ``[quick]`` run.

    Each file runs once per session, through the sweep ``qdsim reproduce --quick`` runs (into
    a results directory); the figure tests read its tables (helpers in
    ``figures/figure_results.py``). Drawing the quick figures is tested in
    ``test_reproduce.py``, once per figure kind, and left out here to save time. With
    ``--engine`` the sweeps run in that reference engine (``qdsim reproduce --engine``); the
    points it cannot run are left out and noted against the tests that used them.
    ``quick.sweep(figure, raw, out)`` runs another sweep the same way (a test's variant set-up).
    """
    engine = request.config.getoption("engine")
    done: dict[Path, Path] = {}
    refusals: dict[Path, set[str]] = {}

    def sweep(figure, raw: dict, out: Path) -> Path:
        report = sweep_figure(figure, raw, out, jobs=1 if engine is None else 2, engine=engine)
        assert report.missing == 0, f"{report.missing} runs missing"
        if engine is not None:
            from qdsim.engines.sweep import refused_points

            refusals[out] = {r["reason"] for r in refused_points(out)}
        _note(out)
        return out

    def _note(out: Path) -> None:
        if _CURRENT and refusals.get(out):
            _REFUSALS.setdefault(_CURRENT[0].split("::")[0], set()).update(refusals[out])

    def results(path: Path) -> Path:
        if path not in done:
            (figure,) = find_figures([str(path)], root=EXPERIMENTS)
            out = tmp_path_factory.mktemp(f"{figure.paper}-{figure.stem}")
            done[path] = sweep(figure, quick_raw(figure.raw), out)
        _note(done[path])
        return done[path]

    results.sweep = sweep  # type: ignore[attr-defined]
    results.engine = engine  # type: ignore[attr-defined]
    return results
