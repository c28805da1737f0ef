"""InterPodAffinity's events and queueing hints.

Cases from ``TestIsSchedulableAfterPodChange`` and ``TestIsSchedulableAfterNodeChange`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/interpodaffinity/plugin_test.go`` (v1.33).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.cluster_event import ActionType, EventResource, QueueingHint
from framework.plugins.interpodaffinity import InterPodAffinity
from tests.plugins.interpodaffinity.helpers import node, pod, term

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
TARGET_AFFINITY = pod("t", affinity=[term({"aaa": "a"})])
TARGET_ANTI = pod("t", anti_affinity=[term({"aaa": "a"})])


def test_registers_pod_and_node_events() -> None:
    events = [e.event for e in InterPodAffinity(None).events_to_register()]
    assert [(e.resource, e.action_type) for e in events] == [
        (EventResource.POD, ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE),
        (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
    ]


POD_CASES: list[tuple[str, Any, Any, Any, QueueingHint]] = [
    (
        "add a pod which matches the pod affinity",
        TARGET_AFFINITY,
        None,
        pod("e", labels={"aaa": "a"}, node="n"),
        QUEUE,
    ),
    ("add an un-scheduled pod", TARGET_AFFINITY, None, pod("e", labels={"aaa": "a"}), SKIP),
    (
        "add a pod which doesn't match the pod affinity",
        TARGET_AFFINITY,
        None,
        pod("e", labels={"aaa": "b"}, node="n"),
        SKIP,
    ),
    (
        "update a pod from non-match to match pod affinity",
        TARGET_AFFINITY,
        pod("e", labels={"aaa": "b"}, node="n"),
        pod("e", labels={"aaa": "a"}, node="n"),
        QUEUE,
    ),
    (
        "the updating pod matches target pod's affinity both before and after label changes",
        TARGET_AFFINITY,
        pod("e", labels={"aaa": "a"}, node="n"),
        pod("e", labels={"aaa": "a", "b": "c"}, node="n"),
        SKIP,
    ),
    (
        "update a pod from match to non-match the pod anti-affinity",
        TARGET_ANTI,
        pod("e", labels={"aaa": "a"}, node="n"),
        pod("e", labels={"aaa": "b"}, node="n"),
        QUEUE,
    ),
    (
        "update a pod from non-match to match the pod anti-affinity",
        TARGET_ANTI,
        pod("e", labels={"aaa": "b"}, node="n"),
        pod("e", labels={"aaa": "a"}, node="n"),
        SKIP,
    ),
    (
        "delete a pod which doesn't match pod's anti-affinity",
        TARGET_ANTI,
        pod("e", labels={"aaa": "b"}, node="n"),
        None,
        SKIP,
    ),
    (
        "delete a pod which matches pod's anti-affinity",
        TARGET_ANTI,
        pod("e", labels={"aaa": "a"}, node="n"),
        None,
        QUEUE,
    ),
    ("a conversion error queues", TARGET_AFFINITY, None, node("n"), QUEUE),
]


@pytest.mark.parametrize(
    ("target", "old", "new", "want"), [c[1:] for c in POD_CASES], ids=[c[0] for c in POD_CASES]
)
def test_pod_hints(target: Any, old: Any, new: Any, want: QueueingHint) -> None:
    assert InterPodAffinity(None).is_schedulable_after_pod_change(target, old, new) == want


NODE_CASES: list[tuple[str, Any, Any, Any, QueueingHint]] = [
    (
        "add a new node with matched pod affinity topologyKey",
        pod("t", affinity=[term({"a": "b"}, "zone")]),
        None,
        node("n", zone="z1"),
        QUEUE,
    ),
    (
        "add a new node without matched topologyKey",
        pod("t", affinity=[term({"a": "b"}, "zone")]),
        None,
        node("n", region="r1"),
        SKIP,
    ),
    (
        "update node topologyKey",
        pod("t", affinity=[term({"a": "b"}, "zone")]),
        node("n", region="r1"),
        node("n", zone="z1"),
        QUEUE,
    ),
    (
        "add a new node with matched pod anti-affinity topologyKey",
        pod("t", anti_affinity=[term({"a": "b"}, "zone")]),
        None,
        node("n", zone="z1"),
        QUEUE,
    ),
    ("a pod without inter-pod terms skips", pod("t"), None, node("n", zone="z1"), SKIP),
]


@pytest.mark.parametrize(
    ("target", "old", "new", "want"), [c[1:] for c in NODE_CASES], ids=[c[0] for c in NODE_CASES]
)
def test_node_hints(target: Any, old: Any, new: Any, want: QueueingHint) -> None:
    assert InterPodAffinity(None).is_schedulable_after_node_change(target, old, new) == want
