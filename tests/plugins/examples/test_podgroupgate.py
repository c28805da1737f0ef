"""PodGroupGate: its args, the labels, the book's life cycle, and the paths the chapter leaves out.

The learner's half (Permit and Unreserve, and the waiting around them) is
tested in ``chapters/05_reserve_permit``; this file covers the rest of the
plugin and the reference's edges: args validation, Reserve's refusal of a
group without a size, PostBind handing a bound member over to the snapshot,
the 15-minute cap on a wait from the args, registration from a configuration,
a waiting member deleted from the API server, and the book under concurrent
Reserve and Unreserve.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from framework.cache.snapshot import new_snapshot
from framework.clock import FakeClock
from framework.config import loads_config
from framework.config.framework_checks import FrameworkConfigError
from framework.cycle_state import CycleState
from framework.interface import PermitPlugin, PostBindPlugin, ReservePlugin
from framework.objects import Event, Node, Pod
from framework.plugins.examples import podgroupgate
from framework.plugins.examples.podgroupgate import (
    GROUP_NAME_LABEL,
    MIN_AVAILABLE_LABEL,
    MSG_INVALID_MIN_AVAILABLE,
    MSG_MEMBER_UNRESERVED,
    NAME,
    PodGroup,
    PodGroupGate,
    PodGroupGateArgs,
    ReservedMembers,
    assigned_members,
    pod_group,
)
from framework.plugins.registry import in_tree_registry
from framework.runtime.build import new_framework
from framework.runtime.framework import Framework
from framework.runtime.registry import build_registry, with_plugin
from framework.status import Code, as_status
from tests.scheduler.helpers import Cluster, node

NODE = "node-a"


def pod(
    name: str,
    labels: dict[str, str] | None = None,
    node_name: str = "",
    namespace: str = "default",
    cpu: str | None = None,
) -> Pod:
    container: dict[str, Any] = {"name": "c", "image": "busybox"}
    if cpu is not None:
        container["resources"] = {"requests": {"cpu": cpu}}
    return Pod.from_dict(
        {
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": f"uid-{name}",
                "labels": labels or {},
            },
            "spec": {"nodeName": node_name, "containers": [container]},
        }
    )


def member(name: str, size: str = "2", node_name: str = "", cpu: str | None = None) -> Pod:
    labels = {GROUP_NAME_LABEL: "train", MIN_AVAILABLE_LABEL: size}
    return pod(name, labels, node_name, cpu=cpu)


def gate_in_framework(args: Any = None, clock: FakeClock | None = None) -> tuple[Framework, Any]:
    fwk = Framework("default-scheduler", clock=clock or FakeClock(start=0))
    gate = podgroupgate.new(args, fwk)
    fwk.set_plugins({"reserve": [gate], "permit": [gate], "postBind": [gate]}, {})
    return fwk, gate


# --- args ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "seconds"),
    [
        (None, 30),
        ({}, 30),
        ({"permitWaitingTimeSeconds": 5}, 5),
        (
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "PodGroupGateArgs",
                "permitWaitingTimeSeconds": 60,
            },
            60,
        ),
        (PodGroupGateArgs(7), 7),
    ],
    ids=["none", "empty", "set", "with apiVersion and kind", "already args"],
)
def test_args_are_defaulted_and_read(given: Any, seconds: int) -> None:
    assert PodGroupGateArgs.from_config(given).permit_waiting_time_seconds == seconds


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"permitWaitingTimeSeconds": 0},
            "permitWaitingTimeSeconds: Invalid value: 0: must be a whole number of seconds "
            "greater than 0",
        ),
        (
            {"permitWaitingTimeSeconds": "30"},
            "permitWaitingTimeSeconds: Invalid value: '30': must be a whole number of seconds "
            "greater than 0",
        ),
        (
            {"permitWaitingTimeSeconds": True},
            "permitWaitingTimeSeconds: Invalid value: True: must be a whole number of seconds "
            "greater than 0",
        ),
        (
            {"permitWaitingTime": 30, "permitWaitingTimeSeconds": -1},
            'PodGroupGateArgs: unknown field "permitWaitingTime"; permitWaitingTimeSeconds: '
            "Invalid value: -1: must be a whole number of seconds greater than 0",
        ),
        (
            [30],
            "PodGroupGateArgs: want a mapping such as {permitWaitingTimeSeconds: 30}, got list",
        ),
    ],
    ids=["zero", "a string", "a bool", "every problem at once", "not a mapping"],
)
def test_bad_args_are_refused_with_the_field_and_the_value(given: Any, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        PodGroupGateArgs.from_config(given)
    assert str(raised.value) == message


# --- the labels ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({}, None),
        ({GROUP_NAME_LABEL: ""}, None),
        ({MIN_AVAILABLE_LABEL: "3"}, None),
        ({GROUP_NAME_LABEL: "train", MIN_AVAILABLE_LABEL: "3"}, PodGroup("default", "train", 3)),
        ({GROUP_NAME_LABEL: "train"}, PodGroup("default", "train", 0)),
        (
            {GROUP_NAME_LABEL: "train", MIN_AVAILABLE_LABEL: "three"},
            PodGroup("default", "train", 0),
        ),
        ({GROUP_NAME_LABEL: "train", MIN_AVAILABLE_LABEL: "-1"}, PodGroup("default", "train", 0)),
        ({GROUP_NAME_LABEL: "train", MIN_AVAILABLE_LABEL: "٣"}, PodGroup("default", "train", 0)),
    ],
    ids=[
        "no labels",
        "empty group name",
        "a size without a group",
        "a group of 3",
        "no size",
        "a size that is no number",
        "a negative size",
        "a non-ASCII digit",
    ],
)
def test_pod_group_reads_the_labels(labels: dict[str, str], expected: PodGroup | None) -> None:
    assert pod_group(pod("p", labels)) == expected


def test_reserve_refuses_a_member_of_a_group_without_a_usable_size() -> None:
    _, gate = gate_in_framework()
    status = as_status(gate.reserve(CycleState(), member("p", size="many"), NODE))
    assert (status.code, status.message()) == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        MSG_INVALID_MIN_AVAILABLE.format(label=MIN_AVAILABLE_LABEL, value="many"),
    )
    assert gate.reserved() == {}


def test_a_pod_with_a_bad_size_is_reported_and_kept_pending_by_the_scheduler() -> None:
    cluster = Cluster(node("a"), member("p", size="0", cpu="1"))
    sched = cluster.scheduler(NAME, PodGroupGate=podgroupgate.new)
    sched.schedule_pending()
    sched.stop()
    assert cluster.node_of("p") == ""
    (event,) = [e for e in cluster.api.list(Event).items if e.reason == "FailedScheduling"]
    assert event.message == (
        "0/1 nodes are available: 1 label pod-group.example.com/min-available must be a "
        'positive integer, got "0".'
    )
    # Still pending. (In backoffQ, in fact: the plugin registers no events, so any
    # event, even the scheduler's own status update of the pod, requeues it, as
    # kube-scheduler does for a plugin without EnqueueExtensions.)
    pending, _ = sched.queue.pending_pods()
    assert [p.name for p in pending] == ["p"]


# --- the book and the snapshot ------------------------------------------------------------------


def test_post_bind_hands_the_member_over_to_the_snapshot() -> None:
    fwk, gate = gate_in_framework()
    first = member("train-0")
    assert gate.reserve(CycleState(), first, NODE) is None
    gate.post_bind(CycleState(), first, NODE)
    assert gate.reserved() == {}

    second = member("train-1")
    gate.reserve(CycleState(), second, NODE)
    status, _ = gate.permit(CycleState(), second, NODE)
    assert as_status(status).is_wait()  # no snapshot yet: the bound member is unknown

    bound = member("train-0", node_name=NODE)
    fwk.snapshot = new_snapshot([bound], [Node.from_dict({"metadata": {"name": NODE}})])
    status, _ = gate.permit(CycleState(), second, NODE)
    assert as_status(status).is_success()


def test_assigned_members_outside_a_cycle_is_empty() -> None:
    assert assigned_members(None, PodGroup("default", "train", 2)) == frozenset()


def test_the_book_stays_consistent_under_concurrent_reserve_and_unreserve() -> None:
    book = ReservedMembers()
    threads, rounds = 8, 200
    start = threading.Barrier(threads, timeout=30)

    def churn(worker: int) -> None:
        start.wait()  # every thread starts at once, to interleave as much as possible
        for i in range(rounds):
            uid = f"w{worker}-{i}"
            book.add("default/train", uid)
            book.add("default/train", uid)
            assert book.remove("default/train", uid)
            assert not book.remove("default/train", uid)
        book.add("default/train", f"w{worker}-kept")

    workers = [threading.Thread(target=churn, args=(w,)) for w in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=30)
    assert book.members("default/train") == frozenset(f"w{w}-kept" for w in range(threads))


# --- the wait, from the args, through the framework ------------------------------------------------


def test_a_wait_from_the_args_is_capped_at_fifteen_minutes() -> None:
    clock = FakeClock(start=0)
    fwk, _ = gate_in_framework({"permitWaitingTimeSeconds": 3600}, clock)
    lonely = member("train-0")
    state = CycleState()
    assert fwk.run_reserve_plugins_reserve(state, lonely, NODE).is_success()
    assert fwk.run_permit_plugins(state, lonely, NODE).is_wait()
    result: list[Any] = []
    waiter = threading.Thread(target=lambda: result.append(fwk.wait_on_permit(lonely)))
    waiter.start()
    clock.block_until_waiters(1)
    clock.advance(15 * 60)
    waiter.join(timeout=10)
    assert result[0].message() == (
        "rejected due to timeout after waiting 15m0s at plugin PodGroupGate"
    )


# --- registration and configuration ------------------------------------------------------------------


PROFILE = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{{name: "*"}}]
      enabled: [{{name: PrioritySort}}, {{name: PodGroupGate}}, {{name: DefaultBinder}}]
  pluginConfig:
  - name: PodGroupGate
    args: {args}
"""


