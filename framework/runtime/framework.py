"""The framework runtime: one profile's plugins, and the rules for running each extension point.

A :class:`Framework` holds, for one profile (one ``schedulerName``), the
ordered list of plugins enabled at each extension point and the Score
weights. Its ``run_*`` methods are the only way the scheduler calls plugins,
and each one applies Kubernetes' rule for its point: which status codes stop
the run, which are remembered, which become errors, in which order plugins
are called (Unreserve in reverse), and what is recorded in the CycleState
(the plugins to skip at Filter and Score).

Every plugin call goes through :func:`framework.runtime.guard.call`: a plugin
that *raises*, or returns what Go's types would not let it return, gets an
``Error`` status naming it, which fails that pod's attempt only. That guard
has no Go counterpart and lives in its own module, so that this one reads
as ``framework.go`` does.

The Framework is also the plugins' :class:`~framework.interface.Handle`:
plugins are built with it, and reach the current snapshot, the API client,
the event recorder, the waiting pods and the nominated pods through it, and
read the run's feature gates from its ``feature_gates`` when they are built.

Mirrors ``frameworkImpl`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``
(v1.33), with ``SignPod`` and the batching hooks of v1.35
(:mod:`framework.runtime.signature`, :mod:`framework.runtime.batch`).
Simplified: no metrics, no extenders here; Filter and Score run on
one thread (kube-scheduler spreads them over ``parallelism`` goroutines).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypedDict, TypeVar, cast, get_args, get_type_hints

from framework.cache.workload_manager import WorkloadManager
from framework.clock import Clock, RealClock
from framework.cycle_state import CycleState
from framework.featuregate import FeatureGates, new_feature_gates
from framework.interface import (
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    NodePluginScores,
    NodeScore,
    NodeToStatus,
    PermitPlugin,
    Plugin,
    PodActivator,
    PodNominator,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    SignPlugin,
)
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.runtime.batch import OpportunisticBatch
from framework.runtime.guard import PluginRaised, call, check_normalized
from framework.runtime.listers import ClientNamespaceLister, NamespaceLister
from framework.runtime.parallelize import DEFAULT_PARALLELISM, Parallelizer
from framework.runtime.scoring import InvalidScoreError, combine_scores
from framework.runtime.signature import SCHEDULER_NAME_SIGNER_NAME, canonical
from framework.runtime.waiting_pods import WaitingPodImpl, WaitingPodsMap
from framework.status import Code, Status, as_status
from framework.types import NominatingMode, PodInfo

__all__ = [
    "EXTENSION_POINTS",
    "Framework",
    "PluginRaised",
    "PluginsByPoint",
]

_T = TypeVar("_T")

logger = logging.getLogger(__name__)


class PluginsByPoint(TypedDict):
    """The plugins enabled at each extension point, in order, each list typed by its point.

    The fields of Go's ``frameworkImpl`` (``preFilterPlugins []framework.PreFilterPlugin``,
    ...), keyed by the configuration's names.
    """

    preEnqueue: list[PreEnqueuePlugin]
    queueSort: list[QueueSortPlugin]
    preFilter: list[PreFilterPlugin]
    filter: list[FilterPlugin]
    postFilter: list[PostFilterPlugin]
    preScore: list[PreScorePlugin]
    score: list[ScorePlugin]
    reserve: list[ReservePlugin]
    permit: list[PermitPlugin]
    preBind: list[PreBindPlugin]
    bind: list[BindPlugin]
    postBind: list[PostBindPlugin]


EXTENSION_POINTS: dict[str, type] = {
    point: get_args(hint)[0] for point, hint in get_type_hints(PluginsByPoint).items()
}
"""The extension points by their configuration names, with the Protocol a plugin needs for each.

