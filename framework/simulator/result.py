"""What a simulation found: placements, every attempt with its evidence, events — and the JSON trace.

A :class:`SimulationResult` answers the two questions users bring: *where
does each pod go* (:attr:`~SimulationResult.placements`) and *why*
(:attr:`~SimulationResult.attempts`: for every scheduling attempt, in the
order the cycles ran, what each Filter plugin said about each node it
evaluated and what each Score plugin gave each feasible node). Its
:meth:`~SimulationResult.to_dict` is the **trace, version v1**, a stable
JSON document described by ``trace-v1.schema.json`` beside this module
(JSON Schema draft 2020-12)::

    {"version": "v1",
     "featureGates": {"emulatedVersion": "1.33", "gates": {"<Gate>": true, ...},
                      "overrides": {"<Gate>": false, ...}},
     "placements": {"<ns>/<pod>": "<node>" | null, ...},
     "attempts": [{"pod": "<ns>/<pod>", "attempt": 1, "profile": "<schedulerName>",
                   "result": "Scheduled" | "Unschedulable" | "Error" | "PermitRejected" | "BindFailed",
                   "node": "<node>" | null, "message": "...",
                   "filter": {"<node>": {"<Plugin>": {"code": "...", "reasons": ["..."]}}},
                   "score": {"<node>": {"<Plugin>": <int>}},
                   "finalScore": {"<node>": {"<Plugin>": <int>}},
                   "nominatedNode": "<node>" | null, "victims": ["<ns>/<pod>", ...]}],
     "events": [{"type": "Normal" | "Warning", "reason": "...", "object": "<ns>/<pod>",
                 "message": "..."}]}

What each field means:

* ``featureGates``: the Kubernetes release the run emulated and every
  feature gate's value in it, with the gates set by ``--feature-gates``
  (:mod:`framework.featuregate`); absent in traces from before it was recorded.
* ``placements``: every pod of the input, in input order, with the node it
  is bound to at the end, or null (still pending, or deleted as a
  preemption victim).
* ``attempt``: the pod's ``QueuedPodInfo.Attempts`` for this cycle (1 for
  its first). ``profile``: the ``schedulerName`` whose profile ran it.
* ``result``: ``Scheduled`` (bound), ``Unschedulable`` (no node fit, or a
  Reserve plugin rejected the chosen one), ``PermitRejected`` (a Permit
  plugin rejected it, at once or after it waited), ``BindFailed`` (PreBind
  or Bind failed), ``Error`` (a plugin or the scheduler failed).
* ``node``: the node the attempt chose (null when it chose none).
* ``message``: kube-scheduler's words for the outcome — the FitError text
  of the ``FailedScheduling`` event and ``PodScheduled`` condition, with any
  ``preemption: ...`` part; the error's text; or ``Successfully assigned
  <ns>/<pod> to <node>``.
* ``filter``: every node the attempt evaluated, in evaluation order (the
  round-robin start and ``percentageOfNodesToScore`` show here: a large
  cluster's attempt may list only some of its nodes). Per node, every Filter
  plugin that ran, in order, with its code and reasons; the first failure
  ends the row, as it ends the node's evaluation in kube-scheduler. A Filter
  plugin whose PreFilter returned Skip appears with code ``Skip``. When a
  PreFilter plugin rejects the pod, no Filter runs: every node gets one
  entry, that PreFilter plugin's verdict (kube-scheduler gives every node
  that status). Nodes a PreFilterResult excluded were not evaluated and are
  absent.
* ``score``: each Score plugin's score per feasible node after
  NormalizeScore, before the weight; ``finalScore`` after the weight (their
  sum is the node's total). Both are empty when no scoring ran (one
  feasible node is chosen without scoring, as in kube-scheduler).
* ``nominatedNode``: the node PostFilter (preemption) nominated the pod to
  in this attempt, or null. ``victims``: the pods preempted for it (from
  the ``Preempted`` events that name this pod as the preemptor).
* ``events``: every Event the run recorded, each occurrence once (a repeat
  that the event recorder counts instead of writing again is listed
  again), in a deterministic order: by the attempt each belongs to, then
  by the order they were written.

The status code ``Pending`` (a plugin waiting for something outside the
scheduler) is allowed in ``filter`` too, beside the issue's five.

No Kubernetes counterpart: kube-scheduler reports this only as log lines
(``prioritizeNodes`` at ``-v=10``) and events; kube-scheduler-simulator
keeps similar per-plugin results in annotations.
"""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any, TextIO

