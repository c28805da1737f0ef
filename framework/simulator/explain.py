"""Why did this pod go there, or why is it pending? One pod's last attempt, explained.

:func:`explain` reads one pod's attempts out of a
:class:`~framework.simulator.result.SimulationResult` and lays out the
evidence of the last one, the way a person debugging a Pending pod wants
it:

1. the outcome in kube-scheduler's words: the ``FailedScheduling`` message
   (``0/3 nodes are available: ...``, with any ``preemption: ...`` part),
   or ``Scheduled to node X``; how many attempts there were;
2. the **Filter table**: one row per node the attempt evaluated, in the
   order it evaluated them, one column per Filter plugin, each cell the
   plugin's verdict (``ok``, ``skip`` when its PreFilter had nothing to
   check, the reasons when it rejected the node, ``-`` when an earlier
   plugin had already rejected the node and this one never ran);
3. the **Score table**: one row per feasible node, one column per Score
   plugin with its weight, each cell ``normalised → weighted``, the total,
   and the chosen node marked ``*``.

An attempt read from a v2 trace that did not keep its tables
(:mod:`framework.simulator.trace`) is explained by its summary instead: the
nodes evaluated and feasible, the rejection counts and the best nodes, with
the command that records the tables.

A FailedScheduling message counts reasons over all nodes; the tables show
which node each reason came from.

No Kubernetes counterpart: ``kubectl describe pod`` shows only the message.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from framework.simulator.report import table
from framework.simulator.result import SCHEDULED, Attempt, FilterVerdict, SimulationResult

__all__ = [
    "ExplainError",
    "explain",
    "filter_rows",
    "plugin_weights",
    "pod_key",
    "score_rows",
    "verdict_text",
]

_NOT_RUN = "-"


class ExplainError(LookupError):
    """The pod asked about is not one of the simulation's pods."""


def pod_key(name: str) -> str:
    """``NAMESPACE/POD`` as given, or ``default/POD`` for a bare name."""
    return name if "/" in name else f"default/{name}"


def _verdict(verdict: FilterVerdict | None) -> str:
    if verdict is None:
        return _NOT_RUN
    if verdict.code == "Success":
        return "ok"
    if verdict.code == "Skip":
        return "skip"
    text = "; ".join(verdict.reasons) or verdict.code
    if verdict.code == "UnschedulableAndUnresolvable":
        return f"{text} (unresolvable)"
    if verdict.code in ("Error", "Pending"):
        return f"{verdict.code.lower()}: {text}"
    return text


verdict_text = _verdict
"""A Filter verdict as a table cell: ``ok``, ``skip``, the reasons, or ``-`` (not run)."""


def _columns(rows: Iterable[Mapping[str, object]]) -> list[str]:
    # Rows are shared among nodes (see the recorder): look at each distinct row once.
    plugins: dict[str, None] = {}
    seen: set[int] = set()
    for row in rows:
        if id(row) not in seen:
            seen.add(id(row))
            plugins.update(dict.fromkeys(row))
    return list(plugins)


def filter_rows(attempt: Attempt, nodes: Iterable[str] | None = None) -> list[list[str]]:
    """The Filter table's cells: a header, then a row per node (all, or ``nodes``, in order).

    Each row is the chosen-node mark (``*``), the node and one
    :func:`verdict_text` per Filter plugin.
    """
    plugins = _columns(attempt.filter.values())
    rows = [[" ", "NODE", *plugins]]
    for node in attempt.filter if nodes is None else nodes:
        row = attempt.filter[node]
        mark = "*" if node == attempt.node else " "
        rows.append([mark, node, *(_verdict(row.get(name)) for name in plugins)])
    return rows


def score_rows(
    attempt: Attempt, weights: Mapping[str, int], limit: int | None = None
) -> list[list[str]]:
    """The Score table's cells: a header, then the feasible nodes by total, highest first.

    Each row is the mark, the node, ``normalised → weighted`` per Score plugin
    (headed with its weight) and the total. With ``limit``, only the first
    ``limit`` nodes, and the chosen node wherever it ranks.
    """
    plugins = _columns(attempt.final_score.values())
    header = [" ", "NODE", *(f"{name} ×{weights.get(name, '?')}" for name in plugins), "TOTAL"]
    rows = [header]
    totals = {node: attempt.total(node) for node in attempt.final_score}
    ordered = sorted(totals, key=lambda node: -totals[node])
    if limit is not None and len(ordered) > limit:
        kept = ordered[:limit]
        if attempt.node in totals and attempt.node not in kept:
            kept.append(attempt.node)
        ordered = kept
    for node in ordered:
        cells = []
        final, score = attempt.final_score[node], attempt.score.get(node, {})
        for name in plugins:
            if name in final:
                cells.append(f"{score.get(name, '?')} → {final[name]}")
            else:
                cells.append(_NOT_RUN)
        mark = "*" if node == attempt.node else " "
        rows.append([mark, node, *cells, str(totals[node])])
    return rows


def _filter_table(attempt: Attempt) -> list[str]:
    return table(filter_rows(attempt), indent="  ")


def _score_table(attempt: Attempt, weights: dict[str, int]) -> list[str]:
    return table(score_rows(attempt, weights), indent="  ")


def plugin_weights(result: SimulationResult, attempt: Attempt) -> dict[str, int]:
    """Each Score plugin's weight in the attempt's profile (worked out from the scores if unknown)."""
    return _weights(result, attempt)


def _weights(result: SimulationResult, attempt: Attempt) -> dict[str, int]:
    weights = dict(result.score_weights.get(attempt.profile, {}))
    for node, row in attempt.final_score.items():
        for name, weighted in row.items():
            normalised = attempt.score.get(node, {}).get(name, 0)
            if name not in weights and normalised:
                weights[name] = weighted // normalised
    return weights