Read off :class:`PluginsByPoint`; the names and their order are the
configuration's (:data:`framework.config.types.EXTENSION_POINTS`), which a
test checks.
"""


def _no_plugins() -> PluginsByPoint:
    return cast(PluginsByPoint, {point: [] for point in EXTENSION_POINTS})


class Framework:
    """One profile: its plugins per extension point, its weights, and the runners.

    Build it with :meth:`from_plugins` (plugins already constructed, used by
    tests and chapters) or from configuration with
    :func:`framework.runtime.build.new_framework`.
    """

    def __init__(
        self,
        profile_name: str,
        *,
        clock: Clock | None = None,
        client: Any = None,
        event_recorder: Any = None,
        nominator: PodNominator | None = None,
        activator: PodActivator | None = None,
        percentage_of_nodes_to_score: int | None = None,
        parallelism: int = DEFAULT_PARALLELISM,
        rng: random.Random | None = None,
        namespace_lister: NamespaceLister | None = None,
        feature_gates: FeatureGates | None = None,
        workload_manager: WorkloadManager | None = None,
    ) -> None:
        self.profile_name = profile_name
        # The run's gates, read by plugin factories (Go hands them over as feature.Features).
        self.feature_gates: FeatureGates = feature_gates or new_feature_gates()
        # Plugins that draw at random (preemption's offset) use this, so a seed reproduces a run.
        self._rng = rng or random.Random()
        self._parallelizer = Parallelizer(parallelism)
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self._clock: Clock = clock or RealClock()
        self._client = client
        # Without the scheduler's informer (a Framework built alone), namespaces are read from
        # the client, one request per read.
        self._namespace_lister = namespace_lister or (
            ClientNamespaceLister(client) if client is not None else None
        )
        self._event_recorder = event_recorder
        # The scheduler's, fed by its pod informer; a Framework built alone has none.
        self._workload_manager = workload_manager
        self.nominator = nominator
        self.activator = activator
        #: With SchedulerAsyncAPICalls, the scheduler's API cache (``APICacher()``); else None.
        self._api_cacher: Any = None
        self.waiting_pods = WaitingPodsMap()
        self.snapshot: Any = None  # the scheduler sets it at the start of each cycle
        self.plugins: PluginsByPoint = _no_plugins()
        self.score_plugin_weight: dict[str, int] = {}
        # The PreFilter plugins that have PreFilterExtensions, with them, found
        # on the first AddPod/RemovePod rather than on every one: preemption's
        # dry runs make thousands of those calls per cycle.
        self._pre_filter_extensions: (
            list[tuple[str, PreFilterPlugin, PreFilterExtensions]] | None
        ) = None
        self.enqueue_plugins: list[Plugin] = []
        #: Default-profile plugins left out because this project does not implement them yet.
        self.skipped_plugins: list[str] = []
        self._extenders: list[Any] = []  # the scheduler's, shared by every profile
        # Opportunistic batching (v1.35+): the plugins that sign pods, whether every
        # PreFilter/Filter/PreScore/Score plugin can, and the stored node list.
        self.batchable_plugins: list[SignPlugin] = []
        self.enable_signatures = True
        self.batch = OpportunisticBatch(self)

    @classmethod
    def from_plugins(
        cls,
        profile_name: str,
        plugins: Mapping[str, Sequence[Plugin]],
        score_weights: Mapping[str, int] | None = None,
        **kwargs: Any,
    ) -> Framework:
        """A framework with these plugins at these points (weights default to 1)."""
        fwk = cls(profile_name, **kwargs)
        fwk.set_plugins(plugins, score_weights or {})
        return fwk

    def set_plugins(
        self, plugins: Mapping[str, Sequence[Plugin]], weights: Mapping[str, int]
    ) -> None:
        for point, enabled in plugins.items():
            protocol = EXTENSION_POINTS[point]
            for plugin in enabled:
                if not isinstance(plugin, protocol):
                    raise TypeError(f'plugin "{plugin.name()}" does not extend {point} plugin')
            # Checked just above against the point's Protocol; a TypedDict takes no variable key.
            cast("dict[str, list[Plugin]]", self.plugins)[point] = list(enabled)
        self._pre_filter_extensions = None
        self.score_plugin_weight = {
            p.name(): weights.get(p.name(), 1) or 1 for p in self.plugins["score"]
        }
        # Plugins at these points can reject a pod, so their events may requeue it.
        seen: dict[str, Plugin] = {}
        for at_point in (
            self.plugins["preEnqueue"],
            self.plugins["preFilter"],
            self.plugins["filter"],
            self.plugins["reserve"],
            self.plugins["permit"],
        ):
            for plugin in at_point:
                seen.setdefault(plugin.name(), plugin)
        self.enqueue_plugins = list(seen.values())
        self.compute_batchable_plugins()

    # --- the Handle plugins see -----------------------------------------------------------------

    def snapshot_shared_lister(self) -> Any:
        return self.snapshot

    def client(self) -> Any:
        return self._client

    def api_cacher(self) -> Any:
        """The API dispatcher's front (:class:`~framework.api_dispatcher.APICache`), or None.

        Go's ``APICacher()``: non-nil only with ``SchedulerAsyncAPICalls`` on.
        """
        return self._api_cacher

    def set_api_cacher(self, cacher: Any) -> None:
        self._api_cacher = cacher

    def namespace_lister(self) -> NamespaceLister | None:
        """The scheduler's namespace lister (``SharedInformerFactory().Core().V1().Namespaces().Lister()``)."""
        return self._namespace_lister

    def event_recorder(self) -> Any:
        return self._event_recorder

    def workload_manager(self) -> WorkloadManager | None:
        """The gangs' members and their state (``Handle.WorkloadManager``), or None without a scheduler."""
        return self._workload_manager

    def clock(self) -> Clock:
        return self._clock

    def parallelizer(self) -> Parallelizer:
        return self._parallelizer

    def extenders(self) -> list[Any]:
        """The scheduler's extenders (``Handle.Extenders``); preemption lets them trim candidates."""
        return self._extenders

    def set_extenders(self, extenders: Sequence[Any]) -> None:
        """Give this profile the scheduler's extenders (:mod:`framework.scheduler.extenders`)."""
        self._extenders = list(extenders)
        self.compute_batchable_plugins()

    def rng(self) -> random.Random:
        """The profile's random source (Go plugins call ``math/rand``; ours must be seedable)."""
        return self._rng

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to ``node_name`` (the Handle is a ``PodNominator`` in Go)."""
        if self.nominator is None:
            return []
        return list(self.nominator.nominated_pods_for_node(node_name))

    def activate(self, pods: Iterable[Pod]) -> None:
        """Move these pods to activeQ at once (``PodActivator.Activate``); no queue, no-op."""
        if self.activator is not None:
            self.activator.activate(list(pods))

    def iterate_over_waiting_pods(self, callback: Callable[[Any], None]) -> None:
        self.waiting_pods.iterate(callback)

    def get_waiting_pod(self, uid: str) -> WaitingPodImpl | None:
        return self.waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        waiting = self.waiting_pods.get(uid)
        if waiting is None:
            return False
        waiting.reject("", "removed")
        return True

    def has_filter_plugins(self) -> bool:
        return bool(self.plugins["filter"])

    def has_score_plugins(self) -> bool:
        return bool(self.plugins["score"])

    def has_post_filter_plugins(self) -> bool:
        return bool(self.plugins["postFilter"])

    def queue_sort_less(self) -> Callable[..., bool]:
        sorters = self.plugins["queueSort"]
        if len(sorters) != 1:
            raise ValueError(
                f'only one queue sort plugin required for profile with scheduler name "{self.profile_name}", '
                f"but got {len(sorters)}"
            )
        return sorters[0].less

    def events_to_register(self) -> list[tuple[Plugin, Any]]:
        """(plugin, its registered events or None for "every event") for the queue's hint map."""
        result: list[tuple[Plugin, Any]] = []
        for plugin in self.enqueue_plugins:
            events = plugin.events_to_register() if isinstance(plugin, EnqueueExtensions) else None
            result.append((plugin, events))
        return result

    # --- signatures and opportunistic batching (KEP-5598) ------------------------------------------

    def compute_batchable_plugins(self) -> None:
        """Find the plugins that sign pods (``computeBatchablePlugins``).

        Any PreFilter, Filter, PreScore or Score plugin without ``sign_pod``,
        or any extender, turns signing off for the whole profile.
        """
        self.enable_signatures = not self._extenders
        self.batchable_plugins = []
        unsupported: list[str] = []
        seen: set[str] = set()
        for point in ("preFilter", "filter", "preScore", "score"):
            for plugin in self._at(point):
                if plugin.name() in seen:
                    continue
                seen.add(plugin.name())
                if isinstance(plugin, SignPlugin):
                    self.batchable_plugins.append(plugin)
                else:
                    unsupported.append(plugin.name())
                    self.enable_signatures = False
        if unsupported:
            logger.info(
                "Disabling signatures for profile %s because plugins do not support it: %s",
                self.profile_name,
                unsupported,
            )

    def sign_pod(self, pod: Pod) -> str | None:
        """The pod's scheduling signature, or None when it cannot be signed (``SignPod``).

        The ``schedulerName`` and every signing plugin's fragments, as one
        JSON text; a plugin that answers anything but success (or raises)
        leaves the pod unsigned.
        """
        if not self.enable_signatures:
            return None
        signature: dict[str, Any] = {SCHEDULER_NAME_SIGNER_NAME: pod.spec.scheduler_name}
        for plugin in self.batchable_plugins:
            try:
                fragments, status = plugin.sign_pod(pod)
            except Exception:  # a plugin's bug leaves this pod unsigned, as an Error status does
                logger.exception("SignPod failed for plugin %s", plugin.name())
                return None
            if status is not None and not status.is_success():
                return None
            for fragment in fragments or ():
                signature[fragment.key] = fragment.value
        return canonical(signature)

    def get_node_hint(
        self, state: CycleState, pod: Pod, cycle_count: int
    ) -> tuple[str, str | None]:
        """The node to try first for ``pod``, and its signature (``GetNodeHint``).

        See :meth:`~framework.runtime.batch.OpportunisticBatch.get_node_hint`.
        """
        return self.batch.get_node_hint(state, pod, cycle_count)

    def store_schedule_results(
        self,
        signature: str | None,
        hinted_node: str,
        chosen_node: str,
        other_nodes: Sequence[str] | None,
        cycle_count: int,
    ) -> None:
        """Keep this cycle's sorted nodes for the next pod (``StoreScheduleResults``).

        See :meth:`~framework.runtime.batch.OpportunisticBatch.store_schedule_results`.
        """
        self.batch.store_schedule_results(
            signature, hinted_node, chosen_node, other_nodes, cycle_count
        )

    # --- PreFilter --------------------------------------------------------------------------------

    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Run PreFilter; returns the merged node narrowing, the status, and the narrowing plugins."""
        result: PreFilterResult | None = None
        plugins_with_nodes: list[str] = []
        remembered = Status.success()
        skip: set[str] = set()
        try:
            for pl in self.plugins["preFilter"]:
                out = call(pl, "pre_filter", state, pod, nodes)
                r, status = (None, out) if isinstance(out, Status) else (out[0], as_status(out[1]))
                if status.is_skip():
                    skip.add(pl.name())
                    continue
                if not status.is_success():
                    status = status.with_plugin(pl.name())
                    if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                        return None, status, set()
                    if status.code is Code.UNSCHEDULABLE:
                        remembered = status  # later PreFilters still run (kubernetes#119770)
                        continue
                    return (
                        None,
                        _error(f'running PreFilter plugin "{pl.name()}"', status, pl),
                        set(),
                    )
                if r is not None and not r.all_nodes():
                    plugins_with_nodes.append(pl.name())
                result = r if result is None else result.merge(r)
                if result is not None and not result.all_nodes() and not result.node_names:
                    narrowing = plugins_with_nodes
                    msg = (
                        f"node(s) didn't satisfy plugin {narrowing[0]}"
                        if len(narrowing) == 1
                        else f"node(s) didn't satisfy plugin(s) [{' '.join(narrowing)}] simultaneously"
                    )
                    return result, Status.unresolvable(msg), set(narrowing)
            return result, remembered, set(plugins_with_nodes)
        finally:
            state.skip_filter_plugins = skip

    def run_pre_filter_extension_add_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_add: PodInfo,
        node_info: NodeInfo,
    ) -> Status:
        """Tell each PreFilter plugin's extensions that ``pod_info_to_add`` joins ``node_info``.

        Go's ``RunPreFilterExtensionAddPod``: the PreFilter plugins that have
        ``PreFilterExtensions``, in order, except those PreFilter skipped; the
        first that does not succeed ends the run with an Error naming it.
        Preemption calls it to put nominated pods on a node for a trial.
        """
        return self._run_extension("AddPod", state, pod_to_schedule, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status:
        """Tell each PreFilter plugin's extensions that ``pod_info_to_remove`` leaves ``node_info``.

        Go's ``RunPreFilterExtensionRemovePod``, the same rule as
        :meth:`run_pre_filter_extension_add_pod`; preemption's dry run calls
        it for each victim it tries to evict.
        """
        return self._run_extension(
            "RemovePod", state, pod_to_schedule, pod_info_to_remove, node_info
        )

    def _run_extension(
        self, operation: str, state: CycleState, pod: Pod, pod_info: PodInfo, node_info: NodeInfo
    ) -> Status:
        if self._pre_filter_extensions is None:
            found: list[tuple[str, PreFilterPlugin, PreFilterExtensions]] = []
            for pl in self.plugins["preFilter"]:
                extensions = call(pl, "pre_filter_extensions")
                if isinstance(extensions, Status):
                    return _error(
                        f'running {operation} on PreFilter plugin "{pl.name()}"', extensions, None
                    )
                if extensions is not None:
                    found.append((pl.name(), pl, extensions))
            self._pre_filter_extensions = found
        for name, pl, extensions in self._pre_filter_extensions:
            if name in state.skip_filter_plugins:
                continue
            method = "add_pod" if operation == "AddPod" else "remove_pod"
            status = as_status(call(pl, method, state, pod, pod_info, node_info, on=extensions))
            if not status.is_success():
                return _error(f'running {operation} on PreFilter plugin "{name}"', status, None)
        return Status.success()

    # --- Filter -------------------------------------------------------------------------------------

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """A node's Filter plugins in order, stopping at the first that does not succeed.

        A plugin that PreFilter skipped is not asked. A rejection is the
        node's verdict, named after the plugin; anything else that is not a
        success (an Error, an exception, a malformed answer) becomes an Error
        for the node, which ends the whole search (``RunFilterPlugins``).
        """
        for pl in self.plugins["filter"]:
            if pl.name() in state.skip_filter_plugins:
                continue
            status = as_status(call(pl, "filter", state, pod, node_info))
            if not status.is_success():
                if not status.is_rejected():
                    status = _error(f'running "{pl.name()}" filter plugin', status, None)
                return status.with_plugin(pl.name())
        return Status.success()

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status:
        """Filter twice when higher-or-equal priority pods are nominated to the node.

        First as if those pods were already there (resources and
        anti-affinity must leave room for them), then without them (affinity
        must not rely on them); the node fits only if both pass. A node with
        no pod nominated to it, the usual case, is filtered once, directly.
        """
        if self.nominator is None or not self.nominator.has_nominated_pods(node_info.name):
            return self.run_filter_plugins(state, pod, node_info)
        status = Status.success()
        pods_added = False
        for attempt in range(2):
            state_to_use, info_to_use = state, node_info
            if attempt == 0:
                added = self._add_ge_nominated_pods(pod, state, node_info)
                if isinstance(added, Status):
                    return added
                pods_added, state_to_use, info_to_use = added
            elif not pods_added or not status.is_success():
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success() and not status.is_rejected():
                return status
        return status

    def _add_ge_nominated_pods(
        self, pod: Pod, state: CycleState, node_info: NodeInfo
    ) -> tuple[bool, CycleState, NodeInfo] | Status:
        if self.nominator is None:
            return False, state, node_info
        nominated = self.nominator.nominated_pods_for_node(node_info.name)
        if not nominated:
            return False, state, node_info
        priority = pod.spec.priority or 0
        info_out, state_out, added = node_info.clone(), state.clone(), False
        for pod_info in nominated:
            other = pod_info.pod
            if (other.spec.priority or 0) >= priority and other.metadata.uid != pod.metadata.uid:
                info_out.add_pod(pod_info)
                status = self.run_pre_filter_extension_add_pod(state_out, pod, pod_info, info_out)
                if not status.is_success():
                    return status
                added = True
        return added, state_out, info_out

    # --- PostFilter -----------------------------------------------------------------------------------

    def run_post_filter_plugins(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """Until the first success or unresolvable; otherwise Unschedulable with every reason."""
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.plugins["postFilter"]:
            out = call(pl, "post_filter", state, pod, statuses)
            r, status = (None, out) if isinstance(out, Status) else (out[0], as_status(out[1]))
            if status.is_success():
                return r, status
            if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return r, status.with_plugin(pl.name())
            if not status.is_rejected():
                return None, Status.as_error(_as_error(status)).with_plugin(pl.name())
            if (
                r is not None
                and r.nominating_info is not None
                and r.nominating_info.mode != NominatingMode.NOOP
            ):
                result = r
            reasons.extend(status.reasons)
            rejector = rejector or pl.name()
        return result, Status.unschedulable(*reasons).with_plugin(rejector)

    # --- PreScore, Score --------------------------------------------------------------------------------

    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status:
        """Every PreScore plugin in order, with the feasible nodes (``RunPreScorePlugins``).

        Skip means the plugin has nothing to score for this pod: it is left out
        at Score (``SkipScorePlugins`` in the CycleState). Any other status but
        Success ends the run with an Error naming the plugin, and the attempt
        fails.
        """
        skip: set[str] = set()
        try:
            for pl in self.plugins["preScore"]:
                status = as_status(call(pl, "pre_score", state, pod, nodes))
                if status.is_skip():
                    skip.add(pl.name())
                elif not status.is_success():
                    return _error(f'running PreScore plugin "{pl.name()}"', status, None)
            return Status.success()
        finally:
            state.skip_score_plugins = skip

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[NodePluginScores], Status]:
        """Score every node with every plugin, normalise per plugin, check [0, 100], weight, sum.

        Three phases, as ``RunScorePlugins``: each node's score from each
        plugin PreScore did not skip; each plugin's NormalizeScore over its
        list; then :func:`~framework.runtime.scoring.combine_scores`. The
        first failure ends the run with an Error that says in which phase.
        """
        plugins = [pl for pl in self.plugins["score"] if pl.name() not in state.skip_score_plugins]
        plugin_to_node_scores: dict[str, list[NodeScore]] = {pl.name(): [] for pl in plugins}
        for node_info in nodes:
            for pl in plugins:
                score, status = self._run_score_plugin(pl, state, pod, node_info)
                if not status.is_success():
                    inner = _error(f'plugin "{pl.name()}" failed with', status, None)
                    return [], _error("running Score plugins", inner, None)
                plugin_to_node_scores[pl.name()].append(NodeScore(node_info.name, score))
        for pl in plugins:
            extensions = call(pl, "score_extensions")
            if extensions is None:
                continue
            node_scores = plugin_to_node_scores[pl.name()]
            status = (
                extensions
                if isinstance(extensions, Status)
                else as_status(call(pl, "normalize_score", state, pod, node_scores, on=extensions))
            )
            if status.is_success():
                status = check_normalized(pl, node_scores, len(nodes))
            if not status.is_success():
                inner = _error(f'plugin "{pl.name()}" failed with', status, None)
                return [], _error("running Normalize on Score plugins", inner, None)
        try:
            totals = combine_scores(
                plugin_to_node_scores, self.score_plugin_weight, [n.name for n in nodes]
            )
        except InvalidScoreError as error:
            raised = PluginRaised(f"applying score defaultWeights on Score plugins: {error}")
            raised.__cause__ = error
            return [], Status.as_error(raised)
        return totals, Status.success()

    def _run_score_plugin(
        self, pl: Plugin, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[int, Status]:
        """One plugin's score of one node, and its status (``runScorePlugin``)."""
        out = call(pl, "score", state, pod, node_info)
        if isinstance(out, Status):
            return 0, out
        score, status = out
        return score, as_status(status)

    # --- Reserve, Permit ----------------------------------------------------------------------------------

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Every Reserve plugin's Reserve in order, stopping at the first that does not succeed.

        Go's ``RunReservePluginsReserve``: a rejection comes back as it is,
        named after the plugin; anything else becomes an Error. Either way the
        scheduler then runs every plugin's Unreserve
        (:meth:`run_reserve_plugins_unreserve`) and the pod is not scheduled.
        """
        for pl in self.plugins["reserve"]:
            status = as_status(call(pl, "reserve", state, pod, node_name))
            if not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                return _error(f'running Reserve plugin "{pl.name()}"', status, None)
        return Status.success()

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Every Reserve plugin's Unreserve, in reverse order, even those whose Reserve never ran."""
        for pl in reversed(self.plugins["reserve"]):
            call(pl, "unreserve", state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Every Permit plugin in order: allow, reject, or park the pod to wait (``RunPermitPlugins``).

        A rejection ends the run at once, named after the plugin; any status
        other than Success, Wait or a rejection ends it as an Error. When some
        plugins asked to wait and none rejected, the pod is parked as a
        waiting pod, each waiting plugin with its own timeout, and the answer
        is Wait; the binding cycle then blocks in :meth:`wait_on_permit`.
        """
        waits: dict[str, float] = {}
        for pl in self.plugins["permit"]:
            out = call(pl, "permit", state, pod, node_name)
            if isinstance(out, Status):
                status, timeout = out, 0.0
            else:
                status, timeout = as_status(out[0]), float(out[1])
            if status.is_success():
                continue
            if status.is_rejected():
                return status.with_plugin(pl.name())
            if status.is_wait():
                waits[pl.name()] = timeout
                continue
            return _error(f'running Permit plugin "{pl.name()}"', status, None).with_plugin(
                pl.name()
            )
        if waits:
            self.waiting_pods.add(pod.metadata.uid, WaitingPodImpl(pod, waits, self._clock))
            return Status.wait(
                f'one or more plugins asked to wait and no plugin rejected pod "{pod.name}"'
            )
        return Status.success()

    def will_wait_on_permit(self, pod: Pod) -> bool:
        """Whether the pod is parked at Permit (``WillWaitOnPermit``)."""
        return self.waiting_pods.get(pod.metadata.uid) is not None

    def wait_on_permit(self, pod: Pod) -> Status:
        """Block until the pod parked at Permit is allowed or rejected (immediately if not parked)."""
        waiting = self.waiting_pods.get(pod.metadata.uid)
        if waiting is None:
            return Status.success()
        try:
            status = waiting.wait()
        finally:
            self.waiting_pods.remove(pod.metadata.uid)
        if status.is_success() or status.is_rejected():
            return status
        return _error("waiting on permit for pod", status, None).with_plugin(status.plugin)

    # --- the binding cycle ------------------------------------------------------------------------------

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Every PreBind plugin in order, stopping at the first that does not succeed (``RunPreBindPlugins``).

        A rejection comes back named after the plugin, anything else as an
        Error; either fails the binding cycle, which unreserves the pod and
        sends it back to the queue.
        """
        for pl in self.plugins["preBind"]:
            status = as_status(call(pl, "pre_bind", state, pod, node_name))
            if not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                return _error(f'running PreBind plugin "{pl.name()}"', status, None)
        return Status.success()

    def run_pre_bind_pre_flights(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Ask each PreBind plugin whether it will have work for this pod (``RunPreBindPreFlights``, v1.34).

        Success when one or more will (the binding will take time), Skip when
        none will, an Error when one fails or answers anything else. A plugin
        without ``pre_bind_pre_flight`` (written before v1.34) counts as
        having work, since it may wait on the network. Simplified: the plugins
        that answer Skip still run at PreBind (Go skips them; they return at
        once anyway).
        """
        answer = Status.skip()
        for pl in self.plugins["preBind"]:
            pre_flight = getattr(pl, "pre_bind_pre_flight", None)
            status = (
                Status.success()
                if pre_flight is None
                else as_status(call(pl, "pre_bind_pre_flight", state, pod, node_name))
            )
            if status.code is Code.ERROR:
                return _error(f'running PreBindPreFlight "{pl.name()}"', status, None)
            if status.is_success():
                answer = Status.success()
            elif not status.is_skip():
                return Status.as_error(
                    ValueError(
                        f'PreBindPreFlight {pl.name()} returned "{status.code}", which is '
                        "unsupported. It is supposed to return Success, Skip, or Error status"
                    )
                )
        return answer

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Bind plugins in order until one does not Skip; that one owns the binding."""
        status = Status.skip()
        for pl in self.plugins["bind"]:
            status = as_status(call(pl, "bind", state, pod, node_name))
            if status.is_skip():
                continue
            if not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                return _error(f'running Bind plugin "{pl.name()}"', status, None)
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Every PostBind plugin, after a successful bind (``RunPostBindPlugins``).

        Informational: nothing they answer changes the outcome, so it is not
        read; a plugin that raises is dropped as quietly.
        """
        for pl in self.plugins["postBind"]:
            call(pl, "post_bind", state, pod, node_name)

    def plugin_names(self, point: str) -> list[str]:
        """The names of the plugins enabled at ``point`` (a configuration name, ``"filter"``)."""
        return [p.name() for p in self._at(point)]

    def list_plugins(self) -> dict[str, list[str]]:
        """The enabled plugins per extension point, by name (for ``explain`` and the docs)."""
        return {point: self.plugin_names(point) for point in EXTENSION_POINTS if self._at(point)}

    def _at(self, point: str) -> Sequence[Plugin]:
        # Every value is a list of plugins; a TypedDict takes no variable key.
        return cast("Mapping[str, Sequence[Plugin]]", self.plugins)[point]


def _as_error(status: Status) -> BaseException:
    return status.error if status.error is not None else PluginRaised(status.message())


def _error(prefix: str, status: Status, plugin: Plugin | None) -> Status:
    """``fmt.Errorf("<prefix>: %w", status.AsError())`` as an Error status."""
    error = PluginRaised(f"{prefix}: {status.message()}")
    error.__cause__ = status.error
    result = Status.as_error(error)
    return result.with_plugin(plugin.name()) if plugin is not None else result
