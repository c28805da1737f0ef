"""Each node's part of PodTopologySpread's counts, and their sums per domain, kept across cycles.

PreFilter (``calPreFilterState``) and PreScore count, on *every* node of
the cluster, the pods each constraint's selector matches, and add them up
per topology domain. kube-scheduler does it afresh each cycle on 16
goroutines (``processNode``). In CPython that walk over 5,000 nodes was
most of the plugin's time, and mostly the same answer as last cycle: only
the node that received the last pod has changed.

:func:`node_counts` is one node's part (Go's ``tpCounts`` for the node);
:class:`NodeCountsCache` keeps each node's part with the ``NodeInfo``
generation it was computed at, and the sums per domain, and brings them up
to date from the nodes whose generation moved.

>>> from framework.node_info import NodeInfo
>>> from framework.objects import Node, Pod
>>> from framework.plugins.podtopologyspread.common import filter_topology_spread_constraints
>>> from framework.objects import LabelSelector, TopologySpreadConstraint
>>> constraints = filter_topology_spread_constraints([TopologySpreadConstraint(
...     max_skew=1, topology_key="zone", when_unsatisfiable="DoNotSchedule",
...     label_selector=LabelSelector(match_labels={"app": "web"}))], {}, "DoNotSchedule")
>>> def node_info(name, zone, *apps):
...     info = NodeInfo(*(Pod.from_dict({"metadata": {"name": f"{name}-{i}",
...         "namespace": "default", "labels": {"app": app}}}) for i, app in enumerate(apps)))
...     info.set_node(Node.from_dict({"metadata": {"name": name, "labels": {"zone": zone}}}))
...     return info
>>> nodes = [node_info("n1", "z1", "web", "db"), node_info("n2", "z2"), node_info("n3", "z1", "web")]
>>> node_counts(nodes[0], constraints, "default")
NodeCounts(has_all_keys=True, values=('z1',), counts=(1,))
>>> cache = NodeCountsCache()
>>> cache.domain_counts(nodes, constraints, "default")
[{'z1': 2, 'z2': 0}]

Not in Kubernetes; the results are those of its loops, which
``tests/plugins/podtopologyspread/test_node_counts.py`` checks against a
plain model of them after random changes to a cluster.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import NamedTuple

from framework.node_info import NodeInfo
from framework.plugins.pernode import MAX_CONDITIONS, changed_positions
from framework.plugins.podtopologyspread.common import (
    SpreadConstraint,
    count_pods_match_selector,
    node_labels_match_spread_constraints,
)

__all__ = ["NodeCounts", "NodeCountsCache", "node_counts"]


class NodeCounts(NamedTuple):
    """One node's part of the counts for a list of constraints, inclusion policies aside.

    What Go's ``processNode`` computes for one node (its ``tpCounts``), in a
    form PreFilter and PreScore can both read: per constraint, the node's
    value of the topology key (``""`` when the node has no such label, as
    Go's map lookup gives) and the node's matching pods.
    """

    has_all_keys: bool
    """Whether the node has every constraint's topology key (:func:`node_labels_match_spread_constraints`)."""
    values: tuple[str, ...]
    counts: tuple[int, ...]


def node_counts(
    node_info: NodeInfo, constraints: list[SpreadConstraint], namespace: str
) -> NodeCounts:
    """The node's :class:`NodeCounts`: its topology values and matching pods, per constraint.

    A ``NodeInfo`` whose node is not known (yet) has no labels and counts
    for nothing.
    """
    node = node_info.node
    if node is None:
        return NodeCounts(False, ("",) * len(constraints), (0,) * len(constraints))
    labels = node.metadata.labels
    return NodeCounts(
        node_labels_match_spread_constraints(labels, constraints),
        tuple(labels.get(c.topology_key, "") for c in constraints),
        tuple(count_pods_match_selector(node_info, c.selector, namespace) for c in constraints),
    )


@dataclass(slots=True)
class _LastWalk:
    """What the last cycle saw under one condition, position by position in the node list."""

    generations: list[int]
    counts: list[NodeCounts]
    domains: list[dict[str, int]] | None = None
    """Per constraint, domain → matching pods over the nodes with every key; None until asked for."""


class NodeCountsCache:
    """Each node's :class:`NodeCounts`, and their sums per domain, kept from one cycle to the next.

    A *condition* is what the counts depend on besides the node: the
    namespace and each constraint's topology key and selector. For each,
    the cache keeps what the last cycle saw at each position of the node
    list: the ``NodeInfo``'s generation and its counts. A generation names
    one state of one node (it comes from a global counter, bumped on every
    change; only a snapshot's copy shares it), so where the generation at a
    position is the same, so are the counts, and only the positions whose
    generation moved are counted again.

    The sums per domain are kept too. When every node that changed kept its
    domains and its keys (pods came or went, which is what changes between
    two cycles), last cycle's sums plus each changed node's difference are
    the sums; their order (each domain where it first appears in the node
    list, which decides the critical paths' ties) is unchanged as well.
    Otherwise the sums are added up again from every node's counts.

    Not in Kubernetes, which recounts every node each cycle. Only the
    conditions used most recently are kept
    (:data:`~framework.plugins.pernode.MAX_CONDITIONS`).
    """

    __slots__ = ("_lock", "_walks")

    def __init__(self) -> None:
        self._walks: OrderedDict[Hashable, _LastWalk] = OrderedDict()
        self._lock = threading.Lock()

    def node_counts(
        self, all_nodes: list[NodeInfo], constraints: list[SpreadConstraint], namespace: str
    ) -> list[NodeCounts]:
        """Each node's :class:`NodeCounts`, in ``all_nodes``' order."""
        with self._lock:
            return list(self._refresh(all_nodes, constraints, namespace).counts)

    def domain_counts(
        self, all_nodes: list[NodeInfo], constraints: list[SpreadConstraint], namespace: str
    ) -> list[dict[str, int]]:
        """Per constraint: domain → matching pods, over the nodes that have every key, in node order.

        The inclusion policies are not applied: the callers ask only when
        they cannot exclude any node.
        """
        with self._lock:
            walk = self._refresh(all_nodes, constraints, namespace)
            if walk.domains is None:
                walk.domains = _sum_domains(walk.counts, len(constraints))
            return [dict(domains) for domains in walk.domains]

    def _refresh(
        self, all_nodes: list[NodeInfo], constraints: list[SpreadConstraint], namespace: str
    ) -> _LastWalk:
        """The condition's walk, brought up to ``all_nodes``: its counts, and its sums if it has them."""
        condition = (namespace, tuple((c.topology_key, c.selector) for c in constraints))
        generations = [node_info.generation for node_info in all_nodes]
        walk = self._walks.get(condition)
        if walk is None or len(walk.generations) != len(generations):
            counted = [node_counts(node_info, constraints, namespace) for node_info in all_nodes]
            walk = self._walks[condition] = _LastWalk(generations, counted)
            if len(self._walks) > MAX_CONDITIONS:
                self._walks.popitem(last=False)  # the least recently used
            return walk
        self._walks.move_to_end(condition)
        moved = changed_positions(walk.generations, generations)
        # Counted before anything is replaced, so that an error leaves the walk as it was.
        recounted = [(p, node_counts(all_nodes[p], constraints, namespace)) for p in moved]
        for position, after in recounted:
            before = walk.counts[position]
            walk.counts[position] = after
            if walk.domains is None:
                continue
            if before.has_all_keys != after.has_all_keys or before.values != after.values:
                walk.domains = None  # a node moved: add the sums up again when asked
            elif after.has_all_keys:
                for domains, value, old, new in zip(
                    walk.domains, after.values, before.counts, after.counts, strict=True
                ):
                    domains[value] += new - old
        walk.generations = generations
        return walk


def _sum_domains(walked: list[NodeCounts], num_constraints: int) -> list[dict[str, int]]:
    """Per constraint: domain → matching pods, over the nodes with every key, in node order."""
    sums: list[dict[str, int]] = [{} for _ in range(num_constraints)]
    for i, domains in enumerate(sums):
        # One constraint at a time, the counts unpacked as tuples: the
        # cheapest loop CPython offers over every node of the cluster.
        for has_all_keys, values, counts in walked:
            if has_all_keys:
                value = values[i]
                domains[value] = domains.get(value, 0) + counts[i]
    return sums
