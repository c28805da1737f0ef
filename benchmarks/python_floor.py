"""How fast can a cycle of this design be in CPython? Three cycles on the same cluster.

kube-scheduler's design calls each Filter plugin, then each Score plugin,
once per node evaluated. In Go a call costs nanoseconds; in CPython it costs
tenths of a microsecond, and that price is paid nodes × plugins times per
pod before any plugin does any work. This script measures, on the cluster
``cycle_cost.py`` builds (a workload's nodes and pods, 500 of 5,000 nodes
evaluated per pod by default), the scheduling thread's CPU time
(``time.thread_time``) of three cycles that visit the same nodes:

* **the language**: a plain loop over the nodes the cycle evaluates that
  calls as many do-nothing ``filter`` methods, then as many do-nothing
  ``score`` methods, as the real cycle runs plugins after ``Skip``, sums
  the scores and takes the best node. Nothing written in Python that calls
  a plugin per node per plugin can be cheaper;
* **the framework, with no-op plugins**: ``SchedulingAlgorithm.schedule_pod``
  with the same number of plugins, each returning at once, so that the
  figure is the framework's own cost: runners, statuses, score objects,
  normalisation, selection;
* **the default profile**: the real cycle, as ``cycle_cost.py`` measures it.

Run: ``python benchmarks/python_floor.py [--nodes 5000] [--workload SchedulingBasic]``.
The scheduler's collector threshold (:mod:`framework.scheduler.gc_policy`)
is set for all three.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cycle_cost import build_cluster

from framework.cycle_state import CycleState
from framework.runtime.framework import Framework
from framework.scheduler.algorithm import num_feasible_nodes_to_find
from framework.scheduler.gc_policy import SCHEDULER_GC_THRESHOLD0


class NoopFilter:
    """A Filter plugin that passes every node and does nothing else."""

    def __init__(self, index: int) -> None:
        self._name = f"NoopFilter{index}"

    def name(self) -> str:
        return self._name

    def filter(self, state: Any, pod: Any, node_info: Any) -> None:
        return None


class NoopScore:
    """A Score plugin that gives every node 0 and has no NormalizeScore."""

    def __init__(self, index: int) -> None:
        self._name = f"NoopScore{index}"

    def name(self) -> str:
        return self._name

    def score(self, state: Any, pod: Any, node_info: Any) -> tuple[int, None]:
        return 0, None

    def score_extensions(self) -> None:
        return None


def cpu_ms(cycle: Callable[[], object], repeat: int) -> float:
    """Mean scheduling-thread CPU of ``cycle`` in milliseconds, after one warm-up call."""
    cycle()
    start = time.thread_time()
    for _ in range(repeat):
        cycle()
    return (time.thread_time() - start) / repeat * 1000


def measure(workload: str, nodes: int, repeat: int) -> str:
    scheduler, pod = build_cluster(workload, nodes, 200)
    fwk = next(iter(scheduler.profiles.values()))
    snapshot = scheduler.snapshot
    scheduler.cache.update_snapshot(snapshot)
    fwk.snapshot = snapshot
    algorithm = scheduler.scheduling.algorithm

    # How many plugins the real cycle runs per node once PreFilter/PreScore have said Skip.
    state = CycleState()
    algorithm.schedule_pod(fwk, state, pod, snapshot)
    filters = [n for n in fwk.plugin_names("filter") if n not in state.skip_filter_plugins]
    scores = [n for n in fwk.plugin_names("score") if n not in state.skip_score_plugins]

    noop = Framework.from_plugins(
        "noop",
        {
            "filter": [NoopFilter(i) for i in range(len(filters))],
            "score": [NoopScore(i) for i in range(len(scores))],
        },
    )
    noop.snapshot = snapshot
    evaluated = num_feasible_nodes_to_find(0, nodes)
    visited = snapshot.node_infos().list()[:evaluated]
    filter_calls = [NoopFilter(i).filter for i in range(len(filters))]
    score_calls = [NoopScore(i).score for i in range(len(scores))]

    def language() -> object:
        feasible = []
        for node_info in visited:
            for call in filter_calls:
                if call(state, pod, node_info) is not None:
                    break
            else:
                feasible.append(node_info)
        totals = [0] * len(feasible)
        for call in score_calls:
            for i, node_info in enumerate(feasible):
                totals[i] += call(state, pod, node_info)[0]
        return feasible[max(range(len(totals)), key=totals.__getitem__)]

    saved = gc.get_threshold()
    gc.set_threshold(SCHEDULER_GC_THRESHOLD0, *saved[1:])
    try:
        figures = {
            "the language": cpu_ms(language, repeat),
            "the framework, no-op plugins": cpu_ms(
                lambda: algorithm.schedule_pod(noop, CycleState(), pod, snapshot), repeat
            ),
            "the default profile": cpu_ms(
                lambda: algorithm.schedule_pod(fwk, CycleState(), pod, snapshot), repeat
            ),
        }
    finally:
        gc.set_threshold(*saved)
    lines = [
        f"{workload}, {nodes} nodes, {evaluated} evaluated; per node: "
        f"{len(filters)} Filter plugins ({', '.join(filters)}), "
        f"{len(scores)} Score plugins ({', '.join(scores)})"
    ]
    for label, ms in figures.items():
        lines.append(
            f"  {label:30} {ms:6.2f} ms per cycle, {ms * 1000 / evaluated:5.2f} µs per node"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[5000])
    parser.add_argument("--workload", default="SchedulingBasic")
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    for nodes in args.nodes:
        print(measure(args.workload, nodes, args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
