"""store.json_text writes config.json and summary.json one list element a line, encoding a
value the elements share (every flow of a group holds its group's one source) once and
splicing it in: the text must be what encoding every element whole gives, whatever the
sharing, the keys' order or the elements' kinds."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from qdsim.results.store import json_text

ENCODER = json.JSONEncoder(default=str)


def whole(value, level=0):
    """json_text's format with every line encoded whole (what it gave before the splicing)."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict) and value:
        return "{\n" + ",\n".join(f"{inner}{ENCODER.encode(str(k))}: {whole(v, level + 1)}" for k, v in value.items()) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(inner + ENCODER.encode(v) for v in value) + f"\n{pad}]"
    return ENCODER.encode(value)


SOURCE = {"kind": "tcp", "tcp": {f"option_{i}": i * 1000 for i in range(40)}}
OTHER = {"kind": "tcp", "tcp": {f"option_{i}": "x" * 10 for i in range(40)}, "size_bytes": 5}


def test_a_shared_source_is_spliced_where_each_flow_holds_it():
    flows = [{"group": "a", "src": f"s{i}", "source": SOURCE, "user": i} for i in range(3)]
    flows += [{"source": OTHER, "group": "b"}, {"group": "c", "source": None}, {"group": "d"}, 7, [SOURCE]]
    value = {"flows": flows, "nodes": ["a", "b"], "links": []}
    assert json_text(value) == whole(value)
    assert json.loads(json_text(value)) == value


def test_two_shared_values_in_an_element_keep_their_places_whatever_the_keys_order():
    big = {"hosts": [{"src": f"h{i}", "dst": f"g{i}"} for i in range(30)]}
    items = [{"a": SOURCE, "b": big, "n": 1}, {"b": big, "n": 2, "a": OTHER}, {"b": SOURCE, "a": big}]
    assert json_text(items) == whole(items)


def test_a_string_like_the_mark_is_not_taken_for_it():
    items = [{"source": SOURCE, "name": "qdsim shared value"}, {"name": "\x00", "source": SOURCE}]
    assert json_text(items) == whole(items)
    # Even the mark itself, ahead of the value it stands for.
    mark = "\x00qdsim shared value\x00"
    items = [{"source": SOURCE}, {"name": mark, "source": SOURCE}, {"source": SOURCE, "name": mark}]
    assert json_text(items) == whole(items)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=30,
)


@given(st.lists(json_values, min_size=1, max_size=4), st.lists(st.integers(0, 6), max_size=12), st.sampled_from(["source", "tcp", ""]))
def test_elements_sharing_any_values_encode_as_whole(pool, picks, key):
    # Elements that hold values of a small pool under one key, each object shared by several.
    shared = [{"pad": "y" * 300, "value": v} for v in pool]
    items = [{"i": i, key: shared[p % len(shared)]} if p < 5 else {key: p} for i, p in enumerate(picks)]
    value = {"items": items, "pool": pool}
    assert json_text(value) == whole(value)
