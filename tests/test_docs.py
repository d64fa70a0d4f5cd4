"""The documentation says what the code does: the TCP profile tables of docs/tcp-profiles.md
are the core's, the qdisc parameters of docs/experiment-file.md are the catalog's, and the
index of paper figures says what the reproduction docs and the figure tests say."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_script
from qdsim.experiment import algorithms

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _profile_tables(text: str) -> dict[str, list[tuple[str, str, str]]]:
    """Returns each ``## `name` `` section's table rows (option, value, source)."""
    tables: dict[str, list[tuple[str, str, str]]] = {}
    current = None
    for line in text.splitlines():
        heading = re.match(r"^## `([^`]+)`", line)
        if heading:
            current = tables.setdefault(heading.group(1), [])
            continue
        row = re.match(r"^\| `([^`]+)` \| `([^`]*)` \| (.*) \|$", line)
        if current is not None and row:
            current.append((row.group(1), row.group(2), row.group(3).replace("\\|", "|")))
    return tables


def test_every_profile_table_is_the_cores():
    tables = _profile_tables((DOCS / "tcp-profiles.md").read_text())
    profiles = algorithms.tcp_profiles()
    assert list(tables) == [p["name"] for p in profiles], "one section per profile, in the core's order"
    for p in profiles:
        expected = [(o["option"], o["value"], o["source"]) for o in p["options"]]
        assert tables[p["name"]] == expected, f"docs/tcp-profiles.md, profile {p['name']}: regenerate its table from the core"


def test_the_docs_name_the_default_profile():
    default = algorithms.tcp_profile(None)["name"]
    assert default == "linux"
    for page in ("tcp.md", "tcp-profiles.md", "experiment-file.md"):
        text = (DOCS / page).read_text()
        assert (f"`{default}`" in text or f'`"{default}"`' in text) and "default" in text, page


ROOT = DOCS.parent


def _is_strict_xfail(node: ast.AST) -> bool:
    """Whether ``node`` is a call ``pytest.mark.xfail(..., strict=True, ...)``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "xfail"
        and any(k.arg == "strict" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords)
    )


def strict_xfails(source: str) -> list[str]:
    """Returns the test functions of a module marked ``xfail(strict=True)``: by a decorator,
    or through a parameter list built by a module function that makes such marks (the
    figure tests' per-set-up xfails) from a non-empty dict of reasons."""
    tree = ast.parse(source)
    makers = {f.name for f in tree.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("test_") and any(_is_strict_xfail(n) for n in ast.walk(f))}
    out = []
    for f in tree.body:
        if not (isinstance(f, ast.FunctionDef) and f.name.startswith("test_")):
            continue
        for decorator in f.decorator_list:
            nodes = list(ast.walk(decorator))
            direct = any(_is_strict_xfail(n) for n in nodes)
            made = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in makers and any(isinstance(a, ast.Dict) and a.keys for a in n.args) for n in nodes)
            if direct or made:
                out.append(f.name)
                break
    return out


def test_strict_xfails_are_found_in_decorators_and_parameter_lists():
    source = """
import pytest
def _setups(failing):
    return [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=failing[s])) for s in failing]
@pytest.mark.xfail(strict=True, reason="numbers")
def test_a(): pass
@pytest.mark.xfail(reason="not strict")
def test_b(): pass
@pytest.mark.parametrize("s", _setups({"x": "numbers"}))
def test_c(s): pass
@pytest.mark.parametrize("s", _setups({}))
def test_d(s): pass
def test_e(): pass
"""
    assert strict_xfails(source) == ["test_a", "test_c"]


def test_every_strict_xfail_of_a_figure_test_is_named_in_the_index():
    # A finding that fails under the faithful settings is a strict xfail, and the index of
    # papers and figures must say so where it gives the figure's status.
    index = (ROOT / "experiments" / "README.md").read_text().split("## Findings against the reference engines")[0]
    missing = [f"{path.name}::{name}" for path in sorted((ROOT / "tests" / "figures").glob("test_*.py")) for name in strict_xfails(path.read_text()) if f"`{name}`" not in index]
    assert not missing, f"strict xfails not named in experiments/README.md: {missing}"