def test_the_plugin_registers_and_takes_its_args_from_the_profile() -> None:
    registry = build_registry(in_tree_registry(), with_plugin(NAME, podgroupgate.new))
    config = loads_config(PROFILE.format(args="{permitWaitingTimeSeconds: 5}"))
    fwk = new_framework(registry, config.profiles[0], clock=FakeClock(start=0))
    assert {point: names for point, names in fwk.list_plugins().items() if NAME in names} == {
        "reserve": [NAME],
        "permit": [NAME],
        "postBind": [NAME],
    }
    (gate,) = fwk.plugins["permit"]
    assert isinstance(gate, PodGroupGate)
    assert isinstance(gate, ReservePlugin | PermitPlugin | PostBindPlugin)
    gate.reserve(CycleState(), member("train-0"), NODE)
    _, seconds = gate.permit(CycleState(), member("train-0"), NODE)
    assert seconds == 5


def test_bad_args_in_the_profile_stop_the_framework_with_the_plugins_name() -> None:
    registry = build_registry(in_tree_registry(), with_plugin(NAME, podgroupgate.new))
    config = loads_config(PROFILE.format(args="{permitWaitingTimeSeconds: 0}"))
    with pytest.raises(FrameworkConfigError) as raised:
        new_framework(registry, config.profiles[0])
    assert str(raised.value) == (
        'initializing plugin "PodGroupGate": permitWaitingTimeSeconds: Invalid value: 0: '
        "must be a whole number of seconds greater than 0"
    )


