"""Running a simulation: the cluster built in order, the scheduler driven, time simulated.

:func:`simulate` is the whole job; every interface (the Python API,
``python -m framework simulate``, ``explain``, ``schedule``) calls it, so the
semantics below are the same everywhere.

**Order.** A fresh fake API server gets, in file order within each group:
the Namespaces (and those the objects need but the files do not declare),
the PriorityClasses, the other cluster objects (PodDisruptionBudgets,
PodGroups), and then the scheduler starts, on an empty view of the
cluster; the Nodes are created, then the running pods (those with
``spec.nodeName``), so the scheduler's node order is the file's. Then every
pending pod, in file order, one simulated millisecond apart, so that their
queue timestamps follow the file: among pods of equal priority the first
in the file is tried first. All of this happens before the first
scheduling cycle. An object whose manifest records state (a snapshot's
running pods with their start times, a terminating pod, a budget's
evictions) is brought to it the way the cluster got there
(:mod:`framework.simulator.state`), and the clock starts where that state
ends.

**Running.** The scheduler's own loop, :meth:`Scheduler.schedule_pending
<framework.scheduler.scheduler.Scheduler.schedule_pending>`, runs the
scheduling cycles one at a time on the calling thread; each binding cycle
runs on a thread of its own, as in kube-scheduler, held at the scheduler's
binding gate (the :class:`~framework.simulator.turnstile.BindingTurnstile`)
so that the next scheduling cycle starts once it has finished or waits at
Permit (API calls take no time here). The run goes on until no pod is ready
and nothing is due.

**Time.** The clock is a :class:`~framework.clock.FakeClock`: when no pod is
ready, it jumps to the next moment something is due — a backoff ending, a
Permit timeout, or the end of a pod's graceful deletion — and the queue's
periodic flushes run then (so pods left unschedulable for more than five
minutes by that time are retried, as kube-scheduler's 30-second flush
would). The simulator plays the kubelet in that one respect: a pod deleted
with a grace period (a preemption victim) is marked terminating and is gone
when its ``deletionTimestamp`` comes, as if its containers used the whole
grace period. The run never waits for the
five-minute flush alone: with nothing changed in the cluster, a pod that
was unschedulable would fail the same way. Nor does it wait for backoffs
forever: once no pod has been bound for 15 simulated minutes (the longest
Permit wait), pods that only keep failing stay pending (with
``SchedulerPopFromBackoffQ``, which pops backing-off pods when nothing else
is ready, they are no longer popped then). It ends when nothing
can change any more; the pods still pending are unschedulable and no event
is pending for them.

**Reproducibility.** ``seed`` seeds the choice among equally scored nodes
(the only randomness kube-scheduler has), uids come from a counter, and the
trace orders everything concurrent threads do (see
:mod:`framework.simulator.recorder`): the same inputs and seed give the same
trace, byte for byte.

No Kubernetes counterpart: kube-scheduler-simulator runs the real scheduler
against a real API server in real time; here the scheduler is driven step
by step on simulated time.
"""

from __future__ import annotations

import contextlib
import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from framework.apiserver import APIError, APIServer, Invalid, NotFound
from framework.config.errors import ConfigProblem
from framework.config.framework_checks import FrameworkConfigError
from framework.config.types import KubeSchedulerConfiguration
from framework.featuregate import FeatureGateError, FeatureGates, new_feature_gates
from framework.objects import KubeObject, Namespace, Node, ObjectMeta, Pod, PriorityClass
from framework.objects.resources import PODS, pod_requests, resource_amount, resource_gates
from framework.runtime.registry import PluginFactory
from framework.runtime.waiting_pods import MAX_PERMIT_TIMEOUT_SECONDS
from framework.scheduler.engine import default_engine
from framework.scheduler.scheduler import Scheduler
from framework.simulator.inputs import (
    ConfigSource,
    Inputs,
    SimulationInputError,
    Source,
    SourcedObject,
    describe,
    load_inputs,
    plugin_registry,
)
from framework.simulator.kubelet import finish_terminated_pods, termination_deadlines
from framework.simulator.recorder import KeepTable, TraceRecorder
from framework.simulator.result import NodeSummary, PodSummary, SimulationResult
from framework.simulator.state import clock_for, finish_state, with_state
from framework.simulator.turnstile import BindingTurnstile

if TYPE_CHECKING:
    from framework.simulator.trace import TraceWriter

