"""Binding goroutines and the scheduling loop share the cache: the lock must keep totals whole.

Several threads play binding cycles (assume, finish the binding, then forget
the pod or have it confirmed by the watch, and sometimes deleted), while one
thread plays the scheduling loop, updating a snapshot over and over. No call
may fail, every snapshot taken along the way must have per-node totals equal
to the sum of its pods, and at the end the cache must hold exactly the pods
that were confirmed and not deleted.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Iterator

import pytest

from framework.cache import Cache, Snapshot
from framework.objects import Pod
from framework.types import PodInfo
from tests.cache.helpers import assert_totals_match_pods, expected_requested, make_node, make_pod

NODES = ["n1", "n2", "n3"]
WORKERS = 6
PODS_PER_WORKER = 40


@pytest.fixture(autouse=True)
def frequent_thread_switches() -> Iterator[None]:
    # Switch threads far more often than the 5 ms default, to interleave more finely.
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def plan(worker: int) -> list[tuple[Pod, str]]:
    """Each pod of a worker, with its fate: forget, confirm, or confirm then delete."""
    rng = random.Random(worker)
    return [
        (
            make_pod(
                f"w{worker}-p{i}",
                node=rng.choice(NODES),
                cpu=rng.choice(["", "100m", "1"]),
                affinity=rng.random() < 0.2,
            ),
            rng.choice(["forget", "confirm", "delete"]),
        )
        for i in range(PODS_PER_WORKER)
    ]


@pytest.mark.parametrize("seed_offset", [0, 100])
def test_concurrent_binding_cycles_and_snapshot_updates_keep_totals_consistent(
    seed_offset: int,
) -> None:
    cache = Cache()
    for name in NODES:
        cache.add_node(make_node(name, cpu="1000"))
    plans = [plan(seed_offset + w) for w in range(WORKERS)]
    start = threading.Barrier(WORKERS + 1)
    workers_done = threading.Event()
    errors: list[BaseException] = []
    snapshots_taken = 0

    def binding_cycles(steps: list[tuple[Pod, str]]) -> None:
        try:
            start.wait()
            for pod, fate in steps:
                cache.assume_pod(PodInfo(pod))
                cache.finish_binding(pod)
                if fate == "forget":
                    cache.forget_pod(pod)
                    continue
                cache.add_pod(pod.with_metadata(resource_version="2"))
                if fate == "delete":
                    cache.remove_pod(pod)
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    def scheduling_loop() -> None:
        nonlocal snapshots_taken
        snapshot = Snapshot()
        try:
            start.wait()
            while True:
                finished = workers_done.is_set()  # read before the update: one more after the end
                cache.update_snapshot(snapshot)
                snapshots_taken += 1
                for info in snapshot.list():
                    assert_totals_match_pods(info)
                if finished:
                    return
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=binding_cycles, args=(steps,)) for steps in plans]
    loop = threading.Thread(target=scheduling_loop)
    for thread in [*threads, loop]:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    workers_done.set()
    loop.join(timeout=60)

    assert errors == []
    assert snapshots_taken >= 1
    survivors = [pod for steps in plans for pod, fate in steps if fate == "confirm"]
    final = Snapshot()
    cache.update_snapshot(final)
    for name in NODES:
        on_node = [p for p in survivors if p.spec.node_name == name]
        info = final.get(name)
        assert {p.pod.metadata.uid for p in info.pods} == {p.metadata.uid for p in on_node}
        assert info.requested == expected_requested(on_node)
    assert cache.pod_count() == len(survivors)
    assert cache.dump().assumed_pods == frozenset()
