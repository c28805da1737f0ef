"""PreFilter, its AddPod/RemovePod extensions, and Filter: the hard constraints (``DoNotSchedule``).

**PreFilter** counts, for each hard constraint, the matching pods in every
topology domain (``TpValueToMatchNum``: domain value → count). A node takes
part only if it has *all* the constraints' topology keys and, per
constraint, passes its inclusion policies (by default the pod's required
node affinity is honoured and taints are ignored). For each constraint it
also remembers the two least-loaded domains, the *critical paths*; the
first one holds the global minimum.

**Filter** then checks, per constraint, on the node's domain::

    matching pods there + (1 if the pod matches its own selector) - global minimum <= maxSkew

where the global minimum counts as 0 while there are fewer domains than
``minDomains``. A node without a topology key is
``UnschedulableAndUnresolvable`` (no eviction gives it a label); a skew
too large is ``Unschedulable`` (evicting pods could fix it).

>>> paths = CriticalPaths()
>>> for value, count in [("zone-a", 3), ("zone-b", 1), ("zone-c", 2)]:
...     paths.update(value, count)
>>> paths.paths
[('zone-b', 1), ('zone-c', 2)]

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``
(v1.33). Simplified: no lock (one attempt runs on one thread here), and
nodes are visited in a loop, not by the parallelizer. Added: each node's
counts, and their sums per domain, are kept from one cycle to the next, and
only the nodes that changed are counted again
(:class:`~framework.plugins.podtopologyspread.counts.NodeCountsCache`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects.nodeaffinity import get_required_node_affinity
from framework.plugins.podtopologyspread.common import (
    SpreadConstraint,
    node_labels_match_spread_constraints,
)
from framework.plugins.podtopologyspread.counts import NodeCountsCache

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "MAX_INT32",
    "CriticalPaths",
    "PreFilterState",
    "cal_pre_filter_state",
    "update_with_pod",
]

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
"""``ErrReasonConstraintsNotMatch``: the skew would exceed ``maxSkew``."""
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
"""``ErrReasonNodeLabelNotMatch``: the node lacks a constraint's topology key."""

MAX_INT32 = 2**31 - 1
"""The count an empty critical path starts with (``math.MaxInt32``)."""


class CriticalPaths:
    """The two least-loaded domains of one constraint, as ``[(value, count), (value, count)]``.

    ``paths[0]`` always holds the minimum; ``paths[1]`` is at least as large
    but not necessarily the second minimum once counts change (Go's caveat:
    enough for preemption, which changes one node at a time).
    """

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: list[tuple[str, int]] = [("", MAX_INT32), ("", MAX_INT32)]

    def update(self, value: str, num: int) -> None:
        """Record that domain ``value`` now holds ``num`` matching pods."""
        p = self.paths
        i = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if i >= 0:
            p[i] = (value, num)
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = (value, num)
        elif num < p[1][1]:
            p[1] = (value, num)

    def clone(self) -> CriticalPaths:
        copy = CriticalPaths()
        copy.paths = list(self.paths)
        return copy

    def __repr__(self) -> str:
        return f"CriticalPaths({self.paths!r})"


@dataclass(slots=True)
class PreFilterState:
    """What PreFilter computes for Filter; one entry per hard constraint, by index.

    An empty ``constraints`` list is a legitimate state: the pod has no hard
    constraints and every node passes.
    """

    constraints: list[SpreadConstraint] = field(default_factory=list)
    critical_paths: list[CriticalPaths] = field(default_factory=list)
    tp_value_to_match_num: list[dict[str, int]] = field(default_factory=list)

    def min_match_num(self, constraint_id: int, min_domains: int) -> int:
        """The global minimum for the skew; 0 while fewer domains than ``minDomains`` exist."""
        if len(self.tp_value_to_match_num[constraint_id]) < min_domains:
            return 0
        return self.critical_paths[constraint_id].paths[0][1]

    def clone(self) -> PreFilterState:
        """A copy whose counts can change independently (constraints are shared: they never change)."""
        return PreFilterState(
            self.constraints,
            [p.clone() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
        )


def cal_pre_filter_state(
    pod: Pod,
    constraints: list[SpreadConstraint],
    all_nodes: list[NodeInfo],
    cache: NodeCountsCache | None = None,
) -> PreFilterState:
    """Count matching pods per domain for each hard constraint (``calPreFilterState``).

    With ``cache``, a node's counts are reused from an earlier cycle when
    the node has not changed since, and so are the sums per domain when
    no node moved between domains (:class:`~.counts.NodeCountsCache`).
    """
    if not constraints:
        return PreFilterState()
    state = PreFilterState(
        constraints,
        [CriticalPaths() for _ in constraints],
        [{} for _ in constraints],
    )
    required = get_required_node_affinity(pod)
    # Decided once per cycle, not once per node: most pods' policies include every node.
    check_inclusion = [not c.inclusion_policies_always_match(required) for c in constraints]
    cache = cache if cache is not None else NodeCountsCache()
    if not any(check_inclusion):
        # Every node with all the keys counts: the sums the cache keeps.
        state.tp_value_to_match_num = cache.domain_counts(all_nodes, constraints, pod.namespace)
    else:
        walked = cache.node_counts(all_nodes, constraints, pod.namespace)
        for node_info, (has_all_keys, values, counts) in zip(all_nodes, walked, strict=True):
            node = node_info.node
            if node is None or not has_all_keys:
                continue
            for i, c in enumerate(constraints):
                if check_inclusion[i] and not c.match_node_inclusion_policies(pod, node, required):
                    continue
                match_num = state.tp_value_to_match_num[i]
                match_num[values[i]] = match_num.get(values[i], 0) + counts[i]
    for i, match_num in enumerate(state.tp_value_to_match_num):
        for value, num in match_num.items():
            state.critical_paths[i].update(value, num)
    return state


def update_with_pod(
    state: PreFilterState, updated_pod: Pod, preemptor_pod: Pod, node: Node | None, delta: int
) -> None:
    """Add (``delta=1``) or remove (``-1``) one pod on ``node`` in the counts (``updateWithPod``)."""
    if updated_pod.namespace != preemptor_pod.namespace or node is None:
        return
    labels = node.metadata.labels
    if not node_labels_match_spread_constraints(labels, state.constraints):
        return
    required = get_required_node_affinity(preemptor_pod)
    pod_labels = updated_pod.metadata.labels
    for i, c in enumerate(state.constraints):
        if not c.selector.matches(pod_labels):
            continue
        if not c.match_node_inclusion_policies(preemptor_pod, node, required):
            continue
        value = labels[c.topology_key]
        counts = state.tp_value_to_match_num[i]
        counts[value] = counts.get(value, 0) + delta
        state.critical_paths[i].update(value, counts[value])
