"""Every paper finding against the reference engines: does it hold in qdsim, in ns-2.35, in
ns-3.37? (`make engine-verdicts`)

A finding is a figure test (`tests/figures/`, marker `figure`). `--run` runs them three times
on the files' `[quick]` runs: in qdsim, then with each engine's sweeps (`pytest --engine NAME
--runxfail`, so a strict xfail is asked whether the finding holds there), and records each
outcome in `tests/figures/engine_verdicts.json`. Without `--run` the committed record is only
rendered: a table per paper in its reproduction page and the whole table in the experiments
index, each between markers. `tests/test_docs.py` checks both against the record and the
record against the figure tests, so neither can drift.

In an engine a finding *holds* (the test passes), *fails* (its assertion fails), or cannot be
run (`n/a`: the engine lacks a discipline or traffic its figure needs, and the test found its
runs missing). ns-3 runs the paper's ns-2 agent through ns-3's TcpSocketBase with the stand-ins
its translation notes (`docs/engine-ns3.md`): a verdict there is about the scheduler or AQM under
ns-3's TCP, not the paper's stack.

    python scripts/engine_verdicts.py --run   # run all three (about an hour on 2 cores)
    python scripts/engine_verdicts.py         # rewrite the docs' sections from the record
    python scripts/engine_verdicts.py --check # exit 1 if a section is out of date
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "figures" / "engine_verdicts.json"
INDEX = ROOT / "experiments" / "README.md"
PAGES = ROOT / "docs" / "reproductions"
BEGIN = "<!-- BEGIN GENERATED: findings against the engines, by scripts/engine_verdicts.py; do not edit -->"
END = "<!-- END GENERATED: findings against the engines -->"
ENGINES = {"ns2": "ns-2.35", "ns3": "ns-3.37"}
#: The paper of each figure-test module (its reproduction page's stem).
PAPERS = {
    "test_auge_buffer_sizing": "auge-buffer-sizing",
    "test_codel_dc": "codel-dc",
    "test_kantawala_discard": "kantawala-discard",
    "test_lu_ewfq": "lu-ewfq",
    "test_menth_lds": "menth-lds",
}


def _pytest(out: Path, *options: str) -> dict[str, Any]:
    """Runs the figure tests with ``options``; returns their recorded outcomes."""
    command = [sys.executable, "-m", "pytest", "-q", "-m", "figure", "-p", "no:cacheprovider", "--timeout", "0", f"--verdicts={out}", *options]
    subprocess.run(command, cwd=ROOT, check=False)
    return json.loads(out.read_text())["tests"]


def _engine_outcome(result: dict[str, str] | None) -> dict[str, str]:
    """Classifies one engine outcome: holds, fails, or n/a (what the engine lacked)."""
    if result is None:
        return {"verdict": "n/a", "why": "not run"}
    if result["outcome"] == "passed":
        return {"verdict": "holds"}
    if result["outcome"] == "failed" and result["when"] == "call" and result["error"] == "AssertionError":
        return {"verdict": "fails", "why": result["detail"]}
    why = result["lacked"] or result["detail"] or result["outcome"]
    return {"verdict": "n/a", "why": why}


def run_all(given: Path | None = None) -> dict[str, Any]:
    """Runs the figure tests in qdsim and in each engine (or reads the outcomes ``pytest
    --verdicts`` wrote to ``given``/qdsim.json, ns2.json, ns3.json); returns the record."""
    with tempfile.TemporaryDirectory() as tmp:
        if given is not None:
            mine = json.loads((given / "qdsim.json").read_text())["tests"]
            theirs = {name: json.loads((given / f"{name}.json").read_text())["tests"] for name in ENGINES}
        else:
            mine = _pytest(Path(tmp) / "qdsim.json")
            theirs = {name: _pytest(Path(tmp) / f"{name}.json", "--engine", name, "--runxfail") for name in ENGINES}
    record: dict[str, Any] = {}
    for test, result in sorted(mine.items()):
        qdsim = {"passed": "holds", "xfailed": "fails"}.get(result["outcome"], result["outcome"])
        record[test] = {"qdsim": qdsim, **{name: _engine_outcome(theirs[name].get(test)) for name in ENGINES}}
    return record


def combined(qdsim: str, engine: dict[str, str], title: str) -> str:
    """Returns the verdict of one finding against one engine, in words."""
    verdict = engine["verdict"]
    if verdict == "n/a":
        return f"{title} cannot run it"
    if qdsim == "holds":
        return "reproduced by both" if verdict == "holds" else f"holds in qdsim only ({title} fails it)"
    return f"fails in {title} too" if verdict == "fails" else f"fails in qdsim only ({title} holds)"


def _name(test: str) -> str:
    return test.split("::", 1)[1]


def table(record: dict[str, Any], paper: str | None = None) -> list[str]:
    """Returns the Markdown table of the findings (of ``paper``, or all with a paper column)."""
    head = (["paper"] if paper is None else []) + ["finding (test)", "qdsim", *[f"{t}" for t in ENGINES.values()]]
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for test, row in record.items():
        module = test.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")
        if paper is not None and PAPERS.get(module) != paper:
            continue
        cells = [] if paper is not None else [PAPERS.get(module, module)]
        cells += [f"`{_name(test)}`", row["qdsim"]]
        cells += [combined(row["qdsim"], row[name], title) for name, title in ENGINES.items()]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return out


def section(record: dict[str, Any], paper: str | None = None) -> str:
    """Returns the generated section of a page (``paper``) or of the index (None)."""
    intro = (
        "Each finding's test run on the file's `[quick]` runs in qdsim and, with the same "
        "sweeps, in each reference engine (`qdsim reproduce --quick --engine`; "
        "[`scripts/engine_verdicts.py`](../scripts/engine_verdicts.py), `make engine-verdicts`). "
        "*Reproduced by both*: the finding holds in qdsim and the engine; *fails in the engine too*: "
        "the paper's claim, not qdsim's model; *fails in qdsim only*: the test's xfail says what the engine "
        "does differently; *cannot run it*: the engine lacks a discipline or a record the figure needs. ns-3 runs the paper's TCP through its own "
        "TcpSocketBase (stand-ins in [engine-ns3.md](../docs/engine-ns3.md))."
    )
    if paper is not None:
        intro = intro.replace("../scripts/", "../../scripts/").replace("../docs/engine-ns3.md", "../engine-ns3.md")
    return "\n".join([BEGIN, "", intro, "", *table(record, paper), "", END])


def rewritten(text: str, new: str, where: Path) -> str:
    """Returns ``text`` with its generated section replaced by ``new``."""
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{where}: no generated section (add the two marker lines where it belongs)")
    head, rest = text.split(BEGIN, 1)
    return head + new + rest.split(END, 1)[1]


def targets(record: dict[str, Any]) -> dict[Path, str]:
    """Returns every document and its generated section."""
    out = {INDEX: section(record)}
    for paper in sorted(set(PAPERS.values())):
        out[PAGES / f"{paper}.md"] = section(record, paper)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", action="store_true", help="run the figure tests in qdsim and every engine, and record them")
    parser.add_argument("--from", dest="given", type=Path, default=None, metavar="DIR", help="with --run: the outcomes of runs already made (DIR/qdsim.json, ns2.json, ns3.json)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated section is out of date")
    args = parser.parse_args()
    if args.run:
        RECORD.write_text(json.dumps(run_all(args.given), indent=1, sort_keys=True) + "\n")
    record = json.loads(RECORD.read_text())
    stale = []
    for path, new in targets(record).items():
        text = path.read_text()
        updated = rewritten(text, new, path)
        if updated != text:
            stale.append(path)
            if not args.check:
                path.write_text(updated)
    if args.check and stale:
        print("out of date: " + ", ".join(str(p) for p in stale) + " (python scripts/engine_verdicts.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
