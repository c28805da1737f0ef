"""The disruption controller's status arithmetic, case by case.

Expectations follow ``kubernetes/kubernetes:pkg/controller/disruption/disruption.go``
(``getExpectedPodCount``, ``buildDisruptedPodMap``, ``countHealthyPods``,
``updatePdbStatus``) and ``intstr.GetScaledValueFromIntOrPercent(..., true)``
(v1.33), with the two stand-ins this project documents: a pod with no Ready
condition is ready when bound and not finished (no kubelet), and the number
of matching pods stands in for the controllers' scale (no controllers).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.apiserver.disruption import (
    DELETION_TIMEOUT_SECONDS,
    IntOrStringError,
    compute_status,
    get_scaled_value_from_int_or_percent,
)
from framework.clock import rfc3339
from framework.objects import Pod, PodDisruptionBudget

NOW = 10_000.0
WEB = {"app": "web"}


def budget(**spec: Any) -> PodDisruptionBudget:
    status = spec.pop("status", {})
    return PodDisruptionBudget.from_dict(
        {
            "metadata": {"name": "web", "namespace": "default", "generation": 3},
            "spec": {"selector": {"matchLabels": WEB}, **spec},
            "status": status,
        }
    )


def pod(
    name: str,
    *,
    node: str = "n1",
    labels: dict[str, str] = WEB,
    namespace: str = "default",
    phase: str = "Running",
    ready: str | None = None,
    deleting: bool = False,
) -> Pod:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels}
    if deleting:
        metadata["deletionTimestamp"] = rfc3339(NOW + 30)
    status: dict[str, Any] = {"phase": phase}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready}]
    return Pod.from_dict({"metadata": metadata, "spec": {"nodeName": node}, "status": status})


def running(n: int) -> list[Pod]:
    return [pod(f"web-{i}") for i in range(n)]


CASES = {
    "minAvailable integer: expected is the number of matching pods": (
        budget(minAvailable=2),
        running(3),
        (3, 3, 2, 1),
    ),
    "minAvailable integer larger than the healthy pods allows nothing": (
        budget(minAvailable=5),
        running(3),
        (3, 3, 5, 0),
    ),
    "minAvailable percentage rounds up": (
        budget(minAvailable="50%"),
        running(3),
        (3, 3, 2, 1),
    ),
    "minAvailable 100% allows nothing": (
        budget(minAvailable="100%"),
        running(3),
        (3, 3, 3, 0),
    ),
    "maxUnavailable integer": (
        budget(maxUnavailable=1),
        running(3),
        (3, 3, 2, 1),
    ),
    "maxUnavailable percentage rounds up": (
        budget(maxUnavailable="34%"),
        running(3),
        (3, 3, 1, 2),
    ),
    "maxUnavailable larger than the pods: desired is 0, not negative": (
        budget(maxUnavailable=5),
        running(3),
        (3, 3, 0, 3),
    ),
    "no matching pods: nothing is allowed, even with maxUnavailable": (
        budget(maxUnavailable=1),
        [],
        (0, 0, 0, 0),
    ),
    "neither field: nothing expected, nothing allowed": (budget(), running(2), (0, 2, 0, 0)),
    "a pending pod is expected but not healthy": (
        budget(minAvailable=1),
        [*running(1), pod("pending", node="", phase="Pending")],
        (2, 1, 1, 0),
    ),
    "a terminating pod is not healthy": (
        budget(minAvailable=1),
        [*running(2), pod("going", deleting=True)],
        (3, 2, 1, 1),
    ),
    "succeeded and failed pods are not healthy": (
        budget(minAvailable=1),
        [*running(1), pod("done", phase="Succeeded"), pod("crashed", phase="Failed")],
        (3, 1, 1, 0),
    ),
    "a Ready condition decides when a kubelet wrote one": (
        budget(minAvailable=1),
        [*running(1), pod("not-ready", ready="False"), pod("ready", ready="True")],
        (3, 2, 1, 1),
    ),
    "pods of other namespaces and other labels do not count": (
        budget(minAvailable=1),
        [*running(2), pod("other-ns", namespace="other"), pod("db", labels={"app": "db"})],
        (2, 2, 1, 1),
    ),
    "an empty selector matches every pod of the namespace (policy/v1)": (
        PodDisruptionBudget.from_dict(
            {
                "metadata": {"name": "all", "namespace": "default", "generation": 3},
                "spec": {"selector": {}, "minAvailable": 1},
            }
        ),
        [*running(2), pod("db", labels={"app": "db"})],
        (3, 3, 1, 2),
    ),
    "a missing selector matches nothing": (
        PodDisruptionBudget.from_dict(
            {
                "metadata": {"name": "none", "namespace": "default", "generation": 3},
                "spec": {"minAvailable": 1},
            }
        ),
        running(2),
        (0, 0, 1, 0),
    ),
    "a pod evicted less than two minutes ago is not healthy": (
        budget(minAvailable=1, status={"disruptedPods": {"web-0": rfc3339(NOW - 60)}}),
        running(3),
        (3, 2, 1, 1),
    ),
    "a pod evicted more than two minutes ago counts again": (
        budget(minAvailable=1, status={"disruptedPods": {"web-0": rfc3339(NOW - 600)}}),
        running(3),
        (3, 3, 1, 2),
    ),
}


@pytest.mark.parametrize(("pdb", "pods", "expected"), CASES.values(), ids=CASES.keys())
def test_compute_status(
    pdb: PodDisruptionBudget, pods: list[Pod], expected: tuple[int, int, int, int]
) -> None:
    status = compute_status(pdb, pods, NOW)
    got = (
        status.expected_pods,
        status.current_healthy,
        status.desired_healthy,
        status.disruptions_allowed,
    )
    assert got == expected
    assert status.observed_generation == 3


@pytest.mark.parametrize(
    ("allowed", "condition"),
    [(1, ("True", "SufficientPods")), (0, ("False", "InsufficientPods"))],
    ids=["something allowed", "nothing allowed"],
)
def test_the_disruption_allowed_condition(allowed: int, condition: tuple[str, str]) -> None:
    pdb = budget(minAvailable=3 - allowed)
    (got,) = compute_status(pdb, running(3), NOW).conditions
    assert (got.type, got.status, got.reason) == ("DisruptionAllowed", *condition)
    assert (got.observed_generation, got.last_transition_time) == (3, rfc3339(NOW))


def test_the_condition_keeps_its_transition_time_while_its_status_holds() -> None:
    first = compute_status(budget(minAvailable=1), running(3), NOW)
    pdb = budget(minAvailable=1, status=first.to_dict())
    later = compute_status(pdb, running(2), NOW + 100)
    assert later.disruptions_allowed == 1
    assert later.conditions[0].last_transition_time == rfc3339(NOW)
    gone = compute_status(pdb, running(1), NOW + 200)
    assert gone.conditions[0].last_transition_time == rfc3339(NOW + 200)


def test_disrupted_pods_keeps_only_live_entries_within_the_timeout() -> None:
    disrupted = {
        "web-0": rfc3339(NOW - 10),  # recent: kept
        "web-1": rfc3339(NOW - DELETION_TIMEOUT_SECONDS - 10),  # stale: dropped
        "gone": rfc3339(NOW - 10),  # no such pod: dropped
        "going": rfc3339(NOW - 10),  # being deleted: dropped
    }
    pdb = budget(minAvailable=1, status={"disruptedPods": disrupted})
    status = compute_status(pdb, [*running(2), pod("going", deleting=True)], NOW)
    assert status.disrupted_pods == {"web-0": rfc3339(NOW - 10)}


@pytest.mark.parametrize(
    ("value", "total", "round_up", "expected"),
    [
        (3, 10, True, 3),
        ("10%", 10, True, 1),
        ("15%", 10, True, 2),
        ("15%", 10, False, 1),
        ("0%", 10, True, 0),
        ("100%", 7, True, 7),
        ("33%", 3, True, 1),
        ("34%", 3, True, 2),
    ],
)
def test_get_scaled_value_from_int_or_percent(
    value: int | str, total: int, round_up: bool, expected: int
) -> None:
    assert get_scaled_value_from_int_or_percent(value, total, round_up) == expected


@pytest.mark.parametrize("value", ["5", "x%", "%"])
def test_a_string_must_be_a_percentage(value: str) -> None:
    with pytest.raises(IntOrStringError):
        get_scaled_value_from_int_or_percent(value, 10, True)
