"""Users in experiment files (`users = k`), per-user results, figure plots and `qdsim reproduce`."""

import pyarrow.parquet as pq
import pytest

from conftest import SMALL_SPEC
from qdsim.errors import SpecError
from qdsim.experiment import spec
from qdsim.experiment.resolve import resolve
from qdsim.run.one import user_of_flows

USERS_SPEC = """
[experiment]
name = "users"
duration = "1s"
warmup = "0.2s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
access_delay = "1us"
qdisc = { kind = "drr", classifier = "per_user", limit = "20pkt" }

[[flows]]
group = "heavy"
count = 6
users = 2
start_window = "0.1s"

[[flows]]
group = "light"
count = 3
users = 3
start_window = "0.1s"

[[flows]]
group = "other"
count = 2
"""


def test_users_get_distinct_ids_in_file_order_and_share_a_sender_host(write_spec):
    config = resolve(spec.load(write_spec(USERS_SPEC))[1])
    assert [f["user"] for f in config["flows"]] == [0, 0, 0, 1, 1, 1, 2, 3, 4, 5, 5]
    assert [f["src"] for f in config["flows"][:6]] == ["heavy.s0"] * 3 + ["heavy.s1"] * 3
    assert [f["src"] for f in config["flows"][6:9]] == ["light.s0", "light.s1", "light.s2"]
    # One sender and one receiver per user (the `other` group without `users`: one per flow).
    assert len(config["nodes"]) == 2 + 2 * (2 + 3 + 2)
    assert user_of_flows(config) == [f["user"] for f in config["flows"]]


def test_without_users_the_config_keeps_the_cores_default(small_spec):
    config = resolve(spec.load(small_spec)[1])
    assert all("user" not in f for f in config["flows"])
    assert user_of_flows(config) == [0, 0, 1, 1]


@pytest.mark.parametrize(
    ("value", "message"),
    [("0", "flows.0.users: 0 is not allowed"), ("4", "flows.0.users: 4 is not allowed; a divisor of count (6)"), ('"x"', "flows.0.users")],
)
def test_bad_users_name_the_key(write_spec, value, message):
    with pytest.raises(SpecError) as info:
        resolve(spec.load(write_spec(USERS_SPEC), [f"flows.0.users={value}"])[1])
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_run_reports_user_per_flow_and_goodput_per_user(qdsim, write_spec, tmp_path):
    out = tmp_path / "o"
    result = qdsim("run", write_spec(USERS_SPEC), "--json", "--out", out)
    assert result.code == 0, result.stderr
    summary = result.json()
    assert [f["user"] for f in summary["flows"]] == [0, 0, 0, 1, 1, 1, 2, 3, 4, 5, 5]
    heavy = next(g for g in summary["groups"] if g["group"] == "heavy")
    assert heavy["users"] == 2
    assert heavy["per_user_goodput_bps"] == pytest.approx(heavy["goodput_bps"] / 2)
    assert pq.read_table(out / "flows.parquet").column("user").to_pylist()[:4] == [0, 0, 0, 1]
    assert "per_user_goodput_bps" in pq.read_table(out / "groups.parquet").column_names


FIGURE = (
    USERS_SPEC
    + """
[source]
paper = "A paper"
figure = "Fig. 1"

[sweep]
"topology.qdisc.limit" = ["10pkt", "20pkt"]
repetitions = 2

[plot]
y = ["per_user_goodput_bps", "mean_queue_delay_s"]
groups = ["heavy", "light"]
labels = { heavy = "HU" }
reference = [{ y = 0.5, label = "fair share" }]
"""
)


def test_reproduce_sweeps_and_draws_the_plot_table(qdsim, write_spec, tmp_path):
    out = tmp_path / "r"
    result = qdsim("reproduce", write_spec(FIGURE), "--jobs", "2", "--repetitions", "1", "--out", out, "--json")
    assert result.code == 0, result.stderr
    (figure,) = result.json()["figures"]
    assert figure["png"] == str(out / "spec0.png") and (out / "spec0.png").exists()
    assert figure["json"] == str(out / "spec0.json") and figure["ran"] == 2 and figure["paper"] is None
    assert pq.read_table(out / "points.parquet").num_rows == 2
    plotted = qdsim("plot", out, "--y", "goodput_bps,fct_s", "--out", tmp_path / "p.png")
    assert plotted.code == 0, plotted.stderr


def test_source_table_is_checked(write_spec):
    with pytest.raises(SpecError, match=r"source\.figure"):
        spec.load(write_spec(SMALL_SPEC + '\n[source]\npaper = "x"\n'))
