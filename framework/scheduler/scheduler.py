"""The Scheduler: configuration in, a running scheduling loop out.

:class:`Scheduler` wires the parts of the previous chapters together the way
kube-scheduler's ``New`` and ``Run`` do:

* one :class:`~framework.runtime.framework.Framework` per profile, built
  from the registry and the ``KubeSchedulerConfiguration``;
* one scheduling queue shared by all profiles, ordered by their (single,
  shared) QueueSort plugin, gated by their PreEnqueue plugins, and told
  which cluster events each plugin cares about;
* the cache and its snapshot;
* informers on pods and nodes feeding both.

It can be driven two ways. :meth:`Scheduler.run` starts the informers, the
queue's periodic flushes, the cache's expiry of assumed pods and the
scheduling loop on threads, as a real scheduler runs.
:meth:`Scheduler.schedule_pending` instead does everything on the calling
thread until no pod can move any more (binding cycles still run on their
worker threads, and are waited for): the simulator and most tests use it,
because it is deterministic. Either way there is one driver, so scheduling
cycles never overlap.

Mirrors ``New``, ``Run`` and ``profile.NewMap`` in
``kubernetes/kubernetes:pkg/scheduler/scheduler.go`` and
``pkg/scheduler/profile/profile.go`` (v1.33).
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Mapping
from typing import Any, cast

from framework.api_dispatcher import APICache, APIDispatcher
from framework.apiserver import ADDED, DELETED, MODIFIED, EventRecorder
from framework.apiserver.client import Client
from framework.apiserver.customresource import kind_for_event_resource
from framework.cache.cache import CLEAN_ASSUMED_PERIOD, Cache
from framework.cache.snapshot import Snapshot
from framework.cache.workload_manager import WorkloadManager
from framework.clock import Clock, RealClock
from framework.cluster_event import ActionType, ClusterEvent, EventResource
from framework.config import load_config
from framework.config.defaults import set_defaults
from framework.config.framework_checks import (
    FrameworkConfigError,
    PluginRef,
    check_profiles_share_queue_sort,
)
from framework.config.types import KubeSchedulerConfiguration
from framework.extender.build import build_extenders, with_ignored_extended_resources
from framework.featuregate import FeatureGates, new_feature_gates
from framework.interface import PreEnqueuePlugin
from framework.objects import Namespace, Node, Pod
from framework.objects.resource import EVENT_RESOURCE_KINDS as RESOURCE_EVENT_KINDS
from framework.objects.resources import resource_gates
from framework.objects.storage import EVENT_RESOURCE_KINDS
from framework.objects.workload import SchedulingPodGroup, Workload
from framework.plugins.registry import in_tree_registry
from framework.queue.hints import build_queueing_hint_map
from framework.queue.scheduling_queue import PriorityQueue
from framework.runtime.build import new_framework
from framework.runtime.framework import Framework
from framework.runtime.listers import InformerNamespaceLister
from framework.runtime.registry import PluginFactory
from framework.scheduler.engine import new_scheduling_algorithm
from framework.scheduler.eventhandlers import EventHandlers, Informer
from framework.scheduler.extenders import attach_extenders
from framework.scheduler.gc_policy import relax_young_collections, restore_collections
from framework.scheduler.schedule_one import Scheduling
from framework.scheduler.tracing import SchedulingTracer

__all__ = ["UNFINISHED_PODS", "Scheduler"]

#: The field selector of kube-scheduler's pod informer, which selects every unfinished pod.
UNFINISHED_PODS = "status.phase!=Succeeded,status.phase!=Failed"


def _ignore(change: str, old: object, new: object) -> None:
    """The namespace informer's handler: its store is all the plugins read (no cluster event)."""


_ACTIONS = {ADDED: ActionType.ADD, MODIFIED: ActionType.UPDATE, DELETED: ActionType.DELETE}

logger = logging.getLogger(__name__)


def _informed_kind(resource: str) -> type[Any] | None:
    """The kind watched for a plugin's events on ``resource``: a custom resource, a storage,
    DRA or gang kind."""
    return (
        kind_for_event_resource(resource)
        or EVENT_RESOURCE_KINDS.get(resource)
        or RESOURCE_EVENT_KINDS.get(resource)
        or _WORKLOAD_EVENT_KINDS.get(resource)
    )


