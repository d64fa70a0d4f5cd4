"""How a process running qdsim is tuned (qdsim.run.process): one BLAS thread unless the user
chose a count, no pydantic plugins unless the user said, the cycle collector for long-lived
objects, and all put back after; and how the command line's process ends (without the
interpreter's teardown, all else as an exit)."""

from __future__ import annotations

import contextlib
import gc
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from qdsim.run import process

ENV = process.BLAS_THREADS_ENV


PLUGINS = process.PYDANTIC_PLUGINS_ENV


def test_tuned_sets_one_blas_thread_no_plugins_and_the_collector_then_puts_all_back(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.delenv(PLUGINS, raising=False)
    before = gc.get_threshold()
    with process.tuned():
        assert os.environ[ENV] == "1"
        assert os.environ[PLUGINS] == "__all__"
        assert gc.get_threshold() == (process.COLLECT_AFTER, *before[1:])
    assert ENV not in os.environ and PLUGINS not in os.environ
    assert gc.get_threshold() == before


@pytest.mark.parametrize(("name", "value"), [(ENV, "3"), (PLUGINS, ""), (PLUGINS, "logfire")])
def test_tuned_keeps_what_the_user_set(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with process.tuned():
        assert os.environ[name] == value
    assert os.environ[name] == value


def test_tuned_puts_the_collector_back_after_an_error():
    before = gc.get_threshold()
    with pytest.raises(KeyError), process.tuned():
        raise KeyError("x")
    assert gc.get_threshold() == before


def _python(code: str, **env: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PATH": "/usr/bin:/bin", **env})
    return proc.stdout.strip().splitlines()[-1]


def test_the_command_line_imports_neither_numpy_pyarrow_nor_pydantic_before_it_runs_a_command():
    # Else OPENBLAS_NUM_THREADS would be set after OpenBLAS started its threads; and `qdsim
    # --help` takes 0.04 s instead of 0.09 without pydantic.
    code = "import sys, qdsim, qdsim.cli.main\nprint([m for m in ('numpy', 'pyarrow', 'pydantic', 'qdsim.experiment.spec') if m in sys.modules])"
    assert _python(code) == "[]"


def _after_a_run(out: Path, then: str, *overrides: str) -> str:
    """Returns the code of a child process that runs a short ``qdsim run`` through
    :func:`qdsim.cli.main.main` into ``out`` (with ``--set`` ``overrides``), then runs ``then``."""
    spec = Path(__file__).resolve().parents[1] / "experiments" / "quickstart.toml"
    sets = [arg for o in ("experiment.duration=0.05s", "experiment.warmup=0s", *overrides) for arg in ("--set", o)]
    return f"from qdsim.cli.main import main\nassert main(['-q', 'run', {str(spec)!r}, *{sets!r}, '--out', {str(out)!r}, '--json']) == 0\n{then}"


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="OpenBLAS starts one thread on one core whatever it is told")
def test_a_qdsim_run_starts_one_blas_thread_unless_told_more(tmp_path: Path):
    # A run that samples its queues builds its series with NumPy (one without imports none).
    sampled = ("sampling.interval=10ms", "sampling.queues=true")
    code = _after_a_run(tmp_path / "out", "import os, sys\nassert 'numpy' in sys.modules\nprint(len(os.listdir('/proc/self/task')))", *sampled)
    tuned = int(_python(code))
    told = int(_python(code, **{ENV: "2"}))
    assert told == tuned + 1, (tuned, told)


def test_a_qdsim_run_that_samples_nothing_imports_neither_numpy_nor_pyarrow(tmp_path: Path):
    # Its tables are written by the binding (qdsim.results.columns): 0.1-0.2 s of CPU saved.
    code = _after_a_run(tmp_path / "out", "import sys\nprint([m for m in ('numpy', 'pyarrow', 'pandas') if m in sys.modules])")
    assert _python(code) == "[]"
    assert {path.name for path in (tmp_path / "out").glob("*.parquet")} == {"points.parquet", "flows.parquet", "groups.parquet", "links.parquet"}


def test_a_qdsim_run_looks_for_no_pydantic_plugins_unless_told(tmp_path: Path):
    # Pydantic's search reads every installed distribution's entry points; its cache stays
    # unset when plugins are off.
    code = _after_a_run(tmp_path / "out", "from pydantic.plugin import _loader\nprint(_loader._plugins is None)")
    assert _python(code) == "True"
    assert _python(code, **{PLUGINS: ""}) == "False"


def test_a_sweep_worker_tunes_its_collector():
    code = "import gc, os\nfrom qdsim.run.sweep import _worker_init\n_worker_init(os.getppid())\nprint(gc.get_threshold()[0])"
    assert int(_python(code)) == process.COLLECT_AFTER


def test_every_public_name_of_the_lazy_packages_resolves_and_is_exported():
    import qdsim
    import qdsim.plot
    import qdsim.run

    figures = {"plot", "report", "write_report"}
    assert set(qdsim.__all__) == set(qdsim._LAZY) - figures
    assert set(qdsim.run.__all__) == set(qdsim.run._LAZY)
    assert set(qdsim.plot.__all__) == set(qdsim.plot._LAZY)
    lookups = [f"getattr(qdsim, {n!r})" for n in sorted(qdsim._LAZY)] + [f"getattr(qdsim.{p}, {n!r})" for p in ("run", "plot") for n in getattr(qdsim, p).__all__]
    code = "\n".join(["import qdsim, qdsim.run, qdsim.plot", *lookups, "print(sorted(set(dir(qdsim)) & {'simulate', 'plot'}))"])
    assert _python(code) == "['plot', 'simulate']"
    assert qdsim.load_spec is qdsim.experiment.spec.load and qdsim.run.run_sweep.__module__ == "qdsim.run.sweep"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        qdsim.nothing  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        qdsim.run.nothing  # noqa: B018


def test_a_local_pools_workers_start_with_one_blas_thread(monkeypatch):
    # A sweep from a notebook: the caller's process has no setting, its workers get it.
    from qdsim.experiment.spec import load
    from qdsim.run.sweep import _LocalPool, plan

    monkeypatch.delenv(ENV, raising=False)
    spec = Path(__file__).resolve().parents[1] / "experiments" / "quickstart.toml"
    raw, _ = load(spec, ["experiment.duration=0.05s", "experiment.warmup=0s"])
    pool = _LocalPool(1)
    try:
        futures = pool.submit_all(plan(raw)[:1], memory_limit=2**30)
        workers = list(pool.pool._processes.values())
        environ = [Path(f"/proc/{w.pid}/environ").read_bytes().split(b"\0") for w in workers]
        for future in futures:
            future.result(timeout=60)
    finally:
        pool.close()
    assert workers and all(f"{ENV}=1".encode() in env for env in environ)
    assert ENV not in os.environ


def test_collector_paused_keeps_what_the_block_made_out_of_later_passes():
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    try:
        with process.owned(), process.collector_paused():
            assert not gc.isenabled()
            made = [[i] for i in range(5000)]  # lasting objects, as imports make
        assert gc.isenabled() and gc.get_freeze_count() >= frozen + len(made)
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("case", ["not owned", "collector off"])
def test_collector_paused_does_nothing_in_a_callers_process_or_with_the_collector_off(case):
    frozen = gc.get_freeze_count()
    if case == "collector off":
        gc.disable()
    try:
        with contextlib.ExitStack() as stack:
            if case == "collector off":
                stack.enter_context(process.owned())
            stack.enter_context(process.collector_paused())
            assert gc.isenabled() == (case == "not owned")
        assert gc.isenabled() == (case == "not owned") and gc.get_freeze_count() == frozen
    finally:
        gc.enable()


#: A script that registers an atexit handler, leaves an object whose finalizer would run at
#: the interpreter's teardown, prints 10⁵ lines, then ends through exit_without_teardown(3).
EXIT_SCRIPT = """
import atexit, sys, threading, time
from qdsim.run import process

class Teardown:
    def __del__(self):
        print("torn down", file=sys.stderr)

kept = Teardown()
atexit.register(lambda: print("atexit ran", file=sys.stderr))
for i in range(100_000):
    print(i)
if "thread" in sys.argv:
    threading.Thread(target=lambda: (time.sleep(0.3), print("thread ended", file=sys.stderr))).start()
if "profile" in sys.argv:
    sys.setprofile(lambda *args: None)
try:
    process.exit_without_teardown(3)
except SystemExit:
    print("sys.exit", file=sys.stderr)
    raise
"""


@pytest.mark.parametrize("case", ["plain", "thread", "profile"])
def test_exit_without_teardown_does_what_an_exit_does_but_the_teardown(tmp_path, case):
    buffered = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}  # as a pipe is
    done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT, case], check=False, capture_output=True, text=True, timeout=60, env=buffered)
    assert done.returncode == 3
    assert done.stdout.splitlines() == [str(i) for i in range(100_000)]  # flushed, every line
    assert "atexit ran" in done.stderr
    # A normal exit (sys.exit) only when it must: a thread the interpreter waits for (which
    # then ends), a profiler (which writes at the end). The teardown finalizes what was left.
    assert ("sys.exit" in done.stderr) == (case != "plain")
    assert ("thread ended" in done.stderr) == (case == "thread")
    if case != "profile":
        assert ("torn down" in done.stderr) == (case == "thread")


