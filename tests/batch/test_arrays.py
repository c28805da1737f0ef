"""The batch engine's arrays follow the snapshot exactly: updated row by row, they equal a rebuild.

The cache copies only the NodeInfos that changed into the snapshot
(``UpdateSnapshot`` in ``kubernetes/kubernetes:pkg/scheduler/backend/cache/cache.go``,
v1.33); the arrays read only the rows the snapshot's change log names. A
stateful test drives the cache with random pod and node changes and
checks, after each snapshot update, every column, the spec classes, a
label projection, a label's value ids, the columns kept per node and the
index of the pods' labels against arrays built afresh from the same snapshot.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from framework.batch.arrays import NodeArrays
from framework.batch.forms import default_normalize, default_normalize_one
from framework.cache import Cache, Snapshot
from framework.objects import Node, Pod

NODES = [f"node-{i}" for i in range(6)]


def make_node(name: str, cpu: int, zone: str, cordoned: bool) -> Node:
    return Node.from_dict(
        {
            "metadata": {"name": name, "labels": {"zone": zone, "kubernetes.io/hostname": name}},
            "spec": {"unschedulable": cordoned},
            "status": {"allocatable": {"cpu": f"{cpu}m", "memory": "4Gi", "pods": "10"}},
        }
    )


def make_pod(name: str, node: str, cpu: int) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": f"uid-{name}",
                "labels": {"app": "web" if cpu == 100 else "db"},
            },
            "spec": {
                "nodeName": node,
                "containers": [
                    {"name": "c", "image": "nginx", "resources": {"requests": {"cpu": f"{cpu}m"}}}
                ],
            },
        }
    )


class ArraysFollowTheSnapshot(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.cache = Cache()
        self.snapshot = Snapshot()
        self.arrays = NodeArrays()
        self.nodes: dict[str, Node] = {}
        self.pods: dict[str, Pod] = {}
        self.count = 0

    @rule(
        name=st.sampled_from(NODES), cpu=st.sampled_from([1000, 2000]), zone=st.sampled_from("ab")
    )
    def add_or_update_node(self, name: str, cpu: int, zone: str) -> None:
        node = make_node(name, cpu, zone, cordoned=cpu == 2000 and zone == "b")
        if name in self.nodes:
            self.cache.update_node(self.nodes[name], node)
        else:
            self.cache.add_node(node)
        self.nodes[name] = node

    @rule(data=st.data())
    def remove_node(self, data: Any) -> None:
        if self.nodes:
            name = data.draw(st.sampled_from(sorted(self.nodes)))
            self.cache.remove_node(self.nodes.pop(name))

    @rule(node=st.sampled_from(NODES), cpu=st.sampled_from([0, 100, 250]))
    def add_pod(self, node: str, cpu: int) -> None:
        self.count += 1
        pod = make_pod(f"p{self.count}", node, cpu)
        self.cache.add_pod(pod)
        self.pods[pod.name] = pod

    @rule(data=st.data())
    def remove_pod(self, data: Any) -> None:
        if self.pods:
            name = data.draw(st.sampled_from(sorted(self.pods)))
            self.cache.remove_pod(self.pods.pop(name))

    @rule()
    def update_snapshot_and_refresh(self) -> None:
        self.cache.update_snapshot(self.snapshot)
        self.arrays.refresh(self.snapshot)

    @invariant()
    def equal_to_a_rebuild(self) -> None:
        if self.arrays.infos is not self.snapshot.node_info_list:
            return  # not refreshed since the last change of node list
        fresh = NodeArrays()
        fresh.refresh(self.snapshot)
        assert self.arrays.names == fresh.names
        assert np.array_equal(self.arrays.has_node, fresh.has_node)
        for column, values in fresh.columns.items():
            if column != "spec_class":  # class ids are interned in order of first sight
                assert np.array_equal(self.arrays[column], values), column
        # A per-node column kept from refresh to refresh equals one computed afresh.
        kept = self.arrays.per_node("free cpu + 1", _free_cpu_plus_one(self.arrays))
        assert np.array_equal(kept, fresh["free_cpu"] + 1)
        # So is a column read from the NodeInfos themselves (their pods, say).
        infos = self.snapshot.node_info_list
        pods = self.arrays.per_info("pods", lambda info: len(info.pods))
        assert pods.tolist() == [len(info.pods) for info in infos]
        # The index of the pods' labels, and a column that reads only the rows it names.
        web = [any(p.pod.metadata.labels.get("app") == "web" for p in info.pods) for info in infos]
        assert self.arrays.pod_label_rows("default", "app", ["web"]).tolist() == web
        assert not self.arrays.pod_label_rows("other", "app", ["web"]).any()
        webs = self.arrays.per_info(
            "web pods",
            lambda info: sum(p.pod.metadata.labels.get("app") == "web" for p in info.pods),
            lambda: self.arrays.pod_label_rows("default", "app", ["web"]),
        )
        assert webs.tolist() == [
            sum(p.pod.metadata.labels.get("app") == "web" for p in info.pods) for info in infos
        ]
        # Each node's zone, read back from its value id (ids too are numbered by first sight).
        for arrays in (self.arrays, fresh):
            column, ids = arrays.label_values("zone")
            values = {i: value for (_, value), i in ids.items()}
            assert [values.get(int(i)) for i in column] == [
                info.node.metadata.labels.get("zone") if info.node is not None else None
                for info in self.snapshot.node_info_list
            ]
        for ours, theirs in (
            (self.arrays.classes("spec_class"), fresh.classes("spec_class")),
            (self.arrays.label_classes(("zone",)), fresh.label_classes(("zone",))),
        ):
            # The same partition of the nodes into classes (ids may be numbered otherwise).
            assert np.array_equal(
                ours.inverse[:, None] == ours.inverse[None, :],
                theirs.inverse[:, None] == theirs.inverse[None, :],
            )


def _free_cpu_plus_one(arrays: NodeArrays) -> Any:
    return lambda rows: arrays["free_cpu"][rows] + 1


TestArraysFollowTheSnapshot = ArraysFollowTheSnapshot.TestCase


def test_a_change_rereads_one_row_not_the_whole_cluster() -> None:
    cache, snapshot, arrays = Cache(), Snapshot(), NodeArrays()
    for name in NODES:
        cache.add_node(make_node(name, 1000, "a", cordoned=False))
    cache.update_snapshot(snapshot)
    arrays.refresh(snapshot)
    cache.add_pod(make_pod("web", "node-3", 250))
    cache.update_snapshot(snapshot)
    arrays.refresh(snapshot)
    assert (arrays.rebuilds, arrays.rows_updated) == (1, 1)
    assert arrays["free_cpu"][arrays.position["node-3"]] == 750


@given(score=st.integers(-1000, 1000), count=st.integers(1, 5), reverse=st.booleans())
def test_a_constant_column_normalizes_as_its_one_value(
    score: int, count: int, reverse: bool
) -> None:
    """The engine normalizes one value when every node scored the same (TaintToleration's 0s)."""
    column = default_normalize(np.full(count, score, dtype=np.int64), reverse)
    assert column.tolist() == [default_normalize_one(score, reverse)] * count


def test_the_pods_label_index_follows_pods_coming_and_going() -> None:
    """A row leaves the index when its last pod with the label goes, and a kept column with it."""
    cache, snapshot, arrays = Cache(), Snapshot(), NodeArrays()
    for name in NODES[:3]:
        cache.add_node(make_node(name, 1000, "a", cordoned=False))
    web = make_pod("web", "node-1", 100)  # app=web
    cache.add_pod(web)
    cache.update_snapshot(snapshot)
    arrays.refresh(snapshot)

    def count(info: Any) -> int:
        return sum(p.pod.metadata.labels.get("app") == "web" for p in info.pods)

    def holding_web() -> Any:
        return arrays.pod_label_rows("default", "app", ["web"])

    def column() -> list[int]:
        return arrays.per_info("web pods", count, holding_web).tolist()

    assert arrays.pod_label_rows("default", "app", ["web"]).tolist() == [False, True, False]
    assert column() == [0, 1, 0]
    cache.remove_pod(web)
    cache.add_pod(make_pod("db", "node-1", 250))  # app=db: the row stays, its web pod goes
    cache.add_pod(make_pod("web-2", "node-2", 100))
    cache.update_snapshot(snapshot)
    arrays.refresh(snapshot)
    assert arrays.pod_label_rows("default", "app", ["web"]).tolist() == [False, False, True]
    assert arrays.pod_label_rows("default", "app", ["db"]).tolist() == [False, True, False]
    assert column() == [0, 0, 1]