from framework.featuregate import FeatureGates

__all__ = [
    "ATTEMPT_RESULTS",
    "BIND_FAILED",
    "ERROR",
    "PERMIT_REJECTED",
    "SCHEDULED",
    "TOP_NODES",
    "TRACE_SCHEMA_FILE",
    "TRACE_VERSION",
    "UNSCHEDULABLE",
    "Attempt",
    "AttemptSummary",
    "EventRecord",
    "FilterTable",
    "FilterVerdict",
    "NodeSummary",
    "PodAttempts",
    "PodSummary",
    "ScoreRow",
    "SimulationResult",
    "brief",
    "summarize",
    "trace_schema",
]

TRACE_VERSION = "v1"
TRACE_SCHEMA_FILE = "trace-v1.schema.json"

SCHEDULED = "Scheduled"
UNSCHEDULABLE = "Unschedulable"
ERROR = "Error"
PERMIT_REJECTED = "PermitRejected"
BIND_FAILED = "BindFailed"
ATTEMPT_RESULTS = (SCHEDULED, UNSCHEDULABLE, ERROR, PERMIT_REJECTED, BIND_FAILED)
TOP_NODES = 5
"""How many of the best-scored nodes an attempt's summary names."""


def trace_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the v1 trace, as shipped beside this module."""
    text = files("framework.simulator").joinpath(TRACE_SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@dataclass(frozen=True, slots=True)
class FilterVerdict:
    """What one Filter plugin said about one node: a status code's name and its reasons."""

    code: str
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "reasons": list(self.reasons)}


class FilterTable(Mapping[str, Mapping[str, FilterVerdict]]):
    """An attempt's Filter table whose nodes share a few rows: the nodes, the rows, each node's.

    ``names`` are the nodes in evaluation order, ``rows`` the distinct rows
    of verdicts in the order the nodes first give them, and ``indices``
    each node's row in ``rows`` (a numpy array of ints). The recorder keeps
    a batch search's table so, and the summary and the trace's ``filter``
    are counted and written from it without a look at each node; it reads
    as the ``{node: row}`` dict it stands for (built when first read), and
    compares equal to it.
    """

    __slots__ = ("_dict", "indices", "names", "rows")

    def __init__(
        self, names: list[str], rows: list[Mapping[str, FilterVerdict]], indices: Any
    ) -> None:
        self.names = names
        self.rows = rows
        self.indices = indices
        self._dict: dict[str, Mapping[str, FilterVerdict]] | None = None

    def _nodes(self) -> dict[str, Mapping[str, FilterVerdict]]:
        if self._dict is None:
            rows = self.rows
            self._dict = dict(
                zip(self.names, [rows[i] for i in self.indices.tolist()], strict=True)
            )
        return self._dict

    def __getitem__(self, node: str) -> Mapping[str, FilterVerdict]:
        return self._nodes()[node]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def row_counts(self) -> list[int]:
        """How many nodes have each row of ``rows``."""
        import numpy as np  # a FilterTable comes from the batch engine, which has numpy loaded

        return [int(n) for n in np.bincount(self.indices, minlength=len(self.rows))]


