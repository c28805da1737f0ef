"""The snapshot: incremental UpdateSnapshot (cache.go) and NewSnapshot/the listers (snapshot.go)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest

from framework.cache import (
    Cache,
    NodeInfoNotFound,
    Snapshot,
    SnapshotInconsistent,
    new_snapshot,
)
from framework.interface import SharedLister
from framework.node_info import ImageStateSummary, NodeInfo
from framework.types import PodInfo
from tests.cache.helpers import make_node, make_pod


def names(infos: Sequence[NodeInfo]) -> list[str]:
    return [info.name for info in infos]


def cluster(*nodes: tuple[str, str]) -> tuple[Cache, Snapshot]:
    cache = Cache()
    for name, zone in nodes:
        cache.add_node(make_node(name, zone=zone))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    return cache, snapshot


def test_the_first_update_lists_every_node_in_node_tree_order() -> None:
    _, snapshot = cluster(("a1", "z1"), ("a2", "z1"), ("b1", "z2"))
    assert names(snapshot.node_infos().list()) == ["a1", "b1", "a2"]
    assert snapshot.num_nodes() == 3
    assert snapshot.generation > 0


def test_an_update_copies_only_the_node_infos_changed_since_the_last_one() -> None:
    cache, snapshot = cluster(("n1", ""), ("n2", ""), ("n3", ""))
    before = {
        info.name: (info, info.pods, info.requested, info.generation) for info in snapshot.list()
    }
    cache.add_pod(make_pod("p", node="n2", cpu="1"))
    cache.update_snapshot(snapshot)
    after = {info.name: info for info in snapshot.list()}
    for name in ("n1", "n3"):
        info, pods, requested, generation = before[name]
        assert after[name] is info
        assert (after[name].pods, after[name].requested) == (pods, requested)
        assert after[name].pods is pods and after[name].requested is requested, "not copied again"
        assert after[name].generation == generation
    changed = after["n2"]
    # As in Kubernetes the snapshot keeps the NodeInfo object (its lists hold it)
    # and overwrites its contents with a fresh copy.
    assert changed is before["n2"][0]
    assert changed.pods is not before["n2"][1] and changed.requested is not before["n2"][2]
    assert changed.requested.milli_cpu == 1000 and changed.generation > before["n2"][3]
    assert snapshot.generation == changed.generation


def test_an_update_with_no_change_copies_nothing() -> None:
    cache, snapshot = cluster(("n1", ""), ("n2", ""))
    pods_lists = [info.pods for info in snapshot.list()]
    node_list = snapshot.node_info_list
    generation = snapshot.generation
    cache.update_snapshot(snapshot)
    assert [info.pods for info in snapshot.list()] == pods_lists
    assert all(a is b for a, b in zip(pods_lists, [i.pods for i in snapshot.list()], strict=True))
    assert snapshot.node_info_list is node_list and snapshot.generation == generation


def test_snapshot_node_infos_are_copies_that_do_not_write_back_to_the_cache() -> None:
    cache, snapshot = cluster(("n1", ""))
    snapshot.get("n1").add_pod(PodInfo(make_pod("x", node="n1", cpu="1")))
    fresh = Snapshot()
    cache.update_snapshot(fresh)
    assert fresh.get("n1").requested.milli_cpu == 0
    assert fresh.get("n1") is not snapshot.get("n1")


def test_a_new_node_rebuilds_the_list_in_node_tree_order() -> None:
    cache, snapshot = cluster(("a1", "z1"), ("a2", "z1"))
    cache.add_node(make_node("b1", zone="z2"))
    cache.update_snapshot(snapshot)
    assert names(snapshot.list()) == ["a1", "b1", "a2"]


def test_a_removed_node_leaves_the_map_and_the_list() -> None:
    cache, snapshot = cluster(("n1", ""), ("n2", ""), ("n3", ""))
    cache.remove_node(make_node("n2"))
    cache.update_snapshot(snapshot)
    assert names(snapshot.list()) == ["n1", "n3"]
    assert set(snapshot.node_info_map) == {"n1", "n3"}
    with pytest.raises(NodeInfoNotFound) as raised:
        snapshot.get("n2")
    assert str(raised.value) == 'nodeinfo not found for node name "n2"'


def test_a_removed_node_can_be_added_again() -> None:
    cache, snapshot = cluster(("n1", ""), ("n2", ""))
    cache.remove_node(make_node("n1"))
    cache.update_snapshot(snapshot)
    cache.add_node(make_node("n1", cpu="8"))
    cache.update_snapshot(snapshot)
    assert names(snapshot.list()) == ["n2", "n1"]
    assert snapshot.get("n1").allocatable.milli_cpu == 8000


def test_a_node_removed_and_added_between_two_updates_keeps_its_old_place() -> None:
    # Kubernetes overwrites the existing entry and, with the node count unchanged,
    # does not rebuild the list, although the node tree now lists the node last.
    cache, snapshot = cluster(("n1", ""), ("n2", ""))
    cache.remove_node(make_node("n1"))
    cache.add_node(make_node("n1", cpu="8"))
    cache.update_snapshot(snapshot)
    assert names(snapshot.list()) == ["n1", "n2"]
    assert snapshot.get("n1").allocatable.milli_cpu == 8000
    cache.add_node(make_node("n3"))  # the next rebuild catches up with the tree
    cache.update_snapshot(snapshot)
    assert names(snapshot.list()) == ["n2", "n1", "n3"]


def test_a_removed_node_with_pods_leaves_the_snapshot_and_stays_out() -> None:
    cache, snapshot = cluster(("n1", ""), ("n2", ""))
    pod = make_pod("p", node="n1", cpu="1", affinity=True)
    cache.add_pod(pod)
    cache.update_snapshot(snapshot)
    assert names(snapshot.have_pods_with_affinity_list()) == ["n1"]
    cache.remove_node(make_node("n1"))
    cache.update_snapshot(snapshot)
    assert names(snapshot.list()) == ["n2"]
    assert snapshot.have_pods_with_affinity_list() == []
    cache.remove_pod(pod)  # the ghost goes; nothing to copy
    cache.update_snapshot(snapshot)
    assert names(snapshot.list()) == ["n2"] and cache.node_count() == 1


def test_affinity_lists_follow_nodes_gaining_and_losing_such_pods() -> None:
    cache, snapshot = cluster(("n1", ""), ("n2", ""), ("n3", ""))
    node_list = snapshot.node_info_list
    with_affinity = make_pod("a", node="n2", affinity=True)
    with_anti = make_pod("b", node="n3", anti_affinity=True)
    cache.add_pod(with_affinity)
    cache.add_pod(with_anti)
    cache.update_snapshot(snapshot)
    assert snapshot.node_info_list is node_list, "no node joined or left: the list is kept"
    # Required anti-affinity also counts as "pods with affinity" (podAffinity or podAntiAffinity).
    assert names(snapshot.have_pods_with_affinity_list()) == ["n2", "n3"]
    assert names(snapshot.have_pods_with_required_anti_affinity_list()) == ["n3"]
    assert snapshot.have_pods_with_affinity_list()[0] is snapshot.get("n2")
    cache.remove_pod(with_affinity)
    cache.update_snapshot(snapshot)
    assert names(snapshot.have_pods_with_affinity_list()) == ["n3"]


def test_an_inconsistent_snapshot_is_rebuilt_and_the_cycle_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    cache, snapshot = cluster(("n1", ""), ("n2", ""))
    snapshot.node_info_list.pop()  # something went wrong: the list lost a node
    with caplog.at_level(logging.ERROR), pytest.raises(SnapshotInconsistent) as raised:
        cache.update_snapshot(snapshot)
    assert str(raised.value).startswith(
        "snapshot state is not consistent, length of NodeInfoList=1 not equal to length of "
        "nodes in tree=2"
    )
    assert "snapshot state is not consistent" in caplog.text
    assert names(snapshot.list()) == ["n1", "n2"]
    cache.update_snapshot(snapshot)  # recovered


def test_an_assumed_pod_shows_in_the_next_snapshot_and_a_forgotten_one_leaves() -> None:
    cache, snapshot = cluster(("n1", ""))
    pod = make_pod("p", node="n1", cpu="1")
    cache.assume_pod(PodInfo(pod))
    cache.update_snapshot(snapshot)
    assert snapshot.get("n1").requested.milli_cpu == 1000
    cache.forget_pod(pod)
    cache.update_snapshot(snapshot)
    assert snapshot.get("n1").requested.milli_cpu == 0


def test_a_snapshot_is_a_shared_lister() -> None:
    lister: SharedLister = Snapshot()
    assert list(lister.node_infos().list()) == []


# --- new_snapshot ------------------------------------------------------------------------


def test_new_snapshot_builds_node_infos_from_objects_in_the_given_order() -> None:
    nginx = (("nginx",), 100)
    nodes = [make_node("b", images=[nginx]), make_node("a", images=[nginx, (("redis",), 5)])]
    pods = [
        make_pod("p1", node="a", cpu="1", affinity=True),
        make_pod("p2", node="a", cpu="500m"),
        make_pod("p3", node="b", anti_affinity=True),
    ]
    snapshot = new_snapshot(pods, nodes)
    assert names(snapshot.list()) == ["b", "a"]
    assert snapshot.get("a").requested.milli_cpu == 1500
    assert names(snapshot.have_pods_with_affinity_list()) == ["b", "a"]
    assert names(snapshot.have_pods_with_required_anti_affinity_list()) == ["b"]
    assert snapshot.get("a").image_states == {
        "nginx": ImageStateSummary(100, 2),
        "redis": ImageStateSummary(5, 1),
    }


def test_new_snapshot_keeps_pods_on_unknown_nodes_in_a_node_info_without_a_node() -> None:
    snapshot = new_snapshot([make_pod("p", node="gone", cpu="1")], [make_node("n1")])
    assert [info.name or None for info in snapshot.list()] == ["n1", None]
    assert snapshot.node_info_map["gone"].requested.milli_cpu == 1000
    with pytest.raises(NodeInfoNotFound, match='"gone"'):
        snapshot.get("gone")


# --- looking nodes up by name, in list order (findNodesThatFitPod with a PreFilterResult) ----------


def test_named_nodes_come_back_in_list_order_and_unknown_names_are_dropped() -> None:
    # schedule_one.go looks each PreFilterResult name up in the snapshot; we keep list order.
    _, snapshot = cluster(("a1", "z1"), ("a2", "z1"), ("b1", "z2"))
    assert names(snapshot.in_list_order({"a2", "a1", "gone"})) == ["a1", "a2"]
    assert names(snapshot.in_list_order(["b1"])) == ["b1"]
    assert snapshot.in_list_order(()) == []


def test_the_lookup_follows_nodes_that_join_and_leave() -> None:
    cache, snapshot = cluster(("a1", "z1"), ("b1", "z2"))
    assert names(snapshot.in_list_order({"a1", "c1"})) == ["a1"]
    cache.add_node(make_node("c1", zone="z3"))
    cache.remove_node(make_node("a1", zone="z1"))
    cache.update_snapshot(snapshot)
    assert names(snapshot.in_list_order({"a1", "c1"})) == ["c1"]
