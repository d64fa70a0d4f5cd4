"""``qdsim validate --suite``: running the suite of :mod:`qdsim.validation.suite` and the
page it writes, docs/validation.md — every comparison with its verdict and, for each
disagreement, its cause (:data:`qdsim.validation.suite.CAUSES`)."""

from __future__ import annotations

import datetime
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..engines import ENGINES
from ..errors import SpecError
from ..results import store
from ..run.sweep import run_sweep
from ..version import __version__
from .suite import LAWS, SCENARIOS, Law, Scenario, cause, law_rows, raw_of, scenario_rows
from .validate import TOLERANCES, Row, Validation, _cell, _number, validate, validation_raw

__all__ = ["run_suite", "write_page"]


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False, timeout=5)
    except OSError:
        return "?"
    return out.stdout.strip() or "?"


def _ratio(row: Row | None) -> str:
    return "-" if row is None or row.ratio is None else f"{row.ratio:.2f}"


def _scenario(sc: Scenario, validation: Validation, engines: list[str]) -> tuple[list[str], int, int, int]:
    names = [s.name for s in validation.sides if not s.refused]
    lines = [f"### {sc.title}", "", f"`qdsim validate experiments/{sc.file}" + "".join(f" --set '{s}'" for s in sc.sets) + f"` — {validation.seeds} seeds per side.", ""]
    for side in validation.sides:
        if side.refused:
            lines += [f"Not run in {side.title}: {side.refused}", ""]
    lines += _failed(validation)
    if not names:
        return lines, 0, 0, 0
    head = "| metric | qdsim | " + " | ".join(f"{ENGINES[n].title} | ratio | verdict" for n in names) + " |"
    lines += [head, "|" + " --- |" * (2 + 3 * len(names))]
    agree = judged = unexplained = 0
    causes: list[str] = []
    for metric, by_engine in scenario_rows(validation):
        first = next(iter(by_engine.values()))
        label = f"{first.label} ({first.unit})" if first.unit else first.label
        cells = [label, _cell(first.qdsim_mean, first.qdsim_ci, first.scale)]
        for name in names:
            row = by_engine.get(name)
            if row is None:
                cells += ["-", "-", "n/a"]
                continue
            verdict = row.verdict
            if verdict in ("agree", "disagree"):
                judged += 1
                agree += verdict == "agree"
            if verdict == "disagree":
                why = cause(sc.id, name, metric)
                if why is None:
                    unexplained += 1
                    causes.append(f"- **{label}, {ENGINES[name].title}** ({_ratio(row)}×): cause not found yet.")
                else:
                    causes.append(f"- **{label}, {ENGINES[name].title}** ({_ratio(row)}×): {why}")
                verdict = "**disagree**"
            cells += [_cell(row.reference_mean, row.reference_ci, row.scale), _ratio(row), verdict]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if causes:
        lines += ["Disagreements:", "", *causes, ""]
    for side in validation.sides:
        if side.notes:
            lines += [f"<details><summary>Not exact in {side.title} ({len(side.notes)} stated stand-ins)</summary>", "", *[f"- {n}" for n in side.notes], "", "</details>", ""]
    return lines, agree, judged, unexplained


def _failed(validation: Validation) -> list[str]:
    """Returns a line per engine with runs that failed (left out of its means), and why."""
    return [f"{side.title} failed {len(side.failed)} of {validation.seeds} run(s), left out of its means: {'; '.join(side.failed)}" for side in validation.sides if side.failed] + (
        [""] if any(side.failed for side in validation.sides) else []
    )


