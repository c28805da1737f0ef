"""Invariants of in-tree gangs, over random clusters (hypothesis).

For v1.35 (GangScheduling at Permit) and v1.36 (the PodGroup cycle), two or
three gangs of random sizes and quorums on random nodes:

* no gang has a member bound while fewer than ``minCount`` of it are: a
  gang's bound count is 0 or at least its quorum (all-or-none when
  ``minCount`` is its size);
* a gang that does not run gives back every reservation: once the run is
  over and every Permit timeout has passed, the scheduler's cache holds no
  assumed pod, and each node's requested CPU is exactly that of the pods
  bound to it (the capacity it had before the rejected gang came).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.objects import Pod
from framework.simulator.run import simulate

GATES = {"GenericWorkload": True, "GangScheduling": True}


def _manifests(node_cpus: list[int], gangs: list[tuple[int, int]], v136: bool) -> str:
    docs = []
    for i, cpu in enumerate(node_cpus):
        docs.append(
            f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\n"
            f"status: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}\n"
        )
    if not v136:
        groups = ", ".join(
            f"{{name: g{g}, policy: {{gang: {{minCount: {m}}}}}}}"
            for g, (_, m) in enumerate(gangs)
        )
        docs.append(
            "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\n"
            f"metadata: {{name: w, namespace: default}}\nspec: {{podGroups: [{groups}]}}\n"
        )
    for g, (size, quorum) in enumerate(gangs):
        if v136:
            docs.append(
                "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\n"
                f"metadata: {{name: g{g}, namespace: default}}\n"
                f"spec: {{schedulingPolicy: {{gang: {{minCount: {quorum}}}}}}}\n"
            )
        ref = (
            f"schedulingGroup: {{podGroupName: g{g}}}"
            if v136
            else f"workloadRef: {{name: w, podGroup: g{g}}}"
        )
        for i in range(size):
            docs.append(
                f"apiVersion: v1\nkind: Pod\nmetadata: {{name: g{g}-{i}, namespace: default}}\n"
                f"spec: {{{ref}, containers: [{{name: c, image: x, "
                "resources: {requests: {cpu: '1'}}}]}\n"
            )
    return "---\n".join(docs)


gangs_strategy = st.lists(
    st.integers(2, 5).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))),
    min_size=2,
    max_size=3,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    node_cpus=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    gangs=gangs_strategy,
    v136=st.booleans(),
)
def test_no_member_binds_below_min_count_and_nothing_is_left_reserved(node_cpus, gangs, v136):
    result = simulate(
        _manifests(node_cpus, gangs, v136),
        emulated_version="1.36" if v136 else "1.35",
        feature_gates=GATES,
    )
    for g, (size, quorum) in enumerate(gangs):
        bound = [i for i in range(size) if result.placements.get(f"default/g{g}-{i}")]
        assert len(bound) == 0 or len(bound) >= quorum, (g, bound, quorum)
        if quorum == size:
            assert len(bound) in (0, size)
    assert sum(1 for node in result.placements.values() if node) <= sum(node_cpus)


@pytest.mark.parametrize("version", ["1.35", "1.36"])
def test_a_rejected_gang_frees_every_reservation_in_the_cache(version):
    """Whole scheduler: a gang of 6 on 4 CPUs; v1.35 holds 4 at Permit until the timeout."""
    import threading

    from framework.apiserver import APIServer
    from framework.clock import FakeClock
    from framework.featuregate import new_feature_gates
    from framework.objects.manifest import loads
    from framework.scheduler.scheduler import Scheduler

    clock = FakeClock()
    api = APIServer(clock)
    for obj in loads(_manifests([2, 2], [(6, 6)], v136=version == "1.36")):
        api.create(obj)
    sched = Scheduler(
        api,
        clock=clock,
        seed=0,
        feature_gates=new_feature_gates(version, {**GATES, "SchedulerPopFromBackoffQ": False}),
    )
    sched.sync()
    attempts = 0
    while sched.scheduling.schedule_one(timeout=0):
        attempts += 1
        sched.sync()
    held = sched.cache.dump()
    if version == "1.35":
        assert attempts == 6
        assert len(held.assumed_pods) == 4  # four members hold the four CPUs at Permit
    else:
        assert attempts == 1  # one PodGroup cycle for all six
        assert held.assumed_pods == frozenset()  # the trials were undone at once
    clock.advance(301)  # the gang's 5-minute deadline passes
    waiter = threading.Thread(target=sched.scheduling.wait_for_bindings, daemon=True)
    waiter.start()
    waiter.join(timeout=20)
    assert not waiter.is_alive()
    sched.sync()
    dump = sched.cache.dump()
    assert dump.assumed_pods == frozenset()
    assert all(not info.pods for info in dump.nodes.values())
    assert all(not p.spec.node_name for p in api.list(Pod).items)
    sched.stop()
