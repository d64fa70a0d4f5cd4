"""The documentation says what the code does: the TCP profile tables of docs/tcp-profiles.md
are the core's."""

from __future__ import annotations

import re
from pathlib import Path

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