def _laws(laws: list[tuple[Law, Validation]], engines: list[str]) -> tuple[list[str], int, int]:
    names = ["qdsim", *engines]
    titles = {"qdsim": "qdsim", **{n: ENGINES[n].title for n in engines}}
    lines = ["| law | prediction | tolerance | " + " | ".join(titles[n] for n in names) + " |", "|" + " --- |" * (3 + len(names))]
    agree = judged = 0
    notes = []
    for law, validation in laws:
        by = {r["simulator"]: r for r in law_rows(law, validation)}
        scale, unit = (1e-6, "Mb/s") if law.metric[2] == "goodput_bps" else (100.0, "%")
        cells = [f"{law.title} — {law.formula}", f"{_number(law.predicted * scale)} {unit}", f"{law.tolerance:.0%}"]
        for n in names:
            r = by.get(n)
            if r is None:
                cells.append("—" if n not in law.engines and n != "qdsim" else "-")
                continue
            judged += 1
            agree += r["verdict"] == "agree"
            mark = "agree" if r["verdict"] == "agree" else "**disagree**"
            cells.append(f"{_cell(r['mean'], r['ci'], scale)} ({r['ratio']:.2f}×) {mark}")
            if r["verdict"] == "disagree":
                why = cause(law.id, n, law.metric[2])
                notes.append(f"- **{law.title}, {titles[n]}**: {why or 'cause not found yet.'}")
        notes += [f"- **{law.title}**: {line}" for line in _failed(validation) if line]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, "", *notes, ""], agree, judged


