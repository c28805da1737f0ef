"""The cache against a trivially correct model: a dict of nodes and a dict of pods.

Hypothesis runs random programs of node adds, updates and removals, pod adds,
updates and removals, assume/forget/confirm, finished bindings, the passing of
time (with a TTL, so expiry is exercised) and snapshot updates. After every
step it brings a long-lived snapshot up to date incrementally and checks that
it holds exactly what a snapshot built from scratch out of the model holds:
the same nodes, on each the same pods, the same requested totals and the same
affinity lists; that a fresh snapshot lists nodes in the model's zone
round-robin order; and that no NodeInfo in the cache, ghosts included, has
totals that differ from the sum of its pods' requests.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from framework.cache import Cache, Snapshot, new_snapshot
from framework.clock import FakeClock
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.types import PodInfo
from tests.cache.helpers import assert_totals_match_pods, make_node, make_pod

TTL = 30.0
NODE_NAMES = st.sampled_from(["n1", "n2", "n3", "n4"])
ZONES = st.sampled_from(["", "z1", "z2"])
CPUS = st.sampled_from(["", "100m", "1", "2"])
MEMORIES = st.sampled_from(["", "64Mi", "1Gi"])
FLAGS = st.booleans()


@dataclass
class ModelPod:
    pod: Pod
    assumed: bool
    deadline: float | None = None  # set when an assumed pod's binding finished


def round_robin(zones: dict[str, list[str]]) -> list[str]:
    columns = itertools.zip_longest(*zones.values())
    return [name for column in columns for name in column if name is not None]


def names(infos: Sequence[NodeInfo]) -> list[str]:
    return [info.name for info in infos]


class CacheMachine(RuleBasedStateMachine):
    @initialize()
    def start(self) -> None:
        self.clock = FakeClock(start=0)
        self.cache = Cache(ttl_seconds=TTL, clock=self.clock)
        self.live = Snapshot()  # updated after every step
        self.lagging = Snapshot()  # updated only by its rule, many changes at a time
        self.nodes: dict[str, Node] = {}
        self.zones: dict[str, list[str]] = {}  # zone -> node names, the model node tree
        self.pods: dict[str, ModelPod] = {}
        self.uids = itertools.count(1)

    # --- helpers -----------------------------------------------------------------------

    def new_pod(self, node: str, cpu: str, memory: str, affinity: bool, anti: bool) -> Pod:
        n = next(self.uids)
        return make_pod(
            f"p{n}", uid=f"u{n}", node=node, cpu=cpu, memory=memory,
            affinity=affinity, anti_affinity=anti,
        )  # fmt: skip

    def tree_add(self, node: Node) -> None:
        self.zones.setdefault(node.metadata.labels.get("topology.kubernetes.io/zone", ""), [])
        self.zones[node.metadata.labels.get("topology.kubernetes.io/zone", "")].append(node.name)

    def tree_remove(self, node: Node) -> None:
        zone = node.metadata.labels.get("topology.kubernetes.io/zone", "")
        self.zones[zone].remove(node.name)
        if not self.zones[zone]:
            del self.zones[zone]

    def pick(self, data: st.DataObject, assumed: bool) -> ModelPod:
        uids = sorted(uid for uid, p in self.pods.items() if p.assumed == assumed)
        return self.pods[data.draw(st.sampled_from(uids))]

    def has_pods(self, assumed: bool) -> bool:
        return any(p.assumed == assumed for p in self.pods.values())

    # --- nodes -------------------------------------------------------------------------

    @rule(name=NODE_NAMES, zone=ZONES, cpu=st.sampled_from(["2", "4"]))
    def add_node(self, name: str, zone: str, cpu: str) -> None:
        if name in self.nodes:
            return
        node = make_node(name, zone=zone, cpu=cpu)
        self.cache.add_node(node)
        self.nodes[name] = node
        self.tree_add(node)

    @precondition(lambda self: self.nodes)
    @rule(data=st.data(), zone=ZONES, cpu=st.sampled_from(["2", "4", "8"]))
    def update_node(self, data: st.DataObject, zone: str, cpu: str) -> None:
        old = self.nodes[data.draw(st.sampled_from(sorted(self.nodes)))]
        new = make_node(old.name, zone=zone, cpu=cpu)
        self.cache.update_node(old, new)
        if zone != old.metadata.labels.get("topology.kubernetes.io/zone", ""):
            self.tree_remove(old)
            self.tree_add(new)
        self.nodes[new.name] = new

    @precondition(lambda self: self.nodes)
    @rule(data=st.data())
    def remove_node(self, data: st.DataObject) -> None:
        node = self.nodes.pop(data.draw(st.sampled_from(sorted(self.nodes))))
        self.cache.remove_node(node)
        self.tree_remove(node)

    # --- pods --------------------------------------------------------------------------

    @rule(node=NODE_NAMES, cpu=CPUS, memory=MEMORIES, affinity=FLAGS, anti=FLAGS)
    def add_bound_pod(self, node: str, cpu: str, memory: str, affinity: bool, anti: bool) -> None:
        pod = self.new_pod(node, cpu, memory, affinity, anti)
        self.cache.add_pod(pod)
        self.pods[pod.metadata.uid] = ModelPod(pod, assumed=False)

    @rule(node=NODE_NAMES, cpu=CPUS, memory=MEMORIES, affinity=FLAGS, anti=FLAGS)
    def assume_pod(self, node: str, cpu: str, memory: str, affinity: bool, anti: bool) -> None:
        pod = self.new_pod(node, cpu, memory, affinity, anti)
        self.cache.assume_pod(PodInfo(pod))
        self.pods[pod.metadata.uid] = ModelPod(pod, assumed=True)

    @precondition(lambda self: self.has_pods(assumed=True))
    @rule(data=st.data())
    def finish_binding(self, data: st.DataObject) -> None:
        model = self.pick(data, assumed=True)
        self.cache.finish_binding(model.pod)
        model.deadline = self.clock.now() + TTL

    @precondition(lambda self: self.has_pods(assumed=True))
    @rule(data=st.data(), node=st.one_of(st.none(), NODE_NAMES))
    def confirm(self, data: st.DataObject, node: str | None) -> None:
        model = self.pick(data, assumed=True)
        spec = model.pod.to_dict()["spec"]
        bound = Pod.from_dict(
            {**model.pod.to_dict(), "spec": {**spec, "nodeName": node or spec["nodeName"]}}
        )
        self.cache.add_pod(bound)
        self.pods[bound.metadata.uid] = ModelPod(bound, assumed=False)

    @precondition(lambda self: self.has_pods(assumed=True))
    @rule(data=st.data())
    def forget(self, data: st.DataObject) -> None:
        model = self.pick(data, assumed=True)
        self.cache.forget_pod(model.pod)
        del self.pods[model.pod.metadata.uid]

    @precondition(lambda self: self.has_pods(assumed=False))
    @rule(data=st.data(), cpu=CPUS, affinity=FLAGS, anti=FLAGS)
    def update_pod(self, data: st.DataObject, cpu: str, affinity: bool, anti: bool) -> None:
        old = self.pick(data, assumed=False).pod
        new = make_pod(
            old.name, uid=old.metadata.uid, node=old.spec.node_name, cpu=cpu,
            affinity=affinity, anti_affinity=anti,
        )  # fmt: skip
        self.cache.update_pod(old, new)
        self.pods[old.metadata.uid] = ModelPod(new, assumed=False)

    @precondition(lambda self: self.has_pods(assumed=False))
    @rule(data=st.data())
    def remove_pod(self, data: st.DataObject) -> None:
        model = self.pick(data, assumed=False)
        self.cache.remove_pod(model.pod)
        del self.pods[model.pod.metadata.uid]

    @rule(seconds=st.sampled_from([1.0, 10.0, 31.0]))
    def time_passes(self, seconds: float) -> None:
        self.clock.advance(seconds)
        now = self.clock.now()
        expired = {pod.metadata.uid for pod in self.cache.cleanup_assumed_pods()}
        expected = {
            uid
            for uid, p in self.pods.items()
            if p.assumed and p.deadline is not None and now > p.deadline
        }
        assert expired == expected
        for uid in expected:
            del self.pods[uid]

    @rule()
    def update_lagging_snapshot(self) -> None:
        self.cache.update_snapshot(self.lagging)
        self.check_snapshot(self.lagging)

    # --- checks ------------------------------------------------------------------------

    def check_snapshot(self, snapshot: Snapshot) -> None:
        expected = new_snapshot([p.pod for p in self.pods.values()], self.nodes.values())
        assert set(snapshot.node_info_map) == set(self.nodes)
        listed = names(snapshot.list())
        assert sorted(listed) == sorted(self.nodes), "each node exactly once"
        for info in snapshot.list():
            assert info is snapshot.node_info_map[info.name]
            want = expected.get(info.name)
            assert info.node == want.node
            assert {p.pod.metadata.uid: p.pod for p in info.pods} == {
                p.pod.metadata.uid: p.pod for p in want.pods
            }
            assert (info.requested, info.non_zero_requested, info.allocatable) == (
                want.requested,
                want.non_zero_requested,
                want.allocatable,
            )
            assert {p.pod.metadata.uid for p in info.pods_with_affinity} == {
                p.pod.metadata.uid for p in want.pods_with_affinity
            }
            assert_totals_match_pods(info)
        with_affinity = set(names(expected.have_pods_with_affinity_list())) & set(self.nodes)
        with_anti = set(names(expected.have_pods_with_required_anti_affinity_list())) & set(
            self.nodes
        )
        # The affinity lists are the node list, filtered, in the same order.
        assert names(snapshot.have_pods_with_affinity_list()) == [
            n for n in listed if n in with_affinity
        ]
        assert names(snapshot.have_pods_with_required_anti_affinity_list()) == [
            n for n in listed if n in with_anti
        ]

    @invariant()
    def snapshots_match_the_model(self) -> None:
        if not hasattr(self, "cache"):
            return
        self.cache.update_snapshot(self.live)
        self.check_snapshot(self.live)
        fresh = Snapshot()
        self.cache.update_snapshot(fresh)
        self.check_snapshot(fresh)
        assert names(fresh.list()) == round_robin(self.zones)

    @invariant()
    def cache_totals_match_pods(self) -> None:
        if not hasattr(self, "cache"):
            return
        dump = self.cache.dump()
        for info in dump.nodes.values():
            assert_totals_match_pods(info)
        occupied = {p.pod.spec.node_name for p in self.pods.values()}
        assert set(dump.nodes) == set(self.nodes) | occupied, "ghosts live exactly while pods do"
        assert dump.assumed_pods == {uid for uid, p in self.pods.items() if p.assumed}
        assert self.cache.pod_count() == len(self.pods)


CacheMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=30, deadline=None, derandomize=False
)
TestCacheMachine = CacheMachine.TestCase
