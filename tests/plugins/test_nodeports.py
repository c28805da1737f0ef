"""NodePorts: host port conflicts, the PreFilter skip, the deleted-pod hint, hostNetwork pods.

The table follows ``TestNodePorts`` and ``TestPreFilterDisabled``, and the
hint table the deleted-pod queueing-hint test, of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodeports/node_ports_test.go``
(v1.33), in our own words; the conflict rule is ``HostPortInfo.CheckConflict``
(``pkg/scheduler/framework/types.go``). The last tests run the plugin in a
scheduler on the fake API server.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.cluster_event import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.interface import EnqueueExtensions, FilterPlugin, PreFilterPlugin
from framework.node_info import NodeInfo
from framework.objects import Event, Node, Pod
from framework.plugins import nodeports
from framework.plugins.nodeports import ERR_REASON, NodePorts, get_container_ports
from framework.plugins.registry import in_tree_registry
from framework.scheduler.scheduler import Scheduler
from framework.status import Code, Status

_COUNTER = iter(range(1_000_000))


def new_pod(*host_ports: str, node_name: str = "", nominated: str = "") -> Pod:
    """A pod whose one container wants each ``"PROTOCOL/IP/PORT"`` as a host port."""
    ports = []
    for spec in host_ports:
        protocol, ip, port = spec.split("/")
        ports.append(
            {"containerPort": int(port), "hostPort": int(port), "protocol": protocol, "hostIP": ip}
        )
    uid = f"pod-{next(_COUNTER)}"
    return Pod.from_dict(
        {
            "metadata": {"name": uid, "namespace": "default", "uid": uid},
            "spec": {
                "nodeName": node_name,
                "containers": [{"name": "c", "image": "nginx", "ports": ports}],
            },
            "status": {"nominatedNodeName": nominated},
        }
    )


UNSCHEDULABLE = Status.unschedulable(ERR_REASON)

CASES = [
    pytest.param(new_pod(), NodeInfo(), Status.skip(), None, id="skip filter"),
    pytest.param(
        new_pod("UDP/127.0.0.1/8080"),
        NodeInfo(new_pod("UDP/127.0.0.1/9090")),
        None,
        None,
        id="other port",
    ),
    pytest.param(
        new_pod("UDP/127.0.0.1/8080"),
        NodeInfo(new_pod("UDP/127.0.0.1/8080")),
        None,
        UNSCHEDULABLE,
        id="same udp port",
    ),
    pytest.param(
        new_pod("TCP/127.0.0.1/8080"),
        NodeInfo(new_pod("TCP/127.0.0.1/8080")),
        None,
        UNSCHEDULABLE,
        id="same tcp port",
    ),
    pytest.param(
        new_pod("TCP/127.0.0.1/8080"),
        NodeInfo(new_pod("TCP/127.0.0.2/8080")),
        None,
        None,
        id="different host ip",
    ),
    pytest.param(
        new_pod("UDP/127.0.0.1/8080"),
        NodeInfo(new_pod("TCP/127.0.0.1/8080")),
        None,
        None,
        id="different protocol",
    ),
    pytest.param(
        new_pod("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
        NodeInfo(new_pod("UDP/127.0.0.1/8080")),
        None,
        UNSCHEDULABLE,
        id="second udp port conflict",
    ),
    pytest.param(
        new_pod("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
        NodeInfo(new_pod("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")),
        None,
        UNSCHEDULABLE,
        id="first tcp port conflict",
    ),
    pytest.param(
        new_pod("TCP/0.0.0.0/8001"),
        NodeInfo(new_pod("TCP/127.0.0.1/8001")),
        None,
        UNSCHEDULABLE,
        id="first tcp port conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        new_pod("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
        NodeInfo(new_pod("TCP/127.0.0.1/8001")),
        None,
        UNSCHEDULABLE,
        id="TCP hostPort conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        new_pod("TCP/127.0.0.1/8001"),
        NodeInfo(new_pod("TCP/0.0.0.0/8001")),
        None,
        UNSCHEDULABLE,
        id="second tcp port conflict to 0.0.0.0 hostIP",
    ),
    pytest.param(
        new_pod("UDP/127.0.0.1/8001"),
        NodeInfo(new_pod("TCP/0.0.0.0/8001")),
        None,
        None,
        id="second different protocol",
    ),
    pytest.param(
        new_pod("UDP/127.0.0.1/8001"),
        NodeInfo(new_pod("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")),
        None,
        UNSCHEDULABLE,
        id="UDP hostPort conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        new_pod("/127.0.0.1/8001"),
        NodeInfo(new_pod("TCP//8001")),
        None,
        UNSCHEDULABLE,
        id="empty protocol is TCP and empty IP is 0.0.0.0",
    ),
]


@pytest.mark.parametrize(("pod", "node_info", "pre_filter_status", "filter_status"), CASES)
def test_pre_filter_and_filter(
    pod: Pod, node_info: NodeInfo, pre_filter_status: Status | None, filter_status: Status | None
) -> None:
    plugin, state = NodePorts(), CycleState()
    result, status = plugin.pre_filter(state, pod, [node_info])
    assert (result, status) == (None, pre_filter_status)
    if status is not None:
        return
    assert plugin.filter(state, pod, node_info) == filter_status


def test_filter_without_pre_filter_is_an_error() -> None:
    status = NodePorts().filter(CycleState(), new_pod("TCP/127.0.0.1/80"), NodeInfo())
    assert status is not None and status.code is Code.ERROR
    assert status.message() == 'reading "PreFilterNodePorts" from cycleState: not found'


def test_the_reason_is_kubernetes_exact_words() -> None:
    assert ERR_REASON == "node(s) didn't have free ports for the requested pod ports"


def test_only_regular_containers_ports_count_in_v1_33() -> None:
    pod = Pod.from_dict(
        {
            "metadata": {"name": "p", "uid": "p"},
            "spec": {
                "initContainers": [
                    {"name": "i", "image": "x", "ports": [{"containerPort": 1, "hostPort": 81}]}
                ],
                "containers": [
                    {"name": "c", "image": "x", "ports": [{"containerPort": 80, "hostPort": 80}]},
                    {"name": "d", "image": "x", "ports": [{"containerPort": 90}]},
                ],
            },
        }
    )
    assert [p.host_port for p in get_container_ports(pod)] == [80]
    assert not NodeInfo(pod).used_ports.check_conflict("", "TCP", 81)


def test_events_are_pod_delete_with_a_hint_and_node_add() -> None:
    registrations = NodePorts().events_to_register()
    assert [r.event for r in registrations] == [
        ClusterEvent(EventResource.POD, ActionType.DELETE),
        ClusterEvent(EventResource.NODE, ActionType.ADD),
    ]
    assert registrations[0].queueing_hint_fn is not None
    assert registrations[1].queueing_hint_fn is None


HINT_CASES = [
    pytest.param("not-a-pod", QueueingHint.QUEUE, id="backoff-wrong-old-object"),
    pytest.param(
        new_pod("TCP/127.0.0.1/8080"), QueueingHint.QUEUE_SKIP, id="skip-queue-on-unscheduled"
    ),
    pytest.param(
        new_pod(node_name="fake-node"), QueueingHint.QUEUE_SKIP, id="skip-queue-on-non-hostport"
    ),
    pytest.param(
        new_pod("TCP/127.0.0.1/8081", node_name="fake-node"),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-unrelated-hostport",
    ),
    pytest.param(
        new_pod("TCP/127.0.0.1/8080", node_name="fake-node"),
        QueueingHint.QUEUE,
        id="queue-on-released-hostport",
    ),
    pytest.param(
        new_pod("TCP/127.0.0.1/8080", nominated="fake-node"),
        QueueingHint.QUEUE,
        id="queue-on-released-hostport-of-a-nominated-pod",
    ),
]


@pytest.mark.parametrize(("deleted", "expected"), HINT_CASES)
def test_is_schedulable_after_pod_deleted(deleted: Any, expected: QueueingHint) -> None:
    pod = new_pod("TCP/127.0.0.1/8080")
    assert NodePorts().is_schedulable_after_pod_deleted(pod, deleted, None) is expected


def test_the_plugin_implements_its_points_and_is_registered_in_tree() -> None:
    plugin = nodeports.new(None, None)
    for protocol in (PreFilterPlugin, FilterPlugin, EnqueueExtensions):
        assert isinstance(plugin, protocol)
    assert plugin.pre_filter_extensions() is None
    assert plugin.name() == nodeports.NAME == "NodePorts"
    assert in_tree_registry()["NodePorts"] is nodeports.new


# --- In a scheduler -------------------------------------------------------------------------

CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: PrioritySort}, {name: NodePorts}, {name: DefaultBinder}]
"""


