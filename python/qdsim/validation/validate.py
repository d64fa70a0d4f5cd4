"""``qdsim validate``: an experiment file run in qdsim and in a reference engine, side by side.

The file's own scenario (its ``[sweep]`` grid left out; ``--set`` picks a point) runs with N
seeds in qdsim — an ordinary sweep over repetitions, stored in ``<out>/qdsim/`` — and with N
seeds of the engine's own random numbers in each engine (:mod:`qdsim.engines`), stored in
``<out>/<engine>/`` with the same tables, so ``qdsim compare``, ``plot``, ``results sql`` and
:func:`qdsim.load` read them as they read qdsim's. A seed in one simulator is not a seed in
the other: what is compared are the distributions over the seeds, each metric's mean with its
95 % confidence interval (Student's t), the ratio of the means, and a verdict against the
tolerance :data:`TOLERANCES` states for the metric before any run. The engine's scripts stay
in ``<out>/<engine>/scripts/``, one per seed, with its output beside each, so that a user can
read them and run them by hand.

How engine runs are stored and keyed: :mod:`qdsim.engines.sweep`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import engines
from ..engines.sweep import run_engine_sweep
from ..errors import SpecError
from ..results import store
from ..results.stats import mean_ci, welch_ci
from ..run.sweep import Point, plan, run_sweep

__all__ = ["SHOWN", "TOLERANCES", "EngineSide", "Row", "Validation", "compare_sides", "validate", "validation_raw"]

#: How close a metric must be to the engine's to agree: |qdsim − engine| ≤ relative ×
#: |engine| + absolute, on the means over the seeds. Stated before any run (and in
#: docs/validation.md); a disagreement is reported with its numbers, never tuned away.
TOLERANCES: dict[str, tuple[float, float]] = {
    "goodput_bps": (0.10, 0.0),
    "fair_share_ratio": (0.10, 0.0),
    "jain_index": (0.0, 0.05),
    "utilization": (0.0, 0.02),
    "drops": (0.25, 5.0),
    "loss_rate": (0.25, 0.0005),
    "mean_queue_pkts": (0.15, 1.0),
    "mean_delay_s": (0.15, 20e-6),
    "mean_fct_s": (0.15, 0.0),
    "transfers_completed": (0.10, 2.0),
    "unfinished_transfers": (0.25, 2.0),
    "retransmits": (0.25, 5.0),
    "timeouts": (0.50, 2.0),
}

#: How each compared metric is shown (the terminal table, `qdsim report`): label, scale to
#: the unit shown, unit.
SHOWN: dict[str, tuple[str, float, str]] = {
    "goodput_bps": ("goodput", 1e-6, "Mb/s"),
    "fair_share_ratio": ("share of fair", 1.0, ""),
    "jain_index": ("Jain's index", 1.0, ""),
    "utilization": ("utilisation", 1.0, ""),
    "drops": ("drops", 1.0, "pkts"),
    "loss_rate": ("loss rate", 100.0, "%"),
    "mean_queue_pkts": ("mean queue", 1.0, "pkts"),
    "mean_delay_s": ("mean sojourn", 1e3, "ms"),
    "mean_fct_s": ("AFCT", 1e3, "ms"),
    "transfers_completed": ("transfers done", 1.0, ""),
    "unfinished_transfers": ("unfinished", 1.0, ""),
    "retransmits": ("retransmissions", 1.0, ""),
    "timeouts": ("timeouts", 1.0, ""),
}

_GROUP_METRICS = ("goodput_bps", "fair_share_ratio", "mean_fct_s", "transfers_completed", "unfinished_transfers", "retransmits", "timeouts")
_LINK_METRICS = ("utilization", "drops", "loss_rate", "mean_queue_pkts", "mean_delay_s")


@dataclass
class Row:
    """One compared metric: where it comes from (``table``, ``row``: a group or link name,
    ``column``), each side's mean and 95 % CI half-width over its seeds, the CI of their
    difference (Welch), the tolerance and the verdict: ``agree`` (the means are within the
    tolerance), ``disagree`` (they are not, and the 95 % CI of their difference excludes 0),
    ``unclear`` (they are not, but the seeds cannot tell them apart: more seeds decide) or
    ``n/a`` (a side lacks the metric); :attr:`ratio` is qdsim's mean over the engine's."""

    metric: str
    label: str
    table: str
    row: str | None
    column: str
    qdsim_mean: float | None
    qdsim_ci: float | None
    reference_mean: float | None
    reference_ci: float | None
    diff_ci: float | None
    tolerance: str
    verdict: str
    unit: str = ""
    scale: float = 1.0

    @property
    def ratio(self) -> float | None:
        """Returns qdsim's mean over the engine's (None when either is missing or the engine's is 0)."""
        if self.qdsim_mean is None or not self.reference_mean:
            return None
        return self.qdsim_mean / self.reference_mean

    def as_json(self) -> dict[str, Any]:
        """Returns the row as a JSON-ready dict (means in the tables' base units)."""
        out = dataclasses.asdict(self)
        out.pop("scale")
        out["ratio"] = self.ratio
        return out


@dataclass
class EngineSide:
    """One engine's part of a validation: its runs' directory, the mapping notes of its
    translation, its CPU and wall time per run, or why it did not run."""

    name: str
    title: str
    out: Path | None = None
    notes: list[str] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)
    wall_s: list[float] = field(default_factory=list)
    reused: int = 0
    refused: str | None = None
    rows: list[Row] = field(default_factory=list)
    #: The engine's runs that failed ("seed N: reason"): left out of its mean, and said.
    failed: list[str] = field(default_factory=list)


