"""``python -m framework demo``: the book's story in one run, narrated from the run's trace.

The scenario, ``framework/scenarios/demo.yaml``, is ordinary manifests: four
nodes (one tainted for GPU work), two pods already running, six pods to
place, a PodGroup, and a ``KubeSchedulerConfiguration`` with one profile:
kube-scheduler's default plugins, QOSSort as the queue's sort and
Coscheduling at PreFilter, PostFilter, Permit and Reserve (both from
scheduler-plugins, registered here as out-of-tree plugins).
:func:`run_demo` simulates it with :func:`framework.simulate` and tells what
happened in five steps, each from the evidence the result holds:

1. **the queue**: the order of the pods' first attempts, with each pod's
   priority and QoS class, against their order in the file;
2. **a filter says no**: the first attempt that found no node: its
   ``FailedScheduling`` message, and node by node the Filter plugin that
   rejected it and why;
3. **preemption**: the first attempt that nominated a node: the victims, their
   ``Preempted`` events, and the preemptor's next attempt;
4. **scores decide**: the first attempt that scored nodes with different
   totals: every Score plugin's normalised and weighted score per node, the
   totals and the winner;
5. **a gang**: the attempts of a PodGroup's members and how many pods were
   bound after each of those scheduling cycles (told by ``simulate``'s
   progress callback): a member that waits at Permit binds nothing; the one
   that completes the group binds them all.

Nothing about an outcome is written in advance: if a change to the code
changes what happens, the narration shows the new outcome, and a step whose
evidence the run does not contain says so. Time is simulated and the seed
fixed, so the output is the same on every run, and it takes a second.
"""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Sequence
from importlib.resources import files

from framework.objects import POD_GROUP_LABEL, KubeObject, Pod, PodGroup
from framework.objects.manifest import loads
from framework.plugins.registry import out_of_tree_registry
from framework.simulator import Attempt, SimulationResult, simulate
from framework.simulator.report import table
from framework.simulator.result import SCHEDULED

__all__ = ["DEMO_PLUGINS", "DEMO_SCENARIO", "DemoRun", "narrate", "run_demo", "simulate_demo"]

DEMO_SCENARIO = "demo.yaml"
"""The scenario's file name in the ``framework.scenarios`` package."""

DEMO_PLUGINS = ("QOSSort", "Coscheduling")
"""The out-of-tree plugins the scenario's configuration enables."""

_WIDTH = 3  # the indent of a step's text
_SCREEN = 100


class DemoRun:
    """The demo scenario's objects, the simulation's result, and the pods bound after each cycle."""

    def __init__(self, text: str, result: SimulationResult, bound_after: Sequence[int]) -> None:
        self.objects = loads(text, DEMO_SCENARIO)
        self.result = result
        # One count per scheduling cycle, so per attempt; without that pairing, no counts.
        self.bound_after = tuple(bound_after) if len(bound_after) == len(result.attempts) else ()

    def pending_in_file_order(self) -> list[str]:
        return [_key(o) for o in self.objects if isinstance(o, Pod) and not o.spec.node_name]

    def summary(self, pod: str) -> tuple[int, str]:
        """A pod's priority and QoS class, as the run ended."""
        for summary in self.result.pods:
            if summary.key == pod:
                return summary.priority, summary.qos_class
        return 0, ""


def simulate_demo() -> DemoRun:
    """Simulate the demo scenario (seed 0) and keep what the narration needs."""
    text = files("framework.scenarios").joinpath(DEMO_SCENARIO).read_text(encoding="utf-8")
    registry = out_of_tree_registry()
    bound_after: list[int] = []
    # The narration says which plugins the profile left out: no log line too.
    build_logger = logging.getLogger("framework.runtime.build")
    level = build_logger.level
    build_logger.setLevel(logging.ERROR)
    try:
        result = simulate(
            text,
            plugins={name: registry[name] for name in DEMO_PLUGINS},
            progress=lambda bound, _total: bound_after.append(bound),
        )
    finally:
        build_logger.setLevel(level)
    return DemoRun(text, result, bound_after)


def run_demo() -> str:
    """Run the demo and return its narration."""
    return narrate(simulate_demo())


def narrate(run: DemoRun) -> str:
    """The five steps of the story, told from ``run``'s evidence."""
    result = run.result
    nodes = sorted({n for a in result.attempts for n in a.filter})
    running = [p for p in result.pods if p.running_at_start]
    pending = run.pending_in_file_order()
    lines = [
        "The scheduling framework in one run",
        "",
        f"{len(nodes)} nodes, {len(running)} pods already running, {len(pending)} pods to place,",
        "one scheduler profile: kube-scheduler's default plugins, QOSSort sorting the queue",
        "and Coscheduling keeping gangs together (framework/scenarios/demo.yaml).",
        "Everything below is read from the simulation's result.",
        *(_wrap(note) for note in result.notes),
    ]
    for step in (_queue, _filter, _preemption, _scores, _gang):
        lines += ["", *step(run)]
    lines += ["", *_ending(run)]
    return "\n".join(lines) + "\n"