def explain(result: SimulationResult, pod: str) -> str:
    """The explanation of one pod (``namespace/name``, or a name in ``default``), as text.

    Raises :class:`ExplainError` if the simulation had no such pod.
    """
    key = pod_key(pod)
    summary = next((p for p in result.pods if p.key == key), None)
    if summary is None and key not in result.placements:
        raise ExplainError(_not_found(key, list(result.placements)))
    last = result.last_attempt(key)
    node = result.placements.get(key)
    if last is None:
        return _without_attempts(result, key, node)

    count = result.attempt_count_of(key)
    if last.result == SCHEDULED:
        lines = [f"Pod {key}: Scheduled to node {last.node}.", last.message]
    else:
        state = f"bound to node {node}" if node else "pending"
        reason = "FailedScheduling" if last.result != "BindFailed" else "binding failed"
        lines = [f"Pod {key}: {state}; last attempt {last.result}.", f"{reason}: {last.message}"]
    of = f": the last of {count} attempts" if count > 1 else ""
    lines.append(f"Attempt {last.attempt}, profile {last.profile}{of}.")
    if last.nominated_node:
        victims = ", ".join(last.victims) or "none recorded"
        lines.append(f"Nominated to node {last.nominated_node} by preemption; victims: {victims}.")
    lines.append("")
    if not last.has_table:
        return "\n".join(lines + _summary_only(key, last)) + "\n"
    if last.filter:
        lines.append(f"Filter, on the {len(last.filter)} node(s) evaluated, in that order:")
        lines += _filter_table(last)
        lines.append(
            "  ok: passed; skip: nothing to check for this pod; "
            "-: not run (an earlier plugin rejected the node)"
        )
    else:
        lines.append("Filter: no node was evaluated.")
    lines.append("")
    if last.final_score:
        lines.append("Score, on the feasible nodes: normalised score → times the plugin's weight:")
        lines += _score_table(last, _weights(result, last))
        lines.append("  * the chosen node (the highest total; ties are broken at random)")
    elif last.node:
        lines.append(f"Score: not run; {last.node} was the only feasible node.")
    else:
        lines.append("Score: not run; no node passed the filters.")
    return "\n".join(lines) + "\n"


def _not_found(key: str, pods: list[str]) -> str:
    """Which pod was not found, and the likely ones meant: by full key, else by name alone."""
    name = key.partition("/")[2]
    close = [p for p in pods if p.partition("/")[2] == name]  # another namespace
    by_name: dict[str, list[str]] = {}
    for p in pods:
        by_name.setdefault(p.partition("/")[2], []).append(p)
    for similar in difflib.get_close_matches(name, list(by_name), n=3, cutoff=0.7):
        close += [p for p in by_name[similar] if p not in close]
    known = ", ".join(pods[:5]) + (f" and {len(pods) - 5} more" if len(pods) > 5 else "")
    meant = f"; did you mean {' or '.join(close)}?" if close else ""
    return (
        f"Pod {key}: not found among the {len(pods)} pods simulated{meant} "
        f"(the pods are {known or 'none'})"
    )


def _summary_only(key: str, attempt: Attempt) -> list[str]:
    """An attempt whose tables a v2 trace did not keep: its summary, and how to get the tables."""
    summary = attempt.summary()
    lines = [
        f"Filter: {summary.evaluated} node(s) evaluated, {summary.feasible} feasible; "
        "the node × plugin table was not kept for this attempt."
    ]
    if summary.reasons:
        counts = ", ".join(f"{n} {reason}" for reason, n in summary.reasons.items())
        lines.append(f"  Rejections: {counts}.")
    if summary.top_nodes:
        best = ", ".join(f"{node} ({score})" for node, score in summary.top_nodes)
        lines.append(f"Score: the best node(s) by total: {best}.")
    lines.append(
        f"  For the tables, simulate again with --explain {key} (or --full-trace), "
        f"or run explain {key} on the manifests."
    )
    return lines


def _without_attempts(result: SimulationResult, key: str, node: str | None) -> str:
    summary = next((p for p in result.pods if p.key == key), None)
    if summary is not None and summary.running_at_start:
        preemptor = result.preemptions().get(key)
        if node is None and preemptor is not None:
            return (
                f"Pod {key}: running before the simulation (spec.nodeName); preempted: deleted "
                f"to make room for {preemptor[0]}, nominated to {preemptor[1]}.\n"
            )
        if summary.terminating_at_start:
            was = summary.node_at_start
            end = (
                "still there at the end of the run"
                if node is not None
                else "deleted when its grace period ended"
            )
            return (
                f"Pod {key}: terminating on node {was} before the simulation "
                f"(metadata.deletionTimestamp); {end}.\n"
            )
        return f"Pod {key}: running on node {node} before the simulation (spec.nodeName).\n"
    if summary is not None and summary.scheduling_gates:
        gates = ", ".join(summary.scheduling_gates)
        return (
            f"Pod {key}: pending; never attempted: the SchedulingGates plugin holds it "
            f"until its spec.schedulingGates are removed ({gates}).\n"
        )
    if summary is not None and summary.scheduler_name not in result.score_weights:
        return (
            f"Pod {key}: pending; never attempted: no profile of the configuration has "
            f"schedulerName {summary.scheduler_name!r}.\n"
        )
    if summary is not None:
        return f"Pod {key}: pending; never attempted: a PreEnqueue plugin holds it.\n"
    return f"Pod {key}: {'on node ' + node if node else 'pending'}; no scheduling attempt.\n"
