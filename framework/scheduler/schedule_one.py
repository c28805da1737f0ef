"""One pod's trip through the framework: the scheduling cycle, then the binding cycle.

:meth:`Scheduling.schedule_one` pops the next pod and runs its **scheduling
cycle** on the calling thread — PreFilter to Permit, strictly one pod at a
time, so plugins there need no locks. If the cycle succeeds, the pod is
*assumed* on its node in the cache (the next pod already sees the room as
taken) and its **binding cycle** — WaitOnPermit, PreBind, Bind, PostBind — is
handed to a pool of worker threads, where many run at once while the loop
goes on to the next pod.

Failure has one shape wherever it happens: Unreserve (reverse order) and
forget the assumed pod if it got that far, put the pod back in the queue
with the plugins that rejected it, record a ``FailedScheduling`` event, and
write ``PodScheduled=False`` with the reason into the pod's status.

Nothing one pod does may stop the others. An exception that escapes a
cycle (a plugin's is already an Error status; this is the net under the
framework's own code) fails that attempt with reason ``SchedulerError``, as
an error returned from ``schedulingCycle`` or ``bindingCycle`` does in Go.
The event and the status are written after the pod is back in the queue,
and an API error writing them is logged and dropped, as kube-scheduler's
event broadcaster and ``updatePod`` do.

Mirrors ``ScheduleOne``, ``schedulingCycle``, ``bindingCycle``,
``handleBindingCycleError``, ``handleSchedulingFailure``, ``assume``,
``skipPodSchedule`` and ``updatePod`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one.go`` (v1.33, and a v1.35-era copy
for what the emulated release changes: with ``NominatedNodeNameForExpectation``
(beta, on from v1.35) the binding cycle first asks the PreBind plugins whether
they have work (``RunPreBindPreFlights``) and, if they do or the pod waits at
Permit, writes ``status.nominatedNodeName`` for the node it expects; from
v1.35 a failure with no PostFilter plugin clears the pod's nomination).
Extenders that bind go before the Bind plugins (:func:`framework.scheduler.extenders.bind`).
Simplified: no metrics; the pod status is written by an update
of the status subresource with retry, rather than a strategic-merge patch.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from framework.api_calls import patch_pod_status
from framework.api_dispatcher import APICache
from framework.apiserver import APIError, APIServer, EventRecorder
from framework.apiserver.client import Client
from framework.apiserver.events import truncate_message
from framework.cache.cache import Cache
from framework.cache.workload_manager import WorkloadManager
from framework.clock import Clock, rfc3339
from framework.cluster_event import ASSIGNED_POD_DELETE
from framework.cycle_state import PODS_TO_ACTIVATE_KEY, CycleState, PodsToActivate
from framework.interface import Diagnosis, FitError
from framework.objects import Pod, PodCondition
from framework.plugins.defaultbinder import DefaultBinder
from framework.queue.interface import SchedulingQueue
from framework.queue.scheduling_queue import PodAlreadyQueued
from framework.runtime.framework import Framework
from framework.scheduler.algorithm import ScheduleResult, SchedulingAlgorithm, SchedulingError
from framework.scheduler.binding_gate import BindingGate
from framework.scheduler.extenders import bind
from framework.scheduler.podgroup_cycle import schedule_one_pod_group
from framework.scheduler.tracing import SchedulingTracer, combine, traces_nodes
from framework.status import Code, Status
from framework.types import NominatingInfo, NominatingMode, PodInfo, QueuedPodInfo

__all__ = [
    "CycleOutcome",
    "Scheduling",
    "UnexpectedError",
]

REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"
CLEAR_NOMINATED_NODE = NominatingInfo("", NominatingMode.OVERRIDE)

logger = logging.getLogger(__name__)


class UnexpectedError(RuntimeError):
    """An exception escaped a scheduling or binding cycle; it fails that one attempt."""


@dataclasses.dataclass(slots=True)
class CycleOutcome:
    """What a scheduling cycle produced: a status, and what is known so far.

    ``diagnosis`` is set when no node fit (or Reserve/Permit rejected the
    chosen one); ``nominating_info`` says what to do with the pod's
    nominated node; ``failed_at`` names the extension point (``Reserve`` or
    ``Permit``) that failed the cycle after a node was chosen.
    """

    status: Status
    result: ScheduleResult | None = None
    assumed: QueuedPodInfo | None = None
    diagnosis: Diagnosis | None = None
    nominating_info: NominatingInfo | None = None
    failed_at: str = ""


class Scheduling:
    """The scheduling loop's body and the binding cycles it starts.

    Owned by :class:`~framework.scheduler.scheduler.Scheduler`, which wires
    the queue, the cache, the profiles and the API server together.
    """

    def __init__(
        self,
        *,
        api: Client,
        queue: SchedulingQueue,
        cache: Cache,
        snapshot: Any,
        profiles: dict[str, Framework],
        algorithm: SchedulingAlgorithm,
        clock: Clock,
        recorders: dict[str, EventRecorder],
        pod_lister: Callable[[str], Pod | None],
        workload_manager: WorkloadManager | None = None,
        binding_workers: int | None = None,
        inline_binding: bool = False,
    ) -> None:
        self.api = api
        #: The gangs' members, kept from the pod informer; without it no PodGroup cycle runs.
        self.workload_manager = workload_manager
        self.inline_binding = inline_binding
        self.queue = queue
        self.cache = cache
        self.snapshot = snapshot
        self.profiles = profiles
        self.algorithm = algorithm
        # Batching compares cycles across pods by the queue's count (Go's sched.CurrentCycle()).
        algorithm.cycle_source = queue.scheduling_cycle
        self.clock = clock
        self.recorders = recorders
        self._get_pod = pod_lister
        # kube-scheduler starts a goroutine per binding cycle: no limit. An unbounded pool is
        # that, reusing idle threads; a cap would let blocked PreBinds starve the others.
        self._pool = ThreadPoolExecutor(
            max_workers=binding_workers or sys.maxsize, thread_name_prefix="binding"
        )
        self._bindings: set[Future[None]] = set()
        self._bindings_lock = threading.Lock()
        #: Told each step of each attempt (:meth:`add_tracer`); None, when nobody listens, costs
        #: nothing.
        self.tracer: SchedulingTracer | None = None
        self._tracers: list[SchedulingTracer] = []
        #: Where a binding thread may be held after WaitOnPermit (the simulator's turnstile).
        self.binding_gate: BindingGate | None = None
        #: Whether a member of a PodGroup is scheduled with its siblings (v1.36+ with
        #: GenericWorkload; :mod:`framework.scheduler.podgroup_cycle`).
        self.pod_group_cycle = False
        #: With SchedulerAsyncAPICalls, where status patches go (:mod:`framework.api_dispatcher`).
        self.api_cache: APICache | None = None

    def add_tracer(self, tracer: SchedulingTracer) -> None:
        """Tell ``tracer`` too what each attempt does, from the cycle's start to its binding's end."""
        self._tracers.append(tracer)
        self._wire_tracers()

    def set_tracer(self, tracer: SchedulingTracer | None) -> None:
        """Tell ``tracer`` alone (None: nobody) what each attempt does."""
        self._tracers = [] if tracer is None else [tracer]
        self._wire_tracers()

    def _wire_tracers(self) -> None:
        self.tracer = combine(self._tracers)
        # The algorithm calls its tracer once per node: only for one that listens there.
        self.algorithm.tracer = combine([t for t in self._tracers if traces_nodes(t)])

    # --- the loop body -----------------------------------------------------------------------

    def schedule_one(self, timeout: float | None = None) -> bool:
        """Schedule the next pod; False if none came within ``timeout`` (or the queue closed)."""
        queued = self.queue.pop(timeout=timeout)
        if queued is None:
            return False
        pod = queued.pod
        fwk = self.profiles.get(pod.spec.scheduler_name)
        if fwk is None:
            # kube logs "Error occurred" and drops the pod: no profile would ever take it.
            self.queue.done(pod.metadata.uid)
            return True
        if self._skip_pod_schedule(fwk, pod):
            self.queue.done(pod.metadata.uid)
            return True
        if self.pod_group_cycle and pod.spec.scheduling_group is not None:
            schedule_one_pod_group(self, fwk, queued)
            return True
        self.schedule_popped(fwk, queued)
        return True

    def schedule_popped(
        self,
        fwk: Framework,
        queued: QueuedPodInfo,
        planned: tuple[CycleState, ScheduleResult] | None = None,
    ) -> None:
        """A popped pod's scheduling cycle, then its binding cycle (on a thread) or its failure.

        ``planned`` is a PodGroup cycle's trial for this member: its state and
        node, which the cycle assumes without searching again (Go's
        ``prepareForBindingCycle``).
        """
        pod = queued.pod
        if planned is None:
            state = CycleState()
            state.write(PODS_TO_ACTIVATE_KEY, PodsToActivate())
        else:
            state = planned[0]
        start = self.clock.now()
        if self.tracer is not None:
            self.tracer.cycle_started(fwk, queued)
        try:
            outcome = self.scheduling_cycle(
                state, fwk, queued, start, planned[1] if planned else None
            )
        except Exception as exc:  # the net under the cycle: fail this pod's attempt, not the loop
            outcome = self._unexpected_in_scheduling_cycle(pod, exc)
        if self.tracer is not None:
            self.tracer.cycle_ended(queued, outcome)
        if not outcome.status.is_success():
            self.handle_scheduling_failure(
                fwk, queued, outcome.status, outcome.diagnosis, outcome.nominating_info, start
            )
            return
        assert outcome.result is not None and outcome.assumed is not None
        pre_flight = None
        if fwk.feature_gates.enabled("NominatedNodeNameForExpectation"):
            # Go does this first thing in the binding goroutine; here it is done before the
            # hand-off, so that its write comes in a fixed order with the next cycle's.
            pre_flight = self._expect_node(state, fwk, outcome.assumed.pod, outcome.result)
        if self.binds_inline(fwk, outcome.assumed.pod):
            self._binding_cycle_guarded(
                state, fwk, outcome.result, outcome.assumed, start, pre_flight
            )
            return
        future = self._pool.submit(
            self._binding_cycle_guarded,
            state,
            fwk,
            outcome.result,
            outcome.assumed,
            start,
            pre_flight,
        )
        with self._bindings_lock:
            self._bindings.add(future)
        future.add_done_callback(self._binding_done)

    def record_failed_attempt(
        self,
        fwk: Framework,
        queued: QueuedPodInfo,
        status: Status,
        diagnosis: Diagnosis | None,
        start: float,
        nominated_node: str = "",
    ) -> None:
        """An attempt decided elsewhere (a PodGroup cycle) ends in failure: trace it, requeue.

        ``nominated_node``: where workload-aware preemption made room for the pod.
        """
        nominating = NominatingInfo(nominated_node, NominatingMode.OVERRIDE)
        if self.tracer is not None:
            self.tracer.cycle_started(fwk, queued)
            outcome = CycleOutcome(status, diagnosis=diagnosis, nominating_info=nominating)
            self.tracer.cycle_ended(queued, outcome)
        self.handle_scheduling_failure(fwk, queued, status, diagnosis, nominating, start)

    def binds_inline(self, fwk: Framework, pod: Pod) -> bool:
        """Whether this pod's binding cycle runs here, on the scheduling thread, instead of a thread.

        Only when asked (``inline_binding``), and only when it cannot block:
        the pod is not waiting at Permit, no PreBind plugin has work for it
        (``pre_bind_needed``; one without that method always may),
        its only binder is DefaultBinder, and the client is the in-memory API
        server (a POST to a real one waits on the network). kube-scheduler
        starts a goroutine per binding cycle; a binding that cannot wait
        finishes before the next cycle would look at the cluster in either
        case, so the next cycle sees one of the states Go's could see, and
        the thread hand-off (about 0.3 ms of a pod's CPU) is saved.
        """
        if not self.inline_binding or fwk.will_wait_on_permit(pod):
            return False
        if self.algorithm.extenders:
            return False
        for plugin in fwk.plugins["preBind"]:
            # A PreBind plugin may say it has nothing to do for this pod (VolumeBinding,
            # for a pod without claims); any other may wait on the network.
            needed = getattr(plugin, "pre_bind_needed", None)
            if needed is None or needed(pod):
                return False
        binders = fwk.plugins["bind"]
        return (
            len(binders) == 1 and type(binders[0]) is DefaultBinder and type(self.api) is APIServer
        )

    def _unexpected_in_scheduling_cycle(self, pod: Pod, exc: Exception) -> CycleOutcome:
        logger.exception("scheduling cycle of pod %s failed unexpectedly", pod.key)
        if self.cache.is_assumed_pod(pod):  # got as far as assume: give the room back
            with contextlib.suppress(Exception):
                self._forget(self.cache.get_pod(pod))
        error = UnexpectedError(f"scheduling cycle failed: {type(exc).__name__}: {exc}")
        error.__cause__ = exc
        return CycleOutcome(Status.as_error(error), nominating_info=CLEAR_NOMINATED_NODE)

    def _binding_done(self, future: Future[None]) -> None:
        with self._bindings_lock:
            self._bindings.discard(future)

    def wait_for_bindings(self) -> None:
        """Block until every binding cycle started so far has finished."""
        while True:
            with self._bindings_lock:
                pending = list(self._bindings)
            if not pending:
                return
            for future in pending:
                future.result()

    def binding_cycles_in_flight(self) -> int:
        with self._bindings_lock:
            return len(self._bindings)

    def binding_futures(self) -> list[Future[None]]:
        """The binding cycles started and not yet finished (the simulator waits on them)."""
        with self._bindings_lock:
            return [f for f in self._bindings if not f.done()]

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)

    def _skip_pod_schedule(self, fwk: Framework, pod: Pod) -> bool:
        if pod.metadata.deletion_timestamp:
            self._event(
                fwk,
                pod,
                "Warning",
                "FailedScheduling",
                "Scheduling",
                f"skip schedule deleting pod: {pod.key}",
            )
            return True
        # An update of a pod already assumed (say, a label change) must not schedule it twice.
        return bool(self.cache.is_assumed_pod(pod))

    # --- the scheduling cycle ----------------------------------------------------------------------

    def scheduling_cycle(
        self,
        state: CycleState,
        fwk: Framework,
        queued: QueuedPodInfo,
        start: float,
        planned: ScheduleResult | None = None,
    ) -> CycleOutcome:
        """One pod's scheduling cycle: choose a node, assume the pod there, Reserve and Permit.

        Go's ``schedulingCycle``. It refreshes the snapshot, asks the
        algorithm for a node (PreFilter, Filter, Score; on a FitError the
        PostFilter plugins, preemption among them, may nominate a node), then
        *assumes* the pod on the chosen node in the cache, so that the next
        pod's cycle already counts it, and runs Reserve and Permit. A Reserve
        or Permit failure unreserves every plugin and forgets the assumed pod.
        A Permit Wait counts as success here: the binding cycle waits on it.

        Runs on the scheduling thread, one pod at a time. It never raises: the
        outcome's status says how the attempt ended, and ``schedule_one``
        hands a failure to :meth:`handle_scheduling_failure` and a success to
        the binding cycle.
        """
        pod = queued.pod
        try:
            self.cache.update_snapshot(self.snapshot)
        except (
            Exception
        ) as error:  # kube's schedulePod returns it: this attempt fails, not the loop
            return CycleOutcome(Status.as_error(error), nominating_info=CLEAR_NOMINATED_NODE)
        fwk.snapshot = self.snapshot
        try:
            result = planned or self.algorithm.schedule_pod(fwk, state, pod, self.snapshot)
        except FitError as fit_error:
            return self._after_fit_error(fwk, state, pod, fit_error)
        except SchedulingError as error:
            return CycleOutcome(error.status, nominating_info=CLEAR_NOMINATED_NODE)
        if self.tracer is not None:
            self.tracer.host_suggested(queued, result)

        # Assume: the cache counts the pod on its node before it is bound.
        host = result.suggested_host
        assumed_pod = dataclasses.replace(pod, spec=dataclasses.replace(pod.spec, node_name=host))
        assumed = dataclasses.replace(queued, pod_info=PodInfo(assumed_pod))
        try:
            self.cache.assume_pod(assumed.pod_info)
        except Exception as error:  # any cache refusal is an Error status for this pod
            return CycleOutcome(
                Status.as_error(error), result, assumed, None, CLEAR_NOMINATED_NODE
            )
        self.queue.delete_nominated_pod_if_exists(pod)

        status = fwk.run_reserve_plugins_reserve(state, assumed_pod, host)
        failed_at = "Reserve"
        if status.is_success():
            failed_at = "Permit"
            status = fwk.run_permit_plugins(state, assumed_pod, host)
            if status.is_wait():
                status = Status.success()  # the binding cycle will wait on it
        if not status.is_success():
            fwk.run_reserve_plugins_unreserve(state, assumed_pod, host)
            self._forget(assumed_pod)
            outcome = CycleOutcome(status, result, assumed, None, CLEAR_NOMINATED_NODE, failed_at)
            if status.is_rejected():
                outcome.status, outcome.diagnosis = _rejected_on_node(pod, host, status)
            return outcome

        self._activate_pods_to_activate(state)
        return CycleOutcome(Status.success(), result, assumed)

    def _after_fit_error(
        self, fwk: Framework, state: CycleState, pod: Pod, fit_error: FitError
    ) -> CycleOutcome:
        nominating: NominatingInfo | None = None
        if fwk.has_post_filter_plugins():
            result, post = fwk.run_post_filter_plugins(
                state, pod, fit_error.diagnosis.node_to_status
            )
            # Whatever the outcome, an error's text included (schedule_one.go schedulingCycle).
            fit_error.diagnosis.post_filter_msg = post.message()
            if result is not None:
                nominating = result.nominating_info
        else:
            # With no PostFilter plugin v1.33 returns an empty ScheduleResult, so the pod keeps
            # whatever nomination it had; v1.35 clears it, as every other failure there does
            # (schedulingCycle, pkg/scheduler/schedule_one.go, v1.35-era copy).
            if fwk.feature_gates.at_least("1.35"):
                nominating = CLEAR_NOMINATED_NODE
        status = Status(Code.UNSCHEDULABLE, (), fit_error)
        return CycleOutcome(status, diagnosis=fit_error.diagnosis, nominating_info=nominating)

    def _forget(self, assumed_pod: Pod) -> bool:
        try:
            self.cache.forget_pod(assumed_pod)
        except Exception:  # kube logs "scheduler cache ForgetPod failed" and goes on
            return False
        return True

    def _activate_pods_to_activate(self, state: CycleState) -> None:
        try:
            pods = state.read_as(PODS_TO_ACTIVATE_KEY, PodsToActivate)
        except (KeyError, TypeError):
            return
        with pods.lock:
            if pods.map:
                self.queue.activate(dict(pods.map))
                pods.map.clear()

    # --- the binding cycle ----------------------------------------------------------------------------

    def _binding_cycle_guarded(
        self,
        state: CycleState,
        fwk: Framework,
        result: ScheduleResult,
        assumed: QueuedPodInfo,
        start: float,
        pre_flight: Status | None = None,
    ) -> None:
        try:
            status = self.binding_cycle(state, fwk, result, assumed, pre_flight)
        except Exception as exc:  # the net under the cycle: this pod's binding fails, no more
            logger.exception("binding cycle of pod %s failed unexpectedly", assumed.pod.key)
            error = UnexpectedError(f"binding cycle failed: {type(exc).__name__}: {exc}")
            error.__cause__ = exc
            status = Status.as_error(error)
        if not status.is_success():
            self.handle_binding_cycle_error(state, fwk, assumed, start, result, status)
        if self.tracer is not None:
            self.tracer.binding_ended(assumed, status)

    def binding_cycle(
        self,
        state: CycleState,
        fwk: Framework,
        result: ScheduleResult,
        assumed: QueuedPodInfo,
        pre_flight: Status | None = None,
    ) -> Status:
        """One pod's binding cycle: wait at Permit, PreBind, Bind, PostBind.

        Go's ``bindingCycle``. It may run on a thread of its own, beside the
        next pods' scheduling cycles. It waits while the pod is parked at
        Permit; a Permit rejection there is about the node and comes back as
        a FitError's status. Past Permit the pod's in-flight event tracking
        ends (``queue.done``), PreBind and Bind run (an extender that binds
        goes first), the cache learns the binding is finished, a ``Scheduled``
        event is recorded and PostBind runs. Any failure is returned, not
        raised; the caller hands it to :meth:`handle_binding_cycle_error`.

        ``pre_flight`` is what ``_expect_node`` answered, when it ran
        before the hand-off; with ``NominatedNodeNameForExpectation`` on and
        no answer given, it runs here first, as in Go.
        """
        pod = assumed.pod
        host = result.suggested_host
        if self.tracer is not None:
            self.tracer.binding_started(assumed, host)
        if pre_flight is None and fwk.feature_gates.enabled("NominatedNodeNameForExpectation"):
            pre_flight = self._expect_node(state, fwk, pod, result)
        if pre_flight is not None and (pre_flight.code is Code.ERROR or pre_flight.is_rejected()):
            return pre_flight
        status = fwk.wait_on_permit(pod)
        if self.binding_gate is not None:
            self.binding_gate.wait_turn(assumed)
        if self.tracer is not None:
            self.tracer.permit_waited(assumed, status)
        if not status.is_success():
            if status.is_rejected():
                # Only a Permit rejection is about the node: it becomes a FitError over it.
                return _rejected_on_node(pod, host, status)[0]
            return status
        # From here on a failure is an error, not a rejection: the in-flight event tracking ends.
        self.queue.done(pod.metadata.uid)
        if self.api_cache is not None and pre_flight is not None and pre_flight.is_success():
            # PreBind has work, and takes time in a cluster: the dispatcher runs meanwhile, so
            # the nomination written for it lands before PreBind, not overwritten by the binding.
            self.api_cache.dispatcher.dispatch()
        status = fwk.run_pre_bind_plugins(state, pod, host)
        if not status.is_success():
            return status
        status = bind(self.algorithm.extenders, fwk, state, pod, host)
        if not status.is_success():
            return status
        with contextlib.suppress(Exception):  # kube only logs a FinishBinding failure
            self.cache.finish_binding(pod)
        self._event(
            fwk,
            pod,
            "Normal",
            "Scheduled",
            "Binding",
            f"Successfully assigned {pod.key} to {host}",
        )
        fwk.run_post_bind_plugins(state, pod, host)
        self._activate_pods_to_activate(state)
        if self.tracer is not None:
            self.tracer.pod_bound(assumed, host)
        return Status.success()

    def handle_binding_cycle_error(
        self,
        state: CycleState,
        fwk: Framework,
        assumed: QueuedPodInfo,
        start: float,
        result: ScheduleResult,
        status: Status,
    ) -> None:
        """Undo a failed binding cycle and send the pod back (``handleBindingCycleError``).

        Every Reserve plugin's Unreserve runs and the assumed pod is
        forgotten, freeing its room on the node. That freed room may help
        other pods, so they are moved as after an assigned pod's deletion:
        at once after an error, but after the pod is requeued when the cycle
        was *rejected* (so the move is not counted in the pod's own flight),
        never moving the pod itself. The pod then goes through
        :meth:`handle_scheduling_failure`, with the FitError's diagnosis when
        Permit rejected it.
        """
        pod = assumed.pod
        rejected = status.is_rejected()
        fwk.run_reserve_plugins_unreserve(state, pod, result.suggested_host)
        forgotten = self._forget(pod)
        if forgotten and not rejected:
            # The room the assumed pod held is free again: that may help other pods.
            self.queue.move_all_to_active_or_backoff_queue(ASSIGNED_POD_DELETE, pod, None, None)
        # A WaitOnPermit rejection carries its FitError; a PreBind or Bind rejection names no
        # plugin to wait for, so, as in Kubernetes, the pod only backs off.
        diagnosis = status.error.diagnosis if isinstance(status.error, FitError) else None
        self.handle_scheduling_failure(
            fwk, assumed, status, diagnosis, CLEAR_NOMINATED_NODE, start
        )
        if forgotten and rejected:
            # Kubernetes defers this move: made while the rejected pod is still in flight, it
            # would be logged in the pod's own flight and send it to backoffQ, where a pod no
            # event has helped does not belong. The pod itself is never moved by it.
            self.queue.move_all_to_active_or_backoff_queue(
                ASSIGNED_POD_DELETE,
                pod,
                None,
                lambda other: other.metadata.uid != pod.metadata.uid,
            )

    # --- failure --------------------------------------------------------------------------------------

    def handle_scheduling_failure(
        self,
        fwk: Framework,
        queued: QueuedPodInfo,
        status: Status,
        diagnosis: Diagnosis | None,
        nominating: NominatingInfo | None,
        start: float,
    ) -> None:
        """Requeue the pod with its rejectors, tell the user (event) and the pod (status)."""
        reason = REASON_UNSCHEDULABLE if status.is_rejected() else REASON_SCHEDULER_ERROR
        pod = queued.pod
        if diagnosis is not None:
            # Only these plugins' events can make the pod schedulable again.
            queued.unschedulable_plugins = set(diagnosis.unschedulable_plugins)
            queued.pending_plugins = set(diagnosis.pending_plugins)

        current = self._get_pod(pod.key)
        if current is None or current.metadata.uid != pod.metadata.uid:
            self.queue.done(pod.metadata.uid)  # deleted meanwhile: nothing to requeue
        elif current.spec.node_name:
            self.queue.done(pod.metadata.uid)  # bound meanwhile (by someone else)
        else:
            fresh = dataclasses.replace(queued, pod_info=PodInfo(current))
            fresh.unschedulable_plugins = queued.unschedulable_plugins
            fresh.pending_plugins = queued.pending_plugins
            # If an update re-added it meanwhile, kube logs PodAlreadyQueued and goes on.
            with contextlib.suppress(PodAlreadyQueued):
                self.queue.add_unschedulable_if_not_present(fresh, self.queue.scheduling_cycle())

        if nominating is not None:
            self.queue.add_nominated_pod(PodInfo(pod), nominating)
        message = truncate_message(status.message())
        self._event(fwk, pod, "Warning", "FailedScheduling", "Scheduling", message)
        self._update_pod_status(pod, reason, message, nominating)
        if self.tracer is not None:
            self.tracer.scheduling_failed(queued, status)

    def _update_pod_status(
        self, pod: Pod, reason: str, message: str, nominating: NominatingInfo | None
    ) -> None:
        condition = PodCondition(
            type="PodScheduled", status="False", reason=reason, message=message
        )
        self._update_pod(pod, condition, nominating)

    def _update_pod(
        self, pod: Pod, condition: PodCondition | None, nominating: NominatingInfo | None
    ) -> None:
        """Go's ``updatePod``: through the API dispatcher when there is one, else at once."""
        if self.api_cache is not None:  # SchedulerAsyncAPICalls: queued, the loop goes on
            self.api_cache.patch_pod_status(pod, condition, nominating)
            return
        conditions = [condition] if condition is not None else []
        patch_pod_status(self.api, pod, conditions, nominating, lambda: rfc3339(self.clock.now()))

    def _expect_node(
        self, state: CycleState, fwk: Framework, pod: Pod, result: ScheduleResult
    ) -> Status:
        """Nominate the pod to its node if binding will take time; the PreBind pre-flights' answer.

        ``NominatedNodeNameForExpectation`` (beta, on from v1.35): when a
        PreBind plugin has work for the pod (its ``PreBindPreFlight`` says
        Success) or the pod waits at Permit, the pod may sit assumed on its
        node for a while, and other components, the cluster autoscaler
        first, should know where it is going. An Error (or a rejection, which
        pre-flights may not give) fails the binding cycle.
        """
        pre_flight = fwk.run_pre_bind_pre_flights(state, pod, result.suggested_host)
        if pre_flight.code is Code.ERROR or pre_flight.is_rejected():
            return pre_flight
        if pre_flight.is_success() or fwk.will_wait_on_permit(pod):
            self._write_nominated_node_name(pod, result.suggested_host)
        return pre_flight

    def _write_nominated_node_name(self, pod: Pod, host: str) -> None:
        """``status.nominatedNodeName = host`` (``updatePod`` with only a NominatingInfo).

        Not critical: an API error is logged and the binding goes on, as in Go.
        """
        self._update_pod(pod, None, NominatingInfo(host, NominatingMode.OVERRIDE))

    def _recorder(self, fwk: Framework) -> EventRecorder:
        return self.recorders[fwk.profile_name]

    def _event(
        self, fwk: Framework, pod: Pod, type: str, reason: str, action: str, message: str
    ) -> None:
        """Record an Event; an API error is logged and dropped, as Go's event broadcaster does."""
        try:
            self._recorder(fwk).event(pod, type, reason, action, message)
        except APIError as error:
            logger.warning("recording event %s for pod %s: %s", reason, pod.key, error)


def _rejected_on_node(pod: Pod, host: str, status: Status) -> tuple[Status, Diagnosis]:
    """A Reserve, Permit or binding rejection as a FitError over the one chosen node."""
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set(host, status)
    diagnosis.add_plugin_status(status)
    return Status(status.code, (), FitError(pod, 1, diagnosis), status.plugin), diagnosis