@dataclass
class Validation:
    """A whole validation: the experiment, its seeds, qdsim's side and every engine's."""

    experiment: str
    out: Path
    seeds: int
    qdsim_out: Path
    qdsim_wall_s: list[float]
    sides: list[EngineSide]

    def as_json(self) -> dict[str, Any]:
        """Returns the object ``qdsim validate --json`` prints."""
        engines_json = [
            {
                "engine": s.name,
                "title": s.title,
                "engine_out": str(s.out) if s.out else None,
                "refused": s.refused,
                "failed": s.failed,
                "notes": s.notes,
                "speed": _speed(self.qdsim_wall_s, s),
                "rows": [r.as_json() for r in s.rows],
            }
            for s in self.sides
        ]
        single = engines_json[0] if len(engines_json) == 1 else None
        out: dict[str, Any] = {
            "experiment": self.experiment,
            "seeds": self.seeds,
            "out": str(self.out),
            "qdsim_out": str(self.qdsim_out),
            "tolerances": {k: {"relative": r, "absolute": a} for k, (r, a) in TOLERANCES.items()},
        }
        if single is not None:
            return {**out, **single}
        return {**out, "engine": "all", "engines": engines_json, "rows": [{"engine": e["engine"], **row} for e in engines_json for row in e["rows"]]}


