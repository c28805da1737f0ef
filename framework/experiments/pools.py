"""Label pools: no race between two schedulers, and capacity fenced in.

The race of :mod:`~framework.experiments.race` goes away if the two
schedulers never share a node. Label the nodes into pools (``pool=general``,
``pool=batch``) and give each scheduler's pods a ``nodeSelector`` for their
pool. Now a pod waits in its pool even while the other pool has room.

:func:`run_pools` is chapter 0's example: six nodes of 8 CPUs, four in the
general pool and two in the batch pool; six web pods of 2 CPUs (12 CPUs) for
``default-scheduler``, then a batch run of 4-CPU pods for ``batch-scheduler``
(which packs: NodeResourcesFit's ``MostAllocated``). It runs the same
workload twice:

* **pools**: two independent schedulers, each pod selecting its pool;
* **shared**: one scheduler with both plugin sets as two profiles
  (``default-scheduler`` and ``batch-scheduler``) on all six nodes, no
  selectors.

and reports the pods left pending, how many of them would fit on a node of
the other pool as it is (:func:`framework.simulator.kubelet.admit_pod`, with the pod's
selector left out), and the share of the cluster's CPU requested by running
pods: what the fence costs.

No Kubernetes counterpart: an experiment. Pools are ordinary node labels and
``nodeSelector`` (``NodeAffinity`` filters on them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from framework.experiments.cluster import ExperimentCluster, Outcome, node, pod, profiles_config
from framework.simulator.kubelet import admit_pod

__all__ = [
    "BATCH_SCHEDULER",
    "DEFAULT_BATCH_SIZES",
    "PoolsResult",
    "format_pools_table",
    "pools_table",
    "run_pools",
]

BATCH_SCHEDULER = "batch-scheduler"
#: Batch runs in the default table, up to what the batch pool holds and beyond.
DEFAULT_BATCH_SIZES = (2, 4, 6, 8)

_GENERAL = {"pool": "general"}
_BATCH = {"pool": "batch"}


@dataclass(frozen=True, slots=True)
class PoolsResult:
    """One run: ``pending`` pods, of which ``pending_with_room`` would fit in the other pool."""

    mode: str
    batch_pods: int
    running: int
    pending: int
    pending_with_room: int
    cpu_requested_percent: int
    outcomes: list[Outcome] = field(repr=False, compare=False)


def run_pools(batch_pods: int = 6, *, pools: bool = True, seed: int = 0) -> PoolsResult:
    """Chapter 0's workload on two label pools (``pools=True``) or one shared cluster."""
    nodes = [node(f"node-{i}", "8", labels=_GENERAL) for i in range(1, 5)]
    nodes += [node(f"node-{i}", "8", labels=_BATCH) for i in range(5, 7)]
    cluster = ExperimentCluster(nodes, seed=seed)
    web_profile, batch_profile = (
        ("default-scheduler", "LeastAllocated"),
        (
            BATCH_SCHEDULER,
            "MostAllocated",
        ),
    )
    if pools:
        cluster.add_scheduler(profiles_config(web_profile))
        cluster.add_scheduler(profiles_config(batch_profile))
    else:
        cluster.add_scheduler(profiles_config(web_profile, batch_profile))
    arrivals = [
        (0.0, pod(f"web-{i}", "2", "1Gi", node_selector=_GENERAL if pools else {}))
        for i in range(1, 7)
    ]
    arrivals += [
        (
            1.0,
            pod(
                f"batch-{i}",
                "4",
                "2Gi",
                scheduler_name=BATCH_SCHEDULER,
                node_selector=_BATCH if pools else {},
            ),
        )
        for i in range(1, batch_pods + 1)
    ]
    outcomes = cluster.run(arrivals)
    pending = [o for o in outcomes if o.state == "pending"]
    used = cluster.cpu_requested(outcomes)
    allocatable = cluster.cpu_allocatable()
    return PoolsResult(
        mode="pools" if pools else "shared",
        batch_pods=batch_pods,
        running=sum(o.state == "running" for o in outcomes),
        pending=len(pending),
        pending_with_room=_with_room_elsewhere(cluster, outcomes, pending),
        cpu_requested_percent=round(100 * sum(used.values()) / sum(allocatable.values())),
        outcomes=outcomes,
    )


def _with_room_elsewhere(
    cluster: ExperimentCluster, outcomes: list[Outcome], pending: list[Outcome]
) -> int:
    """How many pending pods would fit, one after the other, on the nodes as they are, if their
    ``nodeSelector`` let them."""
    running = {
        n.name: [o.pod for o in outcomes if o.node_name == n.name and o.state == "running"]
        for n in cluster.nodes
    }
    fitting = 0
    for waiting in pending:
        free = dataclasses.replace(
            waiting.pod, spec=dataclasses.replace(waiting.pod.spec, node_selector={})
        )
        for candidate in cluster.nodes:
            if admit_pod(free, candidate, running[candidate.name]).admit:
                running[candidate.name].append(free)
                fitting += 1
                break
    return fitting


def pools_table(
    batch_sizes: Sequence[int] = DEFAULT_BATCH_SIZES, *, seed: int = 0
) -> list[tuple[PoolsResult, PoolsResult]]:
    """For each batch run size: the run on label pools, and on one shared cluster."""
    return [
        (run_pools(n, pools=True, seed=seed), run_pools(n, pools=False, seed=seed))
        for n in batch_sizes
    ]


def format_pools_table(rows: Sequence[tuple[PoolsResult, PoolsResult]]) -> str:
    """The table the command prints: one row per batch run size.

    *could run* counts the pending pods that would fit on a node of the other
    pool as it is; *CPU* is the share of the cluster's CPU that running pods
    request.
    """
    lines = [
        "      | label pools, two schedulers       | one scheduler, two profiles",
        "batch | running  pending  could run  CPU  | running  pending  CPU",
    ]
    for pooled, shared in rows:
        lines.append(
            f"{pooled.batch_pods:>5} | {pooled.running:>7}  {pooled.pending:>7}  "
            f"{pooled.pending_with_room:>9}  {pooled.cpu_requested_percent:>2} % | "
            f"{shared.running:>7}  {shared.pending:>7}  {shared.cpu_requested_percent:>2} %"
        )
    return "\n".join(lines)