def _index_statuses() -> list[tuple[str, str, str]]:
    """Returns (reproduction doc, figure, status) of every figure row of experiments/README.md."""
    out = []
    doc = None
    index = (ROOT / "experiments" / "README.md").read_text()
    for line in index.split("## Findings against the reference engines")[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not line.startswith("|") or cells[1] in ("figure", "---"):
            continue
        link = re.search(r"\]\(\.\./(docs/reproductions/[^)]+\.md)\)", cells[0])
        doc = link.group(1) if link else doc
        if doc is not None:
            out.append((doc, cells[1], cells[4]))
    return out


def test_the_index_status_of_each_figure_is_the_reproduction_docs():
    rows = _index_statuses()
    assert len(rows) >= 12, rows
    for doc, figure, status in rows:
        assert re.match(r"^(reproduced|partly: |not reproduced: )", status), f"{figure}: status {status!r} is not reproduced / partly: ... / not reproduced: ..."
        assert status in (ROOT / doc).read_text(), f"{figure}: the status in experiments/README.md is not the one in {doc}: {status!r}"


def _gen_docs():
    return load_script("gen_docs")


def test_the_qdisc_parameters_of_experiment_file_md_are_the_catalog_s():
    gen = _gen_docs()
    text = (DOCS / "experiment-file.md").read_text()
    committed = text[text.index(gen.BEGIN) : text.index(gen.END) + len(gen.END)]
    assert committed == gen.qdisc_section(), "docs/experiment-file.md is out of date: run `make docs`"
    # Every qdisc and every parameter is there, with its unit and default as the core has them.
    for qdisc in algorithms.core_catalog()["qdiscs"]:
        assert f"#### `{qdisc['name']}`" in committed
        for p in qdisc["params"]:
            assert f"| `{p['name']}` | {p['unit'].replace('|', chr(92) + '|')} | `{p['default']}` |" in committed, (qdisc["name"], p["name"])
    assert "| `memory_limit` | bytes | `32MiB` |" in committed  # Linux's 32 << 20, not 32 MB


def test_the_check_fails_on_a_changed_catalog():
    gen = _gen_docs()
    catalog = algorithms.core_catalog()
    changed = {**catalog, "qdiscs": [{**catalog["qdiscs"][0], "summary": "something else"}, *catalog["qdiscs"][1:]]}
    assert gen.qdisc_section(changed) != gen.qdisc_section()
    with pytest.raises(SystemExit, match="markers"):
        gen.rewritten("no markers here", gen.qdisc_section())


def test_gen_docs_check_passes_on_the_committed_docs():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def _engine_verdicts():
    return load_script("engine_verdicts")


def test_every_figure_test_has_its_engine_verdicts_and_they_agree_with_its_marks():
    # The record of each finding in qdsim, ns-2 and ns-3 (scripts/engine_verdicts.py --run):
    # one entry per figure test, qdsim's outcome the test's own (a strict xfail fails).
    record = json.loads((ROOT / "tests" / "figures" / "engine_verdicts.json").read_text())
    functions = {}
    for path in sorted((ROOT / "tests" / "figures").glob("test_*.py")):
        tree = ast.parse(path.read_text())
        names = [f.name for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")]
        functions.update({name: (path.name, name in strict_xfails(path.read_text())) for name in names})
    recorded = {test.split("::")[1].split("[")[0] for test in record}
    assert recorded == set(functions), f"run `make engine-verdicts`: not recorded {set(functions) - recorded}, gone {recorded - set(functions)}"
    verdicts = _engine_verdicts()
    for test, row in record.items():
        name = test.split("::")[1].split("[")[0]
        assert row["qdsim"] in ("holds", "fails"), (test, row)
        if not functions[name][1]:
            assert row["qdsim"] == "holds", f"{test}: recorded failing but not a strict xfail"
        for engine in verdicts.ENGINES:
            assert row[engine]["verdict"] in ("holds", "fails", "n/a"), (test, engine, row)


def _decorators(source: str, name: str) -> str:
    """Returns the source of test function ``name``'s decorators (its xfail reasons)."""
    for f in ast.parse(source).body:
        if isinstance(f, ast.FunctionDef) and f.name == name:
            return "\n".join(ast.get_source_segment(source, d) or "" for d in f.decorator_list)
    raise AssertionError(f"no test {name}")


def test_a_finding_that_fails_only_in_qdsim_says_why_in_its_xfail():
    record = json.loads((ROOT / "tests" / "figures" / "engine_verdicts.json").read_text())
    sources = {p.name: p.read_text() for p in (ROOT / "tests" / "figures").glob("test_*.py")}
    verdicts = _engine_verdicts()
    for test, row in record.items():
        only = [verdicts.ENGINES[e] for e in verdicts.ENGINES if row["qdsim"] == "fails" and row[e]["verdict"] == "holds"]
        if only:
            source = sources[test.split("::")[0].rsplit("/", 1)[-1]]
            marks = _decorators(source, test.split("::")[1].split("[")[0])
            assert any(title in marks for title in only), f"{test} fails only in qdsim ({row}): its xfail reason must say what {only} does differently"


def test_the_engine_verdict_tables_are_the_record_s():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "engine_verdicts.py"), "--check"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_the_results_layout_names_every_column_of_every_table():
    # docs/experiment-file.md's column reference against qdsim.results.tables' schemas: a
    # column added to a table (every core result field is one) is documented with it, under
    # its table's heading, with its meaning.
    from qdsim.results import tables

    doc = (ROOT / "docs" / "experiment-file.md").read_text()
    for name in (*tables.TABLES, *tables.SERIES_TABLES):
        assert f"[its columns](#{name})" in doc, name
        section = doc.split(f"#### `{name}`\n", 1)[1].split("####", 1)[0]
        rows = {line.split("`")[1]: line for line in section.splitlines() if line.startswith("| `")}
        missing = [column for column, _ in tables.columns(name) if column not in rows]
        assert not missing, (name, missing)
        undocumented = [column for column, line in rows.items() if not line.rstrip().removesuffix("|").rsplit("|", 1)[1].strip()]
        assert not undocumented, (name, undocumented)