def _speed(qdsim_wall: list[float], side: EngineSide) -> dict[str, Any]:
    def mean(xs: list[float]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    return {"qdsim_wall_s": mean(qdsim_wall), "engine_cpu_s": mean(side.cpu_s), "engine_wall_s": mean(side.wall_s), "engine_runs_reused": side.reused}


def validation_raw(raw: dict[str, Any], seeds: int) -> dict[str, Any]:
    """Returns the experiment file's own scenario run ``seeds`` times: its ``[sweep]`` grid
    (and the ``[plot]`` and ``[quick]`` of a figure) left out."""
    if seeds < 1:
        raise SpecError("--seeds", seeds, "at least 1 seed per side (3 or more to compare distributions)")
    out = {k: v for k, v in raw.items() if k not in ("sweep", "plot", "quick")}
    out["sweep"] = {"repetitions": seeds}
    return out


def _run_engine(engine: engines.Engine, raw: dict[str, Any], points: list[Point], out: Path, jobs: int, on_progress: Callable[[int, int], None] | None) -> EngineSide:
    done = run_engine_sweep(engine, raw, points, out, jobs=jobs, on_progress=on_progress)
    failed = [f"seed {f['rep'] + 1}: {f['reason']}" for f in done.failed]
    return EngineSide(engine.name, engine.title, out=out, notes=done.notes, cpu_s=done.cpu_s, wall_s=done.wall_s, reused=done.reused, failed=failed)


def validate(
    raw: dict[str, Any],
    out: Path,
    engine_names: list[str],
    seeds: int = 3,
    jobs: int | None = None,
    seed: int | None = None,
    source: Path | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> Validation:
    """Runs the scenario of ``raw`` (an experiment file dict, overrides applied) with
    ``seeds`` seeds in qdsim and in each engine of ``engine_names``; returns the comparison.

    Every engine is checked before anything runs: one that is missing or cannot translate the
    scenario raises its one-line SpecError when it was asked for alone, and is left out with
    a ``note`` when ``all`` were asked for (an error if none is left).
    """
    vraw = validation_raw(raw, seeds)
    points = plan(vraw, seed=seed)
    name = str(raw["experiment"]["name"])
    chosen, sides = _usable(engine_names, points[0], note)
    jobs = jobs or os.cpu_count() or 1
    qdsim_out = out / "qdsim"
    progress = (lambda label: lambda done, total: on_progress(label, done, total)) if on_progress else (lambda label: None)
    run_sweep(vraw, qdsim_out, jobs=jobs, seed=seed, source=source, on_progress=progress("qdsim"))
    qdsim_wall = [r["wall_s"] for r in store.read_rows(qdsim_out, "points")]
    for engine in chosen:
        side = _run_engine(engine, vraw, points, out / engine.name, jobs, progress(engine.title))
        side.rows = compare_sides(qdsim_out, side.out)  # type: ignore[arg-type]
        sides.append(side)
    order = {n: i for i, n in enumerate(engines.ENGINES)}
    sides.sort(key=lambda s: order.get(s.name, 0))
    result = Validation(experiment=name, out=out, seeds=seeds, qdsim_out=qdsim_out, qdsim_wall_s=qdsim_wall, sides=sides)
    store.write_json(out / "validation.json", result.as_json())
    return result


def _usable(names: list[str], point: Point, note: Callable[[str], None] | None) -> tuple[list[engines.Engine], list[EngineSide]]:
    """Returns the engines that can run the scenario, and the refused ones' sides."""
    alone = len(names) == 1
    chosen, refused = [], []
    for name in names:
        engine = engines.get(name)
        reason = engine.missing()
        if reason is None:
            try:
                engine.translate(point.config, 1)
            except SpecError as exc:
                if alone:
                    raise
                reason = f"{engine.title} cannot run this file: {exc}"
        elif alone:
            raise SpecError("--engine", name, reason)
        if reason is None:
            chosen.append(engine)
        else:
            refused.append(EngineSide(engine.name, engine.title, refused=reason))
            if note:
                note(reason)
    if not chosen:
        raise SpecError("--engine", ",".join(names), "an engine that can run this file: " + "; ".join(s.refused or "" for s in refused))
    return chosen, refused


# --- comparing two results directories --------------------------------------------------------------


def _values(rows: list[dict[str, Any]], key: str | None, ident: str | None, column: str) -> list[float] | None:
    """Returns the values of ``column`` over the runs (one per seed) for the row named
    ``ident`` (by column ``key``), None if the column is null in any run."""
    out = []
    for row in rows:
        if key is not None and row.get(key) != ident:
            continue
        value = row.get(column)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return None
        out.append(float(value))
    return out or None


def _verdict(column: str, q: list[float] | None, r: list[float] | None) -> tuple[str, str]:
    relative, absolute = TOLERANCES[column]
    parts = [f"{relative:.0%}" if relative else "", _number(absolute * SHOWN[column][1]) + (f" {SHOWN[column][2]}" if SHOWN[column][2] else "") if absolute else ""]
    text = " + ".join(p for p in parts if p)
    if q is None or r is None:
        return text, "n/a"
    mq, mr = statistics.fmean(q), statistics.fmean(r)
    if abs(mq - mr) <= relative * abs(mr) + absolute:
        return text, "agree"
    # Outside the tolerance, but the seeds cannot tell the means apart: more seeds decide.
    noise = welch_ci(q, r)
    return text, "unclear" if noise is not None and abs(mq - mr) <= noise else "disagree"


def _row(table: str, ident: str | None, column: str, q: list[float] | None, r: list[float] | None) -> Row:
    label, scale, unit = SHOWN[column]
    tolerance, verdict = _verdict(column, q, r)
    qm, qc = mean_ci(q) if q else (None, None)
    rm, rc = mean_ci(r) if r else (None, None)
    metric = column if ident is None else f"{table}.{column}[{ident}]"
    return Row(
        metric=metric,
        label=label if ident is None else f"{label} {ident}",
        table=table,
        row=ident,
        column=column,
        qdsim_mean=qm,
        qdsim_ci=qc,
        reference_mean=rm,
        reference_ci=rc,
        diff_ci=welch_ci(q, r) if q and r else None,
        tolerance=tolerance,
        verdict=verdict,
        unit=unit,
        scale=scale,
    )


def compare_sides(qdsim_dir: Path, engine_dir: Path) -> list[Row]:
    """Returns the compared metrics of two results directories of one scenario over seeds:
    Jain's index (of two or more saturated TCP flows), every group's goodput, share of fair, completion times and counters, and
    the bottleneck and every link that drops on either side: utilisation, drops, loss rate,
    mean queue and sojourn."""
    rows: list[Row] = []
    qp, rp = store.read_rows(qdsim_dir, "points"), store.read_rows(engine_dir, "points")
    flows = store.read_rows(qdsim_dir, "flows")
    saturated = {f["id"] for f in flows if f["kind"] == "tcp" and f["size_bytes"] is None}
    tcp_groups = {f["group"] for f in flows if f["cc"]}  # a TCP flow names its control, UDP ""
    if len(saturated) > 1:
        rows.append(_row("points", None, "jain_index", _values(qp, None, None, "jain_index"), _values(rp, None, None, "jain_index")))
    qg, rg = store.read_rows(qdsim_dir, "groups"), store.read_rows(engine_dir, "groups")
    for group in sorted({g["group"] for g in qg}):
        transfers = any((g.get("transfers_completed") or 0) + (g.get("unfinished_transfers") or 0) for g in qg if g["group"] == group)
        for column in _GROUP_METRICS:
            if column in ("mean_fct_s", "transfers_completed", "unfinished_transfers") and not transfers:
                continue
            if column in ("retransmits", "timeouts") and group not in tcp_groups:
                continue
            rows.append(_row("groups", group, column, _values(qg, "group", group, column), _values(rg, "group", group, column)))
    ql, rl = store.read_rows(qdsim_dir, "links"), store.read_rows(engine_dir, "links")
    bottlenecks = {p["bottleneck"] for p in qp + rp}
    for link in dict.fromkeys(row["name"] for row in ql):
        dropping = any((row.get("drops") or 0) > 0 for row in ql + rl if row["name"] == link)
        if link not in bottlenecks and not dropping:
            continue
        for column in _LINK_METRICS:
            rows.append(_row("links", link, column, _values(ql, "name", link, column), _values(rl, "name", link, column)))
    return rows


# --- the table people read --------------------------------------------------------------------------


def _number(value: float | None, digits: int = 4) -> str:
    """Returns ``value`` with ``digits`` significant digits, as short as it reads (``-`` for
    None): plain up to 10⁷ (``22520``, ``0.001564``), an exponent beyond (``3.1e+08``)."""
    if value is None:
        return "-"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1e7 or magnitude < 1e-4:
        return f"{value:.{max(1, digits - 1)}e}".replace("e-0", "e-").replace("e+0", "e+")
    if magnitude >= 10 ** (digits - 1):
        return f"{round(value, digits - 1 - math.floor(math.log10(magnitude))):.0f}"
    return f"{float(f'{value:.{digits}g}'):g}" if magnitude >= 1e-3 else f"{value:.{digits}g}"


def _cell(mean: float | None, ci: float | None, scale: float) -> str:
    if mean is None:
        return "-"
    text = _number(mean * scale)
    return text if not ci else f"{text} ±{_number(ci * scale, 2)}"


def table_lines(validation: Validation, width: int = 80) -> list[str]:
    """Returns the validation as lines of at most ``width`` columns: per engine a table of
    metric, qdsim, engine, ratio and verdict, then the stand-ins, the tolerances and the
    speed."""
    lines: list[str] = []
    for side in validation.sides:
        lines.append(f"{validation.experiment}: qdsim vs {side.title}, {validation.seeds} seeds each (mean ±95% CI)")
        if side.refused:
            lines += [f"  not run: {side.refused}", ""]
            continue
        name_w = 25
        lines.append(f"  {'metric':<{name_w}} {'qdsim':>17} {side.title:>17} {'ratio':>5} {'verdict':>8}")
        lines.append("  " + "─" * (name_w + 17 + 17 + 5 + 8 + 4))
        for row in side.rows:
            label = f"{row.label} ({row.unit})" if row.unit else row.label
            if len(label) > name_w:
                label = label[: name_w - 1] + "…"
            ratio = "-" if row.ratio is None else f"{row.ratio:.2f}" if row.ratio < 100 else f"{row.ratio:.0f}"
            lines.append(f"  {label:<{name_w}} {_cell(row.qdsim_mean, row.qdsim_ci, row.scale):>17} {_cell(row.reference_mean, row.reference_ci, row.scale):>17} {ratio:>5} {row.verdict:>8}")
        count = {v: sum(r.verdict == v for r in side.rows) for v in ("agree", "unclear", "disagree")}
        lines.append(f"  {count['agree']} agree, {count['unclear']} unclear, {count['disagree']} disagree (tolerances: docs/validation.md)")
        if side.failed:
            lines.append(f"  {side.title} failed {len(side.failed)} run(s), left out of its means:")
            lines += _wrap_items(side.failed, width)
        if side.notes:
            lines.append(f"  not exact in {side.title} ({len(side.notes)}; each in the scripts' header):")
            lines += _wrap_items(side.notes, width)
        speed = _speed(validation.qdsim_wall_s, side)
        if speed["engine_cpu_s"] is not None and speed["qdsim_wall_s"]:
            lines.append(f"  speed per run: qdsim {speed['qdsim_wall_s']:.3g} s, {side.title} {speed['engine_cpu_s']:.3g} s CPU ({speed['engine_cpu_s'] / speed['qdsim_wall_s']:.1f}x)")
        lines += [f"  qdsim's runs: {validation.qdsim_out}/", f"  {side.title}'s runs: {side.out}/", f"  {side.title}'s scripts: {side.out}/{store.SCRIPTS}/", ""]
    return [line if len(line) <= width else line[: width - 1] + "…" for line in lines]


def _wrap_items(items: list[str], width: int) -> list[str]:
    out = []
    for item in items:
        words, line = item.split(), "    -"
        for word in words:
            if len(line) + 1 + len(word) > width:
                out.append(line)
                line = "      " + word
            else:
                line += " " + word
        out.append(line)
    return out


def print_validation(validation: Validation) -> None:
    """Prints the table of :func:`table_lines` on stdout."""
    for line in table_lines(validation):
        print(line)
