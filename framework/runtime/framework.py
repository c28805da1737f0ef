"""The framework runtime: one profile's plugins, and the rules for running each extension point.

A :class:`Framework` holds, for one profile (one ``schedulerName``), the
ordered list of plugins enabled at each extension point and the Score
weights. Its ``run_*`` methods are the only way the scheduler calls plugins,
and each one applies Kubernetes' rule for its point: which status codes stop
the run, which are remembered, which become errors, in which order plugins
are called (Unreserve in reverse), and what is recorded in the CycleState
(the plugins to skip at Filter and Score).

A plugin that *raises* does not crash the scheduler: the exception becomes an
``Error`` status naming the plugin, which fails that pod's attempt only (the
pod goes back to the queue with backoff). Go plugins cannot raise; this is
the Python counterpart of a plugin returning an error. So does a plugin that
returns what Go's types would not let it return: something that is not a
Status (or None) where a Status is due, a score that is not an integer, a
status with a code that is not a :class:`~framework.status.Code`, or a
NormalizeScore that changes the length of the score list
(``_malformed``).

The Framework is also the plugins' :class:`~framework.interface.Handle`:
plugins are built with it, and reach the current snapshot, the API client,
the event recorder, the waiting pods and the nominated pods through it, and
read the run's feature gates from its ``feature_gates`` when they are built.

Mirrors ``frameworkImpl`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``
(v1.33). Simplified: no metrics, no extenders here; Filter and Score run on
one thread (kube-scheduler spreads them over ``parallelism`` goroutines).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from framework.clock import Clock, RealClock
from framework.cycle_state import CycleState
from framework.featuregate import FeatureGates, new_feature_gates
from framework.interface import (
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    NodeToStatus,
    PermitPlugin,
    Plugin,
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
)
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.runtime.parallelize import DEFAULT_PARALLELISM, Parallelizer
from framework.runtime.waiting_pods import WaitingPodImpl, WaitingPodsMap
from framework.scheduler.scoring import (
    InvalidScoreError,
    NodePluginScores,
    PluginScore,
    combine_scores,
)
from framework.status import Code, Status, as_status
from framework.types import NominatingMode, PodInfo

# NodePluginScores and PluginScore are defined in framework.scheduler.scoring, beside
# the functions that make them, and exported here too, where the runner returns them.
__all__ = [
    "EXTENSION_POINTS",
    "Framework",
    "NodePluginScores",
    "PluginRaised",
    "PluginScore",
]

_T = TypeVar("_T")

EXTENSION_POINTS: dict[str, type] = {
    "preEnqueue": PreEnqueuePlugin,
    "queueSort": QueueSortPlugin,
    "preFilter": PreFilterPlugin,
    "filter": FilterPlugin,
    "postFilter": PostFilterPlugin,
    "preScore": PreScorePlugin,
    "score": ScorePlugin,
    "reserve": ReservePlugin,
    "permit": PermitPlugin,
    "preBind": PreBindPlugin,
    "bind": BindPlugin,
    "postBind": PostBindPlugin,
}
"""The extension points by their configuration names, with the Protocol a plugin needs for each."""


class PluginRaised(RuntimeError):
    """A plugin raised an exception; carried in the Error status of the pod's attempt."""


def _call(plugin: Plugin, method: str, *args: Any, on: Any = None) -> Any:
    """``plugin.<method>(*args)`` (or ``on.<method>``); an exception or a malformed result is an Error.

    The method is named, not passed bound, so that its answer is checked
    against what that extension point must return (:func:`_malformed`),
    whatever the function behind it is called.
    """
    target = plugin if on is None else on
    try:
        out = getattr(target, method)(*args)
    except Exception as exc:  # a plugin's bug must fail one attempt, not the scheduler
        return _raised(plugin.name(), exc)
    return _malformed(plugin.name(), method, out)


def _raised(plugin: str, exc: Exception) -> Status:
    """The Error status for a plugin that raised: it names the plugin and keeps the exception."""
    raised = PluginRaised(f'plugin "{plugin}" raised {type(exc).__name__}: {exc}')
    raised.__cause__ = exc
    return Status.as_error(raised)


# What each plugin method must return, by the method's name; Go's types enforce it there.
_RETURNS_STATUS = frozenset(
    {"pre_enqueue", "filter", "pre_score", "reserve", "pre_bind", "bind"}
    | {"normalize_score", "add_pod", "remove_pod"}
)
_RETURNS_PAIR = {
    "pre_filter": (PreFilterResult, "a (PreFilterResult or None, Status or None) pair"),
    "post_filter": (PostFilterResult, "a (PostFilterResult or None, Status or None) pair"),
    "score": (int, "an (int score, Status or None) pair"),
    "permit": (float, "a (Status or None, timeout in seconds) pair"),
}


