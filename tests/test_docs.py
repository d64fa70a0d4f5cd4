"""The documentation says what the code does: the TCP profile tables of docs/tcp-profiles.md
are the core's, and so are the qdisc parameters of docs/experiment-file.md."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from qdsim import algorithms

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
    assert default == "ns3"
    for page in ("tcp.md", "tcp-profiles.md", "experiment-file.md"):
        text = (DOCS / page).read_text()
        assert (f"`{default}`" in text or f'`"{default}"`' in text) and "default" in text, page


ROOT = DOCS.parent


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
