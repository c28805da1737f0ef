"""PodTopologySpread inside the default profile, on the fake API server.

End-to-end counterparts of the spreading scenarios of
``kubernetes/kubernetes:test/integration/scheduler/filters/filters_test.go``
(``TestPodTopologySpreadFilter``) and ``.../scoring/priorities_test.go``
(``TestPodTopologySpreadScoring``), v1.33, in our own words.
"""

from __future__ import annotations

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Event, Node, Pod
from framework.scheduler.scheduler import Scheduler
from tests.plugins.podtopologyspread.helpers import ZONE, spread


def cluster(api: APIServer) -> None:
    for name, zone in [("a1", "zone-a"), ("a2", "zone-a"), ("b1", "zone-b")]:
        api.create(
            Node.from_dict(
                {
                    "metadata": {
                        "name": name,
                        "labels": {ZONE: zone, "kubernetes.io/hostname": name},
                    },
                    "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}},
                }
            )
        )


def web(name: str, *constraints: dict[str, object]) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "labels": {"foo": ""}},
            "spec": {
                "containers": [{"name": "c", "image": "busybox"}],
                "topologySpreadConstraints": list(constraints),
            },
        }
    )


def test_hard_zone_spread_balances_zones_and_explains_the_rest() -> None:
    clock = FakeClock()
    api = APIServer(clock)
    cluster(api)
    for i in range(3):
        api.create(web(f"web-{i}", spread(1, ZONE)))
    scheduler = Scheduler(api, clock=clock, seed=1)
    scheduler.schedule_pending()
    zones = {"a1": "zone-a", "a2": "zone-a", "b1": "zone-b"}
    placed = [zones[p.spec.node_name] for p in api.list(Pod).items]
    assert sorted(placed.count(z) for z in ("zone-a", "zone-b")) == [1, 2]
    fuller = max(("zone-a", "zone-b"), key=placed.count)
    # A pod that may only use the fuller zone. With nodeAffinityPolicy Honor
    # (the default) the other zone would not count and the pod would fit;
    # with Ignore, the fuller zone is one ahead already: 2 + 1 - 1 > 1.
    late = web("late", spread(1, ZONE, nodeAffinityPolicy="Ignore"))
    spec = {**late.to_dict()["spec"], "nodeSelector": {ZONE: fuller}}
    api.create(Pod.from_dict({**late.to_dict(), "spec": spec}))
    scheduler.schedule_pending()
    scheduler.stop()
    assert api.get(Pod, "late", "default").spec.node_name == ""
    messages = [e.message for e in api.list(Event).items if e.reason == "FailedScheduling"]
    unresolvable = 2 if fuller == "zone-b" else 1  # the nodes of the other zone
    # DefaultPreemption's verdict follows: the other zone's nodes are unresolvable (not
    # tried), the rest hold no lower-priority pod (preemption.go findCandidates).
    assert messages == [
        f"0/3 nodes are available: {unresolvable} node(s) didn't match Pod's node "
        f"affinity/selector, {3 - unresolvable} node(s) didn't match pod topology spread "
        f"constraints. no new claims to deallocate, preemption: 0/3 nodes are available: "
        f"{unresolvable} Preemption is not "
        f"helpful for scheduling, {3 - unresolvable} No preemption victims found for incoming pod."
    ]


def test_soft_hostname_spread_prefers_the_emptier_node() -> None:
    clock = FakeClock()
    api = APIServer(clock)
    cluster(api)
    soft = spread(1, "kubernetes.io/hostname", "ScheduleAnyway")
    for i in range(3):
        api.create(web(f"web-{i}", soft))
    scheduler = Scheduler(api, clock=clock, seed=1)
    scheduler.schedule_pending()
    scheduler.stop()
    hosts = sorted(p.spec.node_name for p in api.list(Pod).items)
    assert hosts == ["a1", "a2", "b1"]
