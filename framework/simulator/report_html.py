"""The HTML report: ``simulate --output html``, one page that answers "where, and why?" for every pod.

:func:`write_html` lays a :class:`~framework.simulator.result.SimulationResult`
out as one self-contained HTML file — its CSS inline, its charts inline
SVG drawn by :mod:`framework.simulator.utilisation`, no script, nothing
fetched — so it opens anywhere, offline, and can be mailed or attached to
a ticket. In order:

1. the **summary**: how many pods were scheduled, stayed pending, were
   preempted; the pending ones listed with kube-scheduler's message; the
   notes (plugins a profile left out) and warnings (inputs skipped);
2. **node utilisation**, per resource (cpu, memory, pods, each extended
   resource): requested over allocatable, before and after scheduling;
3. **every pod**, in input order, one collapsible ``<details>`` each: the
   outcome, kube-scheduler's message, the history of its attempts (result,
   node, nomination, victims), its events, and for each attempt the Filter
   table (nodes × plugins) and the Score table, built by the same functions
   as ``explain`` (:func:`~framework.simulator.explain.filter_rows`,
   :func:`~framework.simulator.explain.score_rows`);
4. the **events**, as ``kubectl get events`` lists them.

**Large runs.** A 1,000-node attempt evaluates hundreds of nodes; a table
row for each, for thousands of pods, would make a page no browser opens.
So an attempt that evaluated more than :data:`FULL_TABLE_NODES` nodes shows
the chosen node, the first :data:`MAX_REJECTED_ROWS` nodes a filter
rejected and the first :data:`MAX_PASSED_ROWS` that passed, with a line
counting the rejections by plugin and reason over *all* its nodes; its Score
table shows the :data:`MAX_SCORE_ROWS` highest totals and the chosen node.
Each table says what it left out; the JSON trace has everything. The page
grows linearly with the pods (about 10 kB each at most), and every step is
linear in the trace: attempts and events are grouped by pod once, and
a Filter row shared by many nodes is examined once.

Everything that comes from the input — names, labels, messages — is
escaped: a pod named ``<script>`` is text on the page, never markup.

No Kubernetes counterpart: kube-scheduler-simulator's web UI shows the same
per-plugin results, from a running cluster.
"""

from __future__ import annotations

import io
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from html import escape
from typing import NamedTuple, TextIO

from framework.simulator import utilisation
from framework.simulator.explain import (
    explain,
    filter_rows,
    plugin_weights,
    score_rows,
    verdict_text,
)
from framework.simulator.result import (
    SCHEDULED,
    Attempt,
    EventRecord,
    FilterVerdict,
    PodSummary,
    SimulationResult,
)

__all__ = [
    "FULL_TABLE_NODES",
    "MAX_PASSED_ROWS",
    "MAX_REJECTED_ROWS",
    "MAX_SCORE_ROWS",
    "OPEN_ATTEMPTS",
    "render_html",
    "write_html",
]

FULL_TABLE_NODES = 15
"""An attempt that evaluated at most this many nodes gets its whole Filter table."""
MAX_REJECTED_ROWS = 10
"""Above that, the rows of the first nodes rejected (by Filter or PreFilter), at most this many."""
MAX_PASSED_ROWS = 3
"""And of the first nodes that passed every filter (and always the chosen node)."""
MAX_SCORE_ROWS = 8
"""How many of the highest totals the Score table shows (and always the chosen node)."""
OPEN_ATTEMPTS = 3
"""A pod with at most this many attempts shows them all open; with more, only the last."""

