"""Where results go: one kind of results of one experiment per directory, never a mixed one;
unusable output paths are one-line errors."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

SWEEP = '\n[sweep]\n"topology.qdisc.limit" = [10, 40]\n'


def _files(directory):
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())


def test_the_readme_commands_keep_each_others_results(qdsim, small_spec, tmp_path):
    first = qdsim("run", small_spec, "--json")
    second = qdsim("run", small_spec, "--json", "--set", "topology.qdisc.limit=20pkt", "--seed", "2")
    assert first.code == 0 and second.code == 0, second.stderr
    dirs = sorted(p.name for p in (tmp_path / "results").iterdir())
    assert dirs[0] == "small-run" and dirs[1].startswith("small-run-") and len(dirs) == 2
    assert json.loads((tmp_path / "results" / dirs[0] / "config.json").read_text())["seed"] == 3
    assert json.loads((tmp_path / "results" / dirs[1] / "config.json").read_text())["seed"] == 2
    # The same command again reuses its own directory.
    assert qdsim("run", small_spec, "--json", "--seed", "2", "--set", "topology.qdisc.limit=20pkt").code == 0
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == dirs


def test_a_run_into_a_sweeps_directory_is_refused_unless_forced(qdsim, small_spec, write_spec, tmp_path):
    out = tmp_path / "out"
    assert qdsim("sweep", write_spec(small_spec.read_text() + SWEEP), "--out", out, "--jobs", "1").code == 0
    before = {name: (out / name).stat().st_mtime_ns for name in _files(out)}
    refused = qdsim("run", small_spec, "--out", out)
    assert refused.code == 2 and len(refused.stderr.splitlines()) == 1
    assert refused.stderr.startswith(f"error: --out: \"{out}\" is not allowed; a new or empty directory, or one with run results of 'small': it holds the results of sweep 'small'")
    assert {name: (out / name).stat().st_mtime_ns for name in _files(out)} == before
    forced = qdsim("run", small_spec, "--out", out, "--force")
    assert forced.code == 0, forced.stderr
    assert not (out / "runs").exists() and not (out / "sweep.json").exists()
    assert pq.read_table(out / "points.parquet").num_rows == 1 and (out / "config.json").exists()


def test_a_sweep_into_a_runs_directory_or_another_experiments_is_refused(qdsim, small_spec, write_spec, tmp_path):
    out = tmp_path / "out"
    assert qdsim("run", small_spec, "--out", out).code == 0
    swept = qdsim("sweep", write_spec(small_spec.read_text() + SWEEP), "--out", out)
    assert swept.code == 2 and "it holds the results of run 'small'" in swept.stderr
    other = write_spec(small_spec.read_text().replace('name = "small"', 'name = "other"'))
    ran = qdsim("run", other, "--out", out)
    assert ran.code == 2 and "it holds the results of run 'small'" in ran.stderr
    assert json.loads((out / "spec.json").read_text())["experiment"]["name"] == "small"


def test_a_rerun_replaces_every_table_of_the_previous_run(qdsim, small_spec, tmp_path):
    out = tmp_path / "out"
    assert qdsim("run", small_spec, "--out", out, "--set", "sampling.queues=true").code == 0
    assert (out / "series_queue.parquet").exists()
    assert qdsim("run", small_spec, "--out", out).code == 0
    assert not (out / "series_queue.parquet").exists(), "a table of the earlier run was left beside the new ones"


def test_a_directory_of_other_files_is_refused(qdsim, small_spec, tmp_path):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    refused = qdsim("run", small_spec, "--out", out)
    assert refused.code == 2 and "files that are not results (notes.txt)" in refused.stderr
    assert qdsim("run", small_spec, "--out", out, "--force").code == 0
    assert (out / "notes.txt").read_text() == "mine"


def test_unusable_output_paths_are_one_line_errors(qdsim, small_spec, tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    for args, start in [
        (("run", small_spec, "--out", a_file), f'error: --out: "{a_file}" is not allowed; a directory for the results (this is a file)'),
        (("run", small_spec, "--out", "/dev/null/results"), 'error: --out: "/dev/null/results" is not allowed; a directory that can be created and written to'),
        (("sweep", small_spec, "--out", a_file), f'error: --out: "{a_file}" is not allowed; a directory for the results'),
        (("reproduce", small_spec, "--figure", tmp_path / "fig.txt"), "error: --figure:"),
    ]:
        result = qdsim(*args)
        assert result.code == 2 and len(result.stderr.splitlines()) == 1, (args, result.stderr)
        assert result.stderr.startswith(start), (args, result.stderr)
    assert qdsim("run", small_spec, "--out", tmp_path / "run", "--set", "sampling.queues=true").code == 0
    for out, start in [
        (tmp_path / "x.txt", f'error: --out: "{tmp_path / "x.txt"}" is not allowed; a figure file ending in .png, .pdf, .svg'),
        ("/dev/null/q.png", "error: /dev/null/q.png"),
    ]:
        result = qdsim("plot", tmp_path / "run", "--kind", "queue", "--out", out)
        assert result.code == 2 and len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith(start), result.stderr


def test_every_field_the_core_reports_reaches_the_tables(small_spec):
    # The core's RunResults, field by field: each flow, group and link field is a column of
    # its table (a by-reason map one column per reason), each run-wide scalar one of points.
    from qdsim.experiment import spec
    from qdsim.experiment.resolve import resolve
    from qdsim.results import tables
    from qdsim.results.rows import Rows
    from qdsim.run.one import run_config, summarize

    _, parsed = spec.load(small_spec, ['topology.qdisc={kind="codel", ecn=true}', "flows.0.tcp.ecn=true", "sampling.packets.link='bottleneck'"])
    outcome = run_config(resolve(parsed))
    res = outcome.results
    out = tables.run_tables(summarize(outcome), res)
    stored = {name: set(out[name].column_names) for name in ("points", "flows", "groups", "links")}
    for name in ("flows", "groups", "links"):
        # (The links come by column: their fields are the columns.)
        fields = set(res[name]) if name == "links" else {key for row in res[name] for key in row}
        assert fields, name
        for key in fields:
            if key.endswith("_by_reason"):
                what = key.removesuffix("_by_reason")
                assert {f"{what}_{r}" for r in getattr(tables, f"{what[:-1]}_reasons")()} <= stored[name], key
            else:
                assert key in stored[name], (name, key)
    scalars = {key for key, value in res.items() if not isinstance(value, (dict, list, Rows))}
    # (`seed` is an identifying column of every table, added as the run is stored.)
    assert scalars - {"seed"} <= stored["points"], scalars - stored["points"]
    assert "packets_not_recorded" in scalars and out["points"].column("packets_not_recorded")[0] is not None
    links = list(out["links"].rows())
    bottleneck = next(row for row in links if row["name"] == "bottleneck")
    assert bottleneck["marks"] > 0 and bottleneck["marks"] == sum(bottleneck[f"marks_{r}"] for r in tables.mark_reasons())
    assert bottleneck["p50_delay_s"] <= bottleneck["p95_delay_s"] <= bottleneck["p99_delay_s"]
    assert sum(row["ecn_reductions"] for row in out["flows"].rows()) > 0


def test_delays_kept_at_listed_links_only_change_nothing_else(small_spec):
    # `[sampling] link_delays`: the listed link's row is the row of a run that keeps every
    # link's delays; every other link loses its delay quantiles and nothing else.
    from qdsim.experiment import spec
    from qdsim.experiment.resolve import resolve
    from qdsim.results import tables
    from qdsim.run.one import run_config, summarize

    def links(sets):
        _, parsed = spec.load(small_spec, sets)
        outcome = run_config(resolve(parsed))
        return {row["name"]: row for row in tables.run_tables(summarize(outcome), outcome.results)["links"].rows()}

    every, listed = links([]), links(["sampling.link_delays=['bottleneck']"])
    assert every.keys() == listed.keys() and len(every) > 1
    quantiles = {"p50_delay_s", "p95_delay_s", "p99_delay_s"}
    assert listed["bottleneck"] == every["bottleneck"] and every["bottleneck"]["p99_delay_s"] > 0
    others = [name for name in every if name != "bottleneck" and every[name]["p50_delay_s"] is not None]
    assert others, "links with departures besides the bottleneck"
    for name in every:
        if name != "bottleneck":
            assert all(listed[name][q] is None for q in quantiles), name
            assert {k: v for k, v in listed[name].items() if k not in quantiles} == {k: v for k, v in every[name].items() if k not in quantiles}, name


def test_a_links_counts_by_reason_are_its_own_zero_elsewhere_and_null_from_an_engine_that_cannot_say():
    from qdsim.results import tables
    from qdsim.results.rows import by_column

    first, other = tables.drop_reasons()[:2]
    links = [
        {"name": "a", "drops": 7, "drops_by_reason": {first: 5, other: 2}, "marks_by_reason": {}},
        {"name": "b", "drops": 0, "drops_by_reason": {}, "marks_by_reason": {}},
        {"name": "c", "drops": 3, "drops_by_reason": None, "marks_by_reason": None},
    ]
    rows = list(tables._links_table(by_column(links)).rows())
    assert [(r["name"], r["drops"], r[f"drops_{first}"], r[f"drops_{other}"]) for r in rows] == [("a", 7, 5, 2), ("b", 0, 0, 0), ("c", 3, None, None)]
    assert {r[f"marks_{m}"] for r in rows[:2] for m in tables.mark_reasons()} == {0}
    assert rows[0]["rate_bps"] is None, "a column the links lack is null"
    with pytest.raises(ValueError, match="drops reasons \\['bogus'\\] are not in the core's catalog"):
        tables._links_table({"name": ["a"], "drops_by_reason": [{"bogus": 1}]})
    with pytest.raises(ValueError, match="columns \\['bogus'\\] are not in its schema"):
        tables._links_table({"name": ["a"], "bogus": [1]})


def test_the_cores_rows_come_as_arrow_columns_and_read_back_as_the_rows_and_table_of_lists(small_spec):
    """The flows' and links' rows reach Python as Arrow columns (no JSON): read as rows they
    are what the same values given as lists (a reference engine's) read as, and the links
    table made from either is the same, drops split as :func:`drop_split` splits a row's."""
    from qdsim import _core
    from qdsim.experiment import spec
    from qdsim.experiment.resolve import config_json, resolve
    from qdsim.results import tables
    from qdsim.results.columns import CoreColumn
    from qdsim.results.links import LinkRows, drop_split
    from qdsim.results.rows import Rows, by_column, column_values, rows_of
    from qdsim.run.one import run_config, summarize

    # A CoDel bottleneck with a small buffer: drops for both reasons, overflow and the AQM's.
    _, parsed = spec.load(small_spec, ['topology.qdisc={kind="codel", limit="12pkt"}'])
    text, _, rows = _core.run(config_json(resolve(parsed)))
    assert "links" not in json.loads(text) and "flows" not in json.loads(text)
    links = {name: CoreColumn(*column) for name, column in rows["links"].items()}
    flows = {name: CoreColumn(*column) for name, column in rows["flows"].items()}
    assert len({len(c) for c in links.values()}) == 1 and len(links["name"]) > 1
    assert {c.arrow_type for c in links.values()} <= {"int64", "float64", "string", "map<string, int64>"}
    assert {c.arrow_type for c in flows.values()} >= {"int64", "float64", "string", "bool"}
    assert {c.to_arrow().type for c in links.values()} <= {pa.int64(), pa.float64(), pa.string(), pa.map_(pa.string(), pa.int64())}
    # The columns' values read from their buffers without pyarrow are pyarrow's, row by row
    # (before the whole column is read, from the buffers alone) and all at once.
    for column in (*links.values(), *flows.values()):
        expected = column_values(column.to_arrow())
        assert [column.value_at(i) for i in range(len(column))] == expected, column
        assert column.to_list() == expected and column.value_at(len(column) - 1) == expected[-1], column
    assert flows["fct_s"].null_count == len(flows["fct_s"]), "saturated flows have no completion time"
    as_rows = rows_of(links)
    as_lists = by_column(as_rows)
    assert rows_of(as_lists) == as_rows and by_column(rows_of(flows)) == {name: c.to_list() for name, c in flows.items()}
    bottleneck = next(r for r in as_rows if r["name"] == "bottleneck")
    assert len(bottleneck["drops_by_reason"]) == 2 and bottleneck["drops"] == sum(bottleneck["drops_by_reason"].values())
    table, from_lists = tables._links_table(links), tables._links_table(as_lists)
    assert tables.arrow_table(table).equals(tables.arrow_table(from_lists))
    assert [(r["overflow_drops"], r["aqm_drops"]) for r in table.rows()] == [drop_split(r["drops"], r["drops_by_reason"]) for r in as_rows]
    # The summary's rows, made as they are read: each with its drops split, the same dict twice.
    link_rows = LinkRows(links)
    assert link_rows[-1] is link_rows[len(as_rows) - 1] and link_rows[0] == {
        **as_rows[0],
        "overflow_drops": drop_split(as_rows[0]["drops"], as_rows[0]["drops_by_reason"])[0],
        "aqm_drops": link_rows[0]["aqm_drops"],
    }
    assert link_rows == [{**r, "overflow_drops": o, "aqm_drops": a} for r, (o, a) in zip(as_rows, (drop_split(r["drops"], r["drops_by_reason"]) for r in as_rows), strict=True)]
    assert link_rows == LinkRows(as_lists) and link_rows[1:3] == list(link_rows)[1:3]
    with pytest.raises(IndexError):
        link_rows[len(as_rows)]
    assert rows_of(by_column([])) == [] and by_column([]) == {}
    # The flows table from the core's columns is the one from the summary's rows.
    outcome = run_config(resolve(parsed))
    summary = summarize(outcome)
    assert isinstance(outcome.results["flows"], Rows) and outcome.results["flows"][0] == {key: value for key, value in summary["flows"][0].items() if key != "user"}
    assert tables.arrow_table(tables.run_tables(summary, outcome.results)["flows"]).equals(tables.arrow_table(tables._from_rows("flows", summary["flows"])))
    assert drop_split(7, {"overflow": 5, "early": 2}) == (5, 2) and drop_split(3, {}) == (0, 3)
    assert drop_split(3, None) == (None, None) and drop_split(None, {"overflow": 1}) == (1, None)


def test_a_goodput_sum_above_the_bottleneck_is_explained_by_the_data_held_before_the_window():
    from qdsim.run.one import edge_notes

    def summary(goodputs, held):
        flows = [{"goodput_bps": g, "held_before_window_bytes": h} for g, h in zip(goodputs, held, strict=True)]
        return {"bottleneck": "b", "links": [{"name": "b", "rate_bps": 10e6}], "duration_s": 2.0, "warmup_s": 1.0, "flows": flows}

    # 10.4 Mb/s over a 1-s window on 10 Mb/s, 100 kB held at its start (0.8 Mb/s): explained.
    (note,) = edge_notes(summary([5.2e6, 5.2e6], [50_000, 50_000]))
    assert "10.4 Mb/s, above the bottleneck's 10 Mb/s: 0.8 Mb/s" in note
    assert edge_notes(summary([4.9e6, 5.0e6], [50_000, 0])) == []  # fits: nothing to explain
    assert edge_notes(summary([6e6, 6e6], [1000, 0])) == []  # not the window's edge: no claim
    assert edge_notes(summary([6e6, 6e6], [None, 0])) == []  # an engine's run: unknown


def test_the_summary_reads_the_cores_flows_by_column_as_it_would_read_their_rows(small_spec):
    """``summarize`` makes no row of the core's flows (at 10⁵ flows a second of dicts) and
    finds what it finds from the same flows given as rows, as a reference engine gives them:
    Jain's index, every group's sums, spreads and users, each flow's completion times and user."""
    from dataclasses import replace

    from qdsim.experiment import spec
    from qdsim.experiment.resolve import resolve
    from qdsim.results.rows import Rows
    from qdsim.run.one import run_config, summarize

    # Two users in one group, so that a group's users and goodput per user are not its flows'.
    _, parsed = spec.load(small_spec, ["flows.0.users=2", "flows.0.count=4"])
    outcome = run_config(resolve(parsed))
    summary = summarize(outcome)
    assert isinstance(summary["flows"], Rows) and not summary["flows"]._made
    given_as_rows = summarize(replace(outcome, results={**outcome.results, "flows": list(outcome.results["flows"])}))
    assert isinstance(given_as_rows["flows"], list)
    near = next(g for g in summary["groups"] if g["group"] == "near")
    assert [g["users"] for g in summary["groups"]] == [1, 2] and near["per_user_goodput_bps"] == near["goodput_bps"] / 2
    for key in ("jain_index", "groups", "fair_share_bps", "bottleneck", "notes"):
        assert summary.get(key) == given_as_rows.get(key), key
    assert list(summary["flows"]) == given_as_rows["flows"] and [f["user"] for f in given_as_rows["flows"]] == [0, 0, 1, 1, 2, 2]
