"""Workload-aware preemption (KEP-5710): a PodGroup preempts as one, its victims per group.

Kube's behaviour from ``runWorkloadAwarePreemption`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one_podgroup.go`` (a v1.37-era
copy, index id 52400790438) and ``PodGroupEvaluator.selectVictimsOnDomain`` /
``moreImportantVictim`` in ``pkg/scheduler/framework/preemption/podgrouppreemption.go``
(a later copy, index id 55837719029): the whole cluster is one domain; every unit
of lower priority (a single pod, or a gang with all its pods) is removed, the
group's algorithm is run once without PostFilter, and then the units are given
back from the most important (higher priority; a gang before a single pod; a
larger gang before a smaller; an older pod before a newer) as long as every
member still passes Filter on its node. What is not given back is evicted, and
the members wait, nominated, for the next cycle.

Each case: two nodes of 4 CPUs, full of priority-100 pods of 1 CPU; a gang
``hi`` of 4 pods of 1 CPU at priority 1000 arrives.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from framework.scheduler.podgroup_preemption import Victim, more_important_victim
from framework.simulator.run import simulate

GATES = {"GenericWorkload": True, "WorkloadAwarePreemption": True}


def _node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
    }


def _pod(name: str, cls: str, node: str = "", group: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "priorityClassName": cls,
        "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
    }
    if node:
        spec["nodeName"] = node
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def _group(name: str, min_count: int, disruption: str = "", cls: str = "low") -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": min_count}}}
    if disruption:
        spec["disruptionMode"] = disruption
    if cls:
        spec["priorityClassName"] = cls
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def _classes(**values: int) -> list[dict[str, Any]]:
    return [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": name}, "value": value}
        for name, value in values.items()
    ]  # fmt: skip


def _cluster(low: list[dict[str, Any]]) -> list[dict[str, Any]]:
    classes = _classes(low=100, high=1000)
    hi = [_pod(f"hi-{i}", "high", group="hi") for i in range(4)]
    return [*classes, _node("node-0"), _node("node-1"), *low, _group("hi", 4, cls="high"), *hi]


def _run(objects: list[dict[str, Any]], **gates: bool) -> Any:
    return simulate(*objects, emulated_version="1.36", feature_gates={**GATES, **gates})


def _preempted(result: Any) -> set[str]:
    return {e.object for e in result.events if e.reason == "Preempted"}


HI = [f"default/hi-{i}" for i in range(4)]


def test_single_victims_only_as_many_as_the_gang_needs():
    low = [_pod(f"low-{i}", "low", node=f"node-{i % 2}") for i in range(8)]
    result = _run(_cluster(low))
    assert all(result.placements.get(p) for p in HI)
    assert len(_preempted(result)) == 4
    assert sum(1 for i in range(8) if result.placements.get(f"default/low-{i}")) == 4


def test_a_gang_of_victims_is_more_important_than_single_pods():
    # Equal priority: the single pods go, the gang (reprieved first) stays whole.
    low = [_pod(f"lo-{i}", "low", node=f"node-{i % 2}", group="lo") for i in range(4)]
    low += [_pod(f"single-{i}", "low", node=f"node-{i % 2}") for i in range(4)]
    result = _run([_group("lo", 4), *_cluster(low)])
    assert all(result.placements.get(p) for p in HI)
    assert _preempted(result) == {f"default/single-{i}" for i in range(4)}


def test_a_gang_of_disruption_mode_all_is_evicted_whole():
    # Six gang pods (three a node) and two singles: the gang, reprieved first, no longer
    # fits beside hi's two pods a node, so all six go; then both singles fit and stay.
    low = [_pod(f"lo-{i}", "low", node=f"node-{i % 2}", group="lo") for i in range(6)]
    low += [_pod(f"single-{i}", "low", node=f"node-{i % 2}") for i in range(2)]
    result = _run([_group("lo", 6, "All"), *_cluster(low)])
    assert all(result.placements.get(p) for p in HI)
    assert _preempted(result) == {f"default/lo-{i}" for i in range(6)}


def test_by_default_a_gangs_pods_are_victims_one_by_one():
    # disruptionMode defaults to Single: each of lo's pods is a unit of its own (still more
    # important than a pod of no group), so one lo pod a node goes, and both singles.
    low = [_pod(f"lo-{i}", "low", node=f"node-{i % 2}", group="lo") for i in range(6)]
    low += [_pod(f"single-{i}", "low", node=f"node-{i % 2}") for i in range(2)]
    result = _run([_group("lo", 6), *_cluster(low)])
    assert all(result.placements.get(p) for p in HI)
    victims = _preempted(result)
    assert {"default/single-0", "default/single-1"} <= victims
    assert len(victims) == 4


def test_without_victims_the_condition_says_why():
    # Everything running is as important as hi: nothing to preempt.
    low = [_pod(f"peer-{i}", "high", node=f"node-{i % 2}") for i in range(8)]
    result = _run(_cluster(low))
    assert not any(result.placements.get(p) for p in HI)
    assert _preempted(result) == set()
    messages = {e.message for e in result.events if e.object in HI}
    assert "0/2 nodes are available: 2 Insufficient cpu." in messages


# The group's priority is its PodGroup's (util.PodGroupPriority: spec.priority, which the
# Priority admission plugin resolves from spec.priorityClassName, else 0), for the preemptor
# (newPodGroupPreemptor) and for a victim in a group (getPodPriority); its pods' own priorities
# are not read. pkg/scheduler/framework/preemption/podgrouppreemption.go, the copy with the
# v1alpha2 lister (index id 51871972142), and pkg/apis/scheduling/types.go's PodGroupSpec
# (v1.37-era, index id 54594585921).


def test_a_group_without_a_priority_class_preempts_nothing_whatever_its_pods_priority():
    low = [_pod(f"low-{i}", "low", node=f"node-{i % 2}") for i in range(8)]
    objects = [o for o in _cluster(low) if o["kind"] != "PodGroup"]
    result = _run([*objects, _group("hi", 4, cls="")])  # hi's pods are still "high"
    assert _preempted(result) == set()
    assert not any(result.placements.get(p) for p in HI)


def test_a_group_of_high_priority_preempts_even_if_its_pods_are_low():
    low = [_pod(f"low-{i}", "mid", node=f"node-{i % 2}") for i in range(8)]
    objects = [
        o for o in _cluster(low) if o["kind"] != "Pod" or o["metadata"]["name"][:3] != "hi-"
    ]
    hi = [_pod(f"hi-{i}", "low", group="hi") for i in range(4)]
    result = _run([*_classes(mid=500), *objects, *hi])
    assert all(result.placements.get(p) for p in HI)
    assert len(_preempted(result)) == 4


def test_a_pod_in_a_group_is_a_victim_at_its_groups_priority():
    # Pods of priority 100, but in a group of priority 1000: as important as hi, not victims.
    low = [_pod(f"lo-{i}", "low", node=f"node-{i % 2}", group="lo") for i in range(8)]
    result = _run([_group("lo", 8, cls="high"), *_cluster(low)])
    assert _preempted(result) == set()
    assert not any(result.placements.get(p) for p in HI)


def test_with_the_gate_off_each_member_preempts_through_default_preemption():
    # podGroupPodSchedulingAlgorithm (schedule_one_podgroup.go, v1.37-era copy, index id
    # 52400790438): each member's schedulingAlgorithm runs PostFilter; a member DefaultPreemption
    # nominates is assumed on its nominated node ("requiresPreemption"), so the next members see
    # it there; the group, feasible, waits for the preemption ("pod group is waiting for
    # preemption to complete"), each member nominated, and binds once the victims are gone.
    # Each member preempts at its own (pod) priority: the PodGroup's is not read on this path.
    low = [_pod(f"low-{i}", "low", node=f"node-{i % 2}") for i in range(8)]
    objects = [o for o in _cluster(low) if o["kind"] != "PodGroup"]
    result = _run([*objects, _group("hi", 4, cls="")], WorkloadAwarePreemption=False)
    assert all(result.placements.get(p) for p in HI)
    victims = _preempted(result)
    assert 4 <= len(victims) <= 8
    assert all(v.startswith("default/low-") for v in victims)
    # Each member's first attempt: unschedulable (its FitError, as a pod's cycle that preempted
    # reports it), nominated to the node it preempted on; its second binds there.
    for name in HI:
        first, *rest = [a for a in result.attempts if a.pod == name]
        assert first.result != "Scheduled" and first.nominated_node
        assert first.message == "0/2 nodes are available: 2 Insufficient cpu."
        assert rest and rest[-1].node == first.nominated_node


def test_more_important_victim_follows_gos_hierarchy():
    # moreImportantVictim: priority; a PodGroup before a pod; the larger group; the older.
    def unit(priority: int, group: bool, size: int = 1, start: int = 0) -> Victim:
        return Victim([object()] * size, priority, group, start)  # type: ignore[list-item]

    assert more_important_victim(unit(2, False), unit(1, True, 9))
    assert more_important_victim(unit(1, True), unit(1, False))
    assert not more_important_victim(unit(1, False), unit(1, True))
    assert more_important_victim(unit(1, True, 3, start=9), unit(1, True, 2, start=0))
    assert more_important_victim(unit(1, True, 2, start=0), unit(1, True, 2, start=9))
    assert more_important_victim(unit(1, False, start=0), unit(1, False, start=9))


@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.booleans(), st.integers(1, 4), st.integers(0, 5)),
        min_size=2,
        max_size=8,
    )
)
def test_the_reprieve_order_is_moreimportantvictims(units: list[tuple[int, bool, int, int]]):
    from framework.scheduler.podgroup_preemption import _importance

    victims = [Victim([object()] * n, p, g, s) for p, g, n, s in units]  # type: ignore[list-item]
    ordered = sorted(victims, key=_importance)
    for a, b in itertools.pairwise(ordered):
        assert not more_important_victim(b, a)


# Cases of TestPodGroupEvaluator_Preempt_Victims in pkg/scheduler/framework/preemption/
# podgrouppreemption_test.go (index id 70074245839, a v1beta1-era copy). Its mock Filter gives
# each node a capacity in pods; here a node has that many CPUs and each pod asks for one.


def _go_case(nodes: dict[str, int], victims: list[dict[str, Any]], groups, preemptor: int):
    classes = _classes(low=100, mid=500, high=1000)
    node_docs = []
    for name, cpus in nodes.items():
        node = _node(name)
        node["status"]["allocatable"]["cpu"] = str(cpus)
        node_docs.append(node)
    pre = [_pod(f"p-{i}", "high", group="preemptor-pg") for i in range(preemptor)]
    preemptor_pg = _group("preemptor-pg", preemptor, cls="high")
    objects = [*classes, *node_docs, *groups, preemptor_pg, *victims, *pre]
    return _run(objects)


def _started(pod: dict[str, Any], second: int) -> dict[str, Any]:
    pod["status"] = {"phase": "Running", "startTime": f"1970-01-01T00:00:0{second}Z"}
    return pod


def test_go_priority_mix_of_no_groups_and_pod_groups():
    # p1 is less important than p2 because it's not part of a pod group.
    result = _go_case(
        {"node1": 2},
        [_pod("p1", "low", "node1"), _pod("p2", "low", "node1", group="pg1")],
        [_group("pg1", 1, "Single")],
        preemptor=1,
    )
    assert _preempted(result) == {"default/p1"}


def test_go_start_time_of_pods_from_same_group_with_disruption_mode_single():
    # p1 is less important than p2 because of later StartTime.
    result = _go_case(
        {"node1": 2},
        [
            _started(_pod("p1", "low", "node1", group="pg1"), 1),
            _started(_pod("p2", "low", "node1", group="pg1"), 0),
        ],
        [_group("pg1", 1, "Single")],
        preemptor=1,
    )
    assert _preempted(result) == {"default/p1"}


def test_go_pod_group_with_disruption_mode_group_not_reprieved():
    result = _go_case(
        {"node1": 1, "node2": 1},
        [_pod("p1", "low", "node1", group="pg1"), _pod("p2", "low", "node2", group="pg1")],
        [_group("pg1", 1, "All")],
        preemptor=1,
    )
    assert _preempted(result) == {"default/p1", "default/p2"}


def test_with_the_gate_off_a_group_that_cannot_fit_drops_its_members_nominations():
    # submitPodGroupAlgorithmResult: a member that required preemption in a group that is not
    # feasible goes back Unschedulable with its Permit's words and no nomination ("the
    # preemption message is no longer relevant"). Its victims are gone all the same: Go
    # evicts in PostFilter (KEP-5710's "delayed preemption" would not).
    from framework.plugins.gangscheduling import MSG_PERMIT_WAIT

    classes = _classes(low=100, high=1000)
    low = [_pod(f"low-{i}", "low", node="node-0") for i in range(4)]
    peers = [_pod(f"peer-{i}", "high", node="node-1") for i in range(4)]
    hi = [_pod(f"hi-{i}", "high", group="hi") for i in range(5)]
    objects = [*classes, _node("node-0"), _node("node-1"), *low, *peers, _group("hi", 5), *hi]
    result = _run(objects, WorkloadAwarePreemption=False, GangScheduling=True)
    assert not any(result.placements.get(f"default/hi-{i}") for i in range(5))
    assert _preempted(result) == {f"default/low-{i}" for i in range(4)}
    first = next(a for a in result.attempts if a.pod == "default/hi-0")
    assert first.message == MSG_PERMIT_WAIT and not first.nominated_node