def _malformed(plugin: str, method: str, out: Any) -> Any:
    """``out`` if it has the shape ``method`` must return (codes as :class:`Code`), else an Error status."""
    if method in _RETURNS_STATUS:
        status = _checked_status(out)
        if status is not None or out is None:
            return status
        return _bad_result(plugin, method, out, "a Status or None")
    if method not in _RETURNS_PAIR:
        return out  # Unreserve and PostBind return nothing; extension getters are not checked
    wanted, shape = _RETURNS_PAIR[method]
    if not isinstance(out, tuple) or len(out) != 2:
        return _bad_result(plugin, method, out, shape)
    # The value beside the status: first, except for Permit's (status, timeout).
    value, raw_status = (out[1], out[0]) if method == "permit" else out
    if wanted is int or wanted is float:
        number = int if wanted is int else (int, float)
        ok = isinstance(value, number) and not isinstance(value, bool)
    else:
        ok = value is None or isinstance(value, wanted)
    status = _checked_status(raw_status)
    if not ok or (status is None and raw_status is not None):
        return _bad_result(plugin, method, out, shape)
    return (status, value) if method == "permit" else (value, status)


def _checked_status(value: Any) -> Status | None:
    """A Status whose code is a :class:`Code` (an int code is converted); None if it cannot be."""
    if not isinstance(value, Status):
        return None
    code: Any = value.code  # typed Code, but a plugin may have built Status(code=7)
    if isinstance(code, Code):
        return value
    try:
        return dataclasses.replace(value, code=Code(code))
    except (ValueError, TypeError):
        return None