def _wrap(text: str) -> str:
    """A long note folded to the screen, its continuation lines indented by two."""
    return "\n".join(textwrap.wrap(text, _SCREEN, subsequent_indent="  "))


def _key(obj: KubeObject) -> str:
    """``namespace/name`` as the API server will store it (``default`` when none is given)."""
    return f"{obj.metadata.namespace or 'default'}/{obj.metadata.name}"


def _indent(rows: list[str], extra: int = 0) -> list[str]:
    return [" " * (_WIDTH + extra) + row if row else row for row in rows]


def _short(pod: str) -> str:
    return pod.split("/", 1)[1] if pod.startswith("default/") else pod


# --- 1. the queue ----------------------------------------------------------------------------


def _queue(run: DemoRun) -> list[str]:
    first: list[str] = []
    for attempt in run.result.attempts:
        if attempt.pod not in first:
            first.append(attempt.pod)
    rows = []
    for number, pod in enumerate(first, 1):
        priority, qos = run.summary(pod)
        rows.append([str(number), pod, f"priority {priority}", qos])
    in_file = ", ".join(_short(p) for p in run.pending_in_file_order())
    return [
        "1. The queue: priority first, then QoS class, then arrival",
        *_indent(
            [
                f"The file lists the pods to place as {in_file}.",
                "QOSSort orders the queue; the scheduling cycles took them in this order:",
            ]
        ),
        *_indent(table(rows), 2),
    ]


# --- 2. a filter says no -----------------------------------------------------------------------


def _first_rejection(verdicts: dict[str, tuple[str, str, str]], attempt: Attempt) -> None:
    for node, row in attempt.filter.items():
        for plugin, verdict in row.items():
            if verdict.code not in ("Success", "Skip"):
                verdicts[node] = (plugin, verdict.code, ", ".join(verdict.reasons))
                break


def _filter(run: DemoRun) -> list[str]:
    failed = next((a for a in run.result.attempts if a.result != SCHEDULED and a.filter), None)
    if failed is None:
        return ["2. A filter says no", *_indent(["(every attempt in this run found a node)"])]
    verdicts: dict[str, tuple[str, str, str]] = {}
    _first_rejection(verdicts, failed)
    rows = []
    for node, (plugin, code, reasons) in verdicts.items():
        why = " (unresolvable)" if code == "UnschedulableAndUnresolvable" else ""
        rows.append([node, plugin, reasons + why])
    return [
        f"2. A filter says no: {failed.pod}, attempt {failed.attempt}",
        *_indent(
            [
                "FailedScheduling (kube-scheduler's message, on the pod's event and condition):",
                f"  {failed.message}",
                "The message counts reasons; the trace names the node behind each, and the Filter",
                "plugin that said no (the plugins run in order, and a node's first no is its reason):",
            ]
        ),
        *_indent(table(rows), 2),
        *_indent(
            ["(unresolvable): evicting pods would not change that verdict; preemption skips it."]
            if any(code == "UnschedulableAndUnresolvable" for _, code, _ in verdicts.values())
            else []
        ),
    ]


# --- 3. preemption -------------------------------------------------------------------------------


def _preemption(run: DemoRun) -> list[str]:
    result = run.result
    attempts = list(result.attempts)
    index = next((i for i, a in enumerate(attempts) if a.nominated_node), None)
    if index is None:
        return ["3. Preemption", *_indent(["(no attempt in this run preempted anything)"])]
    nominating = attempts[index]
    priority, _ = run.summary(nominating.pod)
    victims = ", ".join(f"{v} (priority {run.summary(v)[0]})" for v in nominating.victims)
    lines = [
        f"3. Preemption: room for {nominating.pod} (priority {priority})",
        *_indent(
            [
                "No node fit, so the PostFilter plugins ran: DefaultPreemption looked for pods of",
                "lower priority whose eviction would make room, and chose:",
            ]
        ),
        *_indent(
            table(
                [
                    ["nominated node:", nominating.nominated_node or ""],
                    ["victims:", victims or "none recorded"],
                ]
            ),
            2,
        ),
    ]
    preempted = [e for e in result.events if e.reason == "Preempted"]
    lines += _indent([f"event: {e.reason} {e.object}: {e.message}" for e in preempted], 2)
    later = next((a for a in attempts[index + 1 :] if a.pod == nominating.pod), None)
    if later is not None:
        evaluated = ", ".join(later.filter) or "none"
        lines += _indent(
            [
                f"Its attempt {later.attempt} tried the nominated node first "
                f"(nodes evaluated: {evaluated}):",
                f"  {later.result}: {later.message}",
            ]
        )
    return lines


