"""Chapter 7 done right: NodeResourcesFit's arithmetic. Must pass.

:func:`make` builds ``fits_request`` (and ``fits`` over it); each wrong
variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.exercise_variants import skeleton_namespace

_given = skeleton_namespace("07_filtering")
InsufficientResource: Any = _given["InsufficientResource"]
insufficient_reason: Any = _given["insufficient_reason"]
ERR_REASON_TOO_MANY_PODS: str = _given["ERR_REASON_TOO_MANY_PODS"]
is_extended_resource_name: Any = _given["is_extended_resource_name"]
compute_pod_resource_request: Any = _given["compute_pod_resource_request"]


def make(
    *,
    equal_is_short: bool = False,
    ignore_any_resource: bool = False,
    empty_request_skips_pod_slots: bool = False,
) -> dict[str, Callable[..., Any]]:
    def short_of(wanted: int, left: int) -> bool:
        return wanted >= left if equal_is_short else wanted > left

    def fits_request(
        pod_request: Any,
        node_info: Any,
        ignored_extended_resources: frozenset[str] = frozenset(),
        ignored_resource_groups: frozenset[str] = frozenset(),
    ) -> list[Any]:
        short: list[Any] = []
        have, taken = node_info.allocatable, node_info.requested
        empty = not (
            pod_request.milli_cpu
            or pod_request.memory
            or pod_request.ephemeral_storage
            or pod_request.scalar_resources
        )
        if empty and empty_request_skips_pod_slots:
            return short
        pods = len(node_info.pods)
        if pods + 1 > have.allowed_pod_number:
            short.append(
                InsufficientResource(
                    "pods", ERR_REASON_TOO_MANY_PODS, 1, pods, have.allowed_pod_number
                )
            )
        if empty:
            return short
        for name, wanted, capacity, used in (
            ("cpu", pod_request.milli_cpu, have.milli_cpu, taken.milli_cpu),
            ("memory", pod_request.memory, have.memory, taken.memory),
            (
                "ephemeral-storage",
                pod_request.ephemeral_storage,
                have.ephemeral_storage,
                taken.ephemeral_storage,
            ),
        ):
            if wanted > 0 and short_of(wanted, capacity - used):
                short.append(
                    InsufficientResource(name, insufficient_reason(name), wanted, used, capacity)
                )
        for name in sorted(pod_request.scalar_resources):
            wanted = pod_request.scalar_resources[name]
            if wanted == 0:
                continue
            if ignore_any_resource or is_extended_resource_name(name):
                if name in ignored_extended_resources:
                    continue
                if name.split("/")[0] in ignored_resource_groups:
                    continue
            capacity = have.scalar_resources.get(name, 0)
            used = taken.scalar_resources.get(name, 0)
            if short_of(wanted, capacity - used):
                short.append(
                    InsufficientResource(name, insufficient_reason(name), wanted, used, capacity)
                )
        return short

    def fits(pod: Any, node_info: Any) -> list[Any]:
        return fits_request(compute_pod_resource_request(pod), node_info)

    return {"fits_request": fits_request, "fits": fits}


globals().update(make())
