"""Regenerates the parts of the docs written from the simulator's catalog (`make docs`).

Three parts, each between markers, from `_core.catalog()` (the core's own names, units,
defaults, help and sources, the same source as `qdsim list`): every queue discipline's
parameters and every results table's columns (`qdsim.results.tables.column_list`: the core's
result fields with their doc comments, then the columns Python computes) in
`docs/experiment-file.md`, and every TCP profile's table (option, value, source) in
`docs/tcp-profiles.md`. `tests/test_docs.py` fails when a committed section differs from
what this writes, so the reference cannot drift from the code.

    python scripts/gen_docs.py          # rewrite the sections in place
    python scripts/gen_docs.py --check  # exit 1 if one is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qdsim.experiment.algorithms import core_catalog

DOCS = Path(__file__).resolve().parents[1] / "docs"
DOC = DOCS / "experiment-file.md"
BEGIN = "<!-- BEGIN GENERATED: qdisc parameters, from the catalog by scripts/gen_docs.py (make docs); do not edit -->"
END = "<!-- END GENERATED: qdisc parameters -->"
PROFILES_DOC = DOCS / "tcp-profiles.md"
PROFILES_BEGIN = "<!-- BEGIN GENERATED: TCP profiles, from the catalog by scripts/gen_docs.py (make docs); do not edit -->"
PROFILES_END = "<!-- END GENERATED: TCP profiles -->"
COLUMNS_BEGIN = "<!-- BEGIN GENERATED: results columns, from the catalog by scripts/gen_docs.py (make docs); do not edit -->"
COLUMNS_END = "<!-- END GENERATED: results columns -->"


def _cell(text: str) -> str:
    """Returns ``text`` for a Markdown table cell (a ``|`` would end the cell)."""
    return text.replace("|", "\\|")


def _read_only_with(use: dict | None) -> str:
    """Returns the note of a key read only under another key's value (refused elsewhere)."""
    if use is None:
        return ""
    return f" (read only with {use['when']} = {', '.join(use['values'])}; refused otherwise)"


def qdisc_section(catalog: dict | None = None) -> str:
    """Returns the generated section: one table per queue discipline, in the catalog's order."""
    catalog = catalog or core_catalog()
    out = [BEGIN, ""]
    for qdisc in catalog["qdiscs"]:
        out += [f"#### `{qdisc['name']}`", "", _cell(qdisc["summary"]) + ".", ""]
        if not qdisc["params"]:
            out += ["No parameters.", ""]
            continue
        out += ["| parameter | unit | default | meaning |", "| --- | --- | --- | --- |"]
        only = {u["key"]: u for u in catalog.get("key_uses", []) if u["table"] == f"qdisc.{qdisc['name']}"}
        out += [f"| `{p['name']}` | {_cell(p['unit'])} | `{_cell(p['default'])}` | {_cell(p['help'] + _read_only_with(only.get(p['name'])))} |" for p in qdisc["params"]]
        out.append("")
    out.append(END)
    return "\n".join(out)


def profiles_section(catalog: dict | None = None) -> str:
    """Returns the generated section of the profiles: per profile its summary and its table,
    the congestion control and the hosts' timing first, then every TCP option."""
    catalog = catalog or core_catalog()
    out = [PROFILES_BEGIN, ""]
    for p in catalog["tcp_profiles"]:
        out += [f"## `{p['name']}`" + (" (the default)" if p["default"] else ""), "", _cell(p["summary"]) + ".", ""]
        out += ["| option | value | source |", "| --- | --- | --- |"]
        out += [f"| `{o['option']}` | `{_cell(o['value'])}` | {_cell(o['source'])} |" for o in p["options"]]
        out.append("")
    out.append(PROFILES_END)
    return "\n".join(out)


def columns_section() -> str:
    """Returns the column reference of every results table, each type as Arrow names it
    (what pyarrow shows: ``double``, ``list<item: double>``)."""
    from qdsim.results import tables
    from qdsim.results.arrays import arrow_type

    out = [COLUMNS_BEGIN]
    for table in (*tables.TABLES, *tables.SERIES_TABLES):
        out += ["", f"#### `{table}`", "", "| column | type | unit | meaning |", "| --- | --- | --- | --- |"]
        for c in tables.column_list(table):
            out.append(f"| `{c.name}` | {arrow_type(c.type)} | {c.unit} | {_cell(c.doc)} |")
    out += ["", COLUMNS_END]
    return "\n".join(out)


def rewritten(text: str, section: str, begin: str = BEGIN, end_marker: str = END, doc: Path = DOC) -> str:
    """Returns ``text`` with the part between the markers replaced by ``section``."""
    try:
        start, end = text.index(begin), text.index(end_marker) + len(end_marker)
    except ValueError:
        raise SystemExit(f"{doc}: the markers of the generated section are missing ({begin!r} ... {end_marker!r})") from None
    return text[:start] + section + text[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed section is out of date")
    args = parser.parse_args()
    stale = 0
    for doc, section, begin, end, what in (
        (DOC, qdisc_section(), BEGIN, END, "the qdisc parameters"),
        (PROFILES_DOC, profiles_section(), PROFILES_BEGIN, PROFILES_END, "the TCP profiles"),
        (DOC, columns_section(), COLUMNS_BEGIN, COLUMNS_END, "the results columns"),
    ):
        text = doc.read_text(encoding="utf-8")
        new = rewritten(text, section, begin, end, doc)
        if args.check:
            if new != text:
                print(f"{doc} is out of date: run `make docs`", file=sys.stderr)
                stale += 1
        elif new != text:
            doc.write_text(new, encoding="utf-8")
            print(f"rewrote {what} in {doc}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