def _speed(results: list[tuple[Scenario, Validation]], engines: list[str]) -> list[str]:
    lines = ["| scenario | qdsim (s per run) | " + " | ".join(f"{ENGINES[n].title} (CPU s per run) | × qdsim" for n in engines) + " |", "|" + " --- |" * (2 + 2 * len(engines))]
    for sc, v in results:
        q = sum(v.qdsim_wall_s) / len(v.qdsim_wall_s) if v.qdsim_wall_s else None
        cells = [sc.id, _number(q)]
        for n in engines:
            side = next((s for s in v.sides if s.name == n and not s.refused and s.cpu_s), None)
            if side is None:
                cells += ["—", "—"]
                continue
            c = sum(side.cpu_s) / len(side.cpu_s)
            cells += [_number(c), f"{c / q:.1f}" if q else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def write_page(page: Path, scenarios: list[tuple[Scenario, Validation]], laws: list[tuple[Law, Validation]], quick: bool, engines: list[str], elapsed_s: float) -> dict[str, Any]:
    """Writes the suite's page; returns how many comparisons agree, are judged and have no cause."""
    titles = ", ".join(ENGINES[n].title for n in engines)
    when = datetime.date.today().isoformat()
    body: list[str] = []
    agree = judged = unexplained = 0
    for sc, v in scenarios:
        part, a, j, u = _scenario(sc, v, engines)
        body += part
        agree, judged, unexplained = agree + a, judged + j, unexplained + u
    law_lines, la, lj = _laws(laws, engines)
    tol = ["| metric | tolerance |", "| --- | --- |"] + [
        f"| `{k}` | " + " + ".join(p for p in (f"{r:.0%} of the engine's mean" if r else "", f"{a:g} absolute" if a else "") if p) + " |" for k, (r, a) in TOLERANCES.items()
    ]
    head = [
        "# Validation: qdsim against ns-2, ns-3 and the analytic laws",
        "",
        f"Written by `qdsim validate --suite{' --quick' if quick else ''}` on {when} (qdsim {__version__}, commit {_commit()}; engines {titles}; "
        f"{elapsed_s / 60:.0f} minutes on this machine, every run already stored reused). Do not edit: rerun the suite. How each engine runs a file, and every "
        "mapping that is not exact: [engines.md](engines.md).",
        "",
        f"**{agree} of {judged}** comparisons with the engines agree within their tolerance; **{la} of {lj}** with the laws. "
        f"{'Every disagreement has its cause below.' if unexplained == 0 else f'{unexplained} disagreement(s) have no cause found yet.'}",
        "",
        "Each scenario ran with three seeds in qdsim and three in each engine (a seed in one simulator is not a seed in the other: "
        "what is compared are the means over the seeds, shown with their 95 % confidence intervals). A verdict compares the means "
        "against the tolerance stated, before any run, for the metric: **agree** within it; **disagree** outside it, the 95 % CI of "
        "the difference excluding 0; *unclear* outside it but within the noise of the seeds (more seeds decide; not counted above).",
        "",
        *tol,
        "",
        "A disagreement is reported, never tuned away; its cause was found by changing one setting at a time on one side.",
        "",
        "## The papers' scenarios",
        "",
    ]
    page.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(
        [
            *head,
            *body,
            "## Analytic laws",
            "",
            *law_lines,
            "## Speed",
            "",
            "The same runs: qdsim's simulation time per run (the core, single-threaded) and each engine's CPU time per run (its whole process).",
            "",
            *_speed(scenarios, engines),
        ]
    )
    store.write_json(page.with_suffix(".json"), {"agree": agree, "judged": judged, "unexplained": unexplained, "laws_agree": la, "laws_judged": lj}) if quick else None
    page.write_text(text.rstrip() + "\n", encoding="utf-8")
    return {"agree": agree, "judged": judged, "unexplained": unexplained, "laws_agree": la, "laws_judged": lj}


def run_suite(engine_names: list[str], jobs: int | None = None, quick: bool = False, note: Callable[[str], None] | None = None, out: Path | None = None, page: Path | None = None) -> dict[str, Any]:
    """Runs the suite (:mod:`qdsim.validation.suite`) with the engines named (those
    installed) and writes its page.

    Full runs write ``docs/validation.md`` (or ``page``) and keep their results under
    ``results/validation/``; ``quick`` runs (a few simulated seconds each, what CI runs)
    write ``results/validation-quick/validation.md``. Returns a report: the page, and how
    many comparisons agree of those judged."""
    available = [n for n in engine_names if ENGINES[n].missing() is None]
    for name in engine_names:
        if name not in available and note:
            note(f"{ENGINES[name].title} left out: {ENGINES[name].missing()}")
    if not available:
        raise SpecError("--engine", ",".join(engine_names), "an installed engine (`make engines`)")
    root = out or Path("results") / ("validation-quick" if quick else "validation")
    page = page or (root / "validation.md" if quick else Path("docs") / "validation.md")
    started = time.perf_counter()
    scenario_results: list[tuple[Scenario, Validation]] = []
    for sc in SCENARIOS:
        names = [n for n in available if n in sc.engines]
        if not names:
            continue
        if note:
            note(f"suite: {sc.id} ({', '.join(names)})")
        raw = raw_of(sc.file, sc.sets + (sc.quick if quick else ()))
        scenario_results.append((sc, validate(raw, root / sc.id, names, seeds=sc.seeds, jobs=jobs, note=note)))
    law_results: list[tuple[Law, Validation]] = []
    for law in LAWS:
        names = [n for n in available if n in law.engines]
        if note:
            note(f"suite: law {law.id} ({', '.join(names) or 'qdsim only'})")
        raw = raw_of(law.file, law.sets + (law.quick if quick else ()))
        law_results.append((law, validate(raw, root / law.id, names, seeds=law.seeds, jobs=jobs, note=note) if names else _qdsim_only(raw, root / law.id, law, jobs)))
    counts = write_page(page, scenario_results, law_results, quick=quick, engines=available, elapsed_s=time.perf_counter() - started)
    return {"page": str(page), **counts}


def _qdsim_only(raw: dict[str, Any], out: Path, law: Law, jobs: int | None) -> Validation:
    """A law no engine runs: qdsim's runs alone."""
    vraw = validation_raw(raw, law.seeds)
    run_sweep(vraw, out / "qdsim", jobs=jobs)
    wall = [r["wall_s"] for r in store.read_rows(out / "qdsim", "points")]
    return Validation(experiment=str(raw["experiment"]["name"]), out=out, seeds=law.seeds, qdsim_out=out / "qdsim", qdsim_wall_s=wall, sides=[])
