"""``python -m framework demo``: a small cluster, scheduled, explained.

Loads ``framework/scenarios/demo.yaml`` (ordinary manifests: a
PriorityClass, three nodes, six pods) into a fresh fake API server, lets the
:class:`~framework.naive.NaiveScheduler` place the pods, and prints what the
API server now holds: each pod's node, or why it has none, and the events the
scheduler recorded, as ``kubectl get pods -o wide`` and ``kubectl get events``
would show them.

Time is a :class:`~framework.clock.FakeClock` and uids come from a counter,
so the output is the same on every run.
"""

from __future__ import annotations

import itertools
from importlib.resources import files

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.naive import NaiveScheduler
from framework.objects import Event, Pod
from framework.objects.manifest import loads

__all__ = ["DEMO_SCENARIO", "render_cluster", "run_demo"]

DEMO_SCENARIO = "demo.yaml"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
        + "  "
        + row[-1]
        for row in rows
    ]


def run_demo() -> str:
    """Schedule the demo cluster and return the report as text."""
    text = files("framework.scenarios").joinpath(DEMO_SCENARIO).read_text(encoding="utf-8")
    counter = itertools.count(1)
    api = APIServer(
        clock=FakeClock(), uid_factory=lambda: f"00000000-0000-0000-0000-{next(counter):012d}"
    )
    for obj in loads(text, DEMO_SCENARIO):
        api.create(obj)

    placements = NaiveScheduler(api).schedule_pending()
    bound = sum(1 for p in placements if p.node)
    headline = (
        f"Scheduled {bound} of {len(placements)} pending pods "
        f"(first fit, highest priority first; the framework's plugins arrive in later chapters)."
    )
    return headline + "\n\n" + render_cluster(api)


def render_cluster(api: APIServer) -> str:
    """Every pod with its node, then the events, as ``kubectl get pods`` and ``get events`` show them."""
    rows = [["POD", "PRIORITY", "QOS", "NODE"]]
    for pod in api.list(Pod).items:
        rows.append(
            [
                pod.key,
                str(pod.spec.priority or 0),
                pod.status.qos_class,
                pod.spec.node_name or "<none>",
            ]
        )
    lines = [*_table(rows), "", "Events (kubectl get events):"]
    event_rows = [["TYPE", "REASON", "OBJECT", "MESSAGE"]]
    for event in sorted(api.list(Event).items, key=lambda e: int(e.metadata.resource_version)):
        event_rows.append(
            [event.type, event.reason, f"pod/{event.involved_object.name}", event.message]
        )
    lines += ["  " + line for line in _table(event_rows)]
    return "\n".join(line.rstrip() for line in lines) + "\n"
