"""docs/python-api.md's examples run, in order, in an empty directory: the page stays true."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"


def blocks() -> list[str]:
    """Returns the page's ```python blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_the_page_has_examples():
    assert len(blocks()) >= 6


def test_every_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "python_api_md"}
    for number, code in enumerate(blocks(), 1):
        exec(compile(code, f"{DOC.name} example {number}", "exec"), namespace)
    assert (tmp_path / "two-flows" / "summary.json").exists()
    assert (tmp_path / "results" / "buffer_sweep" / "sweep.json").exists()
