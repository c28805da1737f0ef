"""helper.DefaultSelector and GetPodServices: where default constraints get their selector.

Transcribed from ``TestGetPodServices`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/helper/spread_test.go``
and the behaviour of ``DefaultSelector`` in ``spread.go`` (v1.33): the
Services' selectors merged, then the controller's, each read from the
cluster; an owner that does not exist adds nothing.
"""

from __future__ import annotations

import pytest

from framework.cycle_state import CycleState
from framework.objects import Pod
from framework.objects.workloads import ReplicaSet, ReplicationController, Service, StatefulSet
from framework.plugins.listers import ClientListers
from framework.plugins.podtopologyspread import PodTopologySpread, PodTopologySpreadArgs
from framework.plugins.podtopologyspread.plugin import default_selector, get_pod_services
from framework.status import Code
from tests.plugins.podtopologyspread.helpers import Handle, cluster_with, node, snapshot


def service(name: str, namespace: str = "test", **selector: str) -> Service:
    return Service.from_dict(
        {"metadata": {"name": name, "namespace": namespace}, "spec": {"selector": selector}}
    )


def test_get_pod_services() -> None:
    # TestGetPodServices: three Services selecting app=test-0..2; five pods app=test-0..4.
    services = [service(f"service-{i}", app=f"test-{i}") for i in range(3)]
    listers = ClientListers(cluster_with(*services))
    pods = [
        Pod.from_dict(
            {
                "metadata": {
                    "name": f"test-pod-{i}",
                    "namespace": "test",
                    "labels": {"app": f"test-{i}", "label": f"label-{i}"},
                }
            }
        )
        for i in range(5)
    ]
    got = [[s.metadata.name for s in get_pod_services(listers, p)] for p in pods]
    assert got == [["service-0"], ["service-1"], ["service-2"], [], []]


def test_a_service_without_a_selector_matches_nothing() -> None:
    listers = ClientListers(cluster_with(service("headless", namespace="default")))
    pod = Pod.from_dict({"metadata": {"name": "p", "namespace": "default", "labels": {"a": "b"}}})
    assert get_pod_services(listers, pod) == []
    assert default_selector(pod, listers).empty()


def owned(kind: str, api_version: str = "apps/v1", **labels: str) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {
                "name": "p",
                "namespace": "default",
                "labels": labels or {"app": "web", "tier": "front"},
                "ownerReferences": [
                    {
                        "apiVersion": api_version,
                        "kind": kind,
                        "name": "owner",
                        "uid": "u",
                        "controller": True,
                    }
                ],
            }
        }
    )


WEB = {"matchLabels": {"app": "web"}}


@pytest.mark.parametrize(
    ("objects", "pod", "expected"),
    [
        pytest.param(
            [service("web", namespace="default", app="web")],
            owned("Nothing", "example.com/v1"),
            "app=web",
            id="a Service's selector, owner of another kind",
        ),
        pytest.param(
            [ReplicaSet.from_dict({"metadata": {"name": "owner"}, "spec": {"selector": WEB}})],
            owned("ReplicaSet"),
            "app=web",
            id="the ReplicaSet's selector",
        ),
        pytest.param(
            [StatefulSet.from_dict({"metadata": {"name": "owner"}, "spec": {"selector": WEB}})],
            owned("StatefulSet"),
            "app=web",
            id="the StatefulSet's selector",
        ),
        pytest.param(
            [
                ReplicationController.from_dict(
                    {"metadata": {"name": "owner"}, "spec": {"selector": {"app": "web"}}}
                ),
                service("front", namespace="default", tier="front"),
            ],
            owned("ReplicationController", "v1"),
            "app=web,tier=front",
            id="a Service's and the ReplicationController's maps merged",
        ),
        pytest.param(
            [
                ReplicaSet.from_dict({"metadata": {"name": "owner"}, "spec": {"selector": WEB}}),
                service("front", namespace="default", tier="front"),
            ],
            owned("ReplicaSet"),
            "app=web,tier=front",
            id="a Service's map and the ReplicaSet's requirements",
        ),
        pytest.param([], owned("ReplicaSet"), "", id="an owner that does not exist adds nothing"),
        pytest.param(
            [StatefulSet.from_dict({"metadata": {"name": "owner"}, "spec": {"selector": WEB}})],
            owned("ReplicaSet"),
            "",
            id="an owner of another kind by that name adds nothing",
        ),
    ],
)
def test_default_selector(objects: list[object], pod: Pod, expected: str) -> None:
    selector = default_selector(pod, ClientListers(cluster_with(*objects)))  # type: ignore[arg-type]
    assert str(selector) == expected


def test_system_defaults_need_a_service_or_controller_in_the_cluster() -> None:
    # Without the ReplicaSet object, a pod that names it as its owner gets no default constraints.
    snap = snapshot([], [node("n1", zone="z1", host="n1")])
    nodes = list(snap.list())
    incoming = owned("ReplicaSet")
    alone = PodTopologySpread(Handle(snap), PodTopologySpreadArgs())
    status = alone.pre_score(CycleState(), incoming, nodes)
    assert status is not None and status.code is Code.SKIP
    rs = ReplicaSet.from_dict({"metadata": {"name": "owner"}, "spec": {"selector": WEB}})
    with_owner = PodTopologySpread(Handle(snap, cluster_with(rs)), PodTopologySpreadArgs())
    assert with_owner.pre_score(CycleState(), incoming, nodes) is None
