"""Chapter 2 done right: priority, then QoS class, then timestamp. Must pass."""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import skeleton_namespace

globals().update(skeleton_namespace("02_queue"))
Skeleton: Any = globals()["QOSSort"]
QOSClass: Any = globals()["QOSClass"]
get_pod_qos: Any = globals()["get_pod_qos"]
pod_priority: Any = globals()["pod_priority"]

RANK = {QOSClass.GUARANTEED: 0, QOSClass.BURSTABLE: 1, QOSClass.BEST_EFFORT: 2}


class QOSSort(Skeleton):  # type: ignore[misc]
    def class_key(self, pod: Any) -> Any:
        return RANK[get_pod_qos(pod)]

    def tie(self, a: Any, b: Any) -> bool:
        return bool(a.timestamp < b.timestamp)

    def less(self, a: Any, b: Any) -> bool:
        p1, p2 = pod_priority(a.pod), pod_priority(b.pod)
        if p1 != p2:
            return bool(p1 > p2)
        c1, c2 = self.class_key(a.pod), self.class_key(b.pod)
        if c1 != c2:
            return bool(c1 < c2)
        return self.tie(a, b)


def new(args: Any, handle: Any) -> QOSSort:
    return QOSSort()
