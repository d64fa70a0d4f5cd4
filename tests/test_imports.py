"""The package's structure reads top-down: no module imports another that imports it back.

The import graph is read from the source (``ast``), with every intra-package import —
module level and inside functions — as an edge, so a cycle cannot hide in a function body:
a function-local import is there for a lazy start (the CLI), never to break a circle.
Modules are named by their dotted path in the package (``run.one``; a sub-package by its
``__init__.py``: ``plot``); importing a sub-package's module from outside it runs the
sub-package's ``__init__.py`` first, so that is an edge too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "qdsim"

#: The modules at the package's top level: the public API and what every part shares. Every
#: other module lives in the sub-package of what it does (docs/architecture.md).
TOP_LEVEL = {"__init__", "__main__", "api", "errors", "extras", "packaged", "version"}


def _modules() -> dict[str, Path]:
    """Returns the package's modules by dotted name (the experiment files left out)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] == "experiments":
            continue
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Returns the package modules ``path`` (module ``name``) imports, at module level or in
    a function, with the sub-packages whose ``__init__.py`` that runs; imports for type
    checkers only (under ``if TYPE_CHECKING:``) never run and do not count."""
    package = [] if name == "__init__" else name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING" for inner in ast.walk(node)}
    targets: list[list[str]] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
            elif node.module and node.module.split(".")[0] == "qdsim":
                base = []
            else:
                continue
            module = [*base, *(node.module.split(".") if node.module else [])]
            if node.level == 0:
                module = module[1:]  # "qdsim." off
            targets.append(module)
            targets += [[*module, alias.name] for alias in node.names]
        elif isinstance(node, ast.Import):
            targets += [alias.name.split(".")[1:] for alias in node.names if alias.name.startswith("qdsim.")]
    found = set()
    for target in targets:
        for end in range(1, len(target) + 1):
            dotted = ".".join(target[:end])
            if (dotted in known or dotted == "_core") and target[:end] != package[:end]:
                found.add(dotted)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, set(modules)) - {name} for name, path in modules.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Returns one import cycle of ``graph`` as a list of modules, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                return [*path[path.index(dep) :], dep]
            if dep not in state and (found := visit(dep)):
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_package_import_graph_has_no_cycle():
    graph = _graph()
    assert len(graph) > 10, sorted(graph)
    assert {"experiment.spec", "run.one", "results.store", "plot"} <= set(graph), sorted(graph)
    assert "results.tables" in graph["results.store"] and "results" in graph["plot.sweep"]
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_every_module_below_the_api_lives_in_a_sub_package():
    top = {name for name in _modules() if "." not in name and (PACKAGE / f"{name}.py").exists()}
    assert top == TOP_LEVEL, "a new module goes into the sub-package of what it does (docs/architecture.md)"


@pytest.mark.parametrize("module", ["topologies", "traffic", "fields", "tcp_options", "algorithms", "spec", "units", "errors"])
def test_the_parts_of_resolution_do_not_import_resolve(module):
    graph = _graph()
    reached, todo = set(), [module if module in graph else f"experiment.{module}"]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in reached:
                reached.add(dep)
                todo.append(dep)
    assert "experiment.resolve" not in reached, sorted(reached)


#: Modules `qdsim run` never needs, and their cost: pyarrow.compute (about 40 ms) is for the
#: results API's filters, Dask and DuckDB for sweeps and SQL, plotly for reports; pandas
#: (0.2 s) for the API's `to_pandas` — pyarrow's own converters import it wherever it is
#: installed, which the results tables avoid (`qdsim.results.arrays.arrow_array`).
HEAVY = ("pandas", "pyarrow.compute", "distributed", "duckdb", "plotly", "matplotlib")

#: A run of half a second that samples every series table and holds every other table.
EVERY_TABLE = """
[experiment]
name = "every-table"
duration = "0.5s"
warmup = "0.1s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "codel" }

[sampling]
interval = "50ms"
queues = true
tcp = true
tcp_events = true
qdisc = true
tx_bytes = true
flows_in_progress = true
packets = { max_rows = 100 }

