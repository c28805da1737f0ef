"""Chapter 1 done right: a pod's QoS class. Must pass.

:func:`make` builds the function; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from tests.exercise_variants import skeleton_namespace

_given = skeleton_namespace("01_objects")
QOSClass: Any = _given["QOSClass"]
QOS_COMPUTE_RESOURCES: Any = _given["QOS_COMPUTE_RESOURCES"]


def make(
    *,
    skip_init_containers: bool = False,
    every_resource: bool = False,
    one_limit_is_enough: bool = False,
) -> Callable[[Any], Any]:
    def compute_pod_qos(pod: Any) -> Any:
        containers = list(pod.spec.containers)
        if not skip_init_containers:
            containers += list(pod.spec.init_containers)
        requests: dict[str, Decimal] = {}
        limits: dict[str, Decimal] = {}
        all_limited = True
        for container in containers:
            for source, sums in (
                (container.resources.requests, requests),
                (container.resources.limits, limits),
            ):
                for name, quantity in source.items():
                    if (every_resource or name in QOS_COMPUTE_RESOURCES) and quantity.value > 0:
                        sums[name] = sums.get(name, Decimal(0)) + quantity.value
            limited = {
                name
                for name, quantity in container.resources.limits.items()
                if name in QOS_COMPUTE_RESOURCES and quantity.value > 0
            }
            if (not limited) if one_limit_is_enough else (limited != set(QOS_COMPUTE_RESOURCES)):
                all_limited = False
        if not requests and not limits:
            return QOSClass.BEST_EFFORT
        if all_limited and requests == limits:
            return QOSClass.GUARANTEED
        return QOSClass.BURSTABLE

    return compute_pod_qos


compute_pod_qos = make()
