"""Two schedulers, one cluster: the race for the same room, and the kubelets' rejections.

Two independent schedulers (each its own cache and queue, its own
``schedulerName``) share one API server and the same nodes. Each counts the
pods *it* places at once, in its cache; it learns of the other's placements
only when the binding has been committed and the watch has brought it back.
In between, both see the same room as free, and both may place a pod in it.
The API server accepts both bindings (it checks that a pod has no node yet,
not that the node has room); the node's kubelet admits the first and rejects
the second, which ends ``Failed`` with reason ``OutOfcpu`` (or
``OutOfmemory``, ``OutOfpods``), see :mod:`framework.simulator.kubelet`.

Two runs show it:

* :func:`two_pods` is chapter 0's story: two nodes, two pods of 1.5 CPUs in
  the same instant, one per scheduler. Both pick the emptier node; one pod
  is rejected. With one scheduler running both profiles, both run.
* :func:`race_table` sends ``n`` pods at a steady rate (each to one of the
  two schedulers at random, by seed) onto a small cluster, for several
  ``n``, and counts the rejections, against one scheduler with the same
  two profiles on the same cluster, which never over-commits.

The delays are simulated (:class:`~framework.experiments.delays.Network`):
a binding takes ``bind_latency`` to be committed, a change takes
``watch_delay`` to reach a watcher. With both at 0 there is no window,
and no race.

No Kubernetes counterpart: an experiment. Kubernetes documents running
several schedulers in ``content/en/docs/tasks/extend-kubernetes/configure-multiple-schedulers.md``
(kubernetes/website) and leaves their conflicts to the kubelet's admission.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from framework.experiments.cluster import ExperimentCluster, Outcome, node, pod, profiles_config
from framework.objects import Pod
from framework.objects.resources import CPU, pod_requests

__all__ = [
    "DEFAULT_LOADS",
    "SECOND_SCHEDULER",
    "RaceResult",
    "RaceSettings",
    "format_race_table",
    "race_table",
    "run_race",
    "two_pods",
    "workload",
]

#: The second scheduler's name (the first is ``default-scheduler``).
SECOND_SCHEDULER = "my-scheduler"
#: Pods per run in the default table, from a third of the cluster's CPU to beyond all of it.
DEFAULT_LOADS = (16, 32, 48, 64)

_CPU = ("250m", "500m", "750m", "1")
_MEMORY = ("256Mi", "512Mi", "1Gi")


@dataclass(frozen=True, slots=True)
class RaceSettings:
    """The cluster and its delays: ``nodes`` nodes of ``node_cpu`` CPUs; pods arrive at ``rate``
    per second; a binding takes ``bind_latency`` and a watch event ``watch_delay`` seconds."""

    nodes: int = 8
    node_cpu: str = "4"
    rate: float = 100.0
    bind_latency: float = 0.02
    watch_delay: float = 0.05
    #: NodeResourcesFit's scoring strategy for each scheduler; the default spreads, the
    #: second (a home-made batch scheduler, say) packs.
    strategies: tuple[str, str] = ("LeastAllocated", "MostAllocated")


@dataclass(frozen=True, slots=True)
class RaceResult:
    """One run: how many pods, by how many schedulers, and where they ended."""

    pods: int
    schedulers: int
    running: int
    rejected: Counter[str]
    pending: int
    nodes_rejecting: int
    cpu_asked_percent: int
    cpu_requested_percent: int
    outcomes: list[Outcome] = field(repr=False, compare=False)

    @property
    def rejected_total(self) -> int:
        return sum(self.rejected.values())


def workload(pods: int, seed: int, rate: float) -> list[tuple[float, Pod]]:
    """``pods`` pods arriving one every ``1 / rate`` seconds, each with seeded requests and a
    scheduler chosen at random (``default-scheduler`` or :data:`SECOND_SCHEDULER`)."""
    rng = random.Random(seed)
    arrivals: list[tuple[float, Pod]] = []
    for i in range(pods):
        name = rng.choice(("default-scheduler", SECOND_SCHEDULER))
        arrivals.append(
            (
                i / rate,
                pod(
                    f"pod-{i:03d}",
                    rng.choice(_CPU),
                    rng.choice(_MEMORY),
                    scheduler_name=name,
                ),
            )
        )
    return arrivals


def run_race(
    pods: int, *, seed: int = 0, schedulers: int = 2, settings: RaceSettings | None = None
) -> RaceResult:
    """Run :func:`workload` with two independent schedulers, or (``schedulers=1``) with one
    scheduler holding both profiles."""
    if schedulers not in (1, 2):
        raise ValueError(f"schedulers must be 1 or 2 (got {schedulers})")
    settings = settings or RaceSettings()
    cluster = ExperimentCluster(
        [node(f"node-{i}", settings.node_cpu) for i in range(1, settings.nodes + 1)],
        seed=seed,
        bind_latency=settings.bind_latency,
        watch_delay=settings.watch_delay,
    )
    profiles = (
        ("default-scheduler", settings.strategies[0]),
        (SECOND_SCHEDULER, settings.strategies[1]),
    )
    if schedulers == 2:
        cluster.add_scheduler(profiles_config(profiles[0]))
        cluster.add_scheduler(profiles_config(profiles[1]))
    else:
        cluster.add_scheduler(profiles_config(*profiles))
    arrivals = workload(pods, seed, settings.rate)
    outcomes = cluster.run(arrivals)
    used = sum(cluster.cpu_requested(outcomes).values())
    allocatable = sum(cluster.cpu_allocatable().values())
    asked = sum(pod_requests(p).get(CPU, 0) for _, p in arrivals)
    return RaceResult(
        pods=pods,
        schedulers=schedulers,
        running=sum(o.state == "running" for o in outcomes),
        rejected=Counter(o.reason for o in outcomes if o.state == "rejected"),
        pending=sum(o.state == "pending" for o in outcomes),
        nodes_rejecting=len({o.node_name for o in outcomes if o.state == "rejected"}),
        cpu_asked_percent=round(100 * asked / allocatable),
        cpu_requested_percent=round(100 * used / allocatable),
        outcomes=outcomes,
    )


def two_pods(
    schedulers: int = 2, *, seed: int = 0, settings: RaceSettings | None = None
) -> list[Outcome]:
    """Chapter 0's race: node-a has 2 of 4 CPUs free, node-b 1.5; ``web`` (default-scheduler)
    and ``batch`` (:data:`SECOND_SCHEDULER`) ask for 1.5 CPUs each, a millisecond apart.

    Both schedulers spread (``LeastAllocated``); only the delays come from ``settings``.
    """
    settings = settings or RaceSettings()
    cluster = ExperimentCluster(
        [node("node-a", "4"), node("node-b", "4")],
        seed=seed,
        bind_latency=settings.bind_latency,
        watch_delay=settings.watch_delay,
    )
    cluster.api.create(pod("running-a", "2", node_name="node-a"))
    cluster.api.create(pod("running-b", "2500m", node_name="node-b"))
    cluster.kubelets.sync()
    # Both spread, as in chapter 0: the same rules, and still a race.
    profiles = (("default-scheduler", "LeastAllocated"), (SECOND_SCHEDULER, "LeastAllocated"))
    if schedulers == 2:
        cluster.add_scheduler(profiles_config(profiles[0]))
        cluster.add_scheduler(profiles_config(profiles[1]))
    else:
        cluster.add_scheduler(profiles_config(*profiles))
    return cluster.run(
        [
            (0.0, pod("web", "1500m")),
            (0.001, pod("batch", "1500m", scheduler_name=SECOND_SCHEDULER)),
        ]
    )


def race_table(
    loads: Sequence[int] = DEFAULT_LOADS, *, seed: int = 0, settings: RaceSettings | None = None
) -> list[tuple[RaceResult, RaceResult]]:
    """For each number of pods: the run with two schedulers, and the one with one."""
    return [
        (
            run_race(n, seed=seed, schedulers=2, settings=settings),
            run_race(n, seed=seed, schedulers=1, settings=settings),
        )
        for n in loads
    ]


def format_race_table(
    rows: Sequence[tuple[RaceResult, RaceResult]], settings: RaceSettings | None = None
) -> str:
    """The table the command prints: one row per number of pods."""
    settings = settings or RaceSettings()
    lines = [
        f"{settings.nodes} nodes of {settings.node_cpu} CPUs; pods arrive at {settings.rate:g}/s; "
        f"bind latency {settings.bind_latency * 1000:g} ms, watch delay "
        f"{settings.watch_delay * 1000:g} ms",
        f"NodeResourcesFit scoring: {settings.strategies[0]} (default-scheduler), "
        f"{settings.strategies[1]} ({SECOND_SCHEDULER})",
        "",
        "       CPU  | two schedulers                      | one scheduler, two profiles",
        "pods  asked | running  pending  rejected  nodes  | running  pending  rejected",
    ]
    reasons: Counter[str] = Counter()
    for two, one in rows:
        reasons.update(two.rejected)
        lines.append(
            f"{two.pods:>4}  {two.cpu_asked_percent:>3} % | {two.running:>7}  {two.pending:>7}  "
            f"{two.rejected_total:>8}  {two.nodes_rejecting:>5}  | {one.running:>7}  "
            f"{one.pending:>7}  {one.rejected_total:>8}"
        )
    if reasons:
        lines += ["", "rejected: " + ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))]
    return "\n".join(lines)
