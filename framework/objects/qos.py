"""A pod's Quality of Service class: Guaranteed, Burstable or BestEffort.

The kubelet uses the QoS class to decide which pods to evict first when a
node runs short of memory; out-of-tree queue-sort plugins (QOSSort, chapter
on the queue) use it to order pods. The class follows from the containers'
CPU and memory requests and limits only:

* **BestEffort** — no container sets a positive CPU or memory request or limit;
* **Guaranteed** — every container sets positive CPU *and* memory limits, and
  for each of the two resources the pod's summed requests equal its summed
  limits;
* **Burstable** — everything in between.

Init containers count like regular ones; other resources
(``ephemeral-storage``, ``nvidia.com/gpu``) are ignored; a zero quantity
counts as not set.

Note what the rule does **not** do: fill missing requests from limits. The API
server does that when the pod is created (``SetDefaults_Pod``), so a pod whose
manifest sets only limits is Guaranteed *once stored*, while
:func:`compute_pod_qos` on the raw manifest says Burstable.

Mirrors ``ComputePodQOS`` and ``GetPodQOS`` in
``kubernetes/kubernetes:pkg/apis/core/v1/helper/qos/qos.go`` (v1.33).
Simplified: pod-level ``spec.resources`` (``PodLevelResources``, off by
default in v1.33, on from v1.34) is not considered here; the default
scheduler does not read the QoS class (pod requests do follow the gate:
:mod:`framework.objects.resources`).
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

from framework.objects.pod import Pod

__all__ = ["QOSClass", "compute_pod_qos", "get_pod_qos"]


class QOSClass(StrEnum):
    """``v1.PodQOSClass``; each member equals the string Kubernetes writes in ``status.qosClass``."""

    GUARANTEED = "Guaranteed"
    BURSTABLE = "Burstable"
    BEST_EFFORT = "BestEffort"


# Only these two resources decide the class (isSupportedQoSComputeResource).
QOS_COMPUTE_RESOURCES = frozenset({"cpu", "memory"})


def compute_pod_qos(pod: Pod) -> QOSClass:
    """Compute the QoS class from the pod's containers, ignoring ``status.qosClass``."""
    requests: dict[str, Decimal] = {}
    limits: dict[str, Decimal] = {}
    every_container_limits_cpu_and_memory = True

    for container in (*pod.spec.containers, *pod.spec.init_containers):
        for name, quantity in container.resources.requests.items():
            if name in QOS_COMPUTE_RESOURCES and quantity.value > 0:
                requests[name] = requests.get(name, Decimal(0)) + quantity.value

        limited = set()
        for name, quantity in container.resources.limits.items():
            if name in QOS_COMPUTE_RESOURCES and quantity.value > 0:
                limited.add(name)
                limits[name] = limits.get(name, Decimal(0)) + quantity.value
        if limited != QOS_COMPUTE_RESOURCES:
            every_container_limits_cpu_and_memory = False

    if not requests and not limits:
        return QOSClass.BEST_EFFORT
    if every_container_limits_cpu_and_memory and requests == limits:
        return QOSClass.GUARANTEED
    return QOSClass.BURSTABLE


def get_pod_qos(pod: Pod) -> QOSClass:
    """The pod's QoS class: ``status.qosClass`` when the API server has set it, else computed."""
    if pod.status.qos_class:
        return QOSClass(pod.status.qos_class)
    return compute_pod_qos(pod)
