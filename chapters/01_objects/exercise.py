"""Chapter 1 exercise: compute a pod's QoS class.

Fill in :func:`compute_pod_qos`, then check it::

    python -m pytest chapters/01_objects --exercise

The tests are the same ones that run against the reference code in
``framework/objects/qos.py``; they pass once your function agrees with
Kubernetes on every case. Stuck? ``python -m framework hint 1`` shows the
hints one at a time.
"""

from __future__ import annotations

from enum import StrEnum

from framework.objects import Pod

__all__ = ["QOS_COMPUTE_RESOURCES", "QOSClass", "compute_pod_qos"]


class QOSClass(StrEnum):
    """The three classes, each the string Kubernetes writes in ``status.qosClass``. (Given.)"""

    GUARANTEED = "Guaranteed"
    BURSTABLE = "Burstable"
    BEST_EFFORT = "BestEffort"


QOS_COMPUTE_RESOURCES = frozenset({"cpu", "memory"})
"""The only resources that count for the class. (Given.)"""


def compute_pod_qos(pod: Pod) -> QOSClass:
    """Return ``QOSClass.GUARANTEED``, ``QOSClass.BURSTABLE`` or ``QOSClass.BEST_EFFORT``.

    Read the pod's containers *and* init containers
    (``pod.spec.containers``, ``pod.spec.init_containers``). Each container
    has ``container.resources.requests`` and ``container.resources.limits``:
    mappings from a resource name (``"cpu"``, ``"memory"``, ...) to a
    :class:`~framework.objects.Quantity`, whose exact value is
    ``quantity.value`` (a :class:`decimal.Decimal`).
    """
    # TODO 1: add up, per resource, the positive cpu and memory requests of
    #         every container (other resources and zero quantities do not count).
    # TODO 2: do the same for limits, and note whether every container sets a
    #         positive limit for both cpu and memory.
    # TODO 3: decide: nothing at all -> BestEffort; every container limited and
    #         summed requests equal to summed limits -> Guaranteed; else Burstable.
    raise NotImplementedError(
        "chapter 1 exercise: write compute_pod_qos in chapters/01_objects/exercise.py "
        "(the rule is in the chapter's 'Exercise' section; hints: python -m framework hint 1)"
    )
