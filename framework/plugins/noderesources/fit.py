"""NodeResourcesFit: does the pod fit in what the node has left, and how well?

The plugin every default profile runs, at four extension points:

* **PreFilter** adds up the pod's requests once (containers summed, the
  largest init container, sidecars, overhead: see
  :func:`~framework.objects.resources.pod_requests`) and stores them in the
  CycleState;
* **Filter** compares them with each node's allocatable minus what the pods
  already there request (the arithmetic is in
  :mod:`~framework.plugins.noderesources.fits`), and lists *every* shortage,
  in a fixed order:
  ``Too many pods`` (the node's ``pods`` allocatable), then ``Insufficient
  cpu``, ``Insufficient memory``, ``Insufficient ephemeral-storage`` and
  ``Insufficient <name>`` for each extended resource. A pod that requests
  nothing is only checked against the pod count. Extended resources in
  ``ignoredResources``, or whose domain is in ``ignoredResourceGroups``, are
  not checked. The status is ``Unschedulable``: evicting pods could make room,
  so preemption may help;
* **PreScore** and **Score** rank the nodes that fit with the configured
  strategy (:mod:`~framework.plugins.noderesources.least_allocated`,
  :mod:`~framework.plugins.noderesources.most_allocated`,
  :mod:`~framework.plugins.noderesources.requested_to_capacity_ratio`), counting
  request-less containers as 100m CPU and 200 MiB. The plugin has no
  NormalizeScore: its scores are already on 0-100.

Which cluster events can make a pod it rejected fit (queueing hints on, as
in v1.33):

* ``Pod/Delete``: ``QUEUE`` when the deleted pod was on a node, or nominated
  to one (its room is freed); a pod that was only waiting frees nothing;
* ``Pod/UpdatePodScaleDown`` (in-place resize, on by default in v1.33):
  ``QUEUE`` when the rejected pod itself shrank, or a pod on a node now
  requests less of something the rejected pod requests;
* ``Node/Add | Node/UpdateNodeAllocatable``: ``QUEUE`` when the node, empty,
  would fit the pod, and (for an update) its allocatable grew in a resource
  the pod requests, or in pod slots.

>>> from framework.cycle_state import CycleState
>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> node = NodeInfo()
>>> node.set_node(Node.from_dict({"metadata": {"name": "n1"},
...                               "status": {"allocatable": {"cpu": "1", "pods": "110"}}}))
>>> pod = Pod.from_dict({"metadata": {"name": "web"}, "spec": {"containers": [
...     {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]}})
>>> fit, state = Fit(), CycleState()
>>> fit.pre_filter(state, pod, [node])
(None, None)
>>> print(fit.filter(state, pod, node))
UnschedulableAndUnresolvable: Insufficient cpu, Insufficient memory

The node has 1 CPU in all and no memory, so no eviction can make room: since
v1.34 (the default release is v1.37) that is ``UnschedulableAndUnresolvable``,
see below.

Mirrors ``Fit`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/fit.go``
(v1.33: queueing hints and in-place resize on), with the plugin's
``PodLevelResources`` (off in v1.33, on from v1.34; ``enablePodLevelResources``
in v1.34+) read from the handle's gates.
Differences: extended-resource shortages are listed in name order (see
:mod:`~framework.plugins.noderesources.fits`); a ``RequestedToCapacityRatio`` strategy without its
``requestedToCapacityRatio`` object is refused with a message (kube-scheduler
v1.33 dereferences nil and crashes); the PreFilter check that refused sidecar
pods while the ``SidecarContainers`` gate was off is gone, the gate being on
for good in v1.33; a scale-down is judged from the pods' specs (this project
does not model the resized resources in a pod's status).

**Since v1.34** the Filter answers ``UnschedulableAndUnresolvable`` when a
request exceeds the node's *whole* allocatable: no eviction can make room
there, so preemption need not look at that node (kubernetes#131345, "return
UnschedulableAndUnresolvable when node capacity is insufficient", merged for
v1.34, no feature gate). Emulating v1.33, every shortage is ``Unschedulable``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.config.args_noderesources import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    InvalidArgsError,
    NodeResourcesFitArgs,
    aggregate,
    decode_node_resources_fit_args,
    set_defaults_node_resources_fit_args,
    validate_node_resources_fit_args,
)
from framework.cycle_state import CycleState, NotFound
from framework.featuregate import features_of
from framework.interface import SignFragment
from framework.node_info import NodeInfo, Resource
from framework.objects import Node, ObjectInvalid, Pod, pod_uid
from framework.objects.resource import DeviceClass
from framework.objects.resource_names import is_scalar_resource_name
from framework.objects.resources import CPU, EPHEMERAL_STORAGE, MEMORY, pod_requests
from framework.plugins import names
from framework.plugins.dynamicresources.extended import (
    RESOURCE_DEVICE_CLASS_PREFIX,
    ExtendedResourceCache,
    is_dra_extended_resource_name,
)
from framework.plugins.noderesources.fits import (
    compute_pod_resource_request,
    fits_request,
    have_any_requested_resources_increased,
    is_fit,
)
from framework.plugins.noderesources.least_allocated import least_resource_scorer
from framework.plugins.noderesources.most_allocated import most_resource_scorer
from framework.plugins.noderesources.requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer,
)
from framework.plugins.noderesources.resource_allocation import (
    NodeScorer,
    ResourceAllocationScorer,
    score_node_for,
)
from framework.plugins.pernode import PerNodeCache
from framework.runtime import signature as sig
from framework.status import Status

__all__ = [
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "SCORING_STRATEGIES",
    "SIGNATURE_DISABLED_WITH_DRA",
    "Fit",
    "PreFilterState",
    "PreScoreState",
    "fit_args_from",
    "new",
]

NAME = names.NODE_RESOURCES_FIT
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
"""Where PreFilter leaves the pod's requests for Filter (``preFilterStateKey``)."""
PRE_SCORE_STATE_KEY = "PreScore" + NAME
"""Where PreScore leaves the pod's requests for Score (``preScoreStateKey``)."""
SIGNATURE_DISABLED_WITH_DRA = "signature disabled when dra extended resources enabled"
"""Why Fit and BalancedAllocation sign no pod while ``DRAExtendedResource`` is on."""