[[flows]]
group = "long"
count = 2
access_delay = "10ms"

[[flows]]
group = "short"
kind = "short_flows"
arrival_rate = 200
size_distribution = "exponential"
size_mean = "20KB"
access_delay = "10ms"
"""


def _heavy_loaded_after(code: str) -> str:
    """Returns the :data:`HEAVY` modules loaded after ``code`` runs in a fresh interpreter."""
    import subprocess
    import sys

    code += f"\nimport sys\nprint([m for m in {HEAVY!r} if m in sys.modules])\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PATH": "/usr/bin:/bin"})
    return proc.stdout.strip().splitlines()[-1]


def test_importing_qdsim_and_its_cli_leaves_the_heavy_optional_modules_unloaded() -> None:
    assert _heavy_loaded_after("import qdsim, qdsim.cli.main") == "[]"


def test_a_whole_run_leaves_the_heavy_optional_modules_unloaded(tmp_path: Path) -> None:
    # What `qdsim run` pays around its core, every table written (a series table is built
    # from NumPy columns, the others from rows).
    spec, out = tmp_path / "every.toml", tmp_path / "out"
    spec.write_text(EVERY_TABLE)
    code = f"from qdsim.cli.main import main\nassert main(['-q', 'run', {str(spec)!r}, '--out', {str(out)!r}, '--json']) == 0"
    assert _heavy_loaded_after(code) == "[]"
    from qdsim.results import tables

    assert {p.stem for p in out.glob("*.parquet")} == {*tables.TABLES, *tables.SERIES_TABLES}


def test_a_sweep_its_resumption_and_reading_its_results_leave_pandas_unloaded(tmp_path: Path) -> None:
    # pyarrow imports pandas (0.2 s) for `pa.array` of a list and for `pq.read_table` (through
    # pyarrow.dataset); the store builds from buffers and reads through ParquetFile. A sweep's
    # merge needs pyarrow.compute, so only the rest of HEAVY is checked.
    spec = Path(__file__).resolve().parents[1] / "experiments" / "examples" / "buffer_sweep.toml"
    sets = ["--set", "experiment.duration=0.05s", "--set", "experiment.warmup=0s"]
    out = str(tmp_path / "sweep")
    code = "from qdsim.cli.main import main\n"
    for reps in (1, 2):  # a fresh sweep, then one that reuses its runs
        code += f"assert main(['-q', 'sweep', {str(spec)!r}, *{sets!r}, '--set', 'sweep.repetitions={reps}', '--out', {out!r}, '--jobs', '1']) == 0\n"
    code += f"assert main(['-q', 'results', 'show', {out!r}]) == 0\n"
    loaded = eval(_heavy_loaded_after(code))
    assert [m for m in loaded if m != "pyarrow.compute"] == []
    from qdsim.results import store

    assert store.read_table(Path(out), "points").num_rows == 6 * 2


def test_a_runs_report_and_the_plot_packages_names_load_neither_matplotlib_nor_pandas(tmp_path: Path) -> None:
    # A run's page is plotly's; matplotlib (0.2 s) draws a sweep's numbers only. pandas (0.2 s)
    # comes with pyarrow's to_numpy, group_by and scalars from Python values: the page reads
    # columns with store.numbers and filters with report.source.rows_where.
    spec, out = tmp_path / "every.toml", tmp_path / "out"
    spec.write_text(EVERY_TABLE)
    code = (
        "from qdsim.cli.main import main\n"
        f"assert main(['-q', 'run', {str(spec)!r}, '--out', {str(out)!r}, '--json']) == 0\n"
        f"assert main(['-q', 'report', {str(out)!r}]) == 0\n"
        "import qdsim.plot, qdsim.plot.labels\n"
    )
    loaded = eval(_heavy_loaded_after(code))
    assert "matplotlib" not in loaded and "pandas" not in loaded, loaded
    assert (out / "report.html").stat().st_size > 0
