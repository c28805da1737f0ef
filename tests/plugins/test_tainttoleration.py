"""TaintToleration: Filter, PreScore/Score/NormalizeScore, events and hints; and the default filters together.

The Filter and Score tables follow ``TestTaintTolerationFilter`` and
``TestTaintTolerationScore``, the hint tables the queueing-hint tests, of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go``
(v1.33), in our own words. The last tests run the plugin in a scheduler on
the fake API server, beside NodeUnschedulable, NodeName, NodeAffinity,
NodePorts and ImageLocality, and check kube's FailedScheduling message.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.cluster_event import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    PreScorePlugin,
    ScorePlugin,
)
from framework.node_info import NodeInfo
from framework.objects import Event, Node, Pod, Taint, Toleration
from framework.plugins import tainttoleration
from framework.plugins.registry import in_tree_registry
from framework.plugins.tainttoleration import (
    ERR_REASON_NOT_MATCH,
    PRE_SCORE_STATE_KEY,
    TaintToleration,
    untolerated_taint_reason,
)
from framework.runtime.framework import Framework
from framework.scheduler.scheduler import Scheduler
from framework.status import Code


def make_node(name: str = "nodeA", taints: Any = (), labels: Any = None) -> Node:
    return Node.from_dict(
        {
            "metadata": {"name": name, "labels": dict(labels or {})},
            "spec": {"taints": list(taints)},
            "status": {"allocatable": {"cpu": "2", "pods": "110"}},
        }
    )


def make_pod(name: str = "pod1", tolerations: Any = (), uid: str = "uid1") -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": uid},
            "spec": {
                "tolerations": list(tolerations),
                "containers": [{"name": "c", "image": "busybox"}],
            },
        }
    )


def info(node: Node | None) -> NodeInfo:
    node_info = NodeInfo()
    if node is not None:
        node_info.set_node(node)
    return node_info


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


# --- Filter ---------------------------------------------------------------------------------

FILTER_CASES = [
    pytest.param(
        [],
        [taint("dedicated", "user1")],
        "node(s) had untolerated taint {dedicated: user1}",
        id="a pod without tolerations stays off a node with taints",
    ),
    pytest.param(
        [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}],
        [taint("dedicated", "user1")],
        None,
        id="a pod tolerating user1's dedicated node may go there",
    ),
    pytest.param(
        [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}],
        [taint("dedicated", "user1")],
        "node(s) had untolerated taint {dedicated: user1}",
        id="a toleration of user2 does not open user1's node",
    ),
    pytest.param(
        [{"key": "foo", "operator": "Exists", "effect": "NoSchedule"}],
        [taint("foo", "bar")],
        None,
        id="Exists tolerates any value of the key",
    ),
    pytest.param(
        [
            {"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"},
            {"key": "foo", "operator": "Exists", "effect": "NoSchedule"},
        ],
        [taint("dedicated", "user2"), taint("foo", "bar")],
        None,
        id="every taint tolerated by one of several tolerations",
    ),
    pytest.param(
        [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "PreferNoSchedule"}],
        [taint("foo", "bar")],
        "node(s) had untolerated taint {foo: bar}",
        id="key and value match but a different non-empty effect does not tolerate",
    ),
    pytest.param(
        [{"key": "foo", "operator": "Equal", "value": "bar"}],
        [taint("foo", "bar")],
        None,
        id="an empty toleration effect tolerates NoSchedule",
    ),
    pytest.param(
        [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}],
        [taint("dedicated", "user1", "PreferNoSchedule")],
        None,
        id="PreferNoSchedule taints never filter, tolerated or not",
    ),
    pytest.param(
        [],
        [taint("dedicated", "user1", "PreferNoSchedule")],
        None,
        id="no tolerations and only a PreferNoSchedule taint",
    ),
    pytest.param(
        [],
        [taint("dedicated", "user1", "PreferNoSchedule"), taint("evict", "now", "NoExecute")],
        "node(s) had untolerated taint {evict: now}",
        id="NoExecute taints filter too",
    ),
    pytest.param(
        [{"key": "a", "operator": "Exists"}],
        [taint("a"), taint("b"), taint("c")],
        "node(s) had untolerated taint {b: }",
        id="the first untolerated taint is named, an empty value printed as nothing",
    ),
]


@pytest.mark.parametrize(("tolerations", "taints", "reason"), FILTER_CASES)
def test_filter(tolerations: Any, taints: Any, reason: str | None) -> None:
    status = TaintToleration().filter(
        CycleState(), make_pod(tolerations=tolerations), info(make_node(taints=taints))
    )
    if reason is None:
        assert status is None
    else:
        assert status is not None
        assert (status.code, status.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,))


def test_the_reasons_are_kubernetes_exact_words() -> None:
    assert (
        untolerated_taint_reason(
            Taint(key="node-role.kubernetes.io/control-plane", effect="NoSchedule")
        )
        == "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
    )
    assert ERR_REASON_NOT_MATCH == "node(s) had taints that the pod didn't tolerate"


def test_a_node_info_without_a_node_is_an_error() -> None:
    status = TaintToleration().filter(CycleState(), make_pod(), info(None))
    assert status is not None and status.code is Code.ERROR
    assert "node not found" in status.message()


# --- Score -------------------------------------------------------------------------------------


def prefer(key: str, value: str) -> dict[str, str]:
    return taint(key, value, "PreferNoSchedule")


def tolerate(key: str, value: str, effect: str = "PreferNoSchedule") -> dict[str, str]:
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


SCORE_CASES = [
    pytest.param(
        [tolerate("foo", "bar")],
        {"nodeA": [prefer("foo", "bar")], "nodeB": [prefer("foo", "blah")]},
        {"nodeA": 100, "nodeB": 0},
        id="a node whose taints are tolerated beats one whose are not",
    ),
    pytest.param(
        [tolerate("cpu-type", "arm64"), tolerate("disk-type", "ssd")],
        {
            "nodeA": [],
            "nodeB": [prefer("cpu-type", "arm64")],
            "nodeC": [prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")],
        },
        {"nodeA": 100, "nodeB": 100, "nodeC": 100},
        id="how many tolerated taints a node has does not matter",
    ),
    pytest.param(
        [tolerate("foo", "bar")],
        {
            "nodeA": [],
            "nodeB": [prefer("cpu-type", "arm64")],
            "nodeC": [prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")],
        },
        {"nodeA": 100, "nodeB": 50, "nodeC": 0},
        id="the more intolerable taints, the lower the score",
    ),
    pytest.param(
        [tolerate("cpu-type", "arm64", "NoSchedule"), tolerate("disk-type", "ssd", "NoSchedule")],
        {
            "nodeA": [],
            "nodeB": [taint("cpu-type", "arm64", "NoSchedule")],
            "nodeC": [prefer("cpu-type", "arm64"), prefer("disk-type", "ssd")],
        },
        {"nodeA": 100, "nodeB": 100, "nodeC": 0},
        id="only PreferNoSchedule taints and tolerations count",
    ),
    pytest.param(
        [],
        {"nodeA": [], "nodeB": [prefer("cpu-type", "arm64")]},
        {"nodeA": 100, "nodeB": 0},
        id="no tolerations: the node without taints wins",
    ),
    pytest.param(
        [{"key": "cpu-type", "operator": "Exists"}],
        {"nodeA": [prefer("cpu-type", "arm64")], "nodeB": [prefer("disk", "hdd")]},
        {"nodeA": 100, "nodeB": 0},
        id="a toleration with an empty effect counts for PreferNoSchedule",
    ),
]


def run_scoring(pod: Pod, nodes: list[Node]) -> dict[str, int]:
    plugin, state = TaintToleration(), CycleState()
    infos = [info(n) for n in nodes]
    assert plugin.pre_score(state, pod, infos) is None
    scores = []
    for node_info in infos:
        score, status = plugin.score(state, pod, node_info)
        assert status is None
        scores.append(NodeScore(node_info.name, score))
    assert plugin.score_extensions().normalize_score(state, pod, scores) is None
    return {s.name: s.score for s in scores}


@pytest.mark.parametrize(("tolerations", "node_taints", "expected"), SCORE_CASES)
def test_score(tolerations: Any, node_taints: dict[str, Any], expected: dict[str, int]) -> None:
    nodes = [make_node(name, taints) for name, taints in node_taints.items()]
    assert run_scoring(make_pod(tolerations=tolerations), nodes) == expected


def test_raw_scores_count_intolerable_prefer_no_schedule_taints() -> None:
    plugin, state, pod = TaintToleration(), CycleState(), make_pod()
    node = make_node(taints=[prefer("a", "1"), prefer("b", "2"), taint("c", "3", "NoSchedule")])
    plugin.pre_score(state, pod, [info(node)])
    assert plugin.score(state, pod, info(node)) == (2, None)


def test_score_without_pre_score_is_an_error() -> None:
    score, status = TaintToleration().score(CycleState(), make_pod(), info(make_node()))
    assert score == 0 and status is not None and status.code is Code.ERROR
    assert (
        status.message() == 'failed to read "PreScoreTaintToleration" from cycleState: not found'
    )
    assert PRE_SCORE_STATE_KEY == "PreScoreTaintToleration"


def test_through_the_runner_the_weighted_score_is_three_times_the_normalised_one() -> None:
    plugin = TaintToleration()
    fwk = Framework.from_plugins(
        "default-scheduler",
        {"preScore": [plugin], "score": [plugin]},
        {tainttoleration.NAME: 3},
    )
    state, pod = CycleState(), make_pod()
    nodes = [info(make_node("a")), info(make_node("b", [prefer("x", "y")]))]
    assert fwk.run_pre_score_plugins(state, pod, nodes).is_success()
    totals, status = fwk.run_score_plugins(state, pod, nodes)
    assert status.is_success()
    assert [(t.name, t.total_score) for t in totals] == [("a", 300), ("b", 0)]


# --- Events and hints ---------------------------------------------------------------------------


def test_it_registers_node_add_or_taint_update_and_pod_toleration_updates() -> None:
    events = [r.event for r in TaintToleration().events_to_register()]
    assert events == [
        ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
        ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATIONS),
    ]
    assert all(r.queueing_hint_fn is not None for r in TaintToleration().events_to_register())


TOLERATES_FOO = [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}]

NODE_HINT_CASES = [
    pytest.param(None, "not-a-node", QueueingHint.QUEUE, id="backoff-wrong-new-object"),
    pytest.param("not-a-node", make_node(), QueueingHint.QUEUE, id="backoff-wrong-old-object"),
    pytest.param(
        None,
        make_node(taints=[taint("foo", "baz")]),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-untoleratedtaint-node-added",
    ),
    pytest.param(
        None,
        make_node(taints=[taint("foo", "bar")]),
        QueueingHint.QUEUE,
        id="queue-on-toleratedtaint-node-added",
    ),
    pytest.param(
        make_node(taints=[taint("foo", "baz")]),
        make_node(taints=[taint("foo", "bar")]),
        QueueingHint.QUEUE,
        id="queue-on-node-changed-to-tolerated",
    ),
    pytest.param(
        make_node(taints=[taint("foo", "baz")]),
        make_node(taints=[taint("foo", "qux")]),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-node-changed-still-untolerated",
    ),
    pytest.param(
        make_node(taints=[taint("foo", "bar")]),
        make_node(taints=[taint("foo", "bar"), taint("other", "x", "PreferNoSchedule")]),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-node-that-was-already-tolerated",
    ),
    pytest.param(
        make_node(taints=[taint("foo", "baz")]),
        make_node(taints=[taint("foo", "baz", "PreferNoSchedule")]),
        QueueingHint.QUEUE,
        id="queue-when-the-hard-taint-becomes-soft",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), NODE_HINT_CASES)
def test_is_schedulable_after_node_change(old: Any, new: Any, expected: QueueingHint) -> None:
    pod = make_pod(tolerations=TOLERATES_FOO)
    assert TaintToleration().is_schedulable_after_node_change(pod, old, new) is expected


POD_HINT_CASES = [
    pytest.param(None, "not-a-pod", QueueingHint.QUEUE, id="backoff-wrong-new-object"),
    pytest.param("not-a-pod", make_pod(), QueueingHint.QUEUE, id="backoff-wrong-old-object"),
    pytest.param(
        make_pod("other", uid="uid2"),
        make_pod("other", TOLERATES_FOO, uid="uid2"),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-other-pod-toleration-change",
    ),
    pytest.param(
        make_pod(),
        make_pod(tolerations=TOLERATES_FOO),
        QueueingHint.QUEUE,
        id="queue-when-the-unsched-pod-gets-a-toleration",
    ),
    pytest.param(
        make_pod(),
        make_pod(tolerations=[{"key": "unrelated", "operator": "Exists"}]),
        QueueingHint.QUEUE,
        id="queue-on-any-toleration-of-the-unsched-pod",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), POD_HINT_CASES)
def test_is_schedulable_after_pod_toleration_change(
    old: Any, new: Any, expected: QueueingHint
) -> None:
    hint = TaintToleration().is_schedulable_after_pod_toleration_change(make_pod(), old, new)
    assert hint is expected


def test_the_plugin_implements_its_points_and_is_registered_in_tree() -> None:
    plugin = tainttoleration.new(None, None)
    for protocol in (FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions):
        assert isinstance(plugin, protocol)
    assert plugin.name() == tainttoleration.NAME == "TaintToleration"
    assert in_tree_registry()["TaintToleration"] is tainttoleration.new


# --- The default filters together, in a scheduler ------------------------------------------------

DEFAULT_FILTERS = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled:
      - {name: PrioritySort}
      - {name: NodeUnschedulable}
      - {name: NodeName}
      - {name: TaintToleration, weight: 3}
      - {name: NodeAffinity, weight: 2}
      - {name: NodePorts}
      - {name: ImageLocality, weight: 1}
      - {name: DefaultBinder}
"""


