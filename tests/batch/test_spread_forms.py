"""PodTopologySpread's batch forms: the reference's PreScore state, Score and NormalizeScore, node by node.

The reference is ``scoring.go`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread``
(v1.33), as :mod:`framework.plugins.podtopologyspread.scoring` writes it:
PreScore keeps the soft constraints (or the System defaults, hostname and
zone, for a pod a Service selects), ignores the filtered nodes lacking a key
when every key is required, counts the matching pods (in the pod's
namespace, not terminating) per domain of the filtered nodes over every node
its inclusion policies keep (``nodeAffinityPolicy: Honor`` reads the pod's
node selector and required node affinity, ``nodeTaintsPolicy: Honor`` the
node's taints); Score adds ``count × log(size + 2) + maxSkew − 1`` per
constraint, the node's own pods for the hostname key, and rounds; NormalizeScore
turns it around, ``100 × (max + min − s) // max``, 0 for an ignored node.

Hypothesis draws small clusters and pods, runs the plugin's own PreScore,
Score and NormalizeScore and the batch forms on the same snapshot, and
compares the state field by field (the domains in the same order), every
node's raw score and every normalized score.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import framework
from framework.apiserver import APIServer
from framework.batch import forms
from framework.batch import podtopologyspread as batch_spread
from framework.batch.arrays import NodeArrays
from framework.batch.engine import DifferentialSchedulingAlgorithm
from framework.cache.snapshot import new_snapshot
from framework.config.args_podtopologyspread import PodTopologySpreadArgs
from framework.cycle_state import CycleState
from framework.interface import NodeScore
from framework.objects import Node, Pod
from framework.objects.workloads import Service
from framework.plugins.podtopologyspread import PRE_SCORE_STATE_KEY, PodTopologySpread
from framework.plugins.podtopologyspread.scoring import PreScoreState

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
KEYS = (ZONE, HOST, "pool")
TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


class Handle:
    """What the plugin asks of its handle: the snapshot, and a client for Services."""

    def __init__(self, snapshot: Any, api: APIServer) -> None:
        self.snapshot, self.api = snapshot, api

    def snapshot_shared_lister(self) -> Any:
        return self.snapshot

    def client(self) -> APIServer:
        return self.api


@st.composite
def node(draw: Any, index: int) -> Node:
    name = f"n{index}"
    labels: dict[str, str] = {}
    if draw(st.integers(0, 5)) > 0:
        labels[HOST] = name
    if draw(st.integers(0, 3)) > 0:
        labels[ZONE] = draw(st.sampled_from(["a", "b", "c", ""]))
    if draw(st.booleans()):
        labels["pool"] = draw(st.sampled_from(["web", "batch"]))
    spec: dict[str, Any] = {}
    if draw(st.integers(0, 3)) == 0:
        spec["taints"] = [TAINT]
    return Node.from_dict({"metadata": {"name": name, "labels": labels}, "spec": spec})


@st.composite
def running(draw: Any, index: int, nodes: list[str]) -> Pod:
    metadata: dict[str, Any] = {
        "name": f"run-{index}",
        "namespace": draw(st.sampled_from(["default", "default", "other"])),
        "labels": {"app": draw(st.sampled_from(["web", "web", "db"]))},
    }
    if draw(st.integers(0, 5)) == 0:
        metadata["deletionTimestamp"] = "2024-01-01T00:00:00Z"  # terminating: not counted
    return Pod.from_dict(
        {"metadata": metadata, "spec": {"nodeName": draw(st.sampled_from(nodes))}}
    )


@st.composite
def constraint(draw: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "maxSkew": draw(st.integers(1, 4)),
        "topologyKey": draw(st.sampled_from(KEYS)),
        "whenUnsatisfiable": draw(
            st.sampled_from(["ScheduleAnyway", "ScheduleAnyway", "DoNotSchedule"])
        ),
        "labelSelector": {"matchLabels": {"app": draw(st.sampled_from(["web", "db"]))}},
    }
    for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
        if draw(st.booleans()):
            found[policy] = draw(st.sampled_from(["Honor", "Ignore"]))
    return found


@st.composite
def incoming(draw: Any) -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx"}]}
    if draw(st.booleans()):
        spec["topologySpreadConstraints"] = draw(st.lists(constraint(), min_size=1, max_size=3))
    if draw(st.integers(0, 2)) == 0:
        spec["nodeSelector"] = {"pool": draw(st.sampled_from(["web", "batch"]))}
    if draw(st.integers(0, 3)) == 0:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": ZONE, "operator": "In", "values": ["a", "b"]}]}]}}}  # fmt: skip
    if draw(st.booleans()):
        spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    metadata = {"name": "incoming", "namespace": "default", "labels": {"app": "web"}}
    return Pod.from_dict({"metadata": metadata, "spec": spec})


@st.composite
def case(draw: Any) -> tuple[list[Node], list[Pod], Pod, list[int], bool]:
    nodes = [draw(node(i)) for i in range(draw(st.integers(1, 8)))]
    names = [n.name for n in nodes]
    pods = [draw(running(i, names)) for i in range(draw(st.integers(0, 20)))]
    filtered = draw(st.lists(st.integers(0, len(nodes) - 1), min_size=1, unique=True))
    return nodes, pods, draw(incoming()), sorted(filtered), draw(st.booleans())


def _state(state: CycleState) -> tuple[Any, ...]:
    s = state.read_as(PRE_SCORE_STATE_KEY, PreScoreState)
    return (
        s.constraints,
        s.ignored_nodes,
        [list(counts.items()) for counts in s.topology_value_to_pod_counts],
        s.topology_normalizing_weight,
    )


def _plain(out: Any) -> Any:
    return None if out is None else (out.code, out.reasons)


@settings(max_examples=300, deadline=None)
@given(drawn=case(), system=st.booleans())
def test_the_forms_give_the_references_state_scores_and_normalized_scores(
    drawn: tuple[list[Node], list[Pod], Pod, list[int], bool], system: bool
) -> None:
    nodes, pods, pod, filtered_positions, serviced = drawn
    snapshot = new_snapshot(pods, nodes)
    api = APIServer()
    if serviced:  # the System defaults (hostname and zone) apply to the pod: a Service selects it
        api.create(Service.from_dict({"metadata": {"name": "web", "namespace": "default"},
                                      "spec": {"selector": {"app": "web"}}}))  # fmt: skip
    args = None if system else PodTopologySpreadArgs(defaulting_type="List")
    plugin = PodTopologySpread(Handle(snapshot, api), args)
    infos = snapshot.node_info_list
    arrays = NodeArrays()
    arrays.refresh(snapshot)
    by_name = {info.name: row for row, info in enumerate(infos)}
    filtered_infos = [infos[by_name[nodes[p].name]] for p in filtered_positions]
    rows = np.array([by_name[info.name] for info in filtered_infos], dtype=np.int64)

    reference, batch = CycleState(), CycleState()
    want = plugin.pre_score(reference, pod, filtered_infos)
    verdict = batch_spread._pre_score(plugin, batch, pod, arrays, rows)
    assert verdict is not None
    assert _plain(verdict.status) == _plain(want)
    if want is not None:
        return  # Skip: no state to score with
    assert _state(batch) == _state(reference)

    expected = []
    for info in filtered_infos:
        score, status = plugin.score(reference, pod, info)
        assert status is None
        expected.append(score)
    answer = batch_spread._score(plugin, batch, pod, arrays, rows)
    assert answer is not None
    raw = answer.scores.copy()
    if answer.undecided is not None:
        for i in np.flatnonzero(answer.undecided).tolist():
            raw[i] = plugin.score(batch, pod, filtered_infos[i])[0]
    assert raw.tolist() == expected

    listed = [NodeScore(info.name, s) for info, s in zip(filtered_infos, expected, strict=True)]
    assert plugin.normalize_score(reference, pod, listed) is None
    normalized = batch_spread._normalize(plugin, batch, pod, raw)
    assert normalized.tolist() == [s.score for s in listed]


def test_pod_topology_spread_has_batch_forms() -> None:
    plugin = PodTopologySpread(None)
    assert forms.pre_score_form(plugin) is not None
    assert forms.score_form(plugin) is not None
    assert forms.normalize_form(plugin) is not None


def _node(name: str, zone: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {HOST: name, ZONE: zone, "pool": "web"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "20"}},
    }


def _pod(name: str, node_selector: bool = False, node_name: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "nginx"}]}
    if node_selector:
        spec["nodeSelector"] = {"pool": "web"}
    if node_name is not None:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": spec,
    }


def test_a_deployments_pods_spread_by_the_system_defaults_in_both_engines(
    algorithms: list[DifferentialSchedulingAlgorithm], monkeypatch: Any
) -> None:
    """Pods a Service selects spread over hosts and zones; the batch engine scores them itself."""
    called: list[str] = []
    own_score = PodTopologySpread.score

    def counted(self: Any, state: Any, pod: Any, node_info: Any) -> Any:
        called.append(node_info.name)
        return own_score(self, state, pod, node_info)

    monkeypatch.setattr(PodTopologySpread, "score", counted)
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
    }
    manifests = [
        *(_node(f"a{i}", "zone-a") for i in range(3)),
        *(_node(f"b{i}", "zone-b") for i in range(2)),
        service,
        _pod("old", node_name="a0"),
        *(_pod(f"web-{i}", node_selector=i % 2 == 1) for i in range(6)),
    ]
    result = framework.simulate(*manifests, engine="both", seed=4)
    placed = [result.placements[f"default/web-{i}"] for i in range(6)]
    assert None not in placed
    (algorithm,) = algorithms
    assert algorithm.mismatches == []
    assert algorithm.stats.batch_scores == 6
    # Only the reference engine's Score ran per node: 6 cycles, 5 nodes each.
    assert len(called) == 6 * 5