def test_the_command_line_ends_without_teardown_and_keeps_its_status(tmp_path):
    script = "import atexit, sys\natexit.register(lambda: print('atexit ran', file=sys.stderr))\nsys.argv[1:] = ['run', 'missing.toml']\nfrom qdsim.cli import command\ncommand()"
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and "error:" in done.stderr and "atexit ran" in done.stderr


HUGE_PAGES_SCRIPT = """
import re, sys, qdsim
qdsim.simulate(sys.argv[1], set={"experiment.duration": "3s", "experiment.warmup": "1s"})
print(re.findall(r"AnonHugePages:\\s+(\\d+)", open("/proc/self/smaps_rollup").read())[0])
"""


def _transparent_huge_pages() -> str | None:
    """The kernel's setting of transparent huge pages (the bracketed word), or None off Linux."""
    try:
        setting = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return None
    chosen = re.search(r"\[(\w+)\]", setting)
    return chosen.group(1) if chosen else None


@pytest.mark.skipif(_transparent_huge_pages() not in ("madvise", "always"), reason="the kernel grants no transparent huge pages")
def test_the_core_allocates_on_huge_pages_where_the_kernel_grants_them_on_request():
    # The extension's allocator (mimalloc) asks for huge pages (docs/performance.md, "Huge
    # pages"); the C library's does not, and with the kernel's `madvise` setting a process
    # whose core allocated through it holds none (Python's own memory never asks).
    spec = Path(__file__).resolve().parents[1] / "experiments" / "quickstart.toml"
    done = subprocess.run([sys.executable, "-c", HUGE_PAGES_SCRIPT, str(spec)], check=True, capture_output=True, text=True, timeout=120)
    assert int(done.stdout.split()[-1]) > 0, done.stdout