def scheduler_for(*objects: Node | Pod) -> tuple[APIServer, Scheduler, FakeClock]:
    clock = FakeClock()
    api = APIServer(clock)
    for obj in objects:
        api.create(obj)
    config = loads_config(DEFAULT_FILTERS, "default-filters.yaml")
    return api, Scheduler(api, config, in_tree_registry(), clock=clock, seed=0), clock


def failed_scheduling(api: APIServer) -> list[str]:
    return [e.message for e in api.list(Event).items if e.reason == "FailedScheduling"]


GPU_TAINT = taint("dedicated", "gpu")
TOLERATES_GPU = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}


def test_kube_style_message_for_affinity_and_taints() -> None:
    web = Pod.from_dict(
        {
            "metadata": {"name": "web"},
            "spec": {
                "nodeSelector": {"disk": "ssd"},
                "containers": [{"name": "c", "image": "nginx"}],
            },
        }
    )
    api, sched, _ = scheduler_for(
        make_node("hdd-1", labels={"disk": "hdd"}),
        make_node("gpu-1", [GPU_TAINT], labels={"disk": "ssd"}),
        make_node("gpu-2", [GPU_TAINT], labels={"disk": "ssd"}),
        web,
    )
    sched.schedule_pending()
    sched.stop()
    assert api.get(Pod, "web", namespace="default").spec.node_name == ""
    assert failed_scheduling(api) == [
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "2 node(s) had untolerated taint {dedicated: gpu}."
    ]