# --- 4. scores decide ----------------------------------------------------------------------------


def _scores(run: DemoRun) -> list[str]:
    result = run.result
    attempt = next(
        (
            a
            for a in result.attempts
            if len(a.final_score) > 1 and len({a.total(n) for n in a.final_score}) > 1
        ),
        None,
    )
    if attempt is None:
        return ["4. Scores decide", *_indent(["(no attempt in this run scored unequal nodes)"])]
    weights = result.score_weights.get(attempt.profile, {})
    nodes = sorted(attempt.final_score, key=lambda n: -attempt.total(n))
    plugins: list[str] = []
    for row in attempt.final_score.values():
        plugins += [p for p in row if p not in plugins]
    rows = [["Score plugin (weight)", *nodes]]
    deciding = []
    for plugin in plugins:
        cells = [
            f"{attempt.score[n][plugin]} → {attempt.final_score[n][plugin]}"
            if plugin in attempt.final_score[n]
            else "-"
            for n in nodes
        ]
        rows.append([f"{plugin} (×{weights.get(plugin, '?')})", *cells])
        if len(set(cells)) > 1:
            deciding.append(plugin)
    rows.append(["total", *(str(attempt.total(n)) for n in nodes)])
    return [
        f"4. Scores decide: {attempt.pod} fits {len(nodes)} nodes",
        *_indent(["Each Score plugin rates each feasible node 0-100 (→ times its weight):"]),
        *_indent(table(rows), 2),
        *_indent(
            [
                f"The highest total wins: {attempt.node}. "
                f"The nodes differ only in: {', '.join(deciding)}."
            ]
        ),
    ]


# --- 5. a gang ----------------------------------------------------------------------------------


def _gang(run: DemoRun) -> list[str]:
    groups = [o for o in run.objects if isinstance(o, PodGroup)]
    if not groups:
        return ["5. A gang", *_indent(["(the scenario has no PodGroup)"])]
    group = groups[0]
    members = [
        _key(o)
        for o in run.objects
        if isinstance(o, Pod) and o.metadata.labels.get(POD_GROUP_LABEL) == group.name
    ]
    lines = [
        f"5. A gang: PodGroup {_key(group)} needs {group.spec.min_member} members at once",
        *_indent(
            [
                f"Its members: {', '.join(members)}. Coscheduling's Permit holds each member",
                "until minMember of them have a node; then all are let through together.",
            ]
        ),
    ]
    rows = [["cycle", "pod", "node", "result", "pods bound after the cycle"]]
    before = 0
    for number, attempt in enumerate(run.result.attempts, 1):
        bound = run.bound_after[number - 1] if run.bound_after else None
        if attempt.pod in members:
            if bound is None:
                change = "?"
            elif bound == before:
                change = f"{bound} (none new: waiting at Permit)"
            else:
                change = f"{bound} ({bound - before} new" + (
                    ", at once)" if bound - before > 1 else ")"
                )
            rows.append([str(number), attempt.pod, attempt.node or "-", attempt.result, change])
        if bound is not None:
            before = bound
    return [*lines, *_indent(table(rows), 2)]


# --- the end ------------------------------------------------------------------------------------


def _ending(run: DemoRun) -> list[str]:
    result = run.result
    pending = [p for p in result.pods if not p.running_at_start]
    placed = [p for p in pending if p.node]
    preempted = [p.key for p in result.pods if p.running_at_start and not p.node]
    by_node: dict[str, list[str]] = {}
    for pod, node in result.placements.items():
        if node:
            by_node.setdefault(node, []).append(_short(pod))
    outcome = f"{len(placed)} of {len(pending)} pods placed"
    if preempted:
        outcome += f", {len(preempted)} running pod(s) preempted ({', '.join(preempted)})"
    return [
        f"The end: {outcome}, in {len(result.attempts)} scheduling attempts.",
        *_indent([f"{node}: {', '.join(pods)}" for node, pods in sorted(by_node.items())]),
        "Look closer at any pod (chapter 11 reads the output):",
        # QOSSort and Coscheduling are registered by default: the file's configuration suffices.
        *_indent(["python -m framework explain default/cache framework/scenarios/demo.yaml"]),
    ]