_PASSING = frozenset({"Success", "Skip"})
_NOT_RUNNING = ("Pending", "Error", "Preempted")

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a202c;
margin:0 auto;padding:0 24px 48px;max-width:1200px}
h1{font-size:24px;margin:24px 0 4px}h2{font-size:19px;margin:32px 0 8px;
border-bottom:1px solid #e2e8f0;padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.muted{color:#718096}.small{font-size:11px}.nowrap{white-space:nowrap}
table{border-collapse:collapse;margin:6px 0 4px;font-size:12.5px}
th,td{border:1px solid #e2e8f0;padding:2px 7px;text-align:left;vertical-align:top}
th{background:#f7fafc;font-weight:600;white-space:nowrap}
td.ok{color:#276749}td.skip{color:#718096}td.none{color:#a0aec0}
td.fail{background:#fff5f5;color:#9b2c2c}tr.chosen td{background:#ebf8ff;font-weight:600}
.badge{display:inline-block;min-width:84px;text-align:center;border-radius:4px;
padding:0 6px;margin-right:6px;font-size:12px;font-weight:600;color:#fff}
.Scheduled{background:#2f855a}.Pending{background:#c05621}.Preempted{background:#6b46c1}
.Running{background:#718096}.Deleted{background:#4a5568}.Error{background:#c53030}
details.pod{border:1px solid #e2e8f0;border-radius:6px;margin:4px 0;padding:4px 10px;
overflow-x:auto}
details.pod[open]{background:#fcfcfd}details.pod>summary{cursor:pointer}
details.attempt{margin:8px 0 8px 8px}
.message{white-space:pre-wrap;background:#f7fafc;border-left:3px solid #cbd5e0;
padding:4px 8px;margin:6px 0}
.counts span{display:inline-block;margin-right:18px}.counts b{font-size:18px}
figure{margin:12px 0 20px}figcaption{margin-bottom:4px}
svg.chart text{font:12px system-ui,sans-serif;fill:#2d3748}svg.chart text.small{font-size:10px}
"""


def render_html(result: SimulationResult) -> str:
    """The report as one string (:func:`write_html` into a buffer)."""
    out = io.StringIO()
    write_html(result, out)
    return out.getvalue()


def write_html(result: SimulationResult, out: TextIO) -> None:
    """Write the report to ``out``, a pod at a time."""
    attempts: dict[str, list[Attempt]] = defaultdict(list)
    victims: dict[str, Attempt] = {}  # victim → the preemptor's attempt
    for attempt in result.attempts:
        attempts[attempt.pod].append(attempt)
        victims.update(dict.fromkeys(attempt.victims, attempt))
    events: dict[str, list[EventRecord]] = defaultdict(list)
    for event in result.events:
        events[event.object].append(event)
    outcomes = {pod.key: _outcome(pod, attempts[pod.key], victims) for pod in result.pods}

    out.write(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Simulation report</title><style>{_CSS}</style></head><body>\n"
    )
    _write_summary(result, outcomes, attempts, victims, out)
    _write_utilisation(result, out)
    out.write(f'<h2 id="pods">Pods ({len(result.pods)})</h2>\n')
    out.write(
        '<p class="muted">In input order. Open a pod for its attempts, events and the '
        "Filter and Score tables of each attempt.</p>\n"
    )
    # One pod is open: the first whose last attempt failed (the question most readers came
    # with), or else the first that needed more than one attempt.
    tried = [pod.key for pod in result.pods if attempts[pod.key]]
    first = next((key for key in tried if attempts[key][-1].result != SCHEDULED), None)
    first = first or next((key for key in tried if len(attempts[key]) > 1), None)
    for position, pod in enumerate(result.pods):
        section = _PodSection(position, pod, outcomes[pod.key], pod.key == first)
        _write_pod(result, section, attempts[pod.key], victims, events, out)
    _write_events(result.events, out)
    out.write("</body></html>\n")


# --- the summary ----------------------------------------------------------------------------


def _outcome(pod: PodSummary, attempts: list[Attempt], victims: Mapping[str, Attempt]) -> str:
    if pod.node is None and pod.key in victims:
        return "Preempted"
    if pod.node is None and pod.terminating_at_start:
        return "Deleted"
    if pod.running_at_start:
        return "Running"
    if pod.node is not None:
        return "Scheduled"
    if attempts and attempts[-1].result == "Error":
        return "Error"
    return "Pending"


def _write_summary(
    result: SimulationResult,
    outcomes: Mapping[str, str],
    attempts: Mapping[str, list[Attempt]],
    victims: Mapping[str, Attempt],
    out: TextIO,
) -> None:
    counts = Counter(outcomes.values())
    pending = sum(1 for pod in result.pods if not pod.running_at_start)
    # A trace written before runs recorded their gates ran v1.33's defaults.
    release = result.feature_gates.emulated_version if result.feature_gates else "1.33"
    out.write(
        "<h1>Where each pod went, and why</h1>\n"
        f'<p class="muted">{len(result.nodes)} node(s), {pending} pod(s) to schedule, '
        f"{len(result.attempts)} scheduling attempt(s), seed {result.seed}. Simulated by "
        f"kube-scheduling-framework (kube-scheduler v{escape(release)}); the full evidence is in the "
        'JSON trace (<code>--output json</code>).</p>\n<p class="counts">'
    )
    for label in ("Scheduled", "Pending", "Error", "Preempted", "Running", "Deleted"):
        if counts[label] or label in ("Scheduled", "Pending"):
            out.write(
                f'<span><b>{counts[label]}</b> <span class="badge {label}">{label}</span></span>'
            )
    out.write("</p>\n")
    for line in (*result.notes, *(f"warning: {w}" for w in result.warnings)):
        out.write(f'<p class="muted">{escape(line)}</p>\n')
    stuck = [
        (index, pod) for index, pod in enumerate(result.pods) if outcomes[pod.key] in _NOT_RUNNING
    ]
    if stuck:
        out.write(f"<h3>Not running ({len(stuck)})</h3>\n<table><tr><th>pod</th><th>why</th></tr>")
        for index, pod in stuck:
            tried = attempts.get(pod.key)
            why = tried[-1].message if tried else explain(result, pod.key).strip()
            if outcomes[pod.key] == "Preempted":
                why = _preempted(victims[pod.key])
            out.write(
                f'<tr><td class="nowrap"><a href="#pod-{index}"><code>{escape(pod.key)}</code>'
                "</a></td>"
                f"<td>{escape(why)}</td></tr>"
            )
        out.write("</table>\n")


def _preempted(preemptor: Attempt) -> str:
    node = preemptor.nominated_node or "its node"
    return f"Preempted: deleted to make room for {preemptor.pod}, nominated to {node}."


def _write_utilisation(result: SimulationResult, out: TextIO) -> None:
    out.write(
        '<h2 id="utilisation">Node utilisation: requested / allocatable</h2>\n'
        '<p class="muted">Before: the pods already running (<code>spec.nodeName</code>). '
        "After: the pods bound when the run ended. Requests are the pods' effective requests, "
        "as NodeResourcesFit counts them.</p>\n"
    )
    if not result.nodes:
        out.write("<p>No nodes.</p>\n")
    for resource in utilisation.resources(result):
        rows = utilisation.loads(result, resource)
        if not rows:
            continue
        out.write(
            f"<figure><figcaption>{escape(utilisation.summary(resource, rows))}</figcaption>"
            f"{utilisation.svg(resource, rows)}</figure>\n"
        )


# --- one pod --------------------------------------------------------------------------------


class _PodSection(NamedTuple):
    position: int
    pod: PodSummary
    outcome: str
    open: bool


def _write_pod(
    result: SimulationResult,
    section: _PodSection,
    attempts: list[Attempt],
    victims: Mapping[str, Attempt],
    events: Mapping[str, list[EventRecord]],
    out: TextIO,
) -> None:
    pod, outcome = section.pod, section.outcome
    where = f" → <code>{escape(pod.node)}</code>" if pod.node else ""
    if pod.running_at_start:
        tries = "running before the simulation"
    else:
        tries = f"{len(attempts)} attempt{'s' if len(attempts) != 1 else ''}"
    out.write(
        f'<details class="pod" id="pod-{section.position}"{" open" if section.open else ""}>'
        f'<summary><span class="badge {outcome}">{outcome}</span> '
        f"<code>{escape(pod.key)}</code>{where} "
        f'<span class="muted">{tries}</span></summary>\n'
    )
    out.write(
        f'<p class="muted">priority {pod.priority}, QoS {escape(pod.qos_class or "-")}, '
        f"schedulerName {escape(pod.scheduler_name)}</p>\n"
    )
    if outcome == "Preempted":
        out.write(f'<p class="message">{escape(_preempted(victims[pod.key]))}</p>\n')
    elif pod.terminating_at_start:
        end = "still there at the end" if pod.node else "deleted when its grace period ended"
        text = (
            f"Terminating on {pod.node_at_start} before the simulation "
            f"(metadata.deletionTimestamp): never scheduled; {end}."
        )
        out.write(f'<p class="message">{escape(text)}</p>\n')
    elif pod.running_at_start:
        text = f"Running on {pod.node} before the simulation (spec.nodeName): never scheduled."
        out.write(f'<p class="message">{escape(text)}</p>\n')
    elif not attempts:
        # Rare (gated pods, pods of no profile): explain's search through the run will do.
        out.write(f'<p class="message">{escape(explain(result, pod.key).strip())}</p>\n')
    else:
        last = attempts[-1]
        label = "" if last.result == SCHEDULED else "FailedScheduling: "
        if last.result == "BindFailed":
            label = "binding failed: "
        out.write(f'<p class="message">{escape(label + last.message)}</p>\n')
        if len(attempts) > 1 or any(a.nominated_node or a.victims for a in attempts):
            _write_history(attempts, out)
    if events.get(pod.key):
        _write_events(events[pod.key], out, heading=False)
    for number, attempt in enumerate(attempts, 1):
        is_last = number == len(attempts)
        # A few attempts are read as a story, first to last; of many, the last matters most.
        shown = is_last or len(attempts) <= OPEN_ATTEMPTS
        out.write(
            f'<details class="attempt"{" open" if shown else ""}><summary>Attempt '
            f"{attempt.attempt}: {escape(attempt.result)}"
            f"{' (the last)' if is_last and number > 1 else ''}</summary>\n"
        )
        _write_filter(attempt, out)
        _write_score(result, attempt, out)
        out.write("</details>\n")
    out.write("</details>\n")


def _write_history(attempts: list[Attempt], out: TextIO) -> None:
    out.write(
        "<table><tr><th>attempt</th><th>profile</th><th>result</th><th>node</th>"
        "<th>nominated</th><th>victims</th><th>message</th></tr>"
    )
    for attempt in attempts:
        cells = (
            str(attempt.attempt),
            attempt.profile,
            attempt.result,
            attempt.node or "-",
            attempt.nominated_node or "-",
            ", ".join(attempt.victims) or "-",
            attempt.message,
        )
        *fixed, message = (escape(cell) for cell in cells)
        out.write("<tr>" + "".join(f'<td class="nowrap">{cell}</td>' for cell in fixed))
        out.write(f"<td>{message}</td></tr>")
    out.write("</table>\n")


def _write_filter(attempt: Attempt, out: TextIO) -> None:
    if not attempt.filter:
        out.write("<p>Filter: no node was evaluated.</p>\n")
        return
    verdicts: dict[int, tuple[str, FilterVerdict] | None] = {}  # shared rows: looked at once
    rejected: list[str] = []
    passed: list[str] = []
    reasons: Counter[str] = Counter()
    for node, row in attempt.filter.items():
        if id(row) not in verdicts:
            failure = next(((p, v) for p, v in row.items() if v.code not in _PASSING), None)
            verdicts[id(row)] = failure
        failure = verdicts[id(row)]
        if failure is None:
            passed.append(node)
        else:
            rejected.append(node)
            reasons[f"{failure[0]}: {verdict_text(failure[1])}"] += 1
    evaluated = len(attempt.filter)
    note = ""
    nodes: Iterable[str] | None = None
    if evaluated > FULL_TABLE_NODES:
        first_rejected, first_passed = rejected[:MAX_REJECTED_ROWS], passed[:MAX_PASSED_ROWS]
        keep = {*first_rejected, *first_passed}
        chosen = ""
        if (
            attempt.node is not None
            and attempt.node in attempt.filter
            and attempt.node not in keep
        ):
            keep.add(attempt.node)
            chosen = ", and the chosen node"
        nodes = [node for node in attempt.filter if node in keep]
        note = (
            f"Showing {len(keep)} of the {evaluated} nodes evaluated: the first "
            f"{len(first_rejected)} of the {len(rejected)} rejected, the first "
            f"{len(first_passed)} of the {len(passed)} that passed every filter{chosen}. "
            "The JSON trace has every row."
        )
    out.write(f"<h3>Filter, on the {evaluated} node(s) evaluated, in that order</h3>\n")
    _write_table(filter_rows(attempt, nodes), out, verdict_cells=True)
    if note:
        out.write(f'<p class="muted small">{escape(note)}</p>\n')
    if reasons:
        counted = "; ".join(f"{reason} ({count} node(s))" for reason, count in reasons.items())
        out.write(f'<p class="small">Rejections: {escape(counted)}</p>\n')


def _write_score(result: SimulationResult, attempt: Attempt, out: TextIO) -> None:
    if not attempt.final_score:
        text = (
            f"Score: not run; {attempt.node} was the only feasible node."
            if attempt.node
            else "Score: not run; no node passed the filters."
        )
        out.write(f"<p>{escape(text)}</p>\n")
        return
    scored = len(attempt.final_score)
    out.write(f"<h3>Score, on the {scored} feasible node(s): normalised → times the weight</h3>\n")
    _write_table(score_rows(attempt, plugin_weights(result, attempt), MAX_SCORE_ROWS), out)
    if scored > MAX_SCORE_ROWS:
        out.write(
            f'<p class="muted small">Showing the {MAX_SCORE_ROWS} highest totals of {scored} '
            "(and the chosen node). Ties are broken at random, by the seed.</p>\n"
        )


# --- tables ---------------------------------------------------------------------------------


def _cell_class(text: str) -> str:
    if text == "ok":
        return "ok"
    if text == "skip":
        return "skip"
    if text == "-":
        return "none"
    return "fail"


def _write_table(rows: list[list[str]], out: TextIO, verdict_cells: bool = False) -> None:
    """Rows as explain builds them: the header, then rows whose first cell marks the chosen node."""
    header, *body = rows
    out.write("<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header[1:]) + "</tr>")
    for mark, node, *cells in body:
        chosen = ' class="chosen"' if mark == "*" else ""
        star = " ★" if mark == "*" else ""
        out.write(f'<tr{chosen}><td class="nowrap"><code>{escape(node)}</code>{star}</td>')
        for cell in cells:
            css = f' class="{_cell_class(cell)}"' if verdict_cells else ""
            out.write(f"<td{css}>{escape(cell)}</td>")
        out.write("</tr>")
    out.write("</table>\n")


def _write_events(events: Iterable[EventRecord], out: TextIO, heading: bool = True) -> None:
    # One row per Event with its count, as kubectl lists them (the trace has each occurrence).
    counts: dict[EventRecord, int] = {}
    for event in events:
        counts[event] = counts.get(event, 0) + 1
    if heading:
        out.write(
            f'<h2 id="events">Events ({len(counts)})</h2>\n<details><summary>As <code>kubectl '
            "get events</code> lists them</summary>\n"
        )
    out.write(
        "<table><tr><th>type</th><th>reason</th><th>object</th><th>count</th><th>message</th></tr>"
    )
    for event, count in counts.items():
        out.write(
            f"<tr><td>{escape(event.type)}</td><td>{escape(event.reason)}</td>"
            f"<td><code>{escape(event.object)}</code></td><td>{count}</td>"
            f"<td>{escape(event.message)}</td></tr>"
        )
    out.write("</table>\n")
    if heading:
        out.write("</details>\n")
