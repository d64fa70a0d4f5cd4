"""A run's links: their results by column, their rows, and which of them a summary lists
(the bottleneck, every link that dropped, a few of the busiest others).

A run's results hold their links by column (``results["links"]``: one Arrow array per field,
what the core hands over, or one list per field of a reference engine's rows,
:mod:`qdsim.results.rows`); a summary holds them as rows (:class:`LinkRows`, made from the
columns as they are read), each with its drops split into buffer overflows and the rest
(:func:`drop_split`; the ``links`` table splits them by the same rule, by column).

A topology of 10⁴ hosts has 2·10⁴ access links, nearly all of them idle or lightly used: a
table for people lists the links that decide the results and summarises the rest in one
line (every link stays in ``links.parquet``). ``qdsim run``'s tables and ``qdsim report``'s
page list the same links, by :func:`links_shown`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .rows import Rows, field_values

__all__ = ["BUSY_LINKS_SHOWN", "QUIET_UTILIZATION", "LinkRows", "ShownLinks", "drop_split", "link_named", "links_shown"]

#: Links below this utilisation, without drops, are summarised in one line.
QUIET_UTILIZATION = 0.01
#: At most this many busy links without drops are listed beside the bottleneck and the links
#: that dropped.
BUSY_LINKS_SHOWN = 8


class LinkRows(Rows):
    """A run's links as rows (a summary's ``links``), each made when first read, with its
    drops split (``overflow_drops``, ``aqm_drops``: :func:`drop_split`). ``qdsim run`` lists
    a dozen of 4·10⁵ links, found by column (:func:`links_shown`, :func:`link_named`); only
    ``--json`` or a caller's loop reads them all."""

    def _finish(self, row: dict[str, Any]) -> dict[str, Any]:
        row["overflow_drops"], row["aqm_drops"] = drop_split(row["drops"], row["drops_by_reason"])
        return row


def link_named(links: Sequence[dict[str, Any]], name: str | None) -> dict[str, Any] | None:
    """Returns the link called ``name`` (None if there is none)."""
    names = field_values(links, "name")
    return links[names.index(name)] if name in names else None


@dataclass(frozen=True)
class ShownLinks:
    """The links a summary lists (``shown``, bottleneck first, each a row of the ``links``
    table or of a run summary's links) and how many others carried traffic (``rest``), the
    most utilised of them at ``rest_utilization``."""

    shown: list[dict[str, Any]]
    rest: int
    rest_utilization: float

    def rest_line(self) -> str | None:
        """Returns the line summarising the links not listed (None when there are none)."""
        if not self.rest:
            return None
        most = self.rest_utilization
        each = f"each < {QUIET_UTILIZATION:.0%} utilised" if most < QUIET_UTILIZATION else f"at most {most:.1%} utilised"
        return f"{self.rest} more links carried traffic ({each}, no drops): links.parquet"


def links_shown(links: Sequence[dict[str, Any]], bottleneck: str | None, busy_shown: int = BUSY_LINKS_SHOWN) -> ShownLinks:
    """Returns the links to list of a run's ``links``: the bottleneck and every link that
    dropped (bottleneck first, then by utilisation), then at most ``busy_shown`` other links
    utilised at least :data:`QUIET_UTILIZATION`; links that carried nothing are left out.
    Chosen by column: of :class:`LinkRows`, only the rows listed are made."""
    name, util, tx, arrivals, drops = (field_values(links, field) for field in ("name", "utilization", "tx_pkts", "arrivals", "drops"))
    busy = [i for i in range(len(name)) if (tx[i] or 0) > 0 or (arrivals[i] or 0) > 0]

    def order(i: int) -> tuple[bool, float]:
        return name[i] != bottleneck, -(util[i] or 0.0)

    always = sorted((i for i in busy if name[i] == bottleneck or (drops[i] or 0) > 0), key=order)
    dropping = set(always)
    others = sorted((i for i in busy if i not in dropping and (util[i] or 0.0) >= QUIET_UTILIZATION), key=order)
    shown = always + others[:busy_shown]
    listed = set(shown)
    rest = [i for i in busy if i not in listed]
    return ShownLinks(shown=[links[i] for i in shown], rest=len(rest), rest_utilization=max((util[i] or 0.0 for i in rest), default=0.0))


def drop_split(drops: int | None, drops_by_reason: dict[str, int] | None) -> tuple[int | None, int | None]:
    """Returns a link's drops as ``(overflow_drops, aqm_drops)``: those because its buffer was
    full, and every other (the discipline's own decisions, and random link loss). Unknown
    (None) where a reference engine could not say."""
    if drops_by_reason is None:
        return None, None
    overflow = drops_by_reason.get("overflow", 0)
    return overflow, None if drops is None else drops - overflow
