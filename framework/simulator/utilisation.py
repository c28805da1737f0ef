"""How full each node is, before and after scheduling: requested over allocatable, per resource.

NodeResourcesFit admits a pod while the requests of the pods on a node fit
in the node's allocatable. This module lays that out for a whole run, per
resource — ``cpu``, ``memory``, ``pods`` and each extended resource a node
offers (``nvidia.com/gpu``…) — from each node's
:class:`~framework.simulator.result.NodeSummary`: *before* counts the pods
that were already running (``spec.nodeName`` in the input), *after* the pods
bound when the run ended (preemption victims are gone). It draws the
picture as SVG, written here in Python with no library and nothing fetched:

* up to :data:`PER_NODE_LIMIT` nodes, one bar per node: the track is the
  allocatable, the thin grey bar the requests before, the blue bar after;
* more nodes than that, a histogram: how many nodes are 0–10 % full, 10–20 %
  and so on, before and after — a thousand bars would say less.

A node without any of a resource (allocatable 0, as most nodes are for GPUs)
is left out of that resource's picture.

No Kubernetes counterpart: kube-scheduler-simulator shows the same on its
web UI's node list.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from framework.objects.resource_names import is_extended_resource_name
from framework.objects.resources import CPU, MEMORY, PODS
from framework.simulator.result import SimulationResult

__all__ = ["PER_NODE_LIMIT", "NodeLoad", "amount", "loads", "resources", "summary", "svg"]

PER_NODE_LIMIT = 40
"""The most nodes drawn one bar each; above it, a histogram."""

_BINS = 10
_BEFORE, _AFTER, _TRACK, _OVER = "#718096", "#2b6cb0", "#edf2f7", "#c53030"


@dataclass(frozen=True, slots=True)
class NodeLoad:
    """One node's allocatable of a resource and the requests on it before and after the run."""

    node: str
    allocatable: int
    before: int
    after: int


def resources(result: SimulationResult) -> list[str]:
    """The resources to picture: cpu, memory, pods, then each extended resource a node offers."""
    extended = sorted(
        {
            name
            for node in result.nodes
            for name, value in node.allocatable.items()
            if value > 0 and is_extended_resource_name(name)
        }
    )
    return [CPU, MEMORY, PODS, *extended]


def loads(result: SimulationResult, resource: str) -> list[NodeLoad]:
    """Each node offering ``resource``, in node order, with its requests before and after."""
    return [
        NodeLoad(
            node.name,
            node.allocatable[resource],
            node.requested_before.get(resource, 0),
            node.requested_after.get(resource, 0),
        )
        for node in result.nodes
        if node.allocatable.get(resource, 0) > 0
    ]


def amount(resource: str, value: int) -> str:
    """An amount in the units people read: cores, GiB or MiB, a count.

    >>> amount("cpu", 2500), amount("memory", 3 * 2**29), amount("pods", 12000)
    ('2.5', '1.5Gi', '12,000')
    """
    if resource == CPU:
        return f"{value / 1000:,.3f}".rstrip("0").rstrip(".")
    if resource == MEMORY:
        if value == 0:
            return "0"
        if value >= 2**30:
            return f"{value / 2**30:,.1f}".removesuffix(".0") + "Gi"
        return f"{value / 2**20:.0f}Mi"
    return f"{value:,}"


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def summary(resource: str, rows: list[NodeLoad]) -> str:
    """One line of totals: requested of allocatable over the nodes, after and before."""
    total = sum(r.allocatable for r in rows)
    before, after = sum(r.before for r in rows), sum(r.after for r in rows)
    return (
        f"{resource}: {amount(resource, after)} of {amount(resource, total)} requested after "
        f"({_percent(after, total)}), {amount(resource, before)} before "
        f"({_percent(before, total)}), on {len(rows)} node(s)"
    )


def svg(resource: str, rows: list[NodeLoad]) -> str:
    """The picture of one resource: bars per node, or a histogram for many nodes."""
    if len(rows) <= PER_NODE_LIMIT:
        return _bars(resource, rows)
    return _histogram(rows)


