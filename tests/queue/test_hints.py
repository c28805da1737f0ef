"""Queueing hints: building a profile's hint map, and deciding where one event sends one pod."""

from __future__ import annotations

from typing import Any

import pytest

from framework.cluster_event import (
    FORCE_ACTIVATE,
    NODE_ADD,
    UNSCHEDULABLE_TIMEOUT,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.objects import Pod
from framework.plugins.schedulinggates import SchedulingGates
from framework.queue.hints import (
    QueueingHintMap,
    QueueingStrategy,
    build_event_map,
    build_queueing_hint_map,
    default_queueing_hint_fn,
    is_event_of_interest,
    is_pod_worth_requeuing,
)
from framework.types import PodInfo, QueuedPodInfo
from tests.queue.helpers import NODE_LABEL_UPDATE, Anything, NodeFit, NodeLabels, pod

SKIP, AFTER_BACKOFF, IMMEDIATELY = (
    QueueingStrategy.QUEUE_SKIP,
    QueueingStrategy.QUEUE_AFTER_BACKOFF,
    QueueingStrategy.QUEUE_IMMEDIATELY,
)
NODE_TAINT_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)


class Registers:
    """A plugin registering the given events, each with the given hint."""

    def __init__(self, name: str, *events: ClusterEvent, hint: Any = None) -> None:
        self._name, self._events, self._hint = name, events, hint

    def name(self) -> str:
        return self._name

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(e, self._hint) for e in self._events]


def always(answer: QueueingHint) -> Any:
    return lambda pod, old, new: answer


def broken(pod: Pod, old: Any, new: Any) -> QueueingHint:
    raise RuntimeError("the hint failed")


# --- building the map ------------------------------------------------------------------------


def test_each_registration_lands_under_its_event_with_its_plugin() -> None:
    hint_map = build_queueing_hint_map([NodeLabels(), SchedulingGates()])
    assert {event: [f.plugin_name for f in fs] for event, fs in hint_map.items()} == {
        NODE_LABEL_UPDATE: ["NodeLabels"],
        ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED): [
            "SchedulingGates"
        ],
    }


def test_a_registration_without_hint_gets_the_always_queue_hint() -> None:
    hint_map = build_queueing_hint_map([Registers("P", NODE_LABEL_UPDATE)])
    assert hint_map[NODE_LABEL_UPDATE][0].queueing_hint_fn is default_queueing_hint_fn


def test_a_plugin_without_events_to_register_is_registered_for_everything() -> None:
    hint_map = build_queueing_hint_map([Anything()])
    assert sorted(str(event.resource) for event in hint_map) == sorted(
        [
            "Pod",
            "Node",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "storage.k8s.io/CSINode",
            "storage.k8s.io/StorageClass",
        ]
    )
    assert all(event.action_type == ActionType.ALL for event in hint_map)


def test_a_plugin_registering_node_add_also_gets_node_taint_update() -> None:
    assert NODE_TAINT_UPDATE in build_queueing_hint_map([NodeFit()])
    with_taint = Registers("P", NODE_ADD, NODE_TAINT_UPDATE)
    assert [f.plugin_name for f in build_queueing_hint_map([with_taint])[NODE_TAINT_UPDATE]] == [
        "P"
    ]


def test_a_plugin_registering_nothing_adds_nothing() -> None:
    assert build_queueing_hint_map([Registers("Quiet")]) == {}


def test_the_event_map_lists_each_plugins_registrations() -> None:
    events = build_event_map({"a": build_queueing_hint_map([NodeFit()])})
    assert [r.event for r in events["NodeFit"]] == [NODE_ADD, NODE_TAINT_UPDATE]


def test_an_event_is_of_interest_when_some_profile_registered_it() -> None:
    maps = {"a": build_queueing_hint_map([NodeFit()])}
    assert is_event_of_interest(NODE_ADD, maps)
    assert not is_event_of_interest(NODE_LABEL_UPDATE, maps)
    assert is_event_of_interest(UNSCHEDULABLE_TIMEOUT, {})  # wildcards always are


# --- deciding for one pod --------------------------------------------------------------------


def rejected(by: tuple[str, ...] = (), pending: tuple[str, ...] = ()) -> QueuedPodInfo:
    return QueuedPodInfo(
        PodInfo(pod("web")),
        timestamp=0,
        attempts=1,
        unschedulable_plugins=set(by),
        pending_plugins=set(pending),
    )


MAP = build_queueing_hint_map(
    [
        Registers("Yes", NODE_ADD, hint=always(QueueingHint.QUEUE)),
        Registers("No", NODE_ADD, hint=always(QueueingHint.QUEUE_SKIP)),
        Registers("Broken", NODE_ADD, hint=broken),
        Registers("Labels", NODE_LABEL_UPDATE, hint=always(QueueingHint.QUEUE)),
    ]
)

CASES = [
    pytest.param(rejected(), NODE_ADD, None, MAP, AFTER_BACKOFF, id="an error: after backoff"),
    pytest.param(
        rejected(("No",)), UNSCHEDULABLE_TIMEOUT, None, MAP, AFTER_BACKOFF, id="wildcard"
    ),
    pytest.param(
        rejected(("No",)),
        FORCE_ACTIVATE,
        pod("web"),
        MAP,
        AFTER_BACKOFF,
        id="wildcard aimed at this pod",
    ),
    pytest.param(
        rejected(("No",)), FORCE_ACTIVATE, pod("other"), MAP, SKIP, id="wildcard for another pod"
    ),
    pytest.param(rejected(("No",)), NODE_ADD, None, None, AFTER_BACKOFF, id="no hint map"),
    pytest.param(rejected(("Yes",)), NODE_ADD, None, MAP, AFTER_BACKOFF, id="rejector says queue"),
    pytest.param(rejected(("No",)), NODE_ADD, None, MAP, SKIP, id="rejector says skip"),
    pytest.param(rejected(("Broken",)), NODE_ADD, None, MAP, AFTER_BACKOFF, id="hint raises"),
    pytest.param(
        rejected(("Labels",)), NODE_ADD, None, MAP, SKIP, id="rejector registered another event"
    ),
    pytest.param(
        rejected(("Other",)), NODE_ADD, None, MAP, SKIP, id="queue from a non-rejector is ignored"
    ),
    pytest.param(
        rejected(pending=("Yes",)), NODE_ADD, None, MAP, IMMEDIATELY, id="pending says queue"
    ),
    pytest.param(
        rejected(("Yes",), pending=("No",)),
        NODE_ADD,
        None,
        MAP,
        AFTER_BACKOFF,
        id="unschedulable says queue, pending says skip",
    ),
    pytest.param(
        rejected(("No",), pending=("Yes",)),
        NODE_ADD,
        None,
        MAP,
        IMMEDIATELY,
        id="unschedulable says skip, pending says queue",
    ),
]


@pytest.mark.parametrize(("pod_info", "event", "new", "hint_map", "expected"), CASES)
def test_is_pod_worth_requeuing(
    pod_info: QueuedPodInfo,
    event: ClusterEvent,
    new: Any,
    hint_map: QueueingHintMap | None,
    expected: QueueingStrategy,
) -> None:
    assert is_pod_worth_requeuing(pod_info, event, None, new, hint_map) is expected
