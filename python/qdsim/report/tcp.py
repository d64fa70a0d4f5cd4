"""The TCP each flow group ran with: its profile, the options the file set over it, and every
resolved value, with the profile's source for each.

A run records its groups' resolved options (``summary.json``: ``tcp``, from
:func:`qdsim.run.one.group_tcp_options`); a sweep records only the experiment file, so its
file's own values are resolved again here (:func:`qdsim.experiment.resolve.resolve`), and a
swept TCP key is named as one that changes them. Profiles and options come from the core's
catalog (:mod:`qdsim.experiment.algorithms`), as in ``qdsim list tcp-profiles``.
"""

from __future__ import annotations

import html
from typing import Any

from ..errors import SpecError
from ..experiment import algorithms
from ..experiment.resolve import resolve
from ..experiment.spec import validate
from ..run.one import group_tcp_options
from .source import ResultsDir
from .summary import html_table

__all__ = ["tcp_html"]


def _resolved(src: ResultsDir) -> dict[str, dict[str, Any]]:
    """Returns each TCP group's resolved options (option name → value as a file writes it)."""
    if src.kind == "run" and "tcp" in src.summary:
        return dict(src.summary["tcp"])
    return group_tcp_options(resolve(validate(src.spec)))


def _file_choices(spec: dict[str, Any]) -> dict[str, tuple[str | None, list[str]]]:
    """Returns, per group of the file, the profile it names (None: the default) and the
    options it sets over it (``cc`` included)."""
    out: dict[str, tuple[str | None, list[str]]] = {}
    for entry in spec.get("flows", []):
        tcp = dict(entry.get("tcp") or {})
        profile = tcp.pop("profile", None)
        out[str(entry.get("group"))] = (profile, (["cc"] if "cc" in entry else []) + sorted(tcp))
    return out


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def tcp_html(src: ResultsDir) -> str:
    """Returns the TCP section's HTML: one line per group (profile, options set by the file)
    and the table of every option's value, groups with the same values sharing a column."""
    try:
        resolved = _resolved(src)
    except SpecError as exc:
        return f'<p class="note">The file\'s TCP options could not be resolved again ({html.escape(str(exc))}).</p>'
    if not resolved:
        return '<p class="note">No flow group carries TCP.</p>'
    choices = _file_choices(src.spec)
    by_profile: dict[str | None, list[str]] = {}
    for group in resolved:
        by_profile.setdefault(choices.get(group, (None, []))[0], []).append(group)
    lines = []
    for name, groups in by_profile.items():
        profile = algorithms.tcp_profile(name)
        default = " (the default)" if profile["default"] else ""
        sets = "".join(f"; {group} sets {', '.join(choices[group][1])} over it" for group in groups if choices.get(group, (None, []))[1])
        lines.append(f"<li><b>{html.escape(', '.join(groups))}</b>: profile <code>{html.escape(profile['name'])}</code>{default} — {html.escape(profile['summary'])}{html.escape(sets)}</li>")
    columns: dict[str, list[str]] = {}
    for group, options in resolved.items():
        columns.setdefault(repr(sorted(options.items(), key=lambda item: item[0])), []).append(group)
    heads = [groups for groups in columns.values()]
    catalog = {o["name"]: o for o in algorithms.tcp_options()}
    body = []
    for option in resolved[heads[0][0]]:
        info = catalog.get(option, {"help": "congestion control", "unit": "name"})
        row = [(option, f"{info['help']} ({info['unit']})")]
        for groups in heads:
            name, set_keys = choices.get(groups[0], (None, []))
            value = _text(resolved[groups[0]].get(option))
            source = next((o for o in algorithms.tcp_profile(name)["options"] if o["option"] == option), None)
            tip = "set by the experiment file" if option in set_keys else (f"profile {algorithms.tcp_profile(name)['name']}: {source['source']}" if source else "")
            row.append((value + (" *" if option in set_keys else ""), tip))
        body.append(row)
    table = html_table(
        [("option", ""), *((", ".join(g), "flow groups with these values") for g in heads)], body, "Resolved TCP options (* set by the experiment file; hover a value for the profile's source)."
    )
    swept = [key for key in src.grid if ".tcp." in key or key.endswith(".cc") or key.endswith(".tcp")]
    note = f'<p class="note">Swept keys change some of these values: {html.escape(", ".join(swept))}; shown are the file\'s own.</p>' if swept else ""
    return f'<ul class="groups">{"".join(lines)}</ul>{note}<details><summary>Every option\'s value ({len(body)} options)</summary>{table}</details>'
