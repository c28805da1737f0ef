"""The PodTopologySpread plugin: spread matching pods evenly over topology domains.

A pod's ``topologySpreadConstraints`` ask the scheduler to keep the pods a
label selector matches evenly spread over the domains of a node label
(zones, hostnames...): ``DoNotSchedule`` constraints are enforced by
PreFilter/Filter (:mod:`~framework.plugins.podtopologyspread.filtering`), ``ScheduleAnyway`` ones are
preferences, handled by PreScore/Score/NormalizeScore (:mod:`~framework.plugins.podtopologyspread.scoring`).

**Default constraints.** A pod with no constraints of its own gets the
plugin's default ones (:mod:`~framework.config.args_podtopologyspread`: the System pair, or a configured
list), but only with a selector deduced from the workload the pod belongs
to: kube-scheduler merges the selectors of the Services selecting the pod
and of its controller, a ReplicationController, ReplicaSet or StatefulSet
(``helper.DefaultSelector``). When the result is empty, the pod gets no
default constraints.

The plugin reads those objects through its handle's client
(:mod:`framework.plugins.listers`), where kube-scheduler reads informer
caches; the simulator keeps a manifest's ReplicaSets, StatefulSets and
ReplicationControllers (a Deployment as its ReplicaSet) and Services for it.

>>> from framework.cycle_state import CycleState
>>> from framework.cache.snapshot import new_snapshot
>>> from framework.objects import Node, Pod
>>> def node(name, zone):
...     return Node.from_dict({"metadata": {"name": name, "labels": {"zone": zone}}})
>>> def pod(name, node_name=""):
...     return Pod.from_dict({"metadata": {"name": name, "namespace": "default",
...         "labels": {"app": "web"}}, "spec": {"nodeName": node_name,
...         "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
...         "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]}})
>>> snapshot = new_snapshot([pod("a", "n1")], [node("n1", "z1"), node("n2", "z2")])
>>> plugin = PodTopologySpread(None, PodTopologySpreadArgs(defaulting_type="List"))
>>> state = CycleState()
>>> plugin.pre_filter(state, pod("b"), list(snapshot.list()))
(None, None)
>>> for info in snapshot.list():
...     print(info.name, plugin.filter(state, pod("b"), info) or "fits")
n1 Unschedulable: node(s) didn't match pod topology spread constraints
n2 fits

Which events can help a rejected pod (queueing hints on, as in v1.33): an
assigned pod in its namespace added, deleted, or relabelled so that a
constraint's selector matches it differently; the pod itself gaining a
toleration when a constraint honours taints; a node added or deleted that
has every topology key, or updated so that it gains or loses one, changes
a key's value, or changes its taints.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/plugin.go``
and ``common.go``, and ``DefaultSelector`` in
``pkg/scheduler/framework/plugins/helper/spread.go`` (v1.33). Added: a pod's
own constraints are parsed once per workload, not on every call
(:class:`~framework.plugins.podtopologyspread.common.ParsedConstraints`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.apiserver.errors import APIError
from framework.cluster_event import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.config.args_podtopologyspread import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    SYSTEM_DEFAULTING,
    PodTopologySpreadArgs,
    pod_topology_spread_args_from,
)
from framework.cycle_state import CycleState, NotFound
from framework.interface import NodeScore, PreFilterResult
from framework.node_info import NodeInfo
from framework.objects import Node, Pod, TopologySpreadConstraint, pod_uid
from framework.objects.labels import (
    Requirement,
    Selector,
    SelectorError,
    label_selector_as_selector,
    selector_from_set,
)
from framework.objects.meta import LabelSelector
from framework.objects.workloads import ReplicaSet, ReplicationController, Service, StatefulSet
from framework.plugins import names
from framework.plugins.listers import ClientListers, listers_of
from framework.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    HONOR,
    SCHEDULE_ANYWAY,
    ParsedConstraints,
    SpreadConstraint,
    filter_topology_spread_constraints,
    node_labels_match_spread_constraints,
)
from framework.plugins.podtopologyspread.counts import NodeCountsCache
from framework.plugins.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PreFilterState,
    cal_pre_filter_state,
    update_with_pod,
)
from framework.plugins.podtopologyspread.scoring import (
    PreScoreState,
    count_in_domains,
    init_pre_score_state,
    normalize_scores,
    score_node,
)
from framework.status import Status, node_not_found
from framework.types import PodInfo

__all__ = [
    "NAME",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "PodTopologySpread",
    "default_selector",
    "get_pod_services",
    "new",
]

NAME = names.POD_TOPOLOGY_SPREAD
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

_RC = ("v1", "ReplicationController")
_RS = ("apps/v1", "ReplicaSet")
_SS = ("apps/v1", "StatefulSet")


def _controller_of(pod: Pod) -> Any:
    """The ownerReference with ``controller: true`` (``metav1.GetControllerOfNoCopy``), or None."""
    for ref in pod.metadata.owner_references:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def get_pod_services(listers: ClientListers, pod: Pod) -> list[Service]:
    """The Services of the pod's namespace whose selector matches its labels (``GetPodServices``).

    A Service without a selector matches nothing, not everything.
    """
    return [
        service
        for service in listers.list(Service, pod.metadata.namespace)
        if service.spec.selector
        and selector_from_set(service.spec.selector).matches(pod.metadata.labels)
    ]


def _requirements(selector: LabelSelector | None) -> tuple[Requirement, ...]:
    # LabelSelectorAsSelector, then Requirements(): a nil selector (Nothing) and a bad one add none.
    try:
        compiled = label_selector_as_selector(selector)
    except SelectorError:
        return ()
    return () if compiled.matches_nothing else compiled.requirements


def default_selector(pod: Pod, listers: ClientListers | None = None) -> Selector:
    """The selector default constraints use for ``pod``; empty means "no default constraints".

    The selectors of the Services selecting the pod, merged, and then its
    controller's: a ReplicationController's map, or a ReplicaSet's or
    StatefulSet's label selector, each read from the cluster (an owner that
    does not exist adds nothing).

    >>> from framework.apiserver import APIServer
    >>> from framework.objects.workloads import ReplicaSet
    >>> api = APIServer()
    >>> _ = api.create(ReplicaSet.from_dict({"metadata": {"name": "web"},
    ...     "spec": {"selector": {"matchLabels": {"app": "web"}}}}))
    >>> owned = Pod.from_dict({"metadata": {"name": "web-1", "namespace": "default",
    ...     "labels": {"app": "web", "tier": "front"},
    ...     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
    ...                          "name": "web", "uid": "u1", "controller": True}]}})
    >>> default_selector(owned, ClientListers(api))
    Selector('app=web')
    >>> default_selector(owned, ClientListers(None)).empty()
    True
    """
    listers = listers or ClientListers(None)
    label_set: dict[str, str] = {}
    try:
        services = get_pod_services(listers, pod)
    except APIError:
        services = []  # kube ignores a lister's error here, and so the Services
    for service in services:
        label_set.update(service.spec.selector)
    selector = selector_from_set(label_set)
    owner = _controller_of(pod)
    if owner is None:
        return selector
    namespace, name = pod.metadata.namespace, str(owner.get("name", ""))
    gvk = (owner.get("apiVersion"), owner.get("kind"))
    try:
        return _with_owner_selector(listers, gvk, name, namespace, label_set, selector)
    except APIError:
        return selector  # an owner that cannot be read adds nothing, as one that does not exist


def _with_owner_selector(
    listers: ClientListers,
    gvk: tuple[Any, Any],
    name: str,
    namespace: str,
    label_set: dict[str, str],
    selector: Selector,
) -> Selector:
    if gvk == _RC:
        rc = listers.get(ReplicationController, name, namespace)
        if rc is not None:
            label_set.update(rc.spec.selector)
            selector = selector_from_set(label_set)
    elif gvk == _RS:
        rs = listers.get(ReplicaSet, name, namespace)
        if rs is not None:
            selector = selector.add(*_requirements(rs.spec.selector))
    elif gvk == _SS:
        ss = listers.get(StatefulSet, name, namespace)
        if ss is not None:
            selector = selector.add(*_requirements(ss.spec.selector))
    return selector


def _error(message: str) -> Status:
    return Status.as_error(ValueError(message))


class PodTopologySpread:
    """PreFilter (+AddPod/RemovePod), Filter, PreScore, Score, NormalizeScore; see the module docstring."""

    def __init__(self, handle: Any = None, args: PodTopologySpreadArgs | None = None) -> None:
        args = pod_topology_spread_args_from(args)
        self._handle = handle
        # Each node's topology values and matching pods, kept across cycles while it is unchanged.
        self._counts = NodeCountsCache()
        # The pods' own constraints, parsed once per workload (the queueing hint asks often).
        self._parsed = ParsedConstraints()
        self.default_constraints: tuple[TopologySpreadConstraint, ...] = args.default_constraints
        self.system_defaulted = False
        if args.defaulting_type == SYSTEM_DEFAULTING:
            self.default_constraints = SYSTEM_DEFAULT_CONSTRAINTS
            self.system_defaulted = True

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[None, Status | None]:
        """Unsignable with constraints, the pod's own or defaulted: spreading depends on other pods.

        Go's ``PodTopologySpread.SignPod`` (v1.35); the system defaults count
        as constraints, so the default profile signs no pod unless its
        ``defaultConstraints`` are emptied (``defaultingType: List``).
        """
        if pod.spec.topology_spread_constraints:
            return None, Status.unschedulable("pods with topology constraints are not signable")
        if self.default_constraints:
            return None, Status.unschedulable(
                "pods with default topology constraints are not signable"
            )
        return None, None

    # --- constraints ------------------------------------------------------------------------------

    def build_default_constraints(self, pod: Pod, action: str) -> list[SpreadConstraint]:
        """The default constraints of ``action``, with the pod's deduced selector (``buildDefaultConstraints``)."""
        constraints = filter_topology_spread_constraints(
            self.default_constraints, pod.metadata.labels, action
        )
        if not constraints:
            return []
        selector = default_selector(pod, listers_of(self._handle))
        if selector.empty():
            return []
        return [
            SpreadConstraint(
                c.max_skew,
                c.topology_key,
                selector,
                c.min_domains,
                c.node_affinity_policy,
                c.node_taints_policy,
            )
            for c in constraints
        ]

    def _constraints(self, pod: Pod, action: str) -> list[SpreadConstraint]:
        if pod.spec.topology_spread_constraints:
            return self._parsed.parse(
                pod.spec.topology_spread_constraints, pod.metadata.labels, action
            )
        return self.build_default_constraints(pod, action)

    def get_constraints(self, pod: Pod) -> list[SpreadConstraint]:
        """The pod's hard constraints, its own or the defaults (``getConstraints``)."""
        return self._constraints(pod, DO_NOT_SCHEDULE)

    # --- PreFilter and its extensions --------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """Count matching pods per domain for each hard constraint; ``Skip`` when there is none."""
        try:
            constraints = self.get_constraints(pod)
        except SelectorError as error:
            return None, _error(f"get constraints from pod: {error}")
        if not constraints:
            return None, Status.skip()
        state.write(
            PRE_FILTER_STATE_KEY, cal_pre_filter_state(pod, constraints, nodes, self._counts)
        )
        return None, None

    def pre_filter_extensions(self) -> PodTopologySpread:
        return self

    def _pre_filter_state(self, state: CycleState) -> PreFilterState | Status:
        try:
            return state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
        except (NotFound, TypeError) as error:
            return _error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: {error}')

    def add_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_add: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        """Count ``pod_info_to_add`` on ``node_info`` as if it were there (nominated pods)."""
        s = self._pre_filter_state(state)
        if isinstance(s, Status):
            return s
        update_with_pod(s, pod_info_to_add.pod, pod_to_schedule, node_info.node, 1)
        return None

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        """Stop counting ``pod_info_to_remove`` (a preemption victim)."""
        s = self._pre_filter_state(state)
        if isinstance(s, Status):
            return s
        update_with_pod(s, pod_info_to_remove.pod, pod_to_schedule, node_info.node, -1)
        return None

    # --- Filter ------------------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject the node if placing the pod there would break a hard constraint's ``maxSkew``."""
        node = node_info.node
        if node is None:
            return node_not_found()
        s = self._pre_filter_state(state)
        if isinstance(s, Status):
            return s
        if not s.constraints:
            return None
        labels = node.metadata.labels
        pod_labels = pod.metadata.labels
        for i, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
            min_match_num = s.min_match_num(i, c.min_domains)
            self_match_num = 1 if c.selector.matches(pod_labels) else 0
            match_num = s.tp_value_to_match_num[i].get(value, 0)
            if match_num + self_match_num - min_match_num > c.max_skew:
                return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None

    # --- PreScore, Score, NormalizeScore ----------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """Count matching pods per domain for the soft constraints; ``Skip`` when there is none."""
        lister = self._handle.snapshot_shared_lister() if self._handle is not None else None
        if lister is None:
            return _error(
                "getting all nodes: the plugin has no snapshot (SnapshotSharedLister is nil)"
            )
        all_nodes = lister.node_infos().list()
        if not all_nodes:
            return Status.skip()
        # Nodes must have every topology key unless only the System defaults apply,
        # so that nodes without a zone label still get hostname spreading.
        require_all = bool(pod.spec.topology_spread_constraints) or not self.system_defaulted
        try:
            constraints = self._constraints(pod, SCHEDULE_ANYWAY)
        except SelectorError as error:
            return _error(f"calculating preScoreState: {error}")
        pre_score = init_pre_score_state(constraints, nodes, require_all)
        if not pre_score.constraints:
            return Status.skip()
        count_in_domains(pre_score, pod, all_nodes, require_all, self._counts)
        state.write(PRE_SCORE_STATE_KEY, pre_score)
        return None

    def _pre_score_state(self, state: CycleState) -> PreScoreState | Status:
        try:
            return state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)
        except (NotFound, TypeError) as error:
            return _error(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: {error}')

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The weighted count of matching pods in the node's domains (lower is better)."""
        if node_info.node is None:
            return 0, node_not_found()
        s = self._pre_score_state(state)
        if isinstance(s, Status):
            return 0, s
        return score_node(s, pod, node_info), None

    def score_extensions(self) -> PodTopologySpread:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        """Fewest matching pods → 100; ignored nodes → 0."""
        s = self._pre_score_state(state)
        if isinstance(s, Status):
            return s
        normalize_scores(s, scores)
        return None

    # --- Events and hints ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """Pods added, relabelled, deleted (or this pod's tolerations); nodes added, deleted, relabelled, retainted."""
        pod_actions = (
            ActionType.ADD
            | ActionType.UPDATE_POD_LABEL
            | ActionType.UPDATE_POD_TOLERATIONS
            | ActionType.DELETE
        )
        node_actions = (
            ActionType.ADD
            | ActionType.DELETE
            | ActionType.UPDATE_NODE_LABEL
            | ActionType.UPDATE_NODE_TAINT
        )
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, pod_actions), self.is_schedulable_after_pod_change
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_actions),
                self.is_schedulable_after_node_change,
            ),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` when an assigned pod of the namespace that a hard constraint selects came, went or changed."""
        if (new is not None and not isinstance(new, Pod)) or (
            old is not None and not isinstance(old, Pod)
        ):
            return QueueingHint.QUEUE  # Kubernetes' conversion error, which queues
        if (new is not None and not _involved_in_spreading(new, pod)) or (
            old is not None and not _involved_in_spreading(old, pod)
        ):
            return QueueingHint.QUEUE_SKIP
        try:
            constraints = self.get_constraints(pod)
        except SelectorError:
            return QueueingHint.QUEUE
        if new is not None and old is not None:
            if (
                pod_uid(new) == pod_uid(pod)
                and new.spec.tolerations != old.spec.tolerations
                and any(c.node_taints_policy == HONOR for c in constraints)
            ):
                return QueueingHint.QUEUE
            if dict(new.metadata.labels) == dict(old.metadata.labels):
                return QueueingHint.QUEUE_SKIP
            for c in constraints:
                if c.selector.matches(old.metadata.labels) != c.selector.matches(
                    new.metadata.labels
                ):
                    return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        changed = new if new is not None else old
        assert isinstance(changed, Pod)  # an event has an old or a new object
        if any(c.selector.matches(changed.metadata.labels) for c in constraints):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """``QUEUE`` when the node's topology keys, their values or its taints changed in a way that matters."""
        if (new is not None and not isinstance(new, Node)) or (
            old is not None and not isinstance(old, Node)
        ):
            return QueueingHint.QUEUE
        try:
            constraints = self.get_constraints(pod)
        except SelectorError:
            return QueueingHint.QUEUE
        old_matching = old is not None and node_labels_match_spread_constraints(
            old.metadata.labels, constraints
        )
        new_matching = new is not None and node_labels_match_spread_constraints(
            new.metadata.labels, constraints
        )
        if old is not None and new is not None:
            if old_matching != new_matching:
                return QueueingHint.QUEUE
            if new_matching and (
                any(
                    old.metadata.labels.get(c.topology_key, "")
                    != new.metadata.labels.get(c.topology_key, "")
                    for c in constraints
                )
                or old.spec.taints != new.spec.taints
            ):
                return QueueingHint.QUEUE
            return QueueingHint.QUEUE_SKIP
        if new is not None:
            return QueueingHint.QUEUE if new_matching else QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if old_matching else QueueingHint.QUEUE_SKIP


def _involved_in_spreading(incoming: Pod, pod_with_spreading: Pod) -> bool:
    """The pod itself, or an assigned pod of its namespace (``involvedInTopologySpreading``)."""
    return pod_uid(incoming) == pod_uid(pod_with_spreading) or (
        bool(incoming.spec.node_name) and incoming.namespace == pod_with_spreading.namespace
    )


def new(args: Any, handle: Any) -> PodTopologySpread:
    """The factory the registry calls, with the profile's ``pluginConfig`` args for this plugin."""
    return PodTopologySpread(handle, pod_topology_spread_args_from(args))


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_filter: type[interface.PreFilterPlugin] = PodTopologySpread
    _filter: type[interface.FilterPlugin] = PodTopologySpread
    _pre_score: type[interface.PreScorePlugin] = PodTopologySpread
    _score: type[interface.ScorePlugin] = PodTopologySpread
    _enqueue_extensions: type[interface.EnqueueExtensions] = PodTopologySpread