class ScoreRow(Mapping[str, int]):
    """One node's score per plugin, held as tuples: a large run keeps millions of them.

    ``names`` (and ``weights``) are shared by every node of an attempt;
    ``values`` are the normalised scores. With ``weights``, the row reads as
    the weighted scores (each value times its plugin's weight, which is how
    the framework computes them), so an attempt's ``score`` and
    ``finalScore`` rows can share one tuple of values. Reads like the dict
    it stands for, and compares equal to it.

    >>> row = ScoreRow(("A", "B"), (40, 7), weights=(2, 1))
    >>> dict(row), row == {"A": 80, "B": 7}
    ({'A': 80, 'B': 7}, True)
    """

    __slots__ = ("_names", "_values", "_weights")

    def __init__(
        self,
        names: tuple[str, ...],
        values: tuple[int, ...],
        weights: tuple[int, ...] | None = None,
    ) -> None:
        self._names = names
        self._values = values
        self._weights = weights

    def __getitem__(self, name: str) -> int:
        try:
            index = self._names.index(name)
        except ValueError:
            raise KeyError(name) from None
        value = self._values[index]
        return value * self._weights[index] if self._weights is not None else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return repr(self.as_dict())

    def as_dict(self) -> dict[str, int]:
        """The row as a plain dict (what the trace writes)."""
        if self._weights is None:
            return dict(zip(self._names, self._values, strict=True))
        products = (v * w for v, w in zip(self._values, self._weights, strict=True))
        return dict(zip(self._names, products, strict=False))


def _plain(row: Mapping[str, int]) -> dict[str, int]:
    return row.as_dict() if isinstance(row, ScoreRow) else dict(row)


@dataclass(frozen=True, slots=True)
class AttemptSummary:
    """What an attempt's node × plugin table comes to, small enough to keep for every attempt.

    ``evaluated``: the nodes Filter looked at; ``feasible``: those that
    passed; ``top_nodes``: up to :data:`TOP_NODES` ``(node, total score)``,
    best first (ties in evaluation order); ``reasons``: how many nodes gave
    each rejection reason, the histogram kube-scheduler's ``FailedScheduling``
    message prints (``2 Insufficient cpu``).
    """

    evaluated: int = 0
    feasible: int = 0
    top_nodes: tuple[tuple[str, int], ...] = ()
    reasons: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "evaluated": self.evaluated,
            "feasible": self.feasible,
            "topNodes": [{"node": node, "score": score} for node, score in self.top_nodes],
            "reasons": dict(self.reasons),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttemptSummary:
        return cls(
            evaluated=data["evaluated"],
            feasible=data["feasible"],
            top_nodes=tuple((t["node"], t["score"]) for t in data["topNodes"]),
            reasons=dict(data["reasons"]),
        )


def summarize(
    filter_table: Mapping[str, Mapping[str, FilterVerdict]],
    final_score: Mapping[str, Mapping[str, int]],
    totals: list[tuple[str, int]] | None = None,
) -> AttemptSummary:
    """The summary of an attempt's tables (rows shared among nodes are looked at once each).

    ``totals``, each scored node's total in evaluation order, stands for
    ``final_score`` when the recorder has not read the scores into rows.

    >>> fit = {"Fit": FilterVerdict("Unschedulable", ("Insufficient cpu",))}
    >>> ok = {"Fit": FilterVerdict("Success")}
    >>> summarize({"a": fit, "b": fit, "c": ok}, {"c": {"Fit": 7}})
    AttemptSummary(evaluated=3, feasible=1, top_nodes=(('c', 7),), reasons={'Insufficient cpu': 2})
    """
    reasons: dict[str, int] = {}
    row_reasons: dict[int, tuple[str, ...] | None] = {}
    feasible = 0
    # A FilterTable counts its nodes per row: each row is looked at once, not once a node.
    weighted = (
        zip(filter_table.rows, filter_table.row_counts(), strict=True)
        if isinstance(filter_table, FilterTable)
        else ((row, 1) for row in filter_table.values())
    )
    for row, nodes in weighted:
        if not nodes:
            continue
        found = row_reasons.get(id(row), ())
        if found == ():
            failing = [v for v in row.values() if v.code not in ("Success", "Skip")]
            found = row_reasons[id(row)] = failing[-1].reasons if failing else None
        if found is None:
            feasible += nodes
            continue
        for reason in found:
            reasons[reason] = reasons.get(reason, 0) + nodes
    ranked = (
        list(totals)
        if totals is not None
        else [(node, sum(row.values())) for node, row in final_score.items()]
    )
    ranked.sort(key=lambda item: -item[1])  # stable: ties stay in evaluation order
    ordered = dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0])))
    return AttemptSummary(len(filter_table), feasible, tuple(ranked[:TOP_NODES]), ordered)