def web(name: str, host_network: bool = False) -> Pod:
    port: dict[str, Any] = {"containerPort": 8080}
    if not host_network:
        port["hostPort"] = 8080
    return Pod.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "hostNetwork": host_network,
                "containers": [{"name": "c", "image": "nginx", "ports": [port]}],
            },
        }
    )


def test_a_host_network_pod_takes_its_container_ports_on_the_node() -> None:
    clock = FakeClock()
    api = APIServer(clock)
    api.create(Node.from_dict({"metadata": {"name": "n1"}}))
    api.create(web("first", host_network=True))
    api.create(web("second"))
    # The API server defaults hostPort to containerPort for hostNetwork pods.
    assert api.get(Pod, "first", namespace="default").spec.containers[0].ports[0].host_port == 8080
    sched = Scheduler(api, loads_config(CONFIG, "ports.yaml"), in_tree_registry(), clock=clock)
    sched.schedule_pending()
    placed = {p.name: p.spec.node_name for p in api.list(Pod).items}
    assert sorted(placed.values()) == ["", "n1"]
    failed = [e.message for e in api.list(Event).items if e.reason == "FailedScheduling"]
    assert failed == [
        "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports."
    ]

    # Deleting the pod that holds the port requeues the other (the hint says QUEUE).
    holder = next(name for name, node in placed.items() if node == "n1")
    waiting = next(name for name, node in placed.items() if node == "")
    clock.advance(10)
    api.delete(Pod, holder, namespace="default")
    sched.sync()
    sched.schedule_pending()
    sched.stop()
    assert api.get(Pod, waiting, namespace="default").spec.node_name == "n1"
