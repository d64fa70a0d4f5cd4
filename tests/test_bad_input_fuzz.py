"""Any value at any key of a committed experiment file either runs or is one SpecError.

Hypothesis replaces one or two leaves of a real file with hostile values (TOML's inf and nan,
negative and 2^70-sized numbers, wrong types, malformed quantities) and runs the first point
for 20 ms; derandomized, so every run tries the same 200 cases and CI cannot flake (run with
``--hypothesis-seed=N`` and without ``derandomize`` to explore further). Anything but a clean run or a SpecError naming a file key — a Python traceback, a
core panic, a core-path key (``config.*``, meaning the Python checks let it through) — fails.
"""

from __future__ import annotations

import contextlib
import copy
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qdsim.errors import SpecError
from qdsim.experiment.spec import load_raw, validate
from qdsim.run.one import run_config
from qdsim.run.sweep import plan

FILES = sorted((Path(__file__).resolve().parents[1] / "experiments").rglob("*.toml"))

HOSTILE = [
    -1, 0, 1, 3, 2**70, -0.5, 1.5, 1e308, float("nan"), float("inf"), float("-inf"),
    "", "abc", "-1ms", "0s", "1e99s", "-5Mbps", "0pkt", "0B", "1e30pkt", "100%",
    True, False, [], [1], [1, float("nan")], ["x"], {}, {"kind": "nope"}, {"a": 1},
]  # fmt: skip


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in items:
        out.append((*path, key))
        out.extend(_leaves(child, (*path, key)))
    return out


def _replace(raw: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    node: Any = raw
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = copy.deepcopy(value)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_hostile_values_run_or_raise_one_spec_error(data):
    file = data.draw(st.sampled_from(FILES), label="file")
    raw = load_raw(file)
    raw.pop("sweep", None)
    paths = [p for p in _leaves(raw) if p[0] not in ("source", "plot", "experiment")]
    for _ in range(data.draw(st.integers(1, 2), label="mutations")):
        path = data.draw(st.sampled_from(paths), label="path")
        value = data.draw(st.sampled_from(HOSTILE), label="value")
        with contextlib.suppress(TypeError, KeyError, IndexError):  # a parent was replaced
            _replace(raw, path, value)
    raw["experiment"].update(duration="20ms", warmup="0s")
    try:
        validate(raw)
        for point in list(plan(raw))[:1]:
            run_config(point.config)
    except SpecError as exc:
        assert not str(exc.key).startswith("config."), f"only the core caught it: {exc}"
        assert "\n" not in str(exc)
