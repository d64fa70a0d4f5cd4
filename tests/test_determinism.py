"""Same seed ⇒ identical summary (but wall time); different seeds ⇒ different start times."""


def summary(qdsim, spec, tmp_path, *args):
    result = qdsim("run", spec, "--json", "--out", tmp_path / "o", *args)
    assert result.code == 0, result.stderr
    data = result.json()
    data.pop("wall_s")
    return data


def test_same_seed_gives_identical_results(qdsim, small_spec, tmp_path):
    assert summary(qdsim, small_spec, tmp_path) == summary(qdsim, small_spec, tmp_path)


def test_different_seeds_give_different_start_times(qdsim, small_spec, tmp_path):
    one = summary(qdsim, small_spec, tmp_path, "--seed", "1")
    two = summary(qdsim, small_spec, tmp_path, "--seed", "2")
    assert [f["start_s"] for f in one["flows"]] != [f["start_s"] for f in two["flows"]]
    assert all(0 <= f["start_s"] < 0.5 for f in one["flows"] + two["flows"])