# GangScheduling's resources (fwk.Workload, fwk.PodGroup in kube-scheduler's event names).
_WORKLOAD_EVENT_KINDS: Mapping[str, type[Any]] = {
    EventResource.WORKLOAD: Workload,
    EventResource.SCHEDULING_POD_GROUP: SchedulingPodGroup,
}


class Scheduler:
    """A kube-scheduler on the fake API server (or anything with its interface).

    ``seed`` seeds the RNG that breaks ties between top-scored nodes and
    each profile's RNG (preemption's random offset), so the same cluster,
    configuration and seed give the same placements and the same victims.
    ``binding_workers`` caps how many binding cycles run at once; None, the
    default, sets no cap, as kube-scheduler starts a goroutine per binding
    cycle. ``assumed_pod_ttl_seconds`` makes an assumed pod whose binding
    finished but never arrived from the watch expire after that long; None,
    the default, means never, as in v1.33. ``engine`` picks who runs the
    Filter and Score loops (:mod:`framework.scheduler.engine`): the
    reference, the default here, or ``batch`` or ``both``. ``inline_binding``
    runs on the scheduling thread the binding cycles that cannot block (see
    :meth:`~framework.scheduler.schedule_one.Scheduling.binds_inline`);
    ``bench`` uses it. ``feature_gates`` (default: the default emulated
    version's) are this scheduler's alone: every profile's plugins and the
    queue read them, so two schedulers in one process can emulate two
    releases.
    """

    def __init__(
        self,
        api: Client,
        config: KubeSchedulerConfiguration | None = None,
        registry: Mapping[str, PluginFactory] | None = None,
        *,
        clock: Clock | None = None,
        seed: int | None = None,
        binding_workers: int | None = None,
        assumed_pod_ttl_seconds: float | None = None,
        engine: str = "reference",
        inline_binding: bool = False,
        feature_gates: FeatureGates | None = None,
    ) -> None:
        self.api = api
        self.clock: Clock = clock or RealClock()
        self.feature_gates = feature_gates or new_feature_gates()
        self.config = (
            config
            if config is not None
            else set_defaults(KubeSchedulerConfiguration(), feature_gates=self.feature_gates)
        )
        self.registry = registry if registry is not None else in_tree_registry()
        self.cache = Cache(
            clock=self.clock,
            ttl_seconds=assumed_pod_ttl_seconds,
            resource_gates=resource_gates(self.feature_gates),
        )
        self.snapshot = Snapshot()
        #: Who belongs to which gang, fed by the pod informer (``sched.WorkloadManager``).
        self.workload_manager = WorkloadManager(self.clock)
        self.recorders: dict[str, EventRecorder] = {}
        self._seed = seed
        # Extenders are the scheduler's, not a profile's: every profile consults the same ones.
        self.extenders = build_extenders(self.config.extenders)
        self.config = with_ignored_extended_resources(self.config)
        # InterPodAffinity reads namespaces from this informer's store, as kube's plugins read
        # the shared informer factory's lister (no request per pod; RBAC: list and watch).
        self.namespace_informer: Informer[Namespace] = Informer(api, Namespace, _ignore)
        self.profiles = self._build_profiles()
        attach_extenders(self.profiles, self.extenders)
        self.queue = self._build_queue()
        for fwk in self.profiles.values():
            fwk.nominator = fwk.activator = self.queue  # the queue is both, as in Go
        # kube-scheduler's pod informer leaves finished pods out (newPodInformer in
        # pkg/scheduler/scheduler.go): a Succeeded or Failed pod holds no room on its
        # node, and one that finishes reaches the cache as a deletion.
        self.pod_informer: Informer[Pod] = Informer(
            api, Pod, self._on_pod, field_selector=UNFINISHED_PODS
        )
        self.node_informer: Informer[Node] = Informer(api, Node, self._on_node)
        self.custom_resource_informers = self._custom_resource_informers()
        #: With SchedulerAsyncAPICalls (beta, off by default), the scheduler's writes are queued
        #: here and run off the scheduling loop (:mod:`framework.api_dispatcher`); else None.
        self.api_dispatcher: APIDispatcher | None = None
        api_cache = None
        if self.feature_gates.enabled("SchedulerAsyncAPICalls"):
            self.api_dispatcher = APIDispatcher(api, self.config.parallelism or 16)
            api_cache = APICache(self.api_dispatcher, self.clock)
            for fwk in self.profiles.values():
                fwk.set_api_cacher(api_cache)
        self.handlers = EventHandlers(
            queue=self.queue,
            cache=self.cache,
            responsible=lambda pod: pod.spec.scheduler_name in self.profiles,
            on_pod_deleted=self._reject_waiting_pod,
            gang_scheduling=self.feature_gates.enabled("GangScheduling"),
            sync_with_dispatcher=(
                self.api_dispatcher.sync_object if self.api_dispatcher is not None else None
            ),
            workload_manager=self.workload_manager,
        )
        self.scheduling = Scheduling(
            api=api,
            queue=self.queue,
            cache=self.cache,
            snapshot=self.snapshot,
            profiles=self.profiles,
            algorithm=new_scheduling_algorithm(
                engine,
                self.config.percentage_of_nodes_to_score or 0,
                random.Random(seed),
                extenders=list(self.extenders),
            ),
            clock=self.clock,
            recorders=self.recorders,
            pod_lister=self.pod_informer.get,
            workload_manager=self.workload_manager,
            binding_workers=binding_workers,
            inline_binding=inline_binding,
        )
        self.scheduling.api_cache = api_cache
        self.scheduling.pod_group_cycle = self.feature_gates.enabled(
            "GenericWorkload"
        ) and self.feature_gates.at_least("1.36")
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._started = False
        self._running = False

    @classmethod
    def from_config_file(cls, api: Client, path: str, **kwargs: Any) -> Scheduler:
        """A scheduler from a KubeSchedulerConfiguration YAML file."""
        return cls(api, load_config(path), **kwargs)

    # --- construction -------------------------------------------------------------------------

    def _build_profiles(self) -> dict[str, Framework]:
        profiles: dict[str, Framework] = {}
        queue_sorts: list[tuple[Any, list[PluginRef]]] = []
        for profile in self.config.profiles:
            name = profile.scheduler_name or ""
            recorder = EventRecorder(self.api, component=name, clock=self.clock)
            self.recorders[name] = recorder
            fwk = new_framework(
                self.registry,
                profile,
                clock=self.clock,
                client=self.api,
                namespace_lister=InformerNamespaceLister(
                    self.namespace_informer.get, self.namespace_informer.list
                ),
                event_recorder=recorder,
                rng=random.Random(self._seed),
                feature_gates=self.feature_gates,
                workload_manager=self.workload_manager,
            )
            if name in profiles:
                raise FrameworkConfigError(f"duplicate profile with scheduler name {name!r}")
            profiles[name] = fwk
            queue_sorts.append((profile, [PluginRef(n) for n in fwk.plugin_names("queueSort")]))
        if not profiles:
            raise FrameworkConfigError("at least one profile is required")
        check_profiles_share_queue_sort(queue_sorts)
        return profiles

    def _build_queue(self) -> PriorityQueue:
        first = next(iter(self.profiles.values()))
        return PriorityQueue(
            first.queue_sort_less(),
            clock=self.clock,
            pre_enqueue_plugins={
                name: [p for p in fwk.plugins["preEnqueue"] if isinstance(p, PreEnqueuePlugin)]
                for name, fwk in self.profiles.items()
            },
            queueing_hint_map={
                name: build_queueing_hint_map(fwk.enqueue_plugins)
                for name, fwk in self.profiles.items()
            },
            pod_initial_backoff_seconds=float(self.config.pod_initial_backoff_seconds),
            pod_max_backoff_seconds=float(self.config.pod_max_backoff_seconds),
            pop_from_backoff_q=self.feature_gates.enabled("SchedulerPopFromBackoffQ"),
        )

    # --- informer callbacks -------------------------------------------------------------------

    def _on_pod(self, change: str, old: Pod | None, new: Pod | None) -> None:
        self.handlers.on_pod(change, old, new)

    def _on_node(self, change: str, old: Node | None, new: Node | None) -> None:
        self.handlers.on_node(change, old, new)

    def _reject_waiting_pod(self, pod: Pod) -> None:
        fwk = self.profiles.get(pod.spec.scheduler_name)
        if fwk is not None:
            fwk.reject_waiting_pod(pod.metadata.uid)

    # --- custom resources a plugin watches ------------------------------------------------------

    def _custom_resource_informers(self) -> list[Informer[Any]]:
        """An informer per custom resource some plugin registered events for (PodGroup).

        kube-scheduler watches such a resource with a dynamic informer, and
        each change of a kind a plugin registered moves the pods that plugin
        rejected (``addAllEventHandlers``, ``buildEvtResHandler``).
        """
        registered: dict[EventResource, ActionType] = {}
        for fwk in self.profiles.values():
            for _, events in fwk.events_to_register():
                for event in (e.event for e in events or ()):
                    if _informed_kind(event.resource) is not None:
                        known = registered.get(event.resource, ActionType.NONE)
                        registered[event.resource] = known | event.action_type
        informers: list[Informer[Any]] = []
        for resource, actions in registered.items():
            kind = _informed_kind(resource)
            assert kind is not None
            informers.append(Informer(self.api, kind, self._on_custom_resource(resource, actions)))
        return informers

    def _on_custom_resource(
        self, resource: EventResource, registered: ActionType
    ) -> Callable[[str, Any, Any], None]:
        def handle(change: str, old: Any, new: Any) -> None:
            action = _ACTIONS[change]
            if registered & action:
                event = ClusterEvent(resource, action)
                self.queue.move_all_to_active_or_backoff_queue(event, old, new, None)

        return handle

    # --- driving it ----------------------------------------------------------------------------

    def sync(self) -> int:
        """Apply every pod and node change that is ready; return how many."""
        if not self._started:
            # Nodes first: pods listed afterwards then find their nodes in the cache.
            self.namespace_informer.start()
            self.node_informer.start()
            self.pod_informer.start()
            for informer in self.custom_resource_informers:
                informer.start()
            self._started = True
        changes = self.namespace_informer.sync()
        changes += self.node_informer.sync() + self.pod_informer.sync()
        return changes + sum(informer.sync() for informer in self.custom_resource_informers)

    def schedule_pending(
        self, max_attempts: int | None = None, *, may_pop: Callable[[], bool] | None = None
    ) -> int:
        """Schedule on this thread until no pod is ready; return the number of attempts made.

        Binding cycles run on their worker threads meanwhile, as in a real
        scheduler; when no pod is ready, they are waited for and their
        effects (bound pods, freed room) applied before deciding to stop.
        Pods backing off or unschedulable stay where they are: advance the
        clock and flush the queue to give them another chance.

        With a binding gate (the simulator's), the held binding cycles are
        let through before each attempt, one at a time, and a cycle parked
        at Permit is not waited for. ``may_pop``, asked before each attempt,
        may hold the queue back (the simulator's idle limit).
        """
        if self._running:
            raise RuntimeError(
                "the scheduler is running its own loop (run()); a second driver would run two "
                "scheduling cycles at once: call stop() first, or use one of the two"
            )
        gate = self.scheduling.binding_gate
        attempts = 0
        while max_attempts is None or attempts < max_attempts:
            # The last cycle's writes land now, after it and before the binding cycles go on.
            self.dispatch_api_calls()
            if gate is not None:
                gate.settle()
            self.sync()
            self.cleanup_assumed_pods()
            if (may_pop is None or may_pop()) and self.scheduling.schedule_one(timeout=0):
                attempts += 1
                continue
            self._wait_for_bindings()
            self.dispatch_api_calls()
            if self.sync() == 0 and not ((may_pop is None or may_pop()) and self._has_ready_pod()):
                break
        self._wait_for_bindings()
        self.dispatch_api_calls()
        self.sync()
        return attempts

    def dispatch_api_calls(self) -> int:
        """Run the API calls queued so far (SchedulerAsyncAPICalls); how many ran.

        A stepped run's stand-in for the dispatcher's goroutines, which run
        while the scheduling loop goes on: called after each scheduling cycle
        and when the loop runs out of pods.
        """
        return self.api_dispatcher.dispatch() if self.api_dispatcher is not None else 0

    def _wait_for_bindings(self) -> None:
        gate = self.scheduling.binding_gate
        if gate is not None:
            gate.settle()
        else:
            self.scheduling.wait_for_bindings()

    def _has_ready_pod(self) -> bool:
        pending = self.queue.pending_pods_by_queue()
        if self.feature_gates.enabled("SchedulerPopFromBackoffQ") and self.queue.can_pop_backoff():
            return True
        return bool(pending.get("activeQ"))

    def run(self) -> None:
        """Start the informers, the queue's flushes, the cache's expiry and the scheduling loop.

        Each on a thread of its own; only the first call starts them, so
        there is never more than one scheduling loop.
        """
        if self._running:
            return
        self._running = True
        relax_young_collections()  # see framework.scheduler.gc_policy
        self.sync()
        self.queue.run()
        for name, target in (
            ("namespace-informer", self.namespace_informer.run),
            ("pod-informer", self.pod_informer.run),
            ("node-informer", self.node_informer.run),
            ("assumed-pod-cleanup", self._cleanup_loop),
            *(
                (("api-dispatcher", lambda: d.run(self._stop)),)
                if (d := self.api_dispatcher) is not None
                else ()
            ),
            ("scheduling-loop", self._loop),
            *((f"{i.kind.KIND}-informer", i.run) for i in self.custom_resource_informers),
        ):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.scheduling.schedule_one(timeout=0.1)
            except Exception:  # one pod's trouble must never stop the scheduler
                logger.exception("scheduling loop: an attempt failed unexpectedly; going on")

    def _cleanup_loop(self) -> None:
        # kube-scheduler's cache runs cleanupExpiredAssumedPods every second, on its clock.
        while True:
            self.cleanup_assumed_pods()
            if self.clock.wait(self._stop, CLEAN_ASSUMED_PERIOD):
                return

    def cleanup_assumed_pods(self) -> list[Pod]:
        """Drop the assumed pods whose binding finished more than the TTL ago; return them.

        Nothing expires without ``assumed_pod_ttl_seconds`` (v1.33's
        default). Tracers hear ``assumed_pod_expired`` for each pod dropped.
        As in Kubernetes, the freed room moves no pod in the queue.
        """
        expired = self.cache.cleanup_assumed_pods()
        tracer = self.scheduling.tracer
        if tracer is not None:
            for pod in expired:
                tracer.assumed_pod_expired(pod)
        return expired

    def stop(self) -> None:
        """Stop every thread this scheduler started, and wait for them and the binding cycles."""
        self._stop.set()
        if self._running:
            restore_collections()
        self._running = False
        self.namespace_informer.stop()
        self.pod_informer.stop()
        self.node_informer.stop()
        for informer in self.custom_resource_informers:
            informer.stop()
        for fwk in self.profiles.values():  # plugins with watches of their own (DynamicResources)
            points = cast("dict[str, list[Any]]", fwk.plugins)
            for plugin in {id(p): p for ps in points.values() for p in ps}.values():
                stop_watching = getattr(plugin, "stop_watching", None)
                if callable(stop_watching):
                    stop_watching()
        self.queue.close()
        for thread in self._threads:
            thread.join(timeout=10)
        self.scheduling.wait_for_bindings()
        if self.api_dispatcher is not None:
            # Go's Close drops what is still queued; the writes of the attempts made so far
            # (the last failures' statuses) are made first, so that a run ends as without the gate.
            self.api_dispatcher.dispatch()
            self.api_dispatcher.close()
        self.scheduling.shutdown()

    def add_tracer(self, tracer: SchedulingTracer) -> None:
        """Be told of each step of each pod (``cycle_started``, ``pod_bound``...; see the tracer)."""
        self.scheduling.add_tracer(tracer)
