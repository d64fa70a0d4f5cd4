"""Regenerates the parts of the docs written from the simulator's catalog (`make docs`).

Today one part: every queue discipline's parameters in `docs/experiment-file.md`, between
the markers below, from `_core.catalog()` (the core's own names, units, defaults and help,
the same source as `qdsim list`). `tests/test_docs.py` fails when the committed section
differs from what this writes, so the reference cannot drift from the code.

    python scripts/gen_docs.py          # rewrite the section in place
    python scripts/gen_docs.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qdsim.algorithms import core_catalog

DOC = Path(__file__).resolve().parents[1] / "docs" / "experiment-file.md"
BEGIN = "<!-- BEGIN GENERATED: qdisc parameters, from the catalog by scripts/gen_docs.py (make docs); do not edit -->"
END = "<!-- END GENERATED: qdisc parameters -->"


def _cell(text: str) -> str:
    """Returns ``text`` for a Markdown table cell (a ``|`` would end the cell)."""
    return text.replace("|", "\\|")


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
        out += [f"| `{p['name']}` | {_cell(p['unit'])} | `{_cell(p['default'])}` | {_cell(p['help'])} |" for p in qdisc["params"]]
        out.append("")
    out.append(END)
    return "\n".join(out)


def rewritten(text: str, section: str) -> str:
    """Returns ``text`` with the part between the markers replaced by ``section``."""
    try:
        start, end = text.index(BEGIN), text.index(END) + len(END)
    except ValueError:
        raise SystemExit(f"{DOC}: the markers of the generated section are missing ({BEGIN!r} ... {END!r})") from None
    return text[:start] + section + text[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed section is out of date")
    args = parser.parse_args()
    text = DOC.read_text(encoding="utf-8")
    new = rewritten(text, qdisc_section())
    if args.check:
        if new != text:
            print(f"{DOC} is out of date: run `make docs`", file=sys.stderr)
            return 1
        return 0
    if new != text:
        DOC.write_text(new, encoding="utf-8")
        print(f"rewrote the qdisc parameters in {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
