"""ClusterEvent matching: a registration covers an incoming event that is as specific or more.

Rule from ``ClusterEvent.Match`` in kubernetes/kubernetes:pkg/scheduler/framework/types.go.
"""

from __future__ import annotations

import pytest

from framework.cluster_event import (
    NODE_ADD,
    WILDCARD_EVENT,
    ActionType,
    ClusterEvent,
    EventResource,
)

A = ActionType
R = EventResource


@pytest.mark.parametrize(
    ("registered", "incoming", "matches"),
    [
        (ClusterEvent(R.NODE, A.ADD), NODE_ADD, True),
        (ClusterEvent(R.NODE, A.ADD | A.UPDATE), ClusterEvent(R.NODE, A.UPDATE_NODE_LABEL), True),
        (ClusterEvent(R.NODE, A.UPDATE_NODE_LABEL), ClusterEvent(R.NODE, A.UPDATE), False),
        (
            ClusterEvent(R.NODE, A.UPDATE_NODE_LABEL),
            ClusterEvent(R.NODE, A.UPDATE_NODE_TAINT),
            False,
        ),
        (ClusterEvent(R.NODE, A.ALL), ClusterEvent(R.NODE, A.DELETE), True),
        (ClusterEvent(R.POD, A.DELETE), ClusterEvent(R.ASSIGNED_POD, A.DELETE), True),
        (ClusterEvent(R.ASSIGNED_POD, A.DELETE), ClusterEvent(R.UNSCHEDULED_POD, A.DELETE), False),
        (ClusterEvent(R.NODE, A.ADD), ClusterEvent(R.ASSIGNED_POD, A.ADD), False),
        (ClusterEvent(R.WILDCARD, A.ALL), ClusterEvent(R.NODE, A.ADD), True),
        (ClusterEvent(R.NODE, A.ALL), WILDCARD_EVENT, False),
    ],
    ids=[
        "same event",
        "broad update covers a label update",
        "label update does not cover a generic update",
        "different update kinds",
        "all actions",
        "Pod covers assigned pods",
        "assigned is not unscheduled",
        "different resources",
        "wildcard registration covers everything",
        "a wildcard incoming event matches only a wildcard registration",
    ],
)
def test_match(registered: ClusterEvent, incoming: ClusterEvent, matches: bool) -> None:
    assert registered.match(incoming) is matches


def test_labels_name_resource_and_action() -> None:
    assert NODE_ADD.label() == "NodeAdd"
    assert ClusterEvent(R.ASSIGNED_POD, A.DELETE).label() == "AssignedPodDelete"
    assert WILDCARD_EVENT.label() == "WildCardEvent"
