"""Chapter 2, wrong on purpose: compare the QoS class names as strings (hint 3's warning).

"BestEffort" < "Burstable" < "Guaranteed" alphabetically: best effort would go first. Must fail.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import variant_namespace

globals().update(variant_namespace("02_queue", "right"))
Right: Any = globals()["QOSSort"]
get_pod_qos: Any = globals()["get_pod_qos"]


class QOSSort(Right):  # type: ignore[misc]
    def class_key(self, pod: Any) -> Any:
        return str(get_pod_qos(pod))


def new(args: Any, handle: Any) -> QOSSort:
    return QOSSort()
