"""The CPU cost of one scheduling cycle, alone: ``SchedulingAlgorithm.schedule_pod`` for one pod.

``python -m framework bench`` measures the whole path (API create, watch,
queue, cycle, bind, watch) in wall-clock time, which a machine shared with
other work distorts. This script measures the part that grows with the
cluster, the cycle's Filter and Score, in the scheduling thread's own CPU
time (``time.thread_time``), so two runs on a busy machine agree:

* a workload's nodes (``N`` of them, from its node template), its other
  objects, its init pods (``--init-pods``, 200 by default, fewer if the
  workload has fewer) and 200 of its measured pods, bound through the real
  scheduler (``schedule_pending``), then
* ``schedule_pod`` for one more measured pod, ``--repeat`` times on the same
  snapshot, with CPython's default collector thresholds and with the
  scheduler's (:mod:`framework.scheduler.gc_policy`);
* and, under ``cProfile``, the number of Python function calls per cycle,
  a figure that does not depend on the machine at all.

Run: ``python benchmarks/cycle_cost.py --nodes 500 1000 5000 15000``, or
``python benchmarks/cycle_cost.py --workload SchedulingPodAffinity --init-pods 1000``
for another workload's measured pod (SchedulingBasic is the default).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import gc
import itertools
import pstats
import random
import sys
import time
from typing import Any

from framework.apiserver import APIServer
from framework.bench.runner import _build
from framework.bench.workload import load_workloads
from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.objects import Namespace, ObjectMeta
from framework.scheduler.algorithm import num_feasible_nodes_to_find
from framework.scheduler.gc_policy import SCHEDULER_GC_THRESHOLD0
from framework.scheduler.scheduler import Scheduler


def build_cluster(
    workload_name: str, nodes: int, init_pods: int, engine: str = "reference"
) -> tuple[Scheduler, Any]:
    """A scheduler whose cache holds the workload's cluster, and one more measured pod."""
    workload = load_workloads("performance")[workload_name]
    uids = itertools.count()
    api = APIServer(FakeClock(), uid_factory=lambda: f"uid-{next(uids)}", rng=random.Random(0))
    for namespace in sorted({op.namespace for op in workload.ops if op.opcode == "createPods"}):
        api.create(Namespace(metadata=ObjectMeta(name=namespace)))
    node_names: list[str] = []
    measured: list[Any] = []
    scheduler: Scheduler | None = None
    for index, op in enumerate(workload.ops):
        if op.opcode == "createNodes":
            built = _build(dataclasses.replace(op, count=nodes), len(node_names), [])
            node_names.extend(node.metadata.name for node in built)
        elif op.opcode == "createPods" and op.collect_metrics:
            built = _build(dataclasses.replace(op, count=201), index, node_names)
            measured, built = built, built[:200]
        elif op.opcode == "createPods":
            built = _build(
                dataclasses.replace(op, count=min(op.count, init_pods)), index, node_names
            )
        else:
            built = _build(op, index, node_names)
        for obj in built:
            api.create(obj)
        if op.opcode == "createPods":
            # Created once the nodes are there, so its informers list them at once.
            scheduler = scheduler or Scheduler(api, clock=FakeClock(), seed=0, engine=engine)
            scheduler.schedule_pending()
    assert scheduler is not None, f"{workload_name} creates no pods"
    # Created, not scheduled: the API server's controllers give it what it refers to (the
    # ResourceClaims of its templates), and the cycle measured is run on it by hand.
    created = api.create(measured[200])
    return scheduler, api.get(type(created), created.metadata.name, created.metadata.namespace)


def measure(
    nodes: int,
    repeat: int,
    percentage: int,
    workload_name: str,
    init_pods: int,
    engine: str = "reference",
    top: int = 0,
) -> str:
    scheduler, pod = build_cluster(workload_name, nodes, init_pods, engine)
    fwk = next(iter(scheduler.profiles.values()))
    fwk.percentage_of_nodes_to_score = percentage or None
    snapshot = scheduler.snapshot
    scheduler.cache.update_snapshot(snapshot)
    fwk.snapshot = snapshot
    algorithm = scheduler.scheduling.algorithm

    def cycle() -> float:
        start = time.thread_time()
        algorithm.schedule_pod(fwk, CycleState(), pod, snapshot)
        return time.thread_time() - start

    saved = gc.get_threshold()
    figures = []
    try:
        for threshold0 in (saved[0], SCHEDULER_GC_THRESHOLD0):
            gc.set_threshold(threshold0, *saved[1:])
            times = [cycle() for _ in range(repeat)]
            figures.append(
                f"mean {sum(times) / len(times) * 1000:.2f} ms (threshold0 {threshold0})"
            )
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(10):
            algorithm.schedule_pod(fwk, CycleState(), pod, snapshot)
        profile.disable()
    finally:
        gc.set_threshold(*saved)
    stats = pstats.Stats(profile)
    if top:
        stats.sort_stats("tottime").print_stats(top)
    calls = stats.total_calls / 10  # type: ignore[attr-defined]
    evaluated = num_feasible_nodes_to_find(percentage, nodes)
    return (
        f"{workload_name} [{engine}], {nodes} nodes, {evaluated} evaluated: {'; '.join(figures)}; "
        f"{calls:,.0f} function calls per cycle"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[5000])
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--percentage-of-nodes-to-score", type=int, default=0)
    parser.add_argument("--workload", default="SchedulingBasic")
    parser.add_argument("--init-pods", type=int, default=200)
    parser.add_argument("--engine", default="reference", help="reference, batch or both")
    parser.add_argument("--top", type=int, default=0, help="print the N costliest functions")
    args = parser.parse_args()
    for nodes in args.nodes:
        print(
            measure(
                nodes,
                args.repeat,
                args.percentage_of_nodes_to_score,
                args.workload,
                args.init_pods,
                args.engine,
                args.top,
            ),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
