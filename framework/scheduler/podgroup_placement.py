"""Topology-aware workload scheduling (KEP-5732): a PodGroup tried in each placement, the best kept.

With ``TopologyAwareWorkloadScheduling`` on (alpha from v1.36; off by
default, and then nothing here runs), the PodGroup cycle does not try the
group on the whole cluster at once:

1. **PlacementGenerate** plugins propose *placements*, sets of nodes. The
   in-tree ``TopologyPlacement`` proposes one per value of the first
   ``schedulingConstraints.topologyConstraints[].topologyKey`` among the
   nodes (a rack, a zone); a group without constraints gets none, and is
   then tried on the whole cluster as one placement;
2. the group's algorithm runs in each placement, the snapshot narrowed to
   its nodes (``AssumePlacement``), every trial undone after;
3. of the placements where the group fits, **PlacementScore** plugins pick
   the best: the in-tree ``PodGroupPodsCount`` scores a placement by the
   group's pods already scheduled plus those the placement takes,
   normalized by the largest; ties are broken at random;
4. if the group fits nowhere, its status says so: ``0/N placements are
   available, first placement status: ...``.

Mirrors ``podGroupSchedulingPlacementAlgorithm``, ``findBestPlacement`` and
``podGroupSchedulingAlgorithm`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one_podgroup.go`` (a v1.37-era
copy, index id 52400790438), ``TopologyPlacement.GeneratePlacements`` in
``pkg/scheduler/framework/plugins/topologyplacement/topologyplacement.go``
(an early copy, index id 4465972365, whose constraint field is ``level``;
the v1alpha2 field here is ``topologyKey``) and ``PodGroupPodsCount`` in
``pkg/scheduler/framework/plugins/podgrouppodscount`` (index id 52191878764).
Simplified, and said in chapter 10b: the two plugins are the only ones, built
in, not configurable (no ``placementGenerate``/``placementScore`` plugin sets
in KubeSchedulerConfiguration, no ``PlacementBinPacking``, no
``PlacementFeasible``, no parent placements of a CompositePodGroup); a
placement is a list of nodes, not a NodeSelector; only the first topology
constraint is read, as the alpha plugin does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE
from framework.node_info import NodeInfo
from framework.objects.workload import SchedulingPodGroup
from framework.status import Code, Status

if TYPE_CHECKING:
    from framework.scheduler.schedule_one import Scheduling

__all__ = [
    "Placement",
    "PodGroupPodsCount",
    "TopologyPlacement",
    "placement_algorithm",
]

# One run of the group's default algorithm: its members' trials.
Trials = list[Any]


@dataclasses.dataclass(frozen=True)
class Placement:
    """A set of nodes the group may be placed on (Go's ``fwk.Placement``)."""

    name: str
    nodes: tuple[NodeInfo, ...]


class TopologyPlacement:
    """PlacementGenerate: one placement per domain of the group's topology constraint."""

    NAME = "TopologyPlacement"

    def generate_placements(
        self, pod_group: SchedulingPodGroup | None, nodes: Sequence[NodeInfo]
    ) -> tuple[list[Placement], Status]:
        constraints = pod_group.spec.scheduling_constraints if pod_group else None
        if constraints is None or not constraints.topology_constraints:
            return [], Status.success()
        key = constraints.topology_constraints[0].topology_key  # the alpha reads the first
        if not key:
            return [], Status.as_error(RuntimeError("topology constraint level cannot be empty"))
        domains: dict[str, list[NodeInfo]] = {}
        for info in nodes:
            labels = info.node.metadata.labels if info.node is not None else {}
            if key in labels:
                domains.setdefault(labels[key], []).append(info)
        if not domains:
            return [], Status.unschedulable(f"no nodes found with topology label '{key}'")
        return [
            Placement(f"{key}={value}", tuple(domains[value])) for value in sorted(domains)
        ], Status.success()


class PodGroupPodsCount:
    """PlacementScore: favour the placement that takes more of the group's pods."""

    NAME = "PodGroupPodsCount"

    def score_placement(self, scheduled: int, proposed: int) -> int:
        return scheduled + proposed

    def normalize(self, scores: list[int]) -> list[int] | Status:
        """``NormalizePlacementScore``: scaled to [MinScore, MaxScore] by the largest."""
        largest = max(scores, default=0)
        if largest == 0:
            return Status.as_error(
                RuntimeError(
                    "no pods from pod group are assigned to any of the candidate placements"
                )
            )
        return [MIN_NODE_SCORE + s * (MAX_NODE_SCORE - MIN_NODE_SCORE) // largest for s in scores]


GENERATE_PLUGINS = (TopologyPlacement(),)
SCORE_PLUGINS = (PodGroupPodsCount(),)


def placement_algorithm(
    sched: Scheduling,
    pod_group: SchedulingPodGroup | None,
    run_default: Callable[[], list[Any]],
    fits: Callable[[list[Any]], bool],
    failed: Callable[[list[Any]], bool],
    proposed: Callable[[list[Any]], int],
    scheduled: int,
) -> tuple[list[Any] | None, Status]:
    """``podGroupSchedulingPlacementAlgorithm``: the best placement's result, or why none.

    ``run_default`` is the group's default algorithm on the snapshot as it
    stands (trials on the snapshot only); ``fits``, ``failed`` and
    ``proposed`` read its result (the group fits; an error; how many members
    found a node); ``scheduled`` is how many of the group's pods are already
    assumed or bound. A None result comes with the group's status.
    """
    snapshot = sched.snapshot
    sched.cache.update_snapshot(snapshot)
    everywhere = snapshot.node_info_list
    placements: list[Placement] = []
    for plugin in GENERATE_PLUGINS:
        found, status = plugin.generate_placements(pod_group, everywhere)
        if not status.is_success():
            return None, status.with_plugin(plugin.NAME)
        placements += found
    if not placements:  # nothing constrains the group: the whole cluster is its placement
        placements = [Placement("", tuple(everywhere))]
    first: Trials | None = None
    fitting: list[tuple[Placement, Trials]] = []
    for placement in placements:
        snapshot.node_info_list = list(placement.nodes)  # AssumePlacement
        try:
            result = run_default()
        finally:
            snapshot.node_info_list = everywhere  # ForgetPlacement
        if failed(result):
            return result, Status.success()
        first = result if first is None else first
        if fits(result):
            fitting.append((placement, result))
    if not fitting:
        message = f"0/{len(placements)} placements are available"
        return first, Status(Code.UNSCHEDULABLE, (message,))
    if len(fitting) == 1:
        return fitting[0][1], Status.success()
    totals = [0] * len(fitting)
    for scorer in SCORE_PLUGINS:
        raw = [scorer.score_placement(scheduled, proposed(result)) for _, result in fitting]
        normalized = scorer.normalize(raw)
        if isinstance(normalized, Status):
            return None, normalized.with_plugin(scorer.NAME)
        totals = [t + s for t, s in zip(totals, normalized, strict=True)]
    rng = sched.algorithm.rng
    tie_breakers = [rng.random() for _ in fitting]
    best = max(range(len(fitting)), key=lambda i: (totals[i], tie_breakers[i]))
    return fitting[best][1], Status.success()
