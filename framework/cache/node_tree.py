"""NodeTree: node names grouped by zone, listed round-robin so zones take turns.

The order in which the scheduler visits nodes matters: Filter stops once it
has found enough feasible nodes (``percentageOfNodesToScore``), so nodes near
the front of the list are considered more often. kube-scheduler spreads that
advantage across failure zones. The cache keeps node names grouped by zone
(zones in the order they were first seen, nodes in each zone in the order
they were added) and lists them round-robin: the first node of every zone,
then the second node of every zone, and so on. The snapshot's node list, and
therefore the order of every scheduling cycle, is this list.

A zone is identified by :func:`get_zone_key`, built from the node's region
and zone labels.

Contract: not thread-safe; the cache calls it under its own lock. Node names
are unique within a zone; adding a name twice to the same zone is ignored.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/backend/cache/node_tree.go``
and ``GetZoneKey`` in ``kubernetes/component-helpers:node/topology/helpers.go``
(v1.33). Simplified: ``list`` walks the zones until a round adds nothing,
instead of counting exhausted zones, which gives the same order and cannot
come up short.
"""

from __future__ import annotations

import contextlib
import logging

from framework.cache.errors import CacheError, go_quote
from framework.objects import Node
from framework.objects.node import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
)

__all__ = [
    "LABEL_FAILURE_DOMAIN_BETA_REGION",
    "LABEL_FAILURE_DOMAIN_BETA_ZONE",
    "LABEL_TOPOLOGY_REGION",
    "LABEL_TOPOLOGY_ZONE",
    "NodeTree",
    "get_zone_key",
]


_log = logging.getLogger(__name__)


def get_zone_key(node: Node) -> str:
    r"""The node's failure zone as one string: ``region + ":\x00:" + zone``; "" if it has neither.

    The deprecated ``failure-domain.beta.kubernetes.io`` labels win when
    present, and the ``topology.kubernetes.io`` ones are the fallback: old
    objects carry the beta labels, and Kubernetes has kept reading them first
    (kubernetes/kubernetes#88493). The NUL separator keeps a colon inside a
    region or zone name from making two different zones look alike.

    >>> node = Node.from_dict({"metadata": {"name": "n", "labels": {
    ...     "topology.kubernetes.io/region": "eu", "topology.kubernetes.io/zone": "eu-1"}}})
    >>> get_zone_key(node)
    'eu:\x00:eu-1'
    """
    labels = node.metadata.labels
    zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, labels.get(LABEL_TOPOLOGY_ZONE, ""))
    region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION, labels.get(LABEL_TOPOLOGY_REGION, ""))
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


class NodeTree:
    """Node names by zone key, zones in first-seen order; :meth:`list` interleaves the zones.

    >>> def node(name, zone):
    ...     return Node.from_dict({"metadata": {"name": name,
    ...                            "labels": {"topology.kubernetes.io/zone": zone}}})
    >>> tree = NodeTree([node("a1", "a"), node("a2", "a"), node("b1", "b"), node("a3", "a")])
    >>> tree.list()
    ['a1', 'b1', 'a2', 'a3']
    """

    __slots__ = ("_num_nodes", "_tree", "_zones")

    def __init__(self, nodes: list[Node] | None = None) -> None:
        # A dict keeps insertion order, which is the zone order kube keeps in its `zones` slice.
        self._tree: dict[str, list[str]] = {}
        self._num_nodes = 0
        for node in nodes or ():
            self.add_node(node)

    @property
    def num_nodes(self) -> int:
        """How many node names the tree holds (what the snapshot's node list must match)."""
        return self._num_nodes

    def zones(self) -> list[str]:
        """The zone keys, in the order they were first seen."""
        return list(self._tree)

    def add_node(self, node: Node) -> None:
        """Append the node to its zone, creating the zone at the end if it is new."""
        zone = get_zone_key(node)
        names = self._tree.setdefault(zone, [])
        if node.name in names:
            _log.info("Did not add to the NodeTree because it already exists: node=%s", node.name)
            return
        names.append(node.name)
        self._num_nodes += 1

    def remove_node(self, node: Node) -> None:
        """Remove the node from the zone its labels name; an emptied zone goes away.

        Raises :class:`~framework.cache.errors.CacheError` if the node is not
        in that zone (for instance because its labels changed without an
        :meth:`update_node`).
        """
        zone = get_zone_key(node)
        names = self._tree.get(zone, [])
        if node.name not in names:
            _log.error(
                "Did not remove Node in NodeTree because it was not found: node=%s", node.name
            )
            raise CacheError(f"node {go_quote(node.name)} in group {go_quote(zone)} was not found")
        names.remove(node.name)
        if not names:
            del self._tree[zone]
        self._num_nodes -= 1

    def update_node(self, old: Node, new: Node) -> None:
        """Move the node to its new zone if its zone labels changed; otherwise nothing changes.

        A moved node goes to the end of its new zone. A node name cannot
        change in an update, so only the zone matters.
        """
        if get_zone_key(old) == get_zone_key(new):
            return
        # Kubernetes ignores whether the old node was there: the new one must be.
        with contextlib.suppress(CacheError):
            self.remove_node(old)
        self.add_node(new)

    def list(self) -> list[str]:
        """All node names, round-robin across zones: the first of each zone, then the second, ..."""
        names: list[str] = []
        rows = list(self._tree.values())
        index = 0
        while True:
            round_ = [row[index] for row in rows if index < len(row)]
            if not round_:
                return names
            names.extend(round_)
            index += 1

    def __len__(self) -> int:
        return self._num_nodes

    def __repr__(self) -> str:
        zones = {zone.replace("\x00", ""): names for zone, names in self._tree.items()}
        return f"NodeTree({zones})"
