"""The CPU cost of one scheduling cycle, alone: ``SchedulingAlgorithm.schedule_pod`` for one basic pod.

``python -m framework bench`` measures the whole path (API create, watch,
queue, cycle, bind, watch) in wall-clock time, which a machine shared with
other work distorts. This script measures the part that grows with the
cluster, the cycle's Filter and Score, in the scheduling thread's own CPU
time (``time.thread_time``), so two runs on a busy machine agree:

* ``N`` nodes from SchedulingBasic's node template and 200 pods bound through
  the real scheduler (``schedule_pending``), then
* ``schedule_pod`` for one more SchedulingBasic pod, ``--repeat`` times on
  the same snapshot, with CPython's default collector thresholds and with
  the scheduler's (:mod:`framework.scheduler.gc_policy`);
* and, under ``cProfile``, the number of Python function calls per cycle,
  a figure that does not depend on the machine at all.

Run: ``python benchmarks/cycle_cost.py --nodes 500 1000 5000 15000``.
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

from framework.apiserver import APIServer
from framework.bench.runner import _build
from framework.bench.workload import load_workloads
from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.objects import Namespace, ObjectMeta
from framework.scheduler.algorithm import num_feasible_nodes_to_find
from framework.scheduler.gc_policy import SCHEDULER_GC_THRESHOLD0
from framework.scheduler.scheduler import Scheduler


def measure(nodes: int, repeat: int, percentage: int) -> str:
    workload = load_workloads("performance")["SchedulingBasic"]
    node_op, _, pod_op = workload.ops
    uids = itertools.count()
    api = APIServer(FakeClock(), uid_factory=lambda: f"uid-{next(uids)}", rng=random.Random(0))
    for namespace in ("sched-setup", "sched-test"):
        api.create(Namespace(metadata=ObjectMeta(name=namespace)))
    for node in _build(dataclasses.replace(node_op, count=nodes), 0, []):
        api.create(node)
    scheduler = Scheduler(api, clock=FakeClock(), seed=0)
    pods = _build(dataclasses.replace(pod_op, count=201), 2, [])
    for pod in pods[:200]:
        api.create(pod)
    scheduler.schedule_pending()
    fwk = next(iter(scheduler.profiles.values()))
    fwk.percentage_of_nodes_to_score = percentage or None
    snapshot = scheduler.snapshot
    scheduler.cache.update_snapshot(snapshot)
    fwk.snapshot = snapshot
    algorithm = scheduler.scheduling.algorithm

    def cycle() -> float:
        start = time.thread_time()
        algorithm.schedule_pod(fwk, CycleState(), pods[200], snapshot)
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
            algorithm.schedule_pod(fwk, CycleState(), pods[200], snapshot)
        profile.disable()
    finally:
        gc.set_threshold(*saved)
    calls = pstats.Stats(profile).total_calls / 10  # type: ignore[attr-defined]
    evaluated = num_feasible_nodes_to_find(percentage, nodes)
    return (
        f"{nodes} nodes, {evaluated} evaluated: {'; '.join(figures)}; "
        f"{calls:,.0f} function calls per cycle"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[5000])
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--percentage-of-nodes-to-score", type=int, default=0)
    args = parser.parse_args()
    for nodes in args.nodes:
        print(measure(nodes, args.repeat, args.percentage_of_nodes_to_score), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
