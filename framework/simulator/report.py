"""The table a person reads after ``simulate``: each pod, where it went, and the events.

:func:`render_table` prints a :class:`~framework.simulator.result.SimulationResult`
the way ``kubectl get pods -o wide`` and ``kubectl get events`` would show
the cluster afterwards, with the simulator's own columns: how many attempts
each pod took and how its last one ended (for a pending pod, kube-scheduler's
``FailedScheduling`` message). Notes (plugins a profile left out) come
first, so nothing is hidden.

No Kubernetes counterpart.
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.simulator.result import SCHEDULED, SimulationResult

__all__ = ["preempted_by", "render_table", "summary_line", "table"]


def table(rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """Rows as left-aligned columns two spaces apart (the last column is not padded)."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=False)]
        lines.append((indent + "  ".join([*cells, row[-1]])).rstrip())
    return lines


def preempted_by(result: SimulationResult) -> dict[str, tuple[str, str | None]]:
    """Each pod preempted in the run: the preemptor, and the node it was nominated to (the victim's)."""
    return result.preemptions()


def summary_line(result: SimulationResult) -> str:
    """``Scheduled 2 of 3 pending pod(s) in 4 scheduling attempt(s), 1 preempted``."""
    pending = [p for p in result.pods if not p.running_at_start]
    scheduled = sum(1 for p in pending if p.node)
    preempted = len(preempted_by(result))
    return (
        f"Scheduled {scheduled} of {len(pending)} pending pod(s) in {result.attempt_count} "
        f"scheduling attempt(s)" + (f", {preempted} preempted" if preempted else "")
    )


def render_table(result: SimulationResult) -> str:
    """The placements, attempts and events of a run, as text."""
    lines = list(result.notes)
    lines.append(f"{summary_line(result)} (seed {result.seed}).")
    lines.append("")
    victims = preempted_by(result)
    rows = [["POD", "PRIORITY", "QOS", "NODE", "ATTEMPTS", "RESULT"]]
    for pod in result.pods:
        last = result.last_attempt(pod.key)
        if pod.key in victims and not pod.node:
            preemptor, node = victims[pod.key]
            outcome = f"preempted by {preemptor}" + (f" (was on {node})" if node else "")
        elif pod.terminating_at_start:
            outcome = "terminating before the simulation" + (
                ""
                if pod.node
                else f"; deleted when its grace period ended (was on {pod.node_at_start})"
            )
        elif pod.running_at_start:
            outcome = "running before the simulation"
        elif last is not None:
            outcome = last.result if last.result == SCHEDULED else f"{last.result}: {last.message}"
        elif pod.scheduling_gates:
            outcome = f"gated: spec.schedulingGates {', '.join(pod.scheduling_gates)}"
        else:
            outcome = "never attempted"
        rows.append(
            [
                pod.key,
                str(pod.priority),
                pod.qos_class,
                pod.node or "<none>",
                str(result.attempt_count_of(pod.key)),
                outcome,
            ]
        )
    lines += table(rows)
    lines += ["", "Events (kubectl get events):"]
    # The trace lists every occurrence; the API server keeps one Event per repeat with a
    # count (client-go's EventCorrelator), and that is what kubectl lists: one row, first seen.
    counts: dict[tuple[str, str, str, str], int] = {}
    for e in result.events:
        key = (e.type, e.reason, e.object, e.message)
        counts[key] = counts.get(key, 0) + 1
    event_rows = [["TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE"]]
    event_rows += [
        [kind, reason, obj, str(n), message] for (kind, reason, obj, message), n in counts.items()
    ]
    lines += table(event_rows, indent="  ")
    if result.feature_gates is not None:
        lines += ["", result.feature_gates.describe()]
    return "\n".join(lines) + "\n"
