"""store.json_text writes config.json and summary.json one list element a line, each line
by one C encoder made once: the text must be the format's, whatever the values. config.json
names each flow's source by index into ``sources`` (resolve.with_shared_sources), which the
core reads as the flows holding them and qdsim.load gives back inline."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from qdsim.results.store import json_text

ENCODER = json.JSONEncoder(default=str)


def whole(value, level=0):
    """json_text's format, each line encoded by a fresh encoder."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict) and value:
        return "{\n" + ",\n".join(f"{inner}{ENCODER.encode(str(k))}: {whole(v, level + 1)}" for k, v in value.items()) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(inner + ENCODER.encode(v) for v in value) + f"\n{pad}]"
    return ENCODER.encode(value)


def test_objects_are_indented_by_key_and_list_elements_one_a_line():
    value = {"flows": [{"group": "a", "source": 0}, {"group": "b", "source": 1}], "nodes": ["a", "b"], "links": [], "seed": 1}
    assert json_text(value) == '{\n  "flows": [\n    {"group": "a", "source": 0},\n    {"group": "b", "source": 1}\n  ],\n  "nodes": ["a", "b"],\n  "links": [],\n  "seed": 1\n}'
    assert json.loads(json_text(value)) == value


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=30,
)


@given(json_values)
def test_any_value_encodes_as_the_format_gives_it(value):
    assert json_text(value) == whole(value)
    assert json.loads(json_text(value)) == json.loads(json.dumps(value, default=str))


def test_config_json_names_each_source_once_and_reads_back_inline(tmp_path):
    import qdsim
    from qdsim import _core
    from qdsim.experiment.resolve import config_json, resolve, with_inline_sources, with_shared_sources
    from qdsim.experiment.spec import load

    _, spec = load("experiments/quickstart.toml", ["experiment.duration=0.2s", "experiment.warmup=0.1s"])
    config = resolve(spec)
    shared = with_shared_sources(config)
    flows = config["flows"]
    assert list(shared)[list(shared).index("flows") - 1] == "sources", "sources come before the flows"
    assert len(shared["sources"]) == len({f["group"] for f in flows}) < len(flows)
    assert [shared["sources"][f["source"]] for f in shared["flows"]] == [f["source"] for f in flows]
    assert with_inline_sources(shared) == config and with_inline_sources(config) is config
    # The core reads either form as the same configuration: the same results.
    inline_run, shared_run = _core.run(config_json(config)), _core.run(json_text(shared))
    assert inline_run[0] == shared_run[0] and inline_run[2] == shared_run[2]
    results = qdsim.simulate("experiments/quickstart.toml", set={"experiment.duration": "0.2s", "experiment.warmup": "0.1s"}, out=tmp_path / "run")
    stored = json.loads((tmp_path / "run" / "config.json").read_text())
    assert stored == json.loads(json_text(shared)) and results.config == config == qdsim.load(tmp_path / "run").config


def test_the_core_is_given_each_source_once_and_reads_what_the_canonical_text_says():
    """run_config hands the core :func:`core_json` (each shared source once, keys unsorted),
    not the canonical :func:`config_json` that keys sweep points: the same configuration to
    the core, a fraction of the encoding. A configuration already naming its sources, or one
    whose flows lack a source, goes as it is (the core then names what is missing)."""
    from qdsim import _core
    from qdsim.experiment.resolve import config_json, core_json, resolve, with_shared_sources
    from qdsim.experiment.spec import load

    _, spec = load("experiments/quickstart.toml", ["experiment.duration=0.2s", "experiment.warmup=0.1s"])
    config = resolve(spec)
    text = core_json(config)
    assert json.loads(text) == with_shared_sources(config) and text.count('"byte_counting"') == 2 < config_json(config).count('"byte_counting"')
    assert _core.run(text)[0] == _core.run(config_json(config))[0]
    shared = with_shared_sources(config)
    assert json.loads(core_json(shared)) == shared
    sourceless = {**config, "flows": [{k: v for k, v in f.items() if k != "source"} for f in config["flows"]]}
    assert json.loads(core_json(sourceless)) == sourceless