@dataclass(frozen=True, slots=True)
class Attempt:
    """One scheduling attempt of one pod, with the evidence for its outcome."""

    pod: str
    attempt: int
    profile: str
    result: str
    node: str | None
    message: str
    filter: Mapping[str, Mapping[str, FilterVerdict]] = field(default_factory=dict)
    score: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    final_score: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    nominated_node: str | None = None
    victims: tuple[str, ...] = ()
    recorded_summary: AttemptSummary | None = None
    """Set when the tables were not kept (a v2 trace keeps them only for the attempts asked for)."""
    _summary: AttemptSummary | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def has_table(self) -> bool:
        """Whether the node × plugin tables were kept for this attempt."""
        return self.recorded_summary is None

    def summary(self) -> AttemptSummary:
        """The attempt's summary: as recorded, or worked out from its tables."""
        if self.recorded_summary is not None:
            return self.recorded_summary
        if self._summary is None:  # worked out once: the trace writer and the record both ask
            object.__setattr__(self, "_summary", summarize(self.filter, self.final_score))
        assert self._summary is not None
        return self._summary

    def total(self, node: str) -> int:
        """The node's total score: the sum of its weighted plugin scores."""
        return sum(self.final_score.get(node, {}).values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "attempt": self.attempt,
            "profile": self.profile,
            "result": self.result,
            "node": self.node,
            "message": self.message,
            "filter": {
                node: {plugin: verdict.to_dict() for plugin, verdict in row.items()}
                for node, row in self.filter.items()
            },
            "score": {node: _plain(row) for node, row in self.score.items()},
            "finalScore": {node: _plain(row) for node, row in self.final_score.items()},
            "nominatedNode": self.nominated_node,
            "victims": list(self.victims),
        }


@dataclass(frozen=True, slots=True)
class PodAttempts:
    """One pod's attempts in brief, all a streamed run keeps of them (the trace has the rest).

    ``count``: how many attempts the pod had; ``last``: the last one, with
    its summary and, unless it was read back for ``explain``, without its
    tables; ``preempted``: the pods its attempts preempted, each with the
    node the attempt was nominated to.
    """

    count: int
    last: Attempt
    preempted: tuple[tuple[str, str | None], ...] = ()

    def then(self, attempt: Attempt) -> PodAttempts:
        """The record once ``attempt`` (the pod's next) is added."""
        preempted = self.preempted + tuple((v, attempt.nominated_node) for v in attempt.victims)
        return PodAttempts(self.count + 1, attempt, preempted)

    @classmethod
    def first(cls, attempt: Attempt) -> PodAttempts:
        return cls(0, attempt).then(attempt)


