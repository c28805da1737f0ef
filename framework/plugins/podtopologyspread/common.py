"""What PreFilter and PreScore share: the parsed constraint, node inclusion, selector merging, counting.

A pod's ``topologySpreadConstraints`` are parsed once per attempt into
:class:`SpreadConstraint`: the label selector compiled, ``matchLabelKeys``
merged into it (with the pod's own values for those keys), and the three
optional fields filled with their defaults: ``minDomains`` 1,
``nodeAffinityPolicy: Honor``, ``nodeTaintsPolicy: Ignore``.

>>> from framework.objects import LabelSelector, TopologySpreadConstraint
>>> raw = TopologySpreadConstraint(max_skew=1, topology_key="zone",
...     when_unsatisfiable="DoNotSchedule",
...     label_selector=LabelSelector(match_labels={"app": "web"}),
...     match_label_keys=("version",))
>>> [c.selector for c in filter_topology_spread_constraints(
...     [raw], {"app": "web", "version": "v2"}, "DoNotSchedule")]
[Selector('app=web,version=v2')]

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/common.go``
(v1.33), with the feature gates of v1.33 (MinDomains and NodeInclusionPolicy
GA, MatchLabelKeys beta and on) taken as always on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from framework.node_info import NodeInfo
from framework.objects import Node, Pod, TopologySpreadConstraint
from framework.objects.labels import Selector, label_selector_as_selector, selector_from_set
from framework.objects.node import LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE
from framework.objects.nodeaffinity import RequiredNodeAffinity
from framework.objects.pod import DO_NOT_SCHEDULE, HONOR, IGNORE, SCHEDULE_ANYWAY
from framework.plugins.helper import (
    do_not_schedule_taints_filter_func,
    find_matching_untolerated_taint,
)

__all__ = [
    "DO_NOT_SCHEDULE",
    "HONOR",
    "IGNORE",
    "LABEL_HOSTNAME",
    "LABEL_TOPOLOGY_ZONE",
    "SCHEDULE_ANYWAY",
    "ParsedConstraints",
    "SpreadConstraint",
    "count_pods_match_selector",
    "filter_topology_spread_constraints",
    "merge_label_set_with_selector",
    "node_labels_match_spread_constraints",
]


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """A parsed constraint (Go's internal ``topologySpreadConstraint``)."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def inclusion_policies_always_match(self, required: RequiredNodeAffinity) -> bool:
        """True when :meth:`match_node_inclusion_policies` cannot reject any node for this pod.

        That is the common case (taints ignored, and a pod without a node
        selector or required node affinity to honour), and it lets the
        counting loops skip the check on every node.
        """
        honors_affinity = self.node_affinity_policy == HONOR and (
            required.node_selector is not None or required.affinity is not None
        )
        return not honors_affinity and self.node_taints_policy != HONOR

    def match_node_inclusion_policies(
        self, pod: Pod, node: Node, required: RequiredNodeAffinity
    ) -> bool:
        """Whether ``node`` counts as a domain member for this constraint, under its two policies."""
        if self.node_affinity_policy == HONOR:
            matched, _ = required.match(node)  # parse errors ignored, as in Go
            if not matched:
                return False
        if self.node_taints_policy == HONOR:
            taint = find_matching_untolerated_taint(
                node.spec.taints, pod.spec.tolerations, do_not_schedule_taints_filter_func()
            )
            if taint is not None:
                return False
        return True


def merge_label_set_with_selector(match_labels: Mapping[str, str], selector: Selector) -> Selector:
    """``key=value`` per label, plus the selector's requirements (``mergeLabelSetWithSelector``).

    A selector that matches nothing has no requirements to give (Go's
    ``Requirements()`` answers ``ok=false``), so the result is then the
    label set alone.
    """
    merged = selector_from_set(match_labels)
    if selector.matches_nothing:
        return merged
    return merged.add(*selector.requirements)


def filter_topology_spread_constraints(
    constraints: Iterable[TopologySpreadConstraint],
    pod_labels: Mapping[str, str],
    action: str,
) -> list[SpreadConstraint]:
    """The constraints whose ``whenUnsatisfiable`` is ``action``, parsed.

    Raises :class:`~framework.objects.labels.SelectorError` for a selector
    that does not compile (Go returns the error; the plugin turns it into
    an ``Error`` status).
    """
    result: list[SpreadConstraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = label_selector_as_selector(c.label_selector)
        if c.match_label_keys:
            match_labels = {k: pod_labels[k] for k in c.match_label_keys if k in pod_labels}
            if match_labels:
                selector = merge_label_set_with_selector(match_labels, selector)
        result.append(
            SpreadConstraint(
                max_skew=c.max_skew,
                topology_key=c.topology_key,
                selector=selector,
                min_domains=c.min_domains if c.min_domains is not None else 1,
                node_affinity_policy=c.node_affinity_policy or HONOR,
                node_taints_policy=c.node_taints_policy or IGNORE,
            )
        )
    return result


class ParsedConstraints:
    """A pod's own constraints, parsed once per constraint list and per value of its ``matchLabelKeys``.

    The queue asks PodTopologySpread's queueing hint about every pod it
    rejected, once per bound pod of their namespace (kube's
    ``isSchedulableAfterPodChange`` calls ``getConstraints``), and compiling
    the selectors was most of each call. The pods of one workload share
    their spec (decoded from the template once), so the parsed list is kept
    per constraint tuple, by identity, and per value of the pod labels its
    ``matchLabelKeys`` copy: the result of
    :func:`filter_topology_spread_constraints`, which reads nothing else.
    A selector that does not compile is not kept (it raises every time).

    Not in Kubernetes, which parses them on every call. At most
    :attr:`LIMIT` lists are kept; past that, the cache starts again empty.
    """

    LIMIT = 4096

    __slots__ = ("_parsed",)

    def __init__(self) -> None:
        self._parsed: dict[
            tuple[int, str, tuple[tuple[str, str | None], ...]],
            tuple[tuple[TopologySpreadConstraint, ...], list[SpreadConstraint]],
        ] = {}

    def parse(
        self,
        constraints: tuple[TopologySpreadConstraint, ...],
        pod_labels: Mapping[str, str],
        action: str,
    ) -> list[SpreadConstraint]:
        """:func:`filter_topology_spread_constraints` of the pod's own, kept; a new list each call."""
        copied = tuple((k, pod_labels.get(k)) for c in constraints for k in c.match_label_keys)
        key = (id(constraints), action, copied)
        found = self._parsed.get(key)
        # The tuple is kept beside the result, so that its id names the same tuple.
        if found is not None and found[0] is constraints:
            return list(found[1])
        parsed = filter_topology_spread_constraints(constraints, pod_labels, action)
        if len(self._parsed) >= self.LIMIT:
            self._parsed = {}
        self._parsed[key] = (constraints, parsed)
        return list(parsed)


def node_labels_match_spread_constraints(
    node_labels: Mapping[str, str], constraints: Iterable[SpreadConstraint]
) -> bool:
    """Whether the node has *every* constraint's topology key."""
    for c in constraints:  # noqa: SIM110 (a loop: all(<generator>) costs more, once per node)
        if c.topology_key not in node_labels:
            return False
    return True


def count_pods_match_selector(node_info: NodeInfo, selector: Selector, namespace: str) -> int:
    """The node's pods in ``namespace``, not terminating, that ``selector`` matches."""
    count = 0
    for info in node_info.pods:
        metadata = info.pod.metadata
        # Terminating pods do not count (kubernetes#87621).
        if metadata.deletion_timestamp is not None or metadata.namespace != namespace:
            continue
        if selector.matches(metadata.labels):
            count += 1
    return count
