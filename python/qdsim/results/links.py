"""A run's links: their results by column, and which of them a summary lists (the
bottleneck, every link that dropped, a few of the busiest others).

A run's results hold their links by column (``results["links"]``: one list per field, what
the core hands over, :func:`by_column` for a reference engine's rows); a summary holds them
as rows (:func:`rows_of`), each with its drops split into buffer overflows and the rest
(:func:`drop_split`), the one definition the ``links`` table uses too.

A topology of 10⁴ hosts has 2·10⁴ access links, nearly all of them idle or lightly used: a
table for people lists the links that decide the results and summarises the rest in one
line (every link stays in ``links.parquet``). ``qdsim run``'s tables and ``qdsim report``'s
page list the same links, by :func:`links_shown`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["BUSY_LINKS_SHOWN", "QUIET_UTILIZATION", "ShownLinks", "by_column", "drop_split", "links_shown", "rows_of"]

#: Links below this utilisation, without drops, are summarised in one line.
QUIET_UTILIZATION = 0.01
#: At most this many busy links without drops are listed beside the bottleneck and the links
#: that dropped.
BUSY_LINKS_SHOWN = 8


@dataclass(frozen=True)
class ShownLinks:
    """The links a summary lists (``shown``, bottleneck first) and the others that carried
    traffic (``rest``), each a row of the ``links`` table (or of a run summary's links)."""

    shown: list[dict[str, Any]]
    rest: list[dict[str, Any]]

    def rest_line(self) -> str | None:
        """Returns the line summarising the links not listed (None when there are none)."""
        if not self.rest:
            return None
        most = max(link["utilization"] or 0.0 for link in self.rest)
        each = f"each < {QUIET_UTILIZATION:.0%} utilised" if most < QUIET_UTILIZATION else f"at most {most:.1%} utilised"
        return f"{len(self.rest)} more links carried traffic ({each}, no drops): links.parquet"


def links_shown(links: Sequence[dict[str, Any]], bottleneck: str | None, busy_shown: int = BUSY_LINKS_SHOWN) -> ShownLinks:
    """Returns the links to list of a run's ``links``: the bottleneck and every link that
    dropped (bottleneck first, then by utilisation), then at most ``busy_shown`` other links
    utilised at least :data:`QUIET_UTILIZATION`; links that carried nothing are left out."""
    busy = [link for link in links if (link["tx_pkts"] or 0) > 0 or (link["arrivals"] or 0) > 0]

    def order(link: dict[str, Any]) -> tuple[bool, float]:
        return link["name"] != bottleneck, -(link["utilization"] or 0.0)

    always = sorted((link for link in busy if link["name"] == bottleneck or (link["drops"] or 0) > 0), key=order)
    dropping = {link["name"] for link in always}
    others = sorted((link for link in busy if link["name"] not in dropping and (link["utilization"] or 0.0) >= QUIET_UTILIZATION), key=order)
    shown = always + others[:busy_shown]
    listed = {link["name"] for link in shown}
    return ShownLinks(shown=shown, rest=[link for link in busy if link["name"] not in listed])


def by_column(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Returns rows that all have the same fields as one list per field (``{}`` for none)."""
    return {field: [row[field] for row in rows] for field in rows[0]} if rows else {}


def rows_of(columns: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Returns the rows of lists per field (:func:`by_column`'s inverse)."""
    fields = list(columns)
    return [dict(zip(fields, values, strict=True)) for values in zip(*columns.values(), strict=True)]


def drop_split(drops: int | None, drops_by_reason: dict[str, int] | None) -> tuple[int | None, int | None]:
    """Returns a link's drops as ``(overflow_drops, aqm_drops)``: those because its buffer was
    full, and every other (the discipline's own decisions, and random link loss). Unknown
    (None) where a reference engine could not say."""
    if drops_by_reason is None:
        return None, None
    overflow = drops_by_reason.get("overflow", 0)
    return overflow, None if drops is None else drops - overflow
