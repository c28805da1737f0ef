"""InterPodAffinity inside the default profile, end to end on the fake API server.

The scenario of kube-scheduler's integration tests (``test/integration/scheduler/filters``,
``TestInterPodAffinity``): replicas that refuse to share a host.
"""

from __future__ import annotations

from typing import Any

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Event, Node, Pod
from framework.scheduler.scheduler import Scheduler
from tests.plugins.interpodaffinity.helpers import term


def make_node(name: str, zone: str) -> Node:
    return Node.from_dict(
        {
            "metadata": {
                "name": name,
                "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone},
            },
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        }
    )


def make_pod(name: str, labels: dict[str, str], affinity: dict[str, Any]) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "web"}], "affinity": affinity},
        }
    )


def test_replicas_that_refuse_to_share_a_host_take_one_each() -> None:
    clock = FakeClock()
    api = APIServer(clock)
    for name, zone in (("n1", "east"), ("n2", "east"), ("n3", "west")):
        api.create(make_node(name, zone))
    one_per_host = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                term({"app": "web"}, "kubernetes.io/hostname")
            ]
        }
    }
    for i in range(4):
        api.create(make_pod(f"web-{i}", {"app": "web"}, one_per_host))
    scheduler = Scheduler(api, clock=clock, seed=1)
    scheduler.schedule_pending()
    scheduler.stop()
    hosts = {p.name: p.spec.node_name for p in api.list(Pod).items}
    placed = sorted(h for h in hosts.values() if h)
    assert placed == ["n1", "n2", "n3"]
    (failed,) = [e.message for e in api.list(Event).items if e.reason == "FailedScheduling"]
    # DefaultPreemption (default profile) adds its verdict: the other replicas have the same
    # priority, so no node has a pod it may evict (default_preemption.go SelectVictimsOnNode).
    assert failed == (
        "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    )
