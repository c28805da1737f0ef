"""Small helpers the scheduler and its plugins share: pod importance, and pod-status writes.

**Importance.** Preemption must decide which pods matter more. The rule is
:func:`more_important_pod`: the higher priority wins; between equal
priorities, the pod that started *earlier* (it has been doing useful work
longer). A pod with no ``status.startTime`` counts as starting now. Start
times are compared in whole nanoseconds, as Go's ``metav1.Time`` compares
them.

**Writes.** :func:`patch_pod_status` changes a pod's status the way
``util.PatchPodStatus`` does: it reads the current pod, applies a change
to its status, writes it with the status subresource, and retries on a
conflict; :func:`delete_pod` and :func:`clear_nominated_node_name` are the
two calls preemption makes with it.

Mirrors ``GetPodStartTime``, ``GetEarliestPodStartTime``,
``MoreImportantPod``, ``PatchPodStatus``, ``DeletePod`` and
``ClearNominatedNodeName`` in
``kubernetes/kubernetes:pkg/scheduler/util/utils.go`` (v1.33). Simplified:
"now" is the injected clock's, passed in (Go calls ``time.Now()``); a status
patch is a read-modify-write with a retry on Conflict instead of a
strategic-merge patch (the same result for the one field each caller
changes).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from framework.apiserver.errors import APIError, Conflict
from framework.clock import parse_rfc3339_nanos
from framework.objects import Pod, PodStatus, pod_priority

__all__ = [
    "PATCH_RETRIES",
    "clear_nominated_node_name",
    "delete_pod",
    "get_earliest_pod_start_time",
    "get_pod_start_time",
    "more_important_pod",
    "patch_pod_status",
]

PATCH_RETRIES = 5
"""How many times a status write is tried when it keeps losing races (``retry.DefaultBackoff``)."""


def get_pod_start_time(pod: Pod, now: float) -> int:
    """When the pod started (``status.startTime``), or ``now`` if it has not (``GetPodStartTime``).

    In nanoseconds since the epoch, as Go's ``UnixNano``: start times that
    differ below the microsecond still order exactly (a float would not).
    """
    if pod.status.start_time:
        return parse_rfc3339_nanos(pod.status.start_time)
    return round(now * 1_000_000_000)


def get_earliest_pod_start_time(pods: Sequence[Pod], now: float) -> int | None:
    """The earliest start among the highest-priority pods (``GetEarliestPodStartTime``).

    ``None`` for no pods (Kubernetes logs "should not reach here").

    >>> def pod(name, priority, start):
    ...     return Pod.from_dict({"metadata": {"name": name}, "spec": {"priority": priority},
    ...                           "status": {"startTime": start}})
    >>> t = get_earliest_pod_start_time([pod("a", 1, "1970-01-01T00:00:09Z"),
    ...     pod("b", 5, "1970-01-01T00:00:07Z"), pod("c", 5, "1970-01-01T00:00:03Z")], now=100)
    >>> t / 1e9
    3.0
    """
    if not pods:
        return None
    earliest = get_pod_start_time(pods[0], now)
    max_priority = pod_priority(pods[0])
    for pod in pods:
        priority = pod_priority(pod)
        if priority == max_priority:
            earliest = min(earliest, get_pod_start_time(pod, now))
        elif priority > max_priority:
            max_priority = priority
            earliest = get_pod_start_time(pod, now)
    return earliest


def more_important_pod(pod1: Pod, pod2: Pod, now: float) -> bool:
    """Whether ``pod1`` matters more than ``pod2``: higher priority, else earlier start.

    >>> old = Pod.from_dict({"metadata": {"name": "old"}, "spec": {"priority": 10},
    ...                      "status": {"startTime": "1970-01-01T00:00:01Z"}})
    >>> new = Pod.from_dict({"metadata": {"name": "new"}, "spec": {"priority": 10}})
    >>> more_important_pod(old, new, now=60.0), more_important_pod(new, old, now=60.0)
    (True, False)
    """
    p1, p2 = pod_priority(pod1), pod_priority(pod2)
    if p1 != p2:
        return p1 > p2
    return get_pod_start_time(pod1, now) < get_pod_start_time(pod2, now)


def patch_pod_status(client: Any, pod: Pod, change: Callable[[PodStatus], PodStatus]) -> None:
    """Apply ``change`` to the current status of ``pod`` and write it; nothing if it changes nothing.

    Retries on Conflict (someone wrote the pod meanwhile); raises any other
    :class:`~framework.apiserver.errors.APIError`, NotFound included, as
    ``PatchPodStatus`` returns it.
    """
    for attempt in range(PATCH_RETRIES):
        current = client.get(Pod, pod.name, namespace=pod.namespace)
        status = change(current.status)
        if status == current.status:
            return
        try:
            client.update_status(dataclasses.replace(current, status=status))
            return
        except Conflict:
            if attempt == PATCH_RETRIES - 1:
                raise


def delete_pod(client: Any, pod: Pod) -> None:
    """Delete ``pod`` with ``DeleteOptions{}``: the pod's own grace period (``DeletePod``).

    A pod bound to a node is only marked (``deletionTimestamp``) for
    ``terminationGracePeriodSeconds``; the kubelet, which this project does
    not have, would then remove it.
    """
    client.delete(Pod, pod.name, pod.namespace, grace_period_seconds=None)


def clear_nominated_node_name(client: Any, pods: Iterable[Pod]) -> list[APIError]:
    """Clear ``status.nominatedNodeName`` of each pod that has one (``ClearNominatedNodeName``).

    Returns the errors, one per pod that could not be written (Kubernetes
    aggregates them); a pod whose nomination is only in the scheduler's
    memory, not yet in its status, is skipped, as in Kubernetes.
    """
    errors: list[APIError] = []
    for pod in pods:
        if not pod.status.nominated_node_name:
            continue
        try:
            patch_pod_status(
                client, pod, lambda status: dataclasses.replace(status, nominated_node_name="")
            )
        except APIError as error:
            errors.append(error)
    return errors