__all__ = ["IDLE_LIMIT_SECONDS", "QUEUE_STEP_SECONDS", "Progress", "gates_for", "simulate"]

QUEUE_STEP_SECONDS = 0.001
"""Simulated time between two pending pods entering the queue (their timestamps follow the file)."""

IDLE_LIMIT_SECONDS = float(MAX_PERMIT_TIMEOUT_SECONDS)
"""With no pod bound for this long, a run stops waiting for backoffs (Permit timeouts still end)."""

Progress = Callable[[int, int], None]
"""Told ``(pods bound so far, pending pods in all)`` after each scheduling attempt."""


def simulate(
    *sources: Source,
    config: ConfigSource | None = None,
    seed: int = 0,
    plugins: Mapping[str, PluginFactory | str] | Sequence[str] = (),
    progress: Progress | None = None,
    engine: str | None = None,
    keep_table: KeepTable | None = None,
    field_validation: str = "Strict",
    emulated_version: str | None = None,
    feature_gates: Mapping[str, bool] | str | FeatureGates | None = None,
    trace: TextIO | str | Path | None = None,
    keep_attempts: bool | None = None,
) -> SimulationResult:
    """Schedule the pods of ``sources`` on their nodes and return what happened, and why.

    ``sources`` are paths (files or directories), YAML or JSON text, parsed
    manifests (dicts) or objects, in any mix and order
    (:mod:`framework.simulator.inputs`). ``config`` is a
    ``KubeSchedulerConfiguration`` (a path, text, a dict or a loaded one);
    without it, or one in the sources, the v1 default profile runs.
    ``plugins`` registers out-of-tree plugins, by factory or import path
    (``{"MyPlugin": "my_plugins:new"}``, or ``["MyPlugin=my_plugins:new"]``).
    ``engine`` is ``batch`` (by default, or ``$KSF_ENGINE``), ``reference``
    or ``both`` (:mod:`framework.scheduler.engine`): the decisions and the
    trace are the same whichever runs; ``both`` raises
    :class:`~framework.batch.engine.EngineMismatchError` if they are not.
    ``keep_table`` says which attempts keep their node × plugin tables
    (:func:`framework.simulator.trace.keep_tables_for`); by default all do.
    ``field_validation`` (``Strict``, ``Warn``, ``Ignore``) says what an
    unknown field in a manifest is: an error, by default, as with kubectl.
    ``emulated_version`` (``"1.33"`` … ``"1.37"``) picks the release whose
    feature-gate defaults and default plugins the run has, and
    ``feature_gates`` overrides single gates (``{"Name": True}`` or kube's
    ``"Name=true,Other=false"``), or is a ready
    :class:`~framework.featuregate.FeatureGates`; the result says which gates
    the run used. ``trace`` (a text stream, or a path: gzip-compressed if it
    ends in ``.gz``, opened once the inputs are known to be good) streams the
    v2 trace (:mod:`framework.simulator.trace`) as the run goes, each
    attempt's line written when the attempt is over, its tables (those
    ``keep_table`` keeps; without it, the failed attempts') not kept after;
    the result then holds each pod's attempts in brief
    (:attr:`~framework.simulator.result.SimulationResult.attempt_records`),
    not the attempts, so that a run's memory grows with its pods, not its
    attempts. ``keep_attempts`` says whether the result holds every attempt
    (by default, unless ``trace`` is given); ``False`` without a trace gives
    the records alone (what ``simulate``'s table needs). Raises
    :class:`~framework.simulator.inputs.SimulationInputError`, one line per
    problem, for inputs that cannot be simulated.
    """
    gates = gates_for(emulated_version, feature_gates)
    registry = plugin_registry(plugins)
    inputs = load_inputs(sources, config, registry, field_validation, gates)
    streamed = trace is not None
    if keep_attempts is None:
        keep_attempts = not streamed
    if streamed and keep_table is None:
        from framework.simulator.trace import keep_tables_for

        keep_table = keep_tables_for()
    simulation = _Simulation(
        inputs,
        registry,
        seed,
        progress,
        engine=engine or default_engine(),
        keep_table=keep_table,
        feature_gates=gates,
        retain=keep_attempts,
    )
    return simulation.run(Path(trace) if isinstance(trace, str) else trace)