class PreFilterState:
    """The pod's requests, computed once per attempt. Never changed, so a clone is the same object.

    ``dra_backed``: the pod's extended resources a DeviceClass serves
    (``DRAExtendedResource``), which a node without them leaves to DRA.
    """

    __slots__ = ("dra_backed", "request")

    def __init__(self, request: Resource, dra_backed: frozenset[str] = frozenset()) -> None:
        self.request = request
        self.dra_backed = dra_backed

    def clone(self) -> PreFilterState:
        return self


@dataclass(frozen=True, slots=True)
class PreScoreState:
    """The pod's requests of the strategy's resources, in their order; immutable, shared by clones.

    ``score_node`` scores a node for exactly these requests, reusing the
    node's last score while the node has not changed (chapter 13).
    """

    pod_requests: tuple[int, ...]
    score_node: NodeScorer = field(compare=False, repr=False)

    def clone(self) -> PreScoreState:
        return self


class _StateError(LookupError):
    """PreFilter's state is missing or of the wrong type (PreFilter did not run)."""


# --- the scoring strategies, by type ------------------------------------------------------------


def _least_allocated(args: NodeResourcesFitArgs) -> ResourceAllocationScorer:
    assert args.scoring_strategy is not None
    resources = args.scoring_strategy.resources
    return ResourceAllocationScorer(LEAST_ALLOCATED, least_resource_scorer(resources), resources)


def _most_allocated(args: NodeResourcesFitArgs) -> ResourceAllocationScorer:
    assert args.scoring_strategy is not None
    resources = args.scoring_strategy.resources
    return ResourceAllocationScorer(MOST_ALLOCATED, most_resource_scorer(resources), resources)


