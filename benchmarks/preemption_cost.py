"""The CPU cost of preemption, alone: PostFilter for PreemptionBasic's high-priority pods.

PreemptionBasic's time is in DefaultPreemption's dry runs, which clone
NodeInfos and run Filter again per candidate node and per victim. This
script builds the workload's cluster (1,000 nodes full of low-priority
pods), then creates high-priority pods one by one and schedules each; around
every ``run_post_filter_plugins`` it measures the scheduling thread's CPU
time (``time.thread_time``) and, under ``cProfile``, the number of Python
function calls, a figure that does not depend on the machine. Chapter 13's
Change 7 quotes both.

Run: ``python benchmarks/preemption_cost.py --pods 20``.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import itertools
import pstats
import random
import time
from typing import Any

from framework.apiserver import APIServer
from framework.bench.runner import _build
from framework.bench.workload import load_workloads
from framework.clock import FakeClock
from framework.objects import Namespace, ObjectMeta
from framework.scheduler.scheduler import Scheduler


def preemption_cost(pods: int, *, profile: bool) -> tuple[list[float], list[int]]:
    """CPU seconds and Python calls of each PostFilter run, for ``pods`` preemptors."""
    priority_classes, nodes, init_pods, measured = load_workloads("performance")[
        "PreemptionBasic"
    ].ops
    uids = itertools.count()
    api = APIServer(FakeClock(), uid_factory=lambda: f"uid-{next(uids)}", rng=random.Random(0))
    for namespace in ("sched-setup", "sched-test"):
        api.create(Namespace(metadata=ObjectMeta(name=namespace)))
    for obj in [*_build(priority_classes, 0, []), *_build(nodes, 0, [])]:
        api.create(obj)
    scheduler = Scheduler(api, clock=FakeClock(), seed=0)
    for pod in _build(init_pods, 0, []):
        api.create(pod)
    scheduler.schedule_pending()

    fwk = next(iter(scheduler.profiles.values()))
    run_post_filter = fwk.run_post_filter_plugins
    cpu: list[float] = []
    calls: list[int] = []

    def measured_post_filter(*args: Any, **kwargs: Any) -> Any:
        profiler = cProfile.Profile() if profile else None
        start = time.thread_time()
        if profiler is not None:
            profiler.enable()
        try:
            return run_post_filter(*args, **kwargs)
        finally:
            if profiler is not None:
                profiler.disable()
                calls.append(pstats.Stats(profiler).total_calls)  # type: ignore[attr-defined]
            cpu.append(time.thread_time() - start)

    fwk.run_post_filter_plugins = measured_post_filter  # type: ignore[method-assign]
    for pod in _build(dataclasses.replace(measured, count=pods), 0, []):
        api.create(pod)
        scheduler.schedule_pending()
    scheduler.stop()
    return cpu, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=20, help="preemptors to schedule")
    args = parser.parse_args()
    cpu, _ = preemption_cost(args.pods, profile=False)
    _, calls = preemption_cost(args.pods, profile=True)
    print(
        f"PreemptionBasic, {len(cpu)} PostFilter runs: "
        f"mean CPU {sum(cpu) / len(cpu) * 1000:.1f} ms, "
        f"mean {sum(calls) / len(calls):,.0f} Python calls"
    )


if __name__ == "__main__":
    main()