def gates_for(
    emulated_version: str | None,
    feature_gates: Mapping[str, bool] | str | FeatureGates | None,
) -> FeatureGates:
    """The run's gates; a bad version or gate is a :class:`SimulationInputError` naming the flag."""
    if isinstance(feature_gates, FeatureGates):
        if emulated_version is not None and emulated_version != feature_gates.emulated_version:
            raise SimulationInputError(
                [
                    f"--emulated-version {emulated_version} disagrees with the FeatureGates "
                    f"given (v{feature_gates.emulated_version}); give one or the other"
                ]
            )
        return feature_gates
    try:
        return new_feature_gates(emulated_version, feature_gates)
    except FeatureGateError as error:
        flag = "--feature-gates" if feature_gates else "--emulated-version"
        raise SimulationInputError([f"{flag}: {error}"]) from None


def check_engines_agreed(scheduler: Scheduler) -> None:
    """Raise :class:`~framework.batch.engine.EngineMismatchError` if ``--engine both`` saw a difference."""
    mismatches = getattr(scheduler.scheduling.algorithm, "mismatches", None)
    if mismatches:
        from framework.batch.engine import EngineMismatchError

        more = f" (and {len(mismatches) - 1} more)" if len(mismatches) > 1 else ""
        raise EngineMismatchError(f"{mismatches[0]}{more}")


