"""NodeTree: zone keys and the round-robin order (node_tree.go, component-helpers GetZoneKey)."""

from __future__ import annotations

import pytest

from framework.cache import CacheError, NodeTree, get_zone_key
from framework.cache.node_tree import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
)
from tests.cache.helpers import make_node


@pytest.mark.parametrize(
    ("labels", "key"),
    [
        pytest.param({}, "", id="no zone labels: the empty zone"),
        pytest.param({"topology.kubernetes.io/zone": "z1"}, ":\x00:z1", id="zone only"),
        pytest.param({"topology.kubernetes.io/region": "r1"}, "r1:\x00:", id="region only"),
        pytest.param(
            {"topology.kubernetes.io/region": "r1", "topology.kubernetes.io/zone": "z1"},
            "r1:\x00:z1",
            id="region and zone",
        ),
        pytest.param(
            {
                "topology.kubernetes.io/region": "r1",
                "topology.kubernetes.io/zone": "z1",
                LABEL_FAILURE_DOMAIN_BETA_REGION: "old-r",
                LABEL_FAILURE_DOMAIN_BETA_ZONE: "old-z",
            },
            "old-r:\x00:old-z",
            id="deprecated beta labels are read first",
        ),
        pytest.param(
            {LABEL_FAILURE_DOMAIN_BETA_ZONE: "", "topology.kubernetes.io/zone": "z1"},
            "",
            id="a present but empty beta label still wins",
        ),
    ],
)
def test_zone_key_joins_region_and_zone_with_a_nul(labels: dict[str, str], key: str) -> None:
    assert get_zone_key(make_node("n", labels=labels)) == key


# (name, zone) in the order they are added -> the expected list order.
ORDER_CASES = [
    pytest.param([], [], id="no nodes"),
    pytest.param([("a", "z1"), ("b", "z1"), ("c", "z1")], ["a", "b", "c"], id="one zone"),
    pytest.param(
        [("a1", "z1"), ("a2", "z1"), ("b1", "z2"), ("c1", "z3"), ("b2", "z2"), ("a3", "z1")],
        ["a1", "b1", "c1", "a2", "b2", "a3"],
        id="three zones, first node of each zone then the second of each",
    ),
    pytest.param(
        [("x", ""), ("a1", "z1"), ("y", ""), ("a2", "z1")],
        ["x", "a1", "y", "a2"],
        id="nodes without zone labels share the empty zone",
    ),
    pytest.param(
        [("b1", "z2"), ("a1", "z1"), ("a2", "z1"), ("a3", "z1")],
        ["b1", "a1", "a2", "a3"],
        id="zones keep the order they were first seen in",
    ),
]


@pytest.mark.parametrize(("adds", "expected"), ORDER_CASES)
def test_list_is_round_robin_across_zones(
    adds: list[tuple[str, str]], expected: list[str]
) -> None:
    tree = NodeTree([make_node(name, zone=zone) for name, zone in adds])
    assert tree.list() == expected
    assert tree.num_nodes == len(expected)


def test_adding_a_node_twice_to_its_zone_is_ignored() -> None:
    tree = NodeTree([make_node("a", zone="z1")])
    tree.add_node(make_node("a", zone="z1"))
    assert (tree.list(), tree.num_nodes) == (["a"], 1)


def test_removing_the_last_node_of_a_zone_removes_the_zone_and_it_comes_back_last() -> None:
    tree = NodeTree([make_node("a1", zone="z1"), make_node("b1", zone="z2")])
    tree.remove_node(make_node("a1", zone="z1"))
    assert tree.zones() == [":\x00:z2"]
    tree.add_node(make_node("a2", zone="z1"))
    assert tree.zones() == [":\x00:z2", ":\x00:z1"]
    assert tree.list() == ["b1", "a2"]


def test_removing_a_node_not_in_its_zone_fails_with_kubernetes_message() -> None:
    tree = NodeTree([make_node("a", zone="z1")])
    with pytest.raises(CacheError) as raised:
        tree.remove_node(make_node("a", zone="z2"))
    assert str(raised.value) == 'node "a" in group ":\\x00:z2" was not found'
    assert tree.num_nodes == 1


def test_update_moves_a_node_whose_zone_changed_to_the_end_of_its_new_zone() -> None:
    tree = NodeTree([make_node("a1", zone="z1"), make_node("a2", zone="z1")])
    tree.add_node(make_node("b1", zone="z2"))
    tree.update_node(make_node("a1", zone="z1"), make_node("a1", zone="z2"))
    assert tree.list() == ["a2", "b1", "a1"]
    assert tree.num_nodes == 3


def test_update_without_a_zone_change_keeps_the_place() -> None:
    tree = NodeTree([make_node("a1", zone="z1"), make_node("a2", zone="z1")])
    tree.update_node(make_node("a1", zone="z1"), make_node("a1", zone="z1", cpu="8"))
    assert tree.list() == ["a1", "a2"]


def test_update_of_a_node_the_tree_did_not_hold_adds_it() -> None:
    tree = NodeTree()
    tree.update_node(make_node("a", zone="z1"), make_node("a", zone="z2"))
    assert (tree.list(), tree.num_nodes) == (["a"], 1)