# --- a waiting member deleted from the API server ----------------------------------------------------


def test_deleting_a_waiting_member_rejects_it_and_its_siblings() -> None:
    cluster = Cluster(node("a", cpu="4"), member("train-0", "3", cpu="1"))
    sched = cluster.scheduler(NAME, PodGroupGate=podgroupgate.new)
    fwk = sched.profiles["default-scheduler"]
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)
    cluster.api.create(member("train-1", "3", cpu="1"))
    sched.sync()
    assert sched.scheduling.schedule_one(timeout=0)
    assert len(fwk.waiting_pods) == 2
    cluster.clock.block_until_waiters(2)

    cluster.api.delete(Pod, "train-0", namespace="default")
    sched.sync()  # the informer sees the deletion: the framework rejects the waiting pod
    sched.scheduling.wait_for_bindings()
    sched.sync()

    messages = {
        e.involved_object.name: e.message
        for e in cluster.api.list(Event).items
        if e.reason == "FailedScheduling"
    }
    assert messages == {
        "train-0": "0/1 nodes are available: 1 removed.",
        "train-1": "0/1 nodes are available: 1 "
        + MSG_MEMBER_UNRESERVED.format(pod="train-0", group="default/train")
        + ".",
    }
    assert fwk.plugins["permit"][0].reserved() == {}
    pending, _ = sched.queue.pending_pods()
    assert [p.name for p in pending] == ["train-1"]
    sched.stop()