class _Simulation:
    """One run: the server, the scheduler, the recorder, and the driving loop."""

    def __init__(
        self,
        inputs: Inputs,
        registry: Mapping[str, PluginFactory],
        seed: int,
        progress: Progress | None,
        engine: str = "reference",
        keep_table: KeepTable | None = None,
        feature_gates: FeatureGates | None = None,
        retain: bool = True,
    ) -> None:
        self.inputs = inputs
        self.feature_gates = feature_gates or new_feature_gates()
        self.seed = seed
        self.progress = progress
        self.clock = clock_for(inputs.objects)  # a snapshot's clock starts where its state ends
        uids = itertools.count(1)
        self.api = APIServer(
            self.clock,
            uid_factory=lambda: f"00000000-0000-0000-0000-{next(uids):012d}",
            rng=random.Random(0),  # names from generateName: the same on every run
            feature_gates=self.feature_gates,
        )
        self.registry, self.engine = registry, engine
        self.scheduler = self._start_scheduler(inputs.config, inputs.config_source)
        # Through self.scheduler at each call: a scenario may restart the scheduler.
        self.recorder = TraceRecorder(self.api, keep_table, retain=retain)
        self.turnstile = BindingTurnstile(
            lambda: self.scheduler.scheduling.binding_futures(),
            lambda: sum(
                fwk.waiting_pods.blocked_count() for fwk in self.scheduler.profiles.values()
            ),
            self.recorder.attempt_order,
        )
        self._watch(self.scheduler)
        self.pending = [o for o in inputs.objects if isinstance(o.obj, Pod) and not _running(o)]
        self.created: dict[int, KubeObject] = {}  # id of an input object → as created

    def _start_scheduler(
        self, config: KubeSchedulerConfiguration | None, source: str
    ) -> Scheduler:
        try:
            return Scheduler(
                self.api,
                config,
                self.registry,
                clock=self.clock,
                seed=self.seed,
                engine=self.engine,
                feature_gates=self.feature_gates,
            )
        except FrameworkConfigError as error:
            source = source or "<default configuration>"
            raise SimulationInputError([str(ConfigProblem(source, "", str(error)))]) from None

    def _watch(self, scheduler: Scheduler) -> None:
        """The recorder hears every attempt; the turnstile holds every binding cycle."""
        scheduler.scheduling.set_tracer(self.recorder)
        scheduler.scheduling.binding_gate = self.turnstile

    def run(self, trace: TextIO | Path | None = None) -> SimulationResult:
        """The run; with ``trace``, its v2 trace streamed there as it goes.

        A path is opened once the cluster is built: an input the API server
        refuses leaves the file as it was.
        """
        with contextlib.ExitStack() as files:
            try:
                self._create_cluster()
                writer = None
                if trace is not None:
                    writer = self._start_trace(trace, files)
                self._drive()
            finally:
                self._stop()
            check_engines_agreed(self.scheduler)
            result = self._result()
            if writer is not None:
                writer.end(result)
            return result

    def _start_trace(self, trace: TextIO | Path, files: contextlib.ExitStack) -> TraceWriter:
        from framework.simulator.trace import TraceWriter, open_trace_for_writing, trace_header

        if isinstance(trace, Path):
            trace = files.enter_context(open_trace_for_writing(trace))
        writer = TraceWriter(trace)
        writer.header(
            trace_header(
                seed=self.seed,
                feature_gates=self.feature_gates,
                score_weights=self._score_weights(),
                notes=self._notes(),
                warnings=self.inputs.warnings,
            )
        )
        self.recorder.sink = writer.attempt
        return writer

    # --- building the cluster ------------------------------------------------------------------

    def _create(self, item: SourcedObject) -> KubeObject:
        try:
            created = with_state(self.api, item.obj, self.api.create(item.obj))
            self.created[id(item)] = created
            return created
        except Invalid as error:
            lines = [f"{item.source}: {describe(item.obj)}: {cause}" for cause in error.causes]
            raise SimulationInputError(lines) from None
        except APIError as error:
            raise SimulationInputError([f"{item.source}: {describe(item.obj)}: {error}"]) from None

    def _create_cluster(self) -> None:
        objects = self.inputs.objects
        declared = [o for o in objects if isinstance(o.obj, Namespace)]
        existing = {ns.name for ns in self.api.list(Namespace).items}
        for item in declared:
            if item.obj.name not in existing:
                self._create(item)
                existing.add(item.obj.name)
        for item in objects:
            namespace = item.obj.metadata.namespace
            if item.obj.NAMESPACED and namespace and namespace not in existing:
                # The real server refuses objects in a missing namespace; here that would only
                # get in the way of trying out manifests.
                existing.add(namespace)
                self.api.create(Namespace(metadata=ObjectMeta(name=namespace)))
        for item in objects:
            if isinstance(item.obj, PriorityClass):
                self._create(item)
        for item in objects:
            if not isinstance(item.obj, Namespace | PriorityClass | Node | Pod):
                self._create(item)
        self.scheduler.sync()  # the scheduler starts: its informers list what is there
        for item in objects:
            if isinstance(item.obj, Node):
                self._create(item)
        for item in objects:
            if isinstance(item.obj, Pod) and _running(item):
                self._create(item)
        created = [
            (item.obj, self.created[id(item)]) for item in objects if id(item) in self.created
        ]
        finish_state(self.api, self.clock, created)  # terminating pods, budgets' evictions
        self.scheduler.sync()
        for item in self.pending:
            self._create(item)
            self.scheduler.sync()
            self.clock.advance(QUEUE_STEP_SECONDS)

    # --- driving the scheduler --------------------------------------------------------------------

    def _drive(self) -> None:
        """The scheduler's own loop (``Scheduler.schedule_pending``), and the clock between."""
        progress = {"at": self.clock.now(), "bound": 0, "attempts": 0}

        def may_pop() -> bool:
            # Asked before each attempt, once the previous one's binding cycle has settled.
            self.recorder.collect_events()
            if self.recorder.bound != progress["bound"]:
                progress["at"], progress["bound"] = self.clock.now(), self.recorder.bound
            attempts = self.recorder.attempt_count
            if attempts != progress["attempts"]:
                progress["attempts"] = attempts
                if self.progress is not None:
                    self.progress(self.recorder.bound, len(self.pending))
            # With SchedulerPopFromBackoffQ an idle scheduler retries backing-off pods at
            # once; past the idle limit they stay where they are, as waiting would have.
            idle = self.clock.now() - progress["at"] > IDLE_LIMIT_SECONDS
            return not idle or bool(self.scheduler.queue.pending_pods_by_queue()["activeQ"])

        while True:
            self.scheduler.schedule_pending(may_pop=may_pop)
            self.recorder.collect_events()
            deadline = self._next_deadline(progress["at"])
            if deadline is None:
                return
            if deadline > self.clock.now():
                self.clock.set(deadline)
            self.turnstile.settle()  # Permit timeouts that fell due
            self._finish_terminated_pods()
            self.scheduler.queue.flush_backoff_q_completed()
            self.scheduler.queue.flush_unschedulable_pods_leftover()

    def _terminating(self) -> list[tuple[float, Pod]]:
        return termination_deadlines(self.api)

    def _finish_terminated_pods(self) -> None:
        """The kubelet's part: a terminating pod whose grace period is over is removed."""
        finish_terminated_pods(self.api, self.clock.now())

    def _next_deadline(self, last_progress: float) -> float | None:
        """When something is next due: a Permit timeout, a graceful deletion's end, or a
        backoff ending (within the idle limit)."""
        due = [deadline for deadline, _ in self._terminating()]
        permit = self.clock.next_deadline()  # the only timers here are waiting pods' timeouts
        # A gang that can never be whole parks new members at Permit after each timeout
        # (GangScheduling activates them): past the idle limit, the run ends instead.
        if permit is not None and permit <= last_progress + 2 * IDLE_LIMIT_SECONDS:
            due.append(permit)
        backoff = [
            p.backoff_expiry for p in self.scheduler.queue.pending_pods_by_queue()["backoffQ"]
        ]
        if backoff and min(backoff) <= last_progress + IDLE_LIMIT_SECONDS:
            due.append(min(backoff))
        return min(due) if due else None

    def _stop(self) -> None:
        # A pod still parked at Permit would keep its binding cycle waiting forever.
        self.turnstile.open()
        for fwk in self.scheduler.profiles.values():
            fwk.iterate_over_waiting_pods(
                lambda waiting: waiting.reject("", "the simulation ended")
            )
        self.scheduler.stop()
        self.recorder.collect_events()
        self.recorder.finish()
        self.recorder.close()

    # --- the result --------------------------------------------------------------------------------

    def _notes(self) -> tuple[str, ...]:
        return tuple(
            f"note: profile {name!r} left out plugins not implemented in this project yet: "
            + ", ".join(fwk.skipped_plugins)
            for name, fwk in self.scheduler.profiles.items()
            if fwk.skipped_plugins
        )

    def _score_weights(self) -> dict[str, dict[str, int]]:
        return {
            name: dict(fwk.score_plugin_weight) for name, fwk in self.scheduler.profiles.items()
        }

    def _result(self) -> SimulationResult:
        placements: dict[str, str | None] = {}
        pods = []
        before: dict[str, dict[str, int]] = {}
        after: dict[str, dict[str, int]] = {}
        for item in self.inputs.objects:
            if not isinstance(item.obj, Pod):
                continue
            created = self.created[id(item)]
            assert isinstance(created, Pod)
            key = created.key
            try:
                stored: Pod | None = self.api.get(Pod, created.name, namespace=created.namespace)
            except NotFound:
                stored = None  # a preemption victim
            node = stored.spec.node_name or None if stored is not None else None
            placements[key] = node
            source = stored or created
            if _running(item):
                _add_requests(before, created.spec.node_name, created, self.feature_gates)
            if node is not None:
                _add_requests(after, node, source, self.feature_gates)
            pods.append(
                PodSummary(
                    key=key,
                    priority=source.spec.priority or 0,
                    qos_class=source.status.qos_class or "",
                    scheduler_name=source.spec.scheduler_name or "default-scheduler",
                    node=node,
                    running_at_start=_running(item),
                    scheduling_gates=tuple(g.name for g in source.spec.scheduling_gates),
                    node_at_start=created.spec.node_name or None,
                    terminating_at_start=_running(item)
                    and item.obj.metadata.deletion_timestamp is not None,
                )
            )
        return SimulationResult(
            placements=placements,
            attempts=self.recorder.attempts(),
            attempt_records=self.recorder.records(),
            events=self.recorder.events(),
            pods=tuple(pods),
            warnings=self.inputs.warnings,
            notes=self._notes(),
            seed=self.seed,
            feature_gates=self.feature_gates,
            score_weights=self._score_weights(),
            nodes=tuple(
                NodeSummary(
                    name=item.obj.name,
                    allocatable={
                        name: resource_amount(name, item.obj.status.allocatable)
                        for name in item.obj.status.allocatable
                    },
                    requested_before=before.get(item.obj.name, {}),
                    requested_after=after.get(item.obj.name, {}),
                )
                for item in self.inputs.objects
                if isinstance(item.obj, Node)
            ),
        )


def _add_requests(
    totals: dict[str, dict[str, int]], node: str, pod: Pod, gates: FeatureGates
) -> None:
    """Count ``pod`` on ``node``: its effective requests as the run's scheduler counts them."""
    total = totals.setdefault(node, {})
    counted = resource_gates(gates)
    requests = pod_requests(
        pod,
        use_status_resources=counted.in_place_pod_vertical_scaling,
        skip_pod_level_resources=not counted.pod_level_resources,
    )
    for name, amount in requests.items():
        total[name] = total.get(name, 0) + amount
    total[PODS] = total.get(PODS, 0) + 1


def _running(item: SourcedObject) -> bool:
    return isinstance(item.obj, Pod) and bool(item.obj.spec.node_name)