def _bad_result(plugin: str, method: str, out: Any, wanted: str) -> Status:
    got = repr(out)
    if len(got) > 80:
        got = got[:77] + "..."
    parts = out if isinstance(out, tuple) else (out,)
    unknown = [p for p in parts if isinstance(p, Status) and _checked_status(p) is None]
    why = (
        f"a status with unknown code {unknown[0].code!r}"
        if unknown
        else f"{type(out).__name__} {got}"
    )
    return Status.as_error(
        PluginRaised(f'plugin "{plugin}" returned {why} from {method}; want {wanted}')
    )


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
        nominator: Any = None,
        percentage_of_nodes_to_score: int | None = None,
        parallelism: int = DEFAULT_PARALLELISM,
        rng: random.Random | None = None,
        feature_gates: FeatureGates | None = None,
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
        self._event_recorder = event_recorder
        self.nominator = nominator
        self.waiting_pods = WaitingPodsMap()
        self.snapshot: Any = None  # the scheduler sets it at the start of each cycle
        self.plugins: dict[str, list[Plugin]] = {point: [] for point in EXTENSION_POINTS}
        self.score_plugin_weight: dict[str, int] = {}
        # The PreFilter plugins that have PreFilterExtensions, with them, found
        # on the first AddPod/RemovePod rather than on every one: preemption's
        # dry runs make thousands of those calls per cycle.
        self._pre_filter_extensions: list[tuple[str, Plugin, PreFilterExtensions]] | None = None
        self.enqueue_plugins: list[Plugin] = []
        #: Default-profile plugins left out because this project does not implement them yet.
        self.skipped_plugins: list[str] = []
        self._extenders: list[Any] = []  # the scheduler's, shared by every profile

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
            self.plugins[point] = list(enabled)
        self._pre_filter_extensions = None
        self.score_plugin_weight = {
            p.name(): weights.get(p.name(), 1) or 1 for p in self.plugins["score"]
        }
        # Plugins at these points can reject a pod, so their events may requeue it.
        seen: dict[str, Plugin] = {}
        for point in ("preEnqueue", "preFilter", "filter", "reserve", "permit"):
            for plugin in self.plugins[point]:
                seen.setdefault(plugin.name(), plugin)
        self.enqueue_plugins = list(seen.values())

    # --- the Handle plugins see -----------------------------------------------------------------

    def snapshot_shared_lister(self) -> Any:
        return self.snapshot

    def client(self) -> Any:
        return self._client

    def event_recorder(self) -> Any:
        return self._event_recorder

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
        if self.nominator is not None and hasattr(self.nominator, "activate"):
            self.nominator.activate(list(pods))

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
        return sorters[0].less  # type: ignore[attr-defined, no-any-return]

    def events_to_register(self) -> list[tuple[Plugin, Any]]:
        """(plugin, its registered events or None for "every event") for the queue's hint map."""
        result: list[tuple[Plugin, Any]] = []
        for plugin in self.enqueue_plugins:
            events = plugin.events_to_register() if isinstance(plugin, EnqueueExtensions) else None
            result.append((plugin, events))
        return result

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
                out = _call(pl, "pre_filter", state, pod, nodes)
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
        return self._run_extension("AddPod", state, pod_to_schedule, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status:
        return self._run_extension(
            "RemovePod", state, pod_to_schedule, pod_info_to_remove, node_info
        )

    def _run_extension(
        self, operation: str, state: CycleState, pod: Pod, pod_info: PodInfo, node_info: NodeInfo
    ) -> Status:
        if self._pre_filter_extensions is None:
            found = []
            for pl in self.plugins["preFilter"]:
                extensions = _call(pl, "pre_filter_extensions")
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
            status = as_status(_call(pl, method, state, pod, pod_info, node_info, on=extensions))
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
            status = as_status(_call(pl, "filter", state, pod, node_info))
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
            out = _call(pl, "post_filter", state, pod, statuses)
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
        skip: set[str] = set()
        try:
            for pl in self.plugins["preScore"]:
                status = as_status(_call(pl, "pre_score", state, pod, nodes))
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
        list; then :func:`~framework.scheduler.scoring.combine_scores`. The
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
            extensions = _call(pl, "score_extensions")
            if extensions is None:
                continue
            node_scores = plugin_to_node_scores[pl.name()]
            status = (
                extensions
                if isinstance(extensions, Status)
                else as_status(
                    _call(pl, "normalize_score", state, pod, node_scores, on=extensions)
                )
            )
            if status.is_success():
                status = _check_normalized(pl, node_scores, len(nodes))
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
        out = _call(pl, "score", state, pod, node_info)
        if isinstance(out, Status):
            return 0, out
        score, status = out
        return score, as_status(status)

    # --- Reserve, Permit ----------------------------------------------------------------------------------

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        for pl in self.plugins["reserve"]:
            status = as_status(_call(pl, "reserve", state, pod, node_name))
            if not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                return _error(f'running Reserve plugin "{pl.name()}"', status, None)
        return Status.success()

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Every Reserve plugin's Unreserve, in reverse order, even those whose Reserve never ran."""
        for pl in reversed(self.plugins["reserve"]):
            _call(pl, "unreserve", state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        waits: dict[str, float] = {}
        for pl in self.plugins["permit"]:
            out = _call(pl, "permit", state, pod, node_name)
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
        for pl in self.plugins["preBind"]:
            status = as_status(_call(pl, "pre_bind", state, pod, node_name))
            if not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                return _error(f'running PreBind plugin "{pl.name()}"', status, None)
        return Status.success()

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Bind plugins in order until one does not Skip; that one owns the binding."""
        status = Status.skip()
        for pl in self.plugins["bind"]:
            status = as_status(_call(pl, "bind", state, pod, node_name))
            if status.is_skip():
                continue
            if not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(pl.name())
                return _error(f'running Bind plugin "{pl.name()}"', status, None)
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for pl in self.plugins["postBind"]:
            _call(pl, "post_bind", state, pod, node_name)

    def plugin_names(self, point: str) -> list[str]:
        return [p.name() for p in self.plugins[point]]

    def list_plugins(self) -> dict[str, list[str]]:
        """The enabled plugins per extension point, by name (for ``explain`` and the docs)."""
        return {
            point: self.plugin_names(point) for point in EXTENSION_POINTS if self.plugins[point]
        }


def _check_normalized(plugin: Plugin, scores: list[NodeScore], nodes: int) -> Status:
    """NormalizeScore rescales the list in place: one ``NodeScore`` with an int score per node.

    Go's NormalizeScore cannot change the length of the slice it is given,
    and its scores are ``int64``; a Python one could do either, so both are
    checked here. A renamed entry is not: as in Go, the i-th score is the
    i-th node's, whatever name it carries.
    """
    if len(scores) != nodes:
        why = f"NormalizeScore left {len(scores)} scores for {nodes} nodes"
    else:
        bad = [
            s
            for s in scores
            if not isinstance(s, NodeScore)
            or not isinstance(s.score, int)
            or isinstance(s.score, bool)
        ]
        if not bad:
            return Status.success()
        why = f"NormalizeScore left {bad[0]!r} in the list; want NodeScore(name, int score)"
    return Status.as_error(PluginRaised(f'plugin "{plugin.name()}" {why}'))


def _as_error(status: Status) -> BaseException:
    return status.error if status.error is not None else PluginRaised(status.message())


def _error(prefix: str, status: Status, plugin: Plugin | None) -> Status:
    """``fmt.Errorf("<prefix>: %w", status.AsError())`` as an Error status."""
    error = PluginRaised(f"{prefix}: {status.message()}")
    error.__cause__ = status.error
    result = Status.as_error(error)
    return result.with_plugin(plugin.name()) if plugin is not None else result
