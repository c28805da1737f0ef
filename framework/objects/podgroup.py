"""The PodGroup: a gang of pods that must be scheduled together, or not at all.

A PodGroup is not a Kubernetes built-in. It is a custom resource of the
``scheduling.x-k8s.io`` API group, defined by a CustomResourceDefinition
that ``kubernetes-sigs/scheduler-plugins`` ships, and read by its
Coscheduling plugin (chapter 10). Pods join a group with a label, not a
field::

    metadata:
      labels:
        scheduling.x-k8s.io/pod-group: train     # the PodGroup's name, in the pod's namespace

What the plugin reads of the group is its ``spec``:

* ``minMember``: how many members must have a node before any of them is
  bound (the quorum);
* ``minResources``: what the members need together, checked against the
  whole cluster's free room before the first member is tried;
* ``scheduleTimeoutSeconds``: how long a member may wait at Permit for the
  others (else the plugin's ``permitWaitingTimeSeconds``).

The ``status`` (phase, ``occupiedBy``, the running, succeeded and failed
counts, ``scheduleStartTime``) is written by scheduler-plugins' PodGroup
*controller*, a separate program. This project has no such controller, so
status stays whatever a client writes with ``update_status``; the plugin
version mirrored here (scheduler-plugins v0.33.5) never reads it.

Mirrors ``PodGroup``, ``PodGroupSpec``, ``PodGroupStatus``, the phases and
``PodGroupLabel`` in ``kubernetes-sigs/scheduler-plugins:apis/scheduling/v1alpha1/types.go``
and the CRD ``manifests/coscheduling/crd.yaml`` (v0.33.5). Simplified: no
``PodGroupList`` type (lists are tuples here, as for every kind). The CRD
declares no ``status.scheduled`` (older releases had one); a manifest that
carries it keeps it in ``extra`` until the API server prunes it
(:mod:`framework.apiserver.customresource`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from framework.clock import parse_rfc3339
from framework.objects.meta import Extra, KubeObject, ObjectMeta, extra_field
from framework.objects.pod import Pod, ResourceList
from framework.objects.schema import Model

__all__ = [
    "POD_GROUP_LABEL",
    "POD_GROUP_PHASES",
    "PodGroup",
    "PodGroupPhase",
    "PodGroupSpec",
    "PodGroupStatus",
    "pod_group_full_name",
    "pod_group_label",
]

GROUP = "scheduling.x-k8s.io"
POD_GROUP_LABEL = f"{GROUP}/pod-group"
"""The label that makes a pod a member of the PodGroup it names (``v1alpha1.PodGroupLabel``)."""


class PodGroupPhase:
    """The phases scheduler-plugins' controller writes into ``status.phase``."""

    PENDING = "Pending"
    """Accepted, but the scheduler cannot find room for ``minMember`` pods yet."""
    RUNNING = "Running"
    """``minMember`` pods are running."""
    SCHEDULING = "Scheduling"
    """``minMember`` pods are scheduled, but not all of them run yet."""
    UNKNOWN = "Unknown"
    """Part of the quorum is scheduled and the rest cannot be (controllers must repair it)."""
    FINISHED = "Finished"
    """``minMember`` pods succeeded."""
    FAILED = "Failed"
    """At least one of the ``minMember`` pods failed."""


POD_GROUP_PHASES = (
    PodGroupPhase.PENDING,
    PodGroupPhase.RUNNING,
    PodGroupPhase.SCHEDULING,
    PodGroupPhase.UNKNOWN,
    PodGroupPhase.FINISHED,
    PodGroupPhase.FAILED,
)


@dataclass(frozen=True, slots=True)
class PodGroupSpec(Model):
    """``spec``: the quorum, the resources it needs together, and how long members wait.

    ``min_member`` is None when the manifest leaves it out. Go reads an
    absent ``minMember`` as 0 (the plugin then asks for no quorum), but the
    CRD's ``minimum: 1`` applies only to a value that is written, so the two
    must stay apart until the API server has validated the object.
    """

    min_member: int | None = None
    min_resources: ResourceList = field(default_factory=dict)
    schedule_timeout_seconds: int | None = None
    extra: Extra = extra_field()

    @property
    def quorum(self) -> int:
        """``minMember`` as the plugin reads it: 0 when absent (Go's zero value)."""
        return self.min_member or 0


@dataclass(frozen=True, slots=True)
class PodGroupStatus(Model):
    """``status``: written by scheduler-plugins' PodGroup controller, which this project lacks."""

    phase: str = ""
    occupied_by: str = ""
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    schedule_start_time: str | None = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class PodGroup(KubeObject):
    """``scheduling.x-k8s.io/v1alpha1`` PodGroup (namespaced).

    >>> pg = PodGroup.from_dict({"apiVersion": "scheduling.x-k8s.io/v1alpha1",
    ...     "kind": "PodGroup", "metadata": {"name": "train", "namespace": "ml"},
    ...     "spec": {"minMember": 3, "minResources": {"cpu": "6"}}})
    >>> pg.key, pg.spec.quorum, str(pg.spec.min_resources["cpu"])
    ('ml/train', 3, '6')
    """

    KIND: ClassVar[str] = "PodGroup"
    API_VERSION: ClassVar[str] = f"{GROUP}/v1alpha1"
    RESOURCE: ClassVar[str] = "podgroups"
    """The plural the CRD gives, which names the REST resource and starts the GVK event name."""

    api_version: str = f"{GROUP}/v1alpha1"
    kind: str = "PodGroup"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: PodGroupSpec = field(default_factory=PodGroupSpec)
    status: PodGroupStatus = field(default_factory=PodGroupStatus)
    extra: Extra = extra_field()

    def created_at(self) -> float | None:
        """``metadata.creationTimestamp`` in seconds since the epoch (None before the server set it)."""
        stamp = self.metadata.creation_timestamp
        if not stamp:
            return None
        return parse_rfc3339(stamp)


def pod_group_label(pod: Pod) -> str:
    """The name of the PodGroup ``pod`` belongs to, "" if none (``util.GetPodGroupLabel``)."""
    return pod.metadata.labels.get(POD_GROUP_LABEL, "")


def pod_group_full_name(pod: Pod) -> str:
    """``namespace/group`` of ``pod``'s PodGroup, "" if none (``util.GetPodGroupFullName``).

    >>> p = Pod.from_dict({"metadata": {"name": "w0", "namespace": "ml",
    ...                    "labels": {POD_GROUP_LABEL: "train"}}})
    >>> pod_group_full_name(p)
    'ml/train'
    """
    name = pod_group_label(pod)
    return f"{pod.namespace}/{name}" if name else ""