def test_a_rejected_pod_lands_once_it_gains_the_toleration() -> None:
    api, sched, clock = scheduler_for(make_node("gpu-1", [GPU_TAINT]), make_pod("train"))
    sched.schedule_pending()
    assert failed_scheduling(api) == [
        "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."
    ]
    clock.advance(10)  # past the pod's backoff, so the update moves it straight to activeQ
    pod = api.get(Pod, "train", namespace="default")
    tolerant = dataclasses.replace(
        pod, spec=dataclasses.replace(pod.spec, tolerations=(Toleration(**TOLERATES_GPU),))
    )
    api.update(tolerant)
    sched.sync()  # the toleration update reaches the queue; the hint answers QUEUE
    sched.schedule_pending()
    sched.stop()
    assert api.get(Pod, "train", namespace="default").spec.node_name == "gpu-1"


def test_preferred_taints_steer_the_pod_to_the_clean_node() -> None:
    api, sched, _ = scheduler_for(
        make_node("spot-1", [prefer("spot", "true")]),
        make_node("spot-2", [prefer("spot", "true")]),
        make_node("clean", []),
        make_pod("web"),
    )
    sched.schedule_pending()
    sched.stop()
    assert api.get(Pod, "web", namespace="default").spec.node_name == "clean"


# --- TaintTolerationComparisonOperators (alpha, v1.35; KEP-5471) ------------------------------