def _requested_to_capacity_ratio(args: NodeResourcesFitArgs) -> ResourceAllocationScorer:
    strategy = args.scoring_strategy
    assert strategy is not None
    if strategy.requested_to_capacity_ratio is None:
        raise InvalidArgsError(
            "scoringStrategy.requestedToCapacityRatio is required when scoringStrategy.type is "
            f"{REQUESTED_TO_CAPACITY_RATIO}: give it a shape, e.g. "
            "{shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}"
        )
    scorer = requested_to_capacity_ratio_scorer(
        strategy.resources, strategy.requested_to_capacity_ratio.shape
    )
    return ResourceAllocationScorer(REQUESTED_TO_CAPACITY_RATIO, scorer, strategy.resources)


SCORING_STRATEGIES: Mapping[str, Callable[[NodeResourcesFitArgs], ResourceAllocationScorer]] = {
    LEAST_ALLOCATED: _least_allocated,
    MOST_ALLOCATED: _most_allocated,
    REQUESTED_TO_CAPACITY_RATIO: _requested_to_capacity_ratio,
}
"""Strategy type → the scorer it builds (``nodeResourceStrategyTypeMap``)."""


# --- the plugin ---------------------------------------------------------------------------------


class Fit:
    """PreFilter, Filter, PreScore and Score on the node's resources (``NodeResourcesFit``).

    Built from validated args; raises :class:`~framework.config.args_noderesources.InvalidArgsError`
    with every problem otherwise. ``enable_in_place_pod_vertical_scaling``
    plays that feature gate (on by default in v1.33): with it off, a pod
    shrinking in place is not an event the plugin listens to.
    """

    def __init__(
        self,
        args: NodeResourcesFitArgs | None = None,
        handle: Any = None,
        *,
        enable_in_place_pod_vertical_scaling: bool | None = None,
    ) -> None:
        if args is None:
            args = set_defaults_node_resources_fit_args(NodeResourcesFitArgs())
        causes = validate_node_resources_fit_args(args)
        if causes:
            raise InvalidArgsError(aggregate(causes))
        if args.scoring_strategy is None:
            raise InvalidArgsError("scoring strategy not specified")
        build = SCORING_STRATEGIES.get(args.scoring_strategy.type)
        if build is None:
            raise InvalidArgsError(
                f"scoring strategy {args.scoring_strategy.type} is not supported"
            )
        self.args = args
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        gates = features_of(handle)
        if enable_in_place_pod_vertical_scaling is None:
            enable_in_place_pod_vertical_scaling = gates.enabled("InPlacePodVerticalScaling")
        self.enable_in_place_pod_vertical_scaling = enable_in_place_pod_vertical_scaling
        self.enable_pod_level_resources = gates.enabled("PodLevelResources")
        self.enable_dra_extended_resource = gates.enabled("DRAExtendedResource")
        # Which DeviceClass serves which extended resource (the DRA manager's resolver).
        self._extended_resources = ExtendedResourceCache()
        self.scorer = dataclasses.replace(
            build(args),
            enable_in_place_pod_vertical_scaling=enable_in_place_pod_vertical_scaling,
            enable_pod_level_resources=self.enable_pod_level_resources,
        )
        # Each node's score, per pod requests, until the node changes (chapter 13).
        self._node_scores: PerNodeCache[tuple[int, Status | None]] = PerNodeCache()
        self._handle = handle
        # kubernetes#131345 shipped in v1.34 without a gate: the emulated release decides.
        self.unresolvable_when_too_small = gates.at_least("1.34")

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Filter and Score read the pod's requests and overhead (Go's ``Fit.SignPod``, v1.35).

        With ``DRAExtendedResource`` on (from v1.36), no pod is signable:
        whether a node serves an extended resource through DRA depends on
        more than the pod.
        """
        if self.enable_dra_extended_resource:
            return None, Status.unschedulable(SIGNATURE_DISABLED_WITH_DRA)
        signed = sig.resources_signer(pod, pod_level_resources=self.enable_pod_level_resources)
        return [SignFragment(sig.RESOURCES_SIGNER_NAME, signed)], None

    def dra_backed(self, request: Resource) -> frozenset[str]:
        """The requested extended resources a DeviceClass serves (empty with the gate off)."""
        if not self.enable_dra_extended_resource or not request.scalar_resources:
            return frozenset()
        names = [
            name
            for name, amount in request.scalar_resources.items()
            if amount and is_dra_extended_resource_name(name)
        ]
        if not names:
            return frozenset()
        client = self._handle.client() if self._handle is not None else None
        resolver = self._extended_resources.resolver(client)
        return frozenset(n for n in names if resolver.get_device_class(n) is not None)

    # --- PreFilter, Filter ----------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[None, Status | None]:
        """Store the pod's requests for Filter; never narrows the nodes, never rejects."""
        request = compute_pod_resource_request(
            pod, pod_level_resources=self.enable_pod_level_resources
        )
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(request, self.dra_backed(request)))
        return None, None

    def pre_filter_extensions(self) -> None:
        """None: the state describes the pod alone, so other pods cannot change it."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """``Unschedulable`` with every shortage as a reason, or None when the pod fits."""
        try:
            s = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
        except NotFound as error:
            return Status.as_error(
                _StateError(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: {error}')
            )
        except TypeError:
            value = state.read(PRE_FILTER_STATE_KEY)
            return Status.as_error(
                _StateError(f"{value!r}  convert to NodeResourcesFit.preFilterState error")
            )
        short = fits_request(
            s.request,
            node_info,
            self.ignored_resources,
            self.ignored_resource_groups,
            s.dra_backed,
        )
        if short:
            reasons = [r.reason for r in short]
            if self.unresolvable_when_too_small and any(r.unresolvable for r in short):
                return Status.unresolvable(*reasons)
            return Status.unschedulable(*reasons)
        return None

    # --- events -----------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """A pod deleted or shrunk in place; a node added or given more allocatable."""
        pod_action = ActionType.DELETE
        if self.enable_in_place_pod_vertical_scaling:
            pod_action |= ActionType.UPDATE_POD_SCALE_DOWN
        # With queueing hints, only Add and allocatable changes matter for nodes.
        node_action = ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
        events = [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, pod_action), self.is_schedulable_after_pod_event
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_action),
                self.is_schedulable_after_node_change,
            ),
        ]
        if self.enable_dra_extended_resource:
            # A pod may wait for a class that serves its extended resource.
            events.append(
                ClusterEventWithHint(
                    ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
                    self.is_schedulable_after_device_class_event,
                )
            )
        return events

    def is_schedulable_after_device_class_event(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """``QUEUE`` when the class now serves an extended resource the pod asks for.

        Its explicit ``extendedResourceName`` (added, or changed by an
        update), or, for a new class, its implicit name.
        """
        if (old is not None and not isinstance(old, DeviceClass)) or not isinstance(
            new, DeviceClass
        ):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        wanted = pod_requests(pod)
        if old is not None:
            if old.spec.extended_resource_name == new.spec.extended_resource_name:
                return QueueingHint.QUEUE_SKIP
        elif RESOURCE_DEVICE_CLASS_PREFIX + new.metadata.name in wanted:
            return QueueingHint.QUEUE
        name = new.spec.extended_resource_name
        if name is not None and name in wanted:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_event(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` for a deleted pod that held (or was nominated to) room, or a useful scale-down."""
        if (old is not None and not isinstance(old, Pod)) or (
            new is not None and not isinstance(new, Pod)
        ):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        if new is None:
            if old is None:
                return QueueingHint.QUEUE
            if not old.spec.node_name and not old.status.nominated_node_name:
                return QueueingHint.QUEUE_SKIP  # it was waiting too: it frees nothing
            return QueueingHint.QUEUE
        if not self.enable_in_place_pod_vertical_scaling:
            return QueueingHint.QUEUE_SKIP  # without in-place resize, an update frees nothing
        if old is None or not self.is_schedulable_after_pod_scale_down(pod, old, new):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_scale_down(
        self, target: Pod, original: Pod, modified: Pod
    ) -> bool:
        """True for the target pod itself, or a pod on a node that now requests less of what the target wants."""
        if pod_uid(modified) == pod_uid(target):
            return True
        if not modified.spec.node_name:
            return False  # an unscheduled pod shrinking frees nothing on any node
        level = self.enable_pod_level_resources
        before = compute_pod_resource_request(original, pod_level_resources=level)
        after = compute_pod_resource_request(modified, pod_level_resources=level)
        for name, wanted in pod_requests(target, skip_pod_level_resources=not level).items():
            if wanted == 0:
                continue
            if name == CPU:
                decreased = before.milli_cpu > after.milli_cpu
            elif name == MEMORY:
                decreased = before.memory > after.memory
            elif name == EPHEMERAL_STORAGE:
                decreased = before.ephemeral_storage > after.ephemeral_storage
            else:
                decreased = is_scalar_resource_name(name) and before.scalar_resources.get(
                    name, 0
                ) > after.scalar_resources.get(name, 0)
            if decreased:
                return True
        return False

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` for a new node the pod fits, or a node that fits and gained room the pod wants."""
        if (old is not None and not isinstance(old, Node)) or (
            new is not None and not isinstance(new, Node)
        ):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        dra_backed = self.dra_backed(
            compute_pod_resource_request(pod, pod_level_resources=self.enable_pod_level_resources)
        )
        if new is None or not is_fit(pod, new, dra_backed):
            return QueueingHint.QUEUE_SKIP  # even empty, this node could not take the pod
        if old is None:
            return QueueingHint.QUEUE
        if not have_any_requested_resources_increased(pod, old, new, dra_backed):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    # --- PreScore, Score --------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Store the pod's (non-zero) requests of the strategy's resources for Score."""
        requests = tuple(self.scorer.calculate_pod_resource_request_list(pod))
        state.write(
            PRE_SCORE_STATE_KEY,
            PreScoreState(requests, score_node_for(self.scorer, self._node_scores, pod, requests)),
        )
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The strategy's score of the node (0-100); computes the pod's requests if PreScore did not."""
        try:
            s = state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)
        except (NotFound, TypeError):
            requests = self.scorer.calculate_pod_resource_request_list(pod)
            return self.scorer.score(pod, node_info, requests)
        return s.score_node(node_info)

    def score_extensions(self) -> None:
        """None: the scores are already on 0-100."""
        return None


def fit_args_from(args: Any) -> NodeResourcesFitArgs:
    """The typed args a factory gets: ``None`` means all defaults; a dict is decoded strictly, then defaulted.

    Typed args are taken as they are (Go's ``NewFit`` receives them
    already defaulted and only validates).
    """
    if isinstance(args, NodeResourcesFitArgs):
        return args
    if args is None or isinstance(args, Mapping):
        try:
            decoded = decode_node_resources_fit_args(args)
        except ObjectInvalid as error:
            raise InvalidArgsError(f"decoding NodeResourcesFitArgs: {error}") from None
        return set_defaults_node_resources_fit_args(decoded)
    raise InvalidArgsError(
        f"want args to be of type NodeResourcesFitArgs, got {type(args).__name__}"
    )


def new(args: Any, handle: Any) -> Fit:
    """The factory the registry calls, with the profile's ``pluginConfig`` args for this plugin."""
    return Fit(fit_args_from(args), handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = Fit
    _filter: type[interface.FilterPlugin] = Fit
    _pre_score: type[interface.PreScorePlugin] = Fit
    _score: type[interface.ScorePlugin] = Fit
    _enqueue_extensions: type[interface.EnqueueExtensions] = Fit