def brief(attempt: Attempt) -> Attempt:
    """``attempt`` without its node × plugin tables: its summary stands for them."""
    if not attempt.has_table:
        return attempt
    return dataclasses.replace(
        attempt, filter={}, score={}, final_score={}, recorded_summary=attempt.summary()
    )


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One Event occurrence: its type, reason, the object it is about, and its message."""

    type: str
    reason: str
    object: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {
            "type": self.type,
            "reason": self.reason,
            "object": self.object,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class PodSummary:
    """A pod of the input as it ended: for the tables (not part of the JSON trace)."""

    key: str
    priority: int
    qos_class: str
    scheduler_name: str
    node: str | None
    running_at_start: bool
    scheduling_gates: tuple[str, ...] = ()
    #: The node it was bound to when the run began (``spec.nodeName``), for a pod running then.
    node_at_start: str | None = None
    #: Being deleted when the run began (``metadata.deletionTimestamp``): the run deletes it
    #: when its grace period ends, as the kubelet would.
    terminating_at_start: bool = False


@dataclass(frozen=True, slots=True)
class NodeSummary:
    """A node's allocatable and what the pods on it requested, when the run began and ended.

    Amounts are in scheduler units, as NodeResourcesFit counts them: ``cpu``
    in milli-cores, ``memory`` in bytes, ``pods`` the number of pods,
    extended resources in whole units; a request is the pod's effective
    request (:func:`framework.objects.resources.pod_requests`). Not part of
    the JSON trace: for the reports' utilisation pictures.
    """

    name: str
    allocatable: Mapping[str, int]
    requested_before: Mapping[str, int] = field(default_factory=dict)
    requested_after: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """Placements, attempts and events of one run; :meth:`to_dict` is the v1 trace.

    ``pods``, ``nodes`` (each node's allocatable and requests before and
    after), ``warnings`` (inputs skipped), ``notes`` (plugins left out
    of a profile) and ``score_weights`` (per profile, each Score plugin's
    weight) are for the human-readable reports and are not part of the
    trace.
    """

    placements: Mapping[str, str | None]
    attempts: tuple[Attempt, ...]
    events: tuple[EventRecord, ...]
    pods: tuple[PodSummary, ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    seed: int = 0
    score_weights: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    nodes: tuple[NodeSummary, ...] = ()
    #: The feature gates the run used (None for a trace written before they were recorded).
    feature_gates: FeatureGates | None = None

    version = TRACE_VERSION

    #: Set when the run streamed its attempts to a trace and kept only each pod's in brief
    #: (``attempts`` is then empty): what the summary and ``explain`` need, pod by pod.
    attempt_records: Mapping[str, PodAttempts] | None = None

    _by_pod: dict[str, list[Attempt]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def streamed(self) -> bool:
        """Whether the attempts were streamed to a trace and only their records kept."""
        return self.attempt_records is not None

    def attempts_of(self, pod: str) -> list[Attempt]:
        """The attempts of one pod (``namespace/name``), first to last.

        The attempts are grouped by pod on the first call, so asking for
        every pod in turn costs one pass over the attempts, not one per pod.
        A streamed result has no attempts to give: it raises ``ValueError``
        (use :meth:`last_attempt` and :meth:`attempt_count_of`, or read the trace).
        """
        if self.attempt_records is not None:
            raise ValueError(
                "this run streamed its attempts to its trace and kept only each pod's last: "
                "use last_attempt() and attempt_count_of(), or read_trace() the trace"
            )
        if not self._by_pod and self.attempts:
            for attempt in self.attempts:
                self._by_pod.setdefault(attempt.pod, []).append(attempt)
        return list(self._by_pod.get(pod, ()))

    def last_attempt(self, pod: str) -> Attempt | None:
        """The pod's last attempt, or None if it had none."""
        if self.attempt_records is not None:
            record = self.attempt_records.get(pod)
            return record.last if record is not None else None
        attempts = self.attempts_of(pod)
        return attempts[-1] if attempts else None

    def attempt_count_of(self, pod: str) -> int:
        """How many scheduling attempts the pod had."""
        if self.attempt_records is not None:
            record = self.attempt_records.get(pod)
            return record.count if record is not None else 0
        return len(self.attempts_of(pod))

    @property
    def attempt_count(self) -> int:
        """How many scheduling attempts the run made."""
        if self.attempt_records is not None:
            return sum(record.count for record in self.attempt_records.values())
        return len(self.attempts)

    def preemptions(self) -> dict[str, tuple[str, str | None]]:
        """Each pod preempted in the run: its preemptor, and the node that was nominated."""
        victims: dict[str, tuple[str, str | None]] = {}
        if self.attempt_records is not None:
            for pod, record in self.attempt_records.items():
                for victim, node in record.preempted:
                    victims[victim] = (pod, node)
            return victims
        for attempt in self.attempts:
            for victim in attempt.victims:
                victims[victim] = (attempt.pod, attempt.nominated_node)
        return victims

    def _check_whole(self) -> None:
        if self.attempt_records is not None:
            raise ValueError(
                "a streamed run kept no attempts to write as a v1 trace: its v2 trace is the "
                "record (simulate without trace= for the v1 trace)"
            )

    def to_dict(self) -> dict[str, Any]:
        """The trace: exactly the v1 JSON document (see the module docstring)."""
        self._check_whole()
        trace: dict[str, Any] = {"version": TRACE_VERSION}
        if self.feature_gates is not None:
            trace["featureGates"] = self.feature_gates.to_dict()
        trace["placements"] = dict(self.placements)
        trace["attempts"] = [attempt.to_dict() for attempt in self.attempts]
        trace["events"] = [event.to_dict() for event in self.events]
        return trace

    def to_json(self, indent: int | None = None) -> str:
        """The trace as JSON text ending with a newline: compact, or indented by ``indent``.

        Compact by default: a trace holds a verdict per plugin per evaluated
        node per attempt, which adds up quickly (pipe it through ``jq`` or
        ``python -m json.tool`` to read it). Same input, same bytes.
        """
        if indent is not None:
            return json.dumps(self.to_dict(), indent=indent, separators=(",", ": ")) + "\n"
        out = io.StringIO()
        self.write_json(out)
        return out.getvalue()

    def write_json(self, out: TextIO) -> None:
        """Write the compact trace to ``out`` an attempt at a time: :meth:`to_json`'s bytes.

        A 1,000-node run's trace runs to a gigabyte; written this way it is
        never held in memory whole, neither as text nor as dicts. Each
        distinct Filter row is encoded once (the recorder shares one row
        among the nodes that got the same verdicts) and each node name once.
        """
        self._check_whole()
        rows: dict[int, str] = {}
        names: dict[str, str] = {}
        out.write(f'{{"version":{_dumps(TRACE_VERSION)},')
        if self.feature_gates is not None:
            out.write(f'"featureGates":{_dumps(self.feature_gates.to_dict())},')
        out.write('"placements":')
        out.write(_dumps(dict(self.placements)))
        out.write(',"attempts":[')
        for index, attempt in enumerate(self.attempts):
            if index:
                out.write(",")
            out.write(_attempt_json(attempt, rows, names))
        out.write(f'],"events":{_dumps([event.to_dict() for event in self.events])}}}\n')


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _attempt_head(attempt: Attempt) -> dict[str, Any]:
    """The fields of an attempt that come before its tables, as the trace names them."""
    return {
        "pod": attempt.pod,
        "attempt": attempt.attempt,
        "profile": attempt.profile,
        "result": attempt.result,
        "node": attempt.node,
        "message": attempt.message,
    }


def _attempt_json(attempt: Attempt, rows: dict[int, str], names: dict[str, str]) -> str:
    """One attempt as :meth:`Attempt.to_dict` would encode, shared rows encoded once.

    ``rows`` is keyed by ``id``: safe because every row stays referenced by
    the result while it is written.
    """
    head = _dumps(_attempt_head(attempt))
    parts = [head[:-1], ',"filter":{']
    for position, (node, row) in enumerate(attempt.filter.items()):
        key = names.get(node)
        if key is None:
            key = names[node] = _dumps(node)
        text = rows.get(id(row))
        if text is None:
            text = rows[id(row)] = _dumps({p: v.to_dict() for p, v in row.items()})
        parts += ("," if position else "", key, ":", text)
    parts.append('},"score":')
    parts.append(_dumps({node: _plain(row) for node, row in attempt.score.items()}))
    parts.append(',"finalScore":')
    parts.append(_dumps({node: _plain(row) for node, row in attempt.final_score.items()}))
    parts.append(f',"nominatedNode":{_dumps(attempt.nominated_node)}')
    parts.append(f',"victims":{_dumps(list(attempt.victims))}}}')
    return "".join(parts)
