"""Recording the trace: each attempt's evidence, as the scheduler computes it, and the events.

:class:`TraceRecorder` is the scheduler's
:class:`~framework.scheduler.tracing.SchedulingTracer`. It turns the hook
calls of one attempt into one :class:`~framework.simulator.result.Attempt`:

* each Filter status the search computed becomes a row of per-plugin
  verdicts — the plugins before the one that failed succeeded, that one
  gives the code and reasons, the rest never ran (the runner's rule in
  :meth:`Framework.run_filter_plugins
  <framework.runtime.framework.Framework.run_filter_plugins>`); plugins in
  ``CycleState.skip_filter_plugins`` are marked ``Skip``;
* each feasible node's weighted scores become ``finalScore``, and divided
  by the plugin's weight, ``score`` (the normalised score: the framework
  multiplied it, so the division is exact);
* the cycle's outcome gives the result, the chosen node, the message and
  the nomination; a binding cycle's outcome, arriving later on its own
  thread, completes the attempt that started it. The binding threads wait
  their turn at the :class:`~framework.simulator.turnstile.BindingTurnstile`,
  the scheduler's binding gate, in the order :meth:`TraceRecorder.attempt_order` gives.

**Streaming.** Given a ``sink`` (a :class:`~framework.simulator.trace.TraceWriter`'s
``attempt``), each attempt is handed to it as soon as it is over — its
scheduling cycle ended, its binding cycle (if any) ended, and the events that
name its victims collected — in the order the cycles ran. With
``retain=False`` the recorder then lets the attempt go and keeps only the
pod's :class:`~framework.simulator.result.PodAttempts` (a count, the last
attempt without its tables, whom it preempted): the memory of a run no
longer grows with its attempts' tables, only with its pods.

Events are read from the fake API server's watch on Events at the points
the simulation driver chooses (:meth:`TraceRecorder.collect_events`, when
every binding cycle has settled), and each is given to the attempt it
belongs to — a pod's own events to its latest attempt, a ``Preempted`` event
to the preemptor's, whose ``victims`` it extends — so that their order does
not depend on which binding thread wrote first.

No Kubernetes counterpart (see :mod:`framework.scheduler.tracing`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from framework.apiserver import ADDED, MODIFIED, APIServer
from framework.cycle_state import CycleState
from framework.interface import FitError, NodePluginScores
from framework.objects import Event
from framework.runtime.framework import Framework
from framework.scheduler.algorithm import name_totals
from framework.scheduler.schedule_one import CycleOutcome
from framework.scheduler.tracing import SchedulingTracer, SharedStatuses
from framework.simulator.result import (
    BIND_FAILED,
    ERROR,
    PERMIT_REJECTED,
    SCHEDULED,
    UNSCHEDULABLE,
    Attempt,
    AttemptSummary,
    EventRecord,
    FilterTable,
    FilterVerdict,
    PodAttempts,
    ScoreRow,
    brief,
    summarize,
)
from framework.status import Code, Status
from framework.types import NominatingMode, QueuedPodInfo

__all__ = ["AttemptSink", "KeepTable", "TraceRecorder"]

# The victim's event in preemption.go: "Preempted by pod <preemptor uid> on node <node>".
_PREEMPTED = re.compile(r"^Preempted by pod (?P<uid>\S+) on node \S+$")
_SUCCESS = FilterVerdict(str(Code.SUCCESS))
_SKIP = FilterVerdict(str(Code.SKIP))


@dataclass(slots=True)
class _Draft:
    """An attempt being recorded (mutable until the run ends)."""

    pod: str
    uid: str
    attempt: int
    profile: str
    result: str = ""
    node: str | None = None
    message: str = ""
    filter: dict[str, Mapping[str, FilterVerdict]] = field(default_factory=dict)
    score: dict[str, Mapping[str, int]] = field(default_factory=dict)
    final_score: dict[str, Mapping[str, int]] = field(default_factory=dict)
    nominated_node: str | None = None
    victims: list[str] = field(default_factory=list)
    rows: dict[object, Mapping[str, FilterVerdict]] = field(default_factory=dict)  # shared rows
    # A batch search's table, kept as nodes, rows and indices while nothing else is filtered.
    table: FilterTable | None = None
    summary: AttemptSummary | None = None  # set when the tables were dropped
    # The scores as the algorithm gave them, read into rows only if the tables are kept.
    scored: tuple[Mapping[str, int], Sequence[NodePluginScores]] | None = None

    def freeze(self) -> Attempt:
        return Attempt(
            pod=self.pod,
            attempt=self.attempt,
            profile=self.profile,
            # Only a binding cycle that raised (a bug) leaves its attempt without an outcome.
            result=self.result or ERROR,
            node=self.node,
            message=self.message or "the binding cycle ended without an outcome",
            filter=self.table if self.table is not None else self.filter,
            score=self.score,
            final_score=self.final_score,
            nominated_node=self.nominated_node,
            victims=tuple(self.victims),
            recorded_summary=self.summary,
        )

    def drop_tables(self) -> None:
        """Keep only the summary: a large run cannot keep every node × plugin table."""
        totals = None
        if self.scored is not None:
            totals = name_totals(self.scored[1])
        table = self.table if self.table is not None else self.filter
        self.summary = summarize(table, self.final_score, totals)
        self.filter, self.score, self.final_score, self.scored = {}, {}, {}, None
        self.table = None

    def filter_table(self) -> dict[str, Mapping[str, FilterVerdict]]:
        """The table as a dict, to be changed (a batch search's compact table is spelt out)."""
        if self.table is not None:
            self.filter, self.table = dict(self.table.items()), None
        return self.filter

    def read_scores(self) -> None:
        """The scores as rows of normalised and of weighted scores (the tables are kept)."""
        if self.scored is None:
            return
        weights, scores = self.scored
        self.scored = None
        # combine_scores gives every node the same plugins in the same order: one names tuple
        # and one weights tuple serve all the rows of the attempt.
        names = tuple(s.name for s in scores[0].scores)
        factors = tuple(weights.get(name) or 1 for name in names)
        for node in scores:
            # The framework multiplied the normalised score by the weight: the division is exact.
            values = tuple(s.score // f for s, f in zip(node.scores, factors, strict=True))
            self.score[node.name] = ScoreRow(names, values)
            self.final_score[node.name] = ScoreRow(names, values, factors)


def filter_row(plugins: list[str], skipped: set[str], status: Status) -> dict[str, FilterVerdict]:
    """The per-plugin verdicts behind one node's Filter status.

    >>> row = filter_row(["A", "B", "C"], {"B"}, Status.unschedulable("no").with_plugin("C"))
    >>> {name: verdict.code for name, verdict in row.items()}
    {'A': 'Success', 'B': 'Skip', 'C': 'Unschedulable'}
    """
    row: dict[str, FilterVerdict] = {}
    for name in plugins:
        if name in skipped:
            row[name] = _SKIP
            continue
        if not status.is_success() and name == status.plugin:
            row[name] = FilterVerdict(str(status.code), status.all_reasons())
            return row
        row[name] = _SUCCESS
    if not status.is_success():
        # Not a Filter plugin's own verdict (an AddPod extension failed): keep it under its name.
        row[status.plugin or "<framework>"] = FilterVerdict(str(status.code), status.all_reasons())
    return row


KeepTable = Callable[[str, bool], bool]
"""Told ``(pod key, whether the attempt failed)`` at the end of a scheduling cycle: keep its tables?"""

AttemptSink = Callable[[Attempt], None]
"""Given each attempt once it is over, in the order the cycles ran (the trace writer's)."""


class TraceRecorder(SchedulingTracer):
    """Builds the attempts of a run from the scheduler's tracing hooks and the API server's events.

    With ``keep_table``, an attempt it declines keeps only its
    :class:`~framework.simulator.result.AttemptSummary`, worked out when its
    scheduling cycle ends; without it, every attempt keeps its tables.
    ``sink`` and ``retain`` stream the attempts (see the module docstring).
    """

    def __init__(
        self,
        api: APIServer,
        keep_table: KeepTable | None = None,
        *,
        sink: AttemptSink | None = None,
        retain: bool = True,
    ) -> None:
        self.keep_table = keep_table
        self.sink = sink
        self.retain = retain
        self._lock = threading.Lock()
        # The attempts not yet let go, by index; those before _done went to the sink.
        self._drafts: dict[int, _Draft] = {}
        self._count = 0
        self._done = 0
        self._records: dict[str, PodAttempts] = {}  # pod key → its attempts in brief
        # Many pods fail with the same FailedScheduling message: each text is kept once.
        self._texts: dict[str, str] = {}
        self._latest: dict[str, int] = {}  # pod uid → index of its latest attempt
        self._current: _Draft | None = None
        self._framework: Framework | None = None
        self._events: list[EventRecord] = []
        self._counts: dict[str, int] = {}  # Event key → the count last seen
        self._watch = api.watch(Event, resource_version=api.current_resource_version())
        self.bound = 0

    # --- the SchedulingTracer hooks ---------------------------------------------------------

    def cycle_started(self, fwk: Framework, queued: QueuedPodInfo) -> None:
        pod = queued.pod
        draft = _Draft(pod.key, pod.metadata.uid, queued.attempts, fwk.profile_name)
        with self._lock:
            self._latest[draft.uid] = self._count
            self._drafts[self._count] = draft
            self._count += 1
        self._current, self._framework = draft, fwk

    def node_filtered(
        self, fwk: Framework, state: CycleState, node_name: str, status: Status
    ) -> None:
        draft = self._current
        if draft is None:
            return
        row = self._row(fwk, state, draft, status)
        table = draft.filter_table()
        table.pop(node_name, None)  # re-evaluated: it moves to its latest place
        table[node_name] = row

    def nodes_filtered(
        self,
        fwk: Framework,
        state: CycleState,
        node_names: Sequence[str],
        statuses: Sequence[Status],
    ) -> None:
        draft = self._current
        if draft is None:
            return
        if (
            isinstance(statuses, SharedStatuses)
            and node_names
            and not draft.filter
            and draft.table is None
        ):
            draft.table = self._shared_table(fwk, state, draft, node_names, statuses)
            return
        # The batch engine's nodes share a few statuses: each distinct one is looked at once.
        by_status: dict[int, Mapping[str, FilterVerdict]] = {}
        rows = []
        for status in statuses:
            row = by_status.get(id(status))
            if row is None:
                row = by_status[id(status)] = self._row(fwk, state, draft, status)
            rows.append(row)
        table = draft.filter_table()
        if table:
            for node_name in node_names:
                table.pop(node_name, None)  # re-evaluated: it moves to its latest place
        table.update(zip(node_names, rows, strict=True))

    def _shared_table(
        self,
        fwk: Framework,
        state: CycleState,
        draft: _Draft,
        node_names: Sequence[str],
        statuses: SharedStatuses,
    ) -> FilterTable:
        """A batch search's table: a row per distinct status, in the order the nodes first give them."""
        import numpy as np  # SharedStatuses come from the batch engine, which has numpy loaded

        indices = np.asarray(statuses.indices, dtype=np.int64)
        used, first = np.unique(indices, return_index=True)
        rows: list[Mapping[str, FilterVerdict]] = []
        numbered: dict[int, int] = {}  # a row's id -> its place in rows
        renumber = np.zeros(len(statuses.distinct), dtype=np.int64)
        for status_index in used[np.argsort(first, kind="stable")].tolist():
            row = self._row(fwk, state, draft, statuses.distinct[status_index])
            place = numbered.get(id(row))
            if place is None:
                place = numbered[id(row)] = len(rows)
                rows.append(row)
            renumber[status_index] = place
        return FilterTable(list(node_names), rows, renumber[indices])

    @staticmethod
    def _row(
        fwk: Framework, state: CycleState, draft: _Draft, status: Status
    ) -> Mapping[str, FilterVerdict]:
        # Most nodes of an attempt get the same verdicts: they share one read-only row, which
        # keeps a 1,000-node run's memory in bounds. PreFilter has run by now, so the skipped
        # plugins are settled for the rest of the cycle.
        key = (
            None
            if status.is_success()
            else (status.code, status.plugin, status.all_reasons(), status.error is None)
        )
        row = draft.rows.get(key)
        if row is None:
            plugins = fwk.plugin_names("filter")
            row = MappingProxyType(filter_row(plugins, state.skip_filter_plugins, status))
            draft.rows[key] = row
        return row

    def nodes_scored(self, fwk: Framework, scores: list[NodePluginScores]) -> None:
        draft = self._current
        if draft is None:
            return
        if not scores:
            return
        # Read when the cycle ends, and only if its tables are kept: most are not.
        draft.scored = (fwk.score_plugin_weight, scores)

    def cycle_ended(self, queued: QueuedPodInfo, outcome: CycleOutcome) -> None:
        draft, self._current = self._current, None
        if draft is None:
            return
        draft.rows = {}
        status = outcome.status
        if outcome.result is not None:
            draft.node = outcome.result.suggested_host
        if not status.is_success():
            self._record_failure(draft, outcome)
        # A binding cycle's failure is not Filter's or Score's: its tables go with the success.
        kept = self.keep_table is None or self.keep_table(draft.pod, bool(draft.result))
        if not kept or (self.sink is None and not self.retain):
            draft.drop_tables()
        else:
            draft.read_scores()

    def _record_failure(self, draft: _Draft, outcome: CycleOutcome) -> None:
        status = outcome.status
        nominating = outcome.nominating_info
        if (
            nominating is not None
            and nominating.mode is NominatingMode.OVERRIDE
            and nominating.nominated_node_name
        ):
            draft.nominated_node = nominating.nominated_node_name
        if outcome.failed_at == "Permit" and status.is_rejected():
            draft.result = PERMIT_REJECTED
        elif status.is_rejected():
            draft.result = UNSCHEDULABLE
        else:
            draft.result = ERROR
        message = status.message()
        draft.message = self._texts.setdefault(message, message)
        diagnosis = outcome.diagnosis
        if (
            diagnosis is not None
            and diagnosis.pre_filter_msg
            and not draft.filter
            and draft.table is None
        ):
            rejection = diagnosis.node_to_status.absent_nodes_status()
            verdict = FilterVerdict(str(rejection.code), rejection.all_reasons())
            # kube-scheduler gives every node this status; so does the trace.
            row = MappingProxyType({rejection.plugin or "<PreFilter>": verdict})
            for node_name in self._snapshot_node_names():
                draft.filter[node_name] = row

    @property
    def attempt_count(self) -> int:
        """How many scheduling cycles have started so far."""
        with self._lock:
            return self._count

    def attempt_order(self, assumed: QueuedPodInfo) -> int:
        """The index of the pod's latest attempt: the turnstile lets binding cycles go in it."""
        with self._lock:
            return self._latest.get(assumed.pod.metadata.uid, self._count)

    def binding_ended(self, assumed: QueuedPodInfo, status: Status) -> None:
        pod = assumed.pod
        with self._lock:
            index = self._latest.get(pod.metadata.uid)
            draft = self._drafts.get(index) if index is not None else None
            if draft is None:
                return
            if status.is_success():
                draft.result = SCHEDULED
                draft.message = f"Successfully assigned {pod.key} to {pod.spec.node_name}"
                self.bound += 1
            else:
                draft.result = (
                    PERMIT_REJECTED
                    if status.is_rejected() and isinstance(status.error, FitError)
                    else BIND_FAILED
                )
                draft.message = status.message()

    def _snapshot_node_names(self) -> list[str]:
        snapshot: Any = self._framework.snapshot if self._framework is not None else None
        if snapshot is None:
            return []
        return [node_info.name for node_info in snapshot.node_infos().list()]

    # --- events ------------------------------------------------------------------------------

    def collect_events(self) -> None:
        """Take the Events written since the last call, each given to the attempt it belongs to.

        Call it only when no binding cycle runs (the driver does), so that
        "the latest attempt of this pod" is the one that wrote the event.
        """
        batch: list[tuple[int, int, EventRecord]] = []
        with self._lock:
            end = self._count
            for change in self._watch.drain():
                if change.type not in (ADDED, MODIFIED):
                    continue
                event = change.object
                assert isinstance(event, Event)
                key = f"{event.metadata.namespace}/{event.metadata.name}"
                if event.count <= self._counts.get(key, 0):
                    continue  # an update that is not a new occurrence
                self._counts[key] = event.count
                ref = event.involved_object
                obj = f"{ref.namespace}/{ref.name}" if ref.namespace else ref.name
                owner = self._latest.get(ref.uid, end)
                preempted = (
                    _PREEMPTED.match(event.message) if event.reason == "Preempted" else None
                )
                if preempted is not None and preempted["uid"] in self._latest:
                    owner = self._latest[preempted["uid"]]
                    preemptor = self._drafts.get(owner)
                    if preemptor is not None and obj not in preemptor.victims:
                        preemptor.victims.append(obj)
                text = event.message
                if event.reason == "FailedScheduling":  # the others name their pod: unique
                    text = self._texts.setdefault(text, text)
                record = EventRecord(event.type, event.reason, obj, text)
                batch.append((owner, int(change.resource_version or 0), record))
        batch.sort(key=lambda item: (item[0], item[1]))
        self._events += [record for _, _, record in batch]
        with self._lock:
            self._pass_on(everything=False)

    def _pass_on(self, everything: bool) -> None:
        """Hand the attempts that are over to the sink, in order; let them go unless retained.

        An attempt is over once it has a result (a failed scheduling cycle, or
        its binding cycle's end) and the events naming its victims are in: the
        driver calls :meth:`collect_events` after the cycle that wrote them.
        One still waiting at Permit holds back those after it, so that the
        trace keeps the order the cycles ran in. ``everything`` at the end.
        """
        if self.sink is None and self.retain:
            return
        while self._done < self._count:
            draft = self._drafts[self._done]
            if not everything and (not draft.result or draft is self._current):
                return
            attempt = draft.freeze()
            if self.sink is not None:
                self.sink(attempt)
            if not self.retain:
                del self._drafts[self._done]
                record = self._records.get(attempt.pod)
                compact = brief(attempt)
                self._records[attempt.pod] = (
                    record.then(compact) if record is not None else PodAttempts.first(compact)
                )
            self._done += 1

    def finish(self) -> None:
        """The run is over: every attempt not yet handed on goes to the sink now."""
        with self._lock:
            self._pass_on(everything=True)

    def close(self) -> None:
        self._watch.stop()

    # --- the result ----------------------------------------------------------------------------

    def attempts(self) -> tuple[Attempt, ...]:
        """Every attempt, if retained (else none: see :meth:`records`)."""
        with self._lock:
            if not self.retain:
                return ()
            return tuple(self._drafts[i].freeze() for i in range(self._count))

    def records(self) -> dict[str, PodAttempts] | None:
        """Each pod's attempts in brief, when the attempts are not retained (else None)."""
        with self._lock:
            return None if self.retain else dict(self._records)

    def events(self) -> tuple[EventRecord, ...]:
        return tuple(self._events)