SLA_TAINTS = """\
kind: Node
metadata: {name: gold}
spec: {taints: [{key: sla, value: "990", effect: NoSchedule}]}
status: {allocatable: {cpu: "4", memory: 4Gi, pods: "10"}}
---
kind: Node
metadata: {name: bronze}
spec: {taints: [{key: sla, value: "900", effect: NoSchedule}]}
status: {allocatable: {cpu: "4", memory: 4Gi, pods: "10"}}
---
kind: Pod
metadata: {name: critical}
spec:
  tolerations: [{key: sla, operator: Gt, value: "950", effect: NoSchedule}]
  containers: [{name: c, image: nginx}]
"""


def test_a_gt_toleration_tolerates_only_taints_with_a_greater_value() -> None:
    import framework

    # toleration.go (v1.35) ToleratesTaint: Lt/Gt compare the taint's value with the
    # toleration's as integers, only with the gate on.
    result = framework.simulate(
        SLA_TAINTS,
        emulated_version="1.35",
        feature_gates="TaintTolerationComparisonOperators=true",
    )
    assert result.placements["default/critical"] == "gold"
    verdicts = result.attempts_of("default/critical")[-1].filter
    assert verdicts["bronze"]["TaintToleration"].code == "UnschedulableAndUnresolvable"


def test_without_the_gate_the_api_server_refuses_lt_and_gt() -> None:
    import framework
    from framework.simulator.inputs import SimulationInputError

    with pytest.raises(SimulationInputError, match=r"spec\.tolerations\[0\]\.operator"):
        framework.simulate(SLA_TAINTS, emulated_version="1.35")


@pytest.mark.parametrize(
    ("operator", "taint_value", "on", "tolerated"),
    [
        ("Gt", "990", True, True),
        ("Gt", "950", True, False),  # strictly greater
        ("Lt", "900", True, True),
        ("Lt", "abc", True, False),  # not a number: no match
        ("Gt", "990", False, False),  # gate off: no match
    ],
)
def test_comparison_operators(operator: str, taint_value: str, on: bool, tolerated: bool) -> None:
    from framework.objects import Taint, Toleration
    from framework.plugins.nodeunschedulable import toleration_tolerates_taint

    toleration = Toleration(key="sla", operator=operator, value="950")
    taint = Taint(key="sla", value=taint_value, effect="NoSchedule")
    assert toleration_tolerates_taint(toleration, taint, on) is tolerated
