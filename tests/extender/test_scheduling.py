"""The scheduler with extenders configured: filter, prioritize, bind, and what happens when one is down.

Each test runs the real Scheduler on the fake API server and a FakeClock,
with an extender listening on loopback. Expectations come from
``findNodesThatFitPod``, ``findNodesThatPassExtenders``, ``prioritizeNodes``,
``extendersBinding`` and ``handleSchedulingFailure`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``, and
``buildExtenders`` in ``pkg/scheduler/scheduler.go`` (v1.33).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.config.types import Extender as ExtenderConfig
from framework.cycle_state import CycleState
from framework.extender import EXTENDER_NAME, HTTPExtender
from framework.featuregate import new_feature_gates
from framework.node_info import NodeInfo
from framework.objects import Binding, Event, ObjectMeta, ObjectReference, Pod, PriorityClass
from framework.runtime.framework import Framework
from framework.scheduler.algorithm import SchedulingAlgorithm
from framework.scheduler.scheduler import Scheduler
from framework.status import Status
from tests.extender.fake_extender import FakeExtender, closed_port_url
from tests.scheduler.helpers import FIT, Cluster, config_with, node, pod, registry_with


def _config(extenders: str, *plugins: str) -> Any:
    return config_with(FIT, *plugins, extenders=extenders)


def _scheduler(cluster: Cluster, extenders: str, *plugins: str) -> Scheduler:
    # The classic queue (SchedulerPopFromBackoffQ off): a requeued pod waits in backoffQ.
    return Scheduler(
        cluster.api,
        _config(extenders, *plugins),
        registry_with(),
        clock=cluster.clock,
        seed=0,
        feature_gates=new_feature_gates("1.33", "SchedulerPopFromBackoffQ=false"),
    )


def _pending(sched: Scheduler) -> dict[str, tuple[str, frozenset[str]]]:
    return {
        p.pod.name: (queue, p.unschedulable_plugins)
        for queue, pods in sched.queue.pending_pods_by_queue().items()
        for p in pods
    }


def _condition(api: APIServer, name: str) -> tuple[str, str]:
    condition = api.get(Pod, name, namespace="default").status.conditions[-1]
    return condition.reason, condition.message


def test_the_extender_narrows_the_nodes_and_its_reasons_reach_the_pod(
    fake_extender: FakeExtender,
) -> None:
    fake_extender.verbs["filter"] = lambda args: {
        "NodeNames": [],
        "FailedNodes": {"a": "a is out", "b": "b is out"},
        "FailedAndUnresolvableNodes": {"b": "b is gone for good", "c": "c is gone for good"},
    }
    cluster = Cluster(node("a"), node("b"), node("c"), pod("p"))
    sched = _scheduler(
        cluster,
        f"- {{urlPrefix: '{fake_extender.url}', filterVerb: filter, nodeCacheCapable: true}}",
    )
    sched.schedule_pending()
    # The unresolvable verdict wins for b; the histogram counts each reason.
    assert _condition(cluster.api, "p") == (
        "Unschedulable",
        "0/3 nodes are available: 1 a is out, 1 b is gone for good, 1 c is gone for good.",
    )
    # "Extender" joins the rejectors, and extenders register no events: any event moves the
    # pod on, even the update of its own status that the failure just wrote.
    assert _pending(sched) == {"p": ("backoffQ", frozenset({EXTENDER_NAME}))}
    (sent,) = fake_extender.calls("filter")
    assert sent["NodeNames"] == ["a", "b", "c"]


def test_a_pod_the_extender_rejected_is_tried_again_and_lands_on_a_new_node(
    fake_extender: FakeExtender,
) -> None:
    fake_extender.verbs["filter"] = lambda args: {
        "NodeNames": [n for n in args["NodeNames"] if n == "late"],
        "FailedNodes": {n: "not late" for n in args["NodeNames"] if n != "late"},
    }
    cluster = Cluster(node("a"), pod("p"))
    sched = _scheduler(
        cluster,
        f"- {{urlPrefix: '{fake_extender.url}', filterVerb: filter, nodeCacheCapable: true}}",
    )
    sched.schedule_pending()
    assert cluster.node_of("p") == ""
    cluster.api.create(node("late"))
    cluster.clock.advance(60)  # past any backoff
    sched.queue.flush_backoff_q_completed()
    sched.schedule_pending()
    assert cluster.node_of("p") == "late"


def test_only_the_nodes_the_filter_plugins_passed_are_sent(fake_extender: FakeExtender) -> None:
    fake_extender.verbs["filter"] = lambda args: {"NodeNames": args["NodeNames"]}
    cluster = Cluster(node("small", cpu="1"), node("big", cpu="4"), pod("p", cpu="2"))
    sched = _scheduler(
        cluster,
        f"- {{urlPrefix: '{fake_extender.url}', filterVerb: filter, nodeCacheCapable: true}}",
    )
    sched.schedule_pending()
    assert cluster.node_of("p") == "big"
    assert fake_extender.calls("filter")[0]["NodeNames"] == ["big"]


class _Flat:
    """A Score plugin giving every node the same score."""

    def __init__(self, score: int) -> None:
        self.value = score

    def name(self) -> str:
        return "Flat"

    def score(self, state: CycleState, p: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return self.value, None

    def score_extensions(self) -> None:
        return None


@pytest.mark.parametrize("weight", [1, 3], ids=["weight 1", "weight 3"])
def test_extender_scores_are_scaled_by_ten_and_the_weight_and_added_to_the_plugins(
    fake_extender: FakeExtender, weight: int
) -> None:
    fake_extender.verbs["prioritize"] = lambda args: [
        {"Host": "a", "Score": 2},
        {"Host": "b", "Score": 7},
    ]
    extender = HTTPExtender(
        ExtenderConfig(url_prefix=fake_extender.url, prioritize_verb="prioritize", weight=weight)
    )
    fwk = Framework.from_plugins("p", {"score": [_Flat(40)]}, {"Flat": 2})
    algorithm = SchedulingAlgorithm(rng=random.Random(0), extenders=[extender])
    nodes = []
    for name in ("a", "b"):
        info = NodeInfo()
        info.set_node(node(name))
        nodes.append(info)
    scores = algorithm.prioritize_nodes(fwk, CycleState(), pod("p"), nodes)
    assert [(s.name, s.total_score) for s in scores] == [
        ("a", 80 + 2 * weight * 10),
        ("b", 80 + 7 * weight * 10),
    ]
    assert [(ps.name, ps.score) for ps in scores[1].scores] == [
        ("Flat", 80),
        (fake_extender.url, 7 * weight * 10),
    ]


def test_a_failing_prioritize_only_loses_the_extender_its_say(fake_extender: FakeExtender) -> None:
    fake_extender.statuses["prioritize"] = 500
    cluster = Cluster(node("a"), node("b"), pod("p"))
    sched = _scheduler(
        cluster,
        f"- {{urlPrefix: '{fake_extender.url}', prioritizeVerb: prioritize, weight: 1}}",
    )
    sched.schedule_pending()
    assert cluster.node_of("p") in {"a", "b"}
    assert len(fake_extender.calls("prioritize")) == 1


def test_the_highest_extender_score_decides_between_equal_nodes(
    fake_extender: FakeExtender,
) -> None:
    fake_extender.verbs["prioritize"] = lambda args: [
        {"Host": n["metadata"]["name"], "Score": 10 if n["metadata"]["name"] == "c" else 0}
        for n in args["Nodes"]["items"]
    ]
    cluster = Cluster(node("a"), node("b"), node("c"), pod("p"))
    sched = _scheduler(
        cluster, f"- {{urlPrefix: '{fake_extender.url}', prioritizeVerb: prioritize, weight: 1}}"
    )
    sched.schedule_pending()
    assert cluster.node_of("p") == "c"


def test_a_binding_extender_binds_instead_of_the_bind_plugins(fake_extender: FakeExtender) -> None:
    cluster = Cluster(node("a"), pod("p"))

    def bind(args: dict[str, Any]) -> dict[str, Any]:
        # The extender writes the binding to the API server itself.
        cluster.api.bind(
            Binding(
                metadata=ObjectMeta(name=args["PodName"], namespace=args["PodNamespace"]),
                target=ObjectReference(kind="Node", name=args["Node"]),
            )
        )
        return {"Error": ""}

    fake_extender.verbs["bind"] = bind
    sched = _scheduler(cluster, f"- {{urlPrefix: '{fake_extender.url}', bindVerb: bind}}")
    sched.schedule_pending()
    assert cluster.node_of("p") == "a"
    (sent,) = fake_extender.calls("bind")
    uid = cluster.api.get(Pod, "p", namespace="default").metadata.uid
    assert sent == {"PodName": "p", "PodNamespace": "default", "PodUID": uid, "Node": "a"}


def test_a_binding_extender_that_fails_fails_the_binding(fake_extender: FakeExtender) -> None:
    fake_extender.verbs["bind"] = lambda args: {"Error": "the extender is out of tokens"}
    cluster = Cluster(node("a"), pod("p"))
    sched = _scheduler(cluster, f"- {{urlPrefix: '{fake_extender.url}', bindVerb: bind}}")
    sched.schedule_pending()
    assert cluster.node_of("p") == ""
    assert _condition(cluster.api, "p") == ("SchedulerError", "the extender is out of tokens")
    assert _pending(sched)["p"][0] == "backoffQ"


def test_an_ignorable_extender_that_is_down_is_skipped() -> None:
    url = closed_port_url()
    cluster = Cluster(node("a"), pod("p"))
    sched = _scheduler(
        cluster,
        f"- {{urlPrefix: '{url}', filterVerb: filter, prioritizeVerb: prioritize, weight: 1, "
        "bindVerb: bind, ignorable: true}",
    )
    sched.schedule_pending()
    assert cluster.node_of("p") == "a"


def test_a_non_ignorable_extender_that_is_down_fails_the_attempt_with_its_error() -> None:
    url = closed_port_url()
    cluster = Cluster(node("a"), pod("p"))
    sched = _scheduler(cluster, f"- {{urlPrefix: '{url}', filterVerb: filter}}")
    sched.schedule_pending()
    assert cluster.node_of("p") == ""
    reason, message = _condition(cluster.api, "p")
    assert reason == "SchedulerError"
    assert message.startswith(f'Post "{url}/filter": ')
    # An error, not a rejection: the pod backs off and is tried again, with no rejector.
    assert _pending(sched) == {"p": ("backoffQ", frozenset())}
    events = [e.message for e in cluster.api.list(Event).items if e.reason == "FailedScheduling"]
    assert events == [message]


def test_a_stuck_non_ignorable_extender_fails_the_attempt_after_http_timeout(
    fake_extender: FakeExtender,
) -> None:
    fake_extender.verbs["filter"] = lambda args: {"NodeNames": args["NodeNames"]}
    fake_extender.hold.add("filter")
    cluster = Cluster(node("a"), pod("p"))
    sched = _scheduler(
        cluster,
        f"- {{urlPrefix: '{fake_extender.url}', filterVerb: filter, nodeCacheCapable: true, "
        "httpTimeout: 100ms}",
    )
    sched.schedule_pending()
    assert _condition(cluster.api, "p") == (
        "SchedulerError",
        f'Post "{fake_extender.url}/filter": timed out after 0.1s (httpTimeout)',
    )


def test_a_pod_without_a_managed_resource_is_not_sent_to_the_extender(
    fake_extender: FakeExtender,
) -> None:
    fake_extender.verbs["filter"] = lambda args: {"NodeNames": []}
    cluster = Cluster(node("a"), pod("p"))
    sched = _scheduler(
        cluster,
        f"- {{urlPrefix: '{fake_extender.url}', filterVerb: filter, nodeCacheCapable: true, "
        "managedResources: [{name: example.com/gpu}]}",
    )
    sched.schedule_pending()
    assert cluster.node_of("p") == "a"
    assert fake_extender.requests == []


def test_ignorable_extenders_are_asked_after_the_others() -> None:
    sched_config = _config(
        "- {urlPrefix: 'http://first', ignorable: true}\n"
        "- {urlPrefix: 'http://second'}\n"
        "- {urlPrefix: 'http://third', ignorable: true}\n"
        "- {urlPrefix: 'http://fourth'}"
    )
    sched = Scheduler(APIServer(Cluster().clock), sched_config, registry_with(), seed=0)
    assert [e.name() for e in sched.extenders] == [
        "http://second",
        "http://fourth",
        "http://first",
        "http://third",
    ]
    # Every profile sees them (Handle.Extenders), and so does the algorithm.
    fwk = sched.profiles["default-scheduler"]
    assert fwk.extenders() == sched.extenders == sched.scheduling.algorithm.extenders


def _priority_pod(name: str, cpu: str, priority_class: str, node_name: str = "") -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "priorityClassName": priority_class,
                "nodeName": node_name,
                "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
                ],
            },
        }
    )


@pytest.mark.parametrize("keep", [True, False], ids=["the extender keeps the node", "it drops it"])
def test_an_extender_that_preempts_decides_which_candidates_remain(
    fake_extender: FakeExtender, keep: bool
) -> None:
    def preempt(args: dict[str, Any]) -> dict[str, Any]:
        metas = args["NodeNameToMetaVictims"]
        return {"NodeNameToMetaVictims": metas if keep else {}}

    fake_extender.verbs["preempt"] = preempt
    cluster = Cluster(
        PriorityClass.from_dict({"metadata": {"name": "high"}, "value": 1000}),
        node("a", cpu="2"),
        _priority_pod("low", "2", "", node_name="a"),
        _priority_pod("high", "2", "high"),
    )
    sched = _scheduler(
        cluster,
        f"- {{urlPrefix: '{fake_extender.url}', preemptVerb: preempt, nodeCacheCapable: true}}",
        "DefaultPreemption",
    )
    sched.schedule_pending()
    (sent,) = fake_extender.calls("preempt")
    low_uid = cluster.api.get(Pod, "low", namespace="default").metadata.uid
    assert sent["NodeNameToMetaVictims"] == {
        "a": {"Pods": [{"UID": low_uid}], "NumPDBViolations": 0}
    }
    assert sent["NodeNameToVictims"] is None
    high = cluster.api.get(Pod, "high", namespace="default")
    assert high.status.nominated_node_name == ("a" if keep else "")
    low = cluster.api.get(Pod, "low", namespace="default")
    assert bool(low.metadata.deletion_timestamp) is keep


def test_a_filter_only_extender_leaves_every_node_scored_one_when_no_plugin_scores(
    fake_extender: FakeExtender,
) -> None:
    # prioritizeNodes (pkg/scheduler/schedule_one.go): no Score plugins and no *prioritizing*
    # extender gives every node a score of 1; an extender that only filters does not score.
    extender = HTTPExtender(ExtenderConfig(url_prefix=fake_extender.url, filter_verb="filter"))
    fwk = Framework.from_plugins("p", {}, {})
    algorithm = SchedulingAlgorithm(rng=random.Random(0), extenders=[extender])
    nodes = []
    for name in ("a", "b"):
        info = NodeInfo()
        info.set_node(node(name))
        nodes.append(info)
    scores = algorithm.prioritize_nodes(fwk, CycleState(), pod("p"), nodes)
    assert [(s.name, s.total_score) for s in scores] == [("a", 1), ("b", 1)]
    assert fake_extender.calls("prioritize") == []