def _legend(y: int) -> str:
    return (
        f'<rect x="0" y="{y}" width="10" height="10" fill="{_BEFORE}"/>'
        f'<text x="14" y="{y + 9}">before</text>'
        f'<rect x="70" y="{y}" width="10" height="10" fill="{_AFTER}"/>'
        f'<text x="84" y="{y + 9}">after</text>'
    )


def _label(text: str, limit: int = 24) -> str:
    return escape(text if len(text) <= limit else text[: limit - 1] + "…")


def _bars(resource: str, rows: list[NodeLoad]) -> str:
    left, track, height = 170, 330, 22
    total_height = 24 + height * len(rows)
    parts = [
        f'<svg class="chart" width="720" '
        f'height="{total_height}" role="img" aria-label="{escape(resource)} per node">',
        _legend(0),
    ]
    for i, row in enumerate(rows):
        y = 20 + i * height
        width_before = track * min(row.before, row.allocatable) // row.allocatable
        width_after = track * min(row.after, row.allocatable) // row.allocatable
        colour = _OVER if row.after > row.allocatable else _AFTER
        parts.append(
            f"<g><title>{escape(row.node)}: {amount(resource, row.before)} before, "
            f"{amount(resource, row.after)} after, of {amount(resource, row.allocatable)}</title>"
            f'<text x="0" y="{y + 14}">{_label(row.node)}</text>'
            f'<rect x="{left}" y="{y + 2}" width="{track}" height="{height - 6}" fill="{_TRACK}"/>'
            f'<rect x="{left}" y="{y + 2}" width="{width_before}" height="5" fill="{_BEFORE}"/>'
            f'<rect x="{left}" y="{y + 8}" width="{width_after}" height="{height - 13}" '
            f'fill="{colour}"/>'
            f'<text x="{left + track + 8}" y="{y + 14}">{amount(resource, row.after)} / '
            f"{amount(resource, row.allocatable)} ({_percent(row.after, row.allocatable)})"
            "</text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _bin(used: int, allocatable: int) -> int:
    return min(_BINS - 1, _BINS * used // allocatable) if used < allocatable else _BINS - 1


def _histogram(rows: list[NodeLoad]) -> str:
    before, after = [0] * _BINS, [0] * _BINS
    for row in rows:
        before[_bin(row.before, row.allocatable)] += 1
        after[_bin(row.after, row.allocatable)] += 1
    tallest = max(max(before), max(after), 1)
    left, bottom, plot, slot = 40, 190, 150, 64
    parts = [
        f'<svg class="chart" width="{left + slot * _BINS + 10}" '
        f'height="{bottom + 40}" role="img" aria-label="nodes by how full they are">',
        _legend(0),
        f'<line x1="{left}" y1="{bottom}" x2="{left + slot * _BINS}" y2="{bottom}" '
        'stroke="#4a5568"/>',
        f'<text x="0" y="{bottom - plot + 4}">{tallest}</text><text x="0" y="{bottom}">0</text>',
    ]
    for i in range(_BINS):
        x = left + i * slot
        for offset, count, colour in ((6, before[i], _BEFORE), (32, after[i], _AFTER)):
            bar = plot * count // tallest
            parts.append(
                f'<rect x="{x + offset}" y="{bottom - bar}" width="24" height="{bar}" '
                f'fill="{colour}"><title>{count} node(s)</title></rect>'
            )
            if count:
                parts.append(
                    f'<text x="{x + offset + 12}" y="{bottom - bar - 3}" '
                    f'text-anchor="middle" class="small">{count}</text>'
                )
        upper = "100%" if i == _BINS - 1 else f"{(i + 1) * 100 // _BINS}%"
        parts.append(
            f'<text x="{x + slot // 2}" y="{bottom + 16}" text-anchor="middle" class="small">'
            f"{i * 100 // _BINS}–{upper}</text>"
        )
    parts.append(
        f'<text x="{left + slot * _BINS // 2}" y="{bottom + 34}" text-anchor="middle">'
        "nodes by requested / allocatable</text></svg>"
    )
    return "".join(parts)
