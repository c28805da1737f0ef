"""The workload objects: Service, ReplicaSet, StatefulSet, ReplicationController, Deployment, DaemonSet, Job.

kube-scheduler reads these for one thing only: PodTopologySpread's default
constraints (and, before v1.19, SelectorSpread) need a selector for "the
pod's siblings", and ``helper.DefaultSelector`` builds it from the Services
whose ``spec.selector`` matches the pod and from the pod's controller, if
that is a ReplicationController, a ReplicaSet or a StatefulSet
(:func:`framework.plugins.podtopologyspread.default_selector`).

The fake API server stores Deployments, DaemonSets and Jobs too, and its
workload controllers (:mod:`framework.simulator.controllers`) turn them
into pods; the counts those controllers read (``replicas``,
``parallelism``, ``completions``) are typed as well.

So only the selectors and counts are typed here; everything else (a Service's ports,
a controller's ``template``...) travels in ``extra`` or as plain data and
comes back unchanged on output.

>>> svc = Service.from_dict({"metadata": {"name": "web"}, "spec": {"selector": {"app": "web"}}})
>>> dict(svc.spec.selector)
{'app': 'web'}
>>> rs = ReplicaSet.from_dict({"apiVersion": "apps/v1", "kind": "ReplicaSet",
...     "metadata": {"name": "web-1"},
...     "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {}}})
>>> rs.spec.selector.match_labels["app"]
'web'

Mirrors ``k8s.io/api/core/v1`` (``Service``, ``ServiceSpec``,
``ReplicationController``) and ``k8s.io/api/apps/v1`` (``ReplicaSet``,
``StatefulSet``, ``Deployment``, ``DaemonSet``) and ``k8s.io/api/batch/v1``
(``Job``), v1.33. Simplified: no status beyond what is given, and a
Service's empty ``selector`` is the same as none (Go's ``omitempty`` drops an
empty map on the wire, so kube-scheduler's informer sees ``nil`` too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from framework.objects.meta import Extra, KubeObject, LabelSelector, ObjectMeta, extra_field
from framework.objects.schema import Model

__all__ = [
    "DaemonSet",
    "DaemonSetSpec",
    "Deployment",
    "DeploymentSpec",
    "Job",
    "JobSpec",
    "ReplicaSet",
    "ReplicaSetSpec",
    "ReplicationController",
    "ReplicationControllerSpec",
    "Service",
    "ServiceSpec",
    "StatefulSet",
    "StatefulSetSpec",
]


@dataclass(frozen=True, slots=True)
class ServiceSpec(Model):
    """``spec``: the pods the Service routes to (``selector``); ports and the rest stay in ``extra``."""

    selector: Mapping[str, str] = field(default_factory=dict)
    type: str = ""
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Service(KubeObject):
    """``v1.Service``: only its selector matters to the scheduler."""

    KIND: ClassVar[str] = "Service"

    api_version: str = "v1"
    kind: str = "Service"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: ServiceSpec = field(default_factory=ServiceSpec)
    status: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ReplicationControllerSpec(Model):
    """``spec``: a map selector (the old form), the replica count and the pod template."""

    replicas: int | None = None
    selector: Mapping[str, str] = field(default_factory=dict)
    template: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ReplicationController(KubeObject):
    """``v1.ReplicationController``."""

    KIND: ClassVar[str] = "ReplicationController"

    api_version: str = "v1"
    kind: str = "ReplicationController"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: ReplicationControllerSpec = field(default_factory=ReplicationControllerSpec)
    status: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ReplicaSetSpec(Model):
    """``spec``: the label selector of its pods, the replica count and the pod template."""

    replicas: int | None = None
    selector: LabelSelector | None = None
    template: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class ReplicaSet(KubeObject):
    """``apps/v1`` ReplicaSet."""

    KIND: ClassVar[str] = "ReplicaSet"
    API_VERSION: ClassVar[str] = "apps/v1"

    api_version: str = "apps/v1"
    kind: str = "ReplicaSet"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: ReplicaSetSpec = field(default_factory=ReplicaSetSpec)
    status: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class StatefulSetSpec(Model):
    """``spec``: selector, replicas, template, and the claim templates each replica gets a PVC of."""

    replicas: int | None = None
    selector: LabelSelector | None = None
    template: Any = None
    service_name: str = ""
    volume_claim_templates: tuple[Any, ...] = ()
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class StatefulSet(KubeObject):
    """``apps/v1`` StatefulSet."""

    KIND: ClassVar[str] = "StatefulSet"
    API_VERSION: ClassVar[str] = "apps/v1"

    api_version: str = "apps/v1"
    kind: str = "StatefulSet"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: StatefulSetSpec = field(default_factory=StatefulSetSpec)
    status: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DeploymentSpec(Model):
    """``spec``: selector, replicas and the template of the ReplicaSets it creates."""

    replicas: int | None = None
    selector: LabelSelector | None = None
    template: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Deployment(KubeObject):
    """``apps/v1`` Deployment."""

    KIND: ClassVar[str] = "Deployment"
    API_VERSION: ClassVar[str] = "apps/v1"

    api_version: str = "apps/v1"
    kind: str = "Deployment"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: DeploymentSpec = field(default_factory=DeploymentSpec)
    status: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DaemonSetSpec(Model):
    """``spec``: selector and the template of the one pod per eligible node."""

    selector: LabelSelector | None = None
    template: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class DaemonSet(KubeObject):
    """``apps/v1`` DaemonSet."""

    KIND: ClassVar[str] = "DaemonSet"
    API_VERSION: ClassVar[str] = "apps/v1"

    api_version: str = "apps/v1"
    kind: str = "DaemonSet"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: DaemonSetSpec = field(default_factory=DaemonSetSpec)
    status: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class JobSpec(Model):
    """``spec``: how many pods at once (``parallelism``), how many must succeed, the template."""

    parallelism: int | None = None
    completions: int | None = None
    suspend: bool | None = None
    completion_mode: str = ""
    selector: LabelSelector | None = None
    template: Any = None
    extra: Extra = extra_field()


@dataclass(frozen=True, slots=True)
class Job(KubeObject):
    """``batch/v1`` Job."""

    KIND: ClassVar[str] = "Job"
    API_VERSION: ClassVar[str] = "batch/v1"

    api_version: str = "batch/v1"
    kind: str = "Job"
    metadata: ObjectMeta = field(default_factory=ObjectMeta)
    spec: JobSpec = field(default_factory=JobSpec)
    status: Any = None
    extra: Extra = extra_field()
