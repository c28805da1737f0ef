"""Which cluster events a node or pod update stands for, as kube-scheduler's events.go reads them."""

from __future__ import annotations

from typing import Any

import pytest

from framework.objects import Node, Pod
from framework.queue.events import (
    node_scheduling_properties_change,
    pod_matches_required_affinity_of,
    pod_scheduling_properties_change,
)
from tests.queue.helpers import pod


def node(**fields: Any) -> Node:
    metadata = {"name": "n1", **fields.pop("metadata", {})}
    return Node.from_dict({"metadata": metadata, **fields})


def labels_of(events: list[Any]) -> list[str]:
    return [e.label() for e in events]


NODE_CASES = [
    pytest.param(node(), node(), [], id="nothing changed: no event at all"),
    pytest.param(
        node(metadata={"labels": {"a": "1"}}),
        node(),
        ["NodeUpdateNodeLabel"],
        id="labels",
    ),
    pytest.param(
        node(status={"allocatable": {"cpu": "2"}}),
        node(status={"allocatable": {"cpu": "1"}}),
        ["NodeUpdateNodeAllocatable"],
        id="allocatable",
    ),
    pytest.param(
        node(status={"allocatable": {"cpu": "1000m"}}),
        node(status={"allocatable": {"cpu": "1"}}),
        [],
        id="allocatable written differently, same value",
    ),
    pytest.param(
        node(spec={"taints": [{"key": "k", "effect": "NoSchedule"}]}),
        node(),
        ["NodeUpdateNodeTaint"],
        id="taints",
    ),
    pytest.param(
        node(), node(spec={"unschedulable": True}), ["NodeUpdateNodeTaint"], id="uncordon"
    ),
    pytest.param(node(spec={"unschedulable": True}), node(), [], id="cordon helps nobody"),
    pytest.param(
        node(status={"conditions": [{"type": "Ready", "status": "True"}]}),
        node(status={"conditions": [{"type": "Ready", "status": "False"}]}),
        ["NodeUpdateNodeCondition"],
        id="condition status",
    ),
    pytest.param(
        node(status={"conditions": [{"type": "Ready", "status": "True", "reason": "later"}]}),
        node(status={"conditions": [{"type": "Ready", "status": "True", "reason": "earlier"}]}),
        [],
        id="condition heartbeat only",
    ),
    pytest.param(
        node(metadata={"annotations": {"a": "1"}, "labels": {"b": "2"}}),
        node(),
        ["NodeUpdateNodeLabel", "NodeUpdateNodeAnnotation"],
        id="labels and annotations, in Kubernetes' order",
    ),
]


@pytest.mark.parametrize(("new", "old", "expected"), NODE_CASES)
def test_node_scheduling_properties_change(new: Node, old: Node, expected: list[str]) -> None:
    assert labels_of(node_scheduling_properties_change(new, old)) == expected


REQUESTS = {"requests": {"cpu": "1", "memory": "1Gi"}}
POD_CASES = [
    pytest.param(pod("p"), pod("p"), ["UnscheduledPodUpdatePodOther"], id="nothing specific"),
    pytest.param(
        pod("p", labels={"a": "1"}), pod("p"), ["UnscheduledPodUpdatePodLabel"], id="labels"
    ),
    pytest.param(
        pod("p", resources={"requests": {"cpu": "500m", "memory": "1Gi"}}),
        pod("p", resources=REQUESTS),
        ["UnscheduledPodUpdatePodScaleDown"],
        id="a request went down",
    ),
    pytest.param(
        pod("p", resources={"requests": {"cpu": "1"}}),
        pod("p", resources=REQUESTS),
        ["UnscheduledPodUpdatePodScaleDown"],
        id="a request went away",
    ),
    pytest.param(
        pod("p", resources={"requests": {"cpu": "2", "memory": "1Gi"}}),
        pod("p", resources=REQUESTS),
        ["UnscheduledPodUpdatePodOther"],
        id="a request went up",
    ),
    pytest.param(
        pod("p"),
        pod("p", gates=("a",)),
        ["UnscheduledPodUpdatePodSchedulingGatesEliminated"],
        id="last gate removed",
    ),
    pytest.param(
        pod("p", gates=("b",)),
        pod("p", gates=("a", "b")),
        ["UnscheduledPodUpdatePodOther"],
        id="one of two gates removed",
    ),
    pytest.param(
        pod("p", tolerations=[{"key": "k", "operator": "Exists"}]),
        pod("p"),
        ["UnscheduledPodUpdatePodTolerations"],
        id="toleration added",
    ),
    pytest.param(
        pod("p", labels={"a": "1"}, node_name="n1"),
        pod("p", node_name="n1"),
        ["AssignedPodUpdatePodLabel"],
        id="a bound pod is an assigned pod",
    ),
    pytest.param(
        Pod.from_dict(
            {
                "metadata": {"name": "p"},
                "status": {
                    "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-x"}]
                },
            }
        ),
        pod("p"),
        ["UnscheduledPodUpdatePodGeneratedResourceClaim"],
        # events.go extractPodGeneratedResourceClaimChange: the resourceclaim controller
        # named the claim it made for a template entry.
        id="a generated claim named in the status",
    ),
]


@pytest.mark.parametrize(("new", "old", "expected"), POD_CASES)
def test_pod_scheduling_properties_change(new: Pod, old: Pod, expected: list[str]) -> None:
    assert labels_of(pod_scheduling_properties_change(new, old)) == expected


def affinity(term: dict[str, Any]) -> dict[str, Any]:
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


DB = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}
AFFINITY_CASES = [
    pytest.param(affinity(DB), "default", {"app": "db"}, True, id="same namespace, labels match"),
    pytest.param(affinity(DB), "default", {"app": "web"}, False, id="labels do not match"),
    pytest.param(affinity(DB), "other", {"app": "db"}, False, id="another namespace"),
    pytest.param(
        affinity({**DB, "namespaces": ["other"]}),
        "other",
        {"app": "db"},
        True,
        id="a namespace the term names",
    ),
    pytest.param(
        affinity({**DB, "namespaceSelector": {}}),
        "other",
        {"app": "db"},
        True,
        id="empty namespace selector: every namespace",
    ),
    pytest.param(None, "default", {"app": "db"}, False, id="no affinity"),
]


@pytest.mark.parametrize(("spec_affinity", "namespace", "labels", "expected"), AFFINITY_CASES)
def test_an_assigned_pod_matches_a_required_affinity_term(
    spec_affinity: dict[str, Any] | None, namespace: str, labels: dict[str, str], expected: bool
) -> None:
    pending = pod("wants-db", **({"affinity": spec_affinity} if spec_affinity else {}))
    assigned = pod("db-0", namespace=namespace, labels=labels, node_name="n1")
    assert pod_matches_required_affinity_of(pending, assigned) is expected
