"""Defaulting: the values the API server fills in for fields a manifest leaves out.

Defaulting runs first, as the request body is decoded, so admission plugins,
validation and everyone who reads the stored object see the filled-in values.
Two defaults matter to a scheduler more than they seem to:

* a container that sets a **limit but no request** for a resource gets a
  request equal to the limit, so a "limits only" pod asks the scheduler for
  its limits (and is Guaranteed);
* a pod with ``hostNetwork: true`` gets ``hostPort = containerPort`` on every
  port, which the NodePorts plugin then sees.

Mirrors ``pkg/apis/apps/v1/defaults.go`` and ``pkg/apis/batch/v1/defaults.go`` (the
replica and Job counts only), ``pkg/apis/core/v1/defaults.go`` (``SetDefaults_Pod``,
``SetDefaults_PodSpec``, ``SetDefaults_ContainerPort``,
``SetDefaults_NodeStatus``) and ``pkg/apis/scheduling/v1/defaults.go``
(``SetDefaults_PriorityClass``). Simplified: defaults of fields the scheduler
never reads (``imagePullPolicy``, ``terminationMessagePath``,
``enableServiceLinks``, ``securityContext``) are not filled in; an absent
``allocatable`` cannot be told from an empty one, so both are defaulted.
"""

from __future__ import annotations

import operator
from typing import Any, TypeVar, cast

from framework.apiserver import resource_rules, storage_rules
from framework.objects import (
    Container,
    ContainerPort,
    KubeObject,
    Node,
    Pod,
    PodSpec,
    PriorityClass,
)
from framework.objects.copying import replace
from framework.objects.workloads import DaemonSet, Deployment, Job, ReplicaSet, StatefulSet

__all__ = [
    "DEFAULT_SCHEDULER_NAME",
    "DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS",
    "set_defaults",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30

T = TypeVar("T", bound=KubeObject)


def _default_port(port: ContainerPort, host_network: bool) -> ContainerPort:
    changes: dict[str, Any] = {}
    if not port.protocol:
        changes["protocol"] = "TCP"
    if host_network and port.host_port == 0:
        changes["host_port"] = port.container_port
    return replace(port, **changes) if changes else port


def _default_container(container: Container, host_network: bool) -> Container:
    resources = container.resources
    missing = {k: v for k, v in resources.limits.items() if k not in resources.requests}
    if missing:
        # SetDefaults_Pod: a limit without a request makes the request equal to the limit.
        requests = {**resources.requests, **missing}
        resources = replace(resources, requests=requests)
    ports = tuple(_default_port(p, host_network) for p in container.ports)
    if resources is container.resources and all(map(operator.is_, ports, container.ports)):
        return container  # nothing to fill in: no copy
    return replace(container, resources=resources, ports=ports)


def _default_pod_spec(spec: PodSpec) -> PodSpec:
    grace = spec.termination_grace_period_seconds
    defaulted: dict[str, Any] = {
        "containers": tuple(_default_container(c, spec.host_network) for c in spec.containers),
        "init_containers": tuple(
            _default_container(c, spec.host_network) for c in spec.init_containers
        ),
        "dns_policy": spec.dns_policy or "ClusterFirst",
        "restart_policy": spec.restart_policy or "Always",
        "termination_grace_period_seconds": (
            DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS if grace is None else grace
        ),
        "scheduler_name": spec.scheduler_name or DEFAULT_SCHEDULER_NAME,
    }
    changes = {k: v for k, v in defaulted.items() if not _same(v, getattr(spec, k))}
    return replace(spec, **changes) if changes else spec


def _same(new: Any, old: Any) -> bool:
    """Whether a defaulted value is the one already there (tuples: the very same items)."""
    if isinstance(new, tuple):
        return len(new) == len(old) and all(map(operator.is_, new, old))
    return bool(new == old)


def _default_node(node: Node) -> Node:
    if node.status.allocatable or not node.status.capacity:
        return node
    status = replace(node.status, allocatable=dict(node.status.capacity))
    return replace(node, status=status)


def set_defaults(obj: T) -> T:
    """``obj`` with the API defaults filled in; kinds without defaults come back unchanged."""
    if isinstance(obj, Pod):
        spec = _default_pod_spec(obj.spec)
        return obj if spec is obj.spec else cast(T, replace(obj, spec=spec))
    if isinstance(obj, Node):
        return cast(T, _default_node(obj))
    if isinstance(obj, PriorityClass) and obj.preemption_policy is None:
        return cast(T, replace(obj, preemption_policy="PreemptLowerPriority"))
    if isinstance(obj, Deployment | ReplicaSet | StatefulSet | DaemonSet):
        return cast(T, _default_apps(obj))
    if isinstance(obj, Job):
        return cast(T, _default_job(obj))
    return resource_rules.set_defaults(storage_rules.set_defaults(obj))


#: ``SetDefaults_Deployment``, ``_StatefulSet``, ``_DaemonSet`` (apps/v1): the update strategy
#: ``kubectl rollout status`` insists on, and the other fields kube fills in.
_APPS_DEFAULTS: dict[str, dict[str, Any]] = {
    "Deployment": {
        "strategy": {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
        },
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
    },
    "StatefulSet": {
        "podManagementPolicy": "OrderedReady",
        "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
        "revisionHistoryLimit": 10,
    },
    "DaemonSet": {
        "updateStrategy": {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0},
        },
        "revisionHistoryLimit": 10,
    },
}


def _default_apps(obj: Any) -> Any:
    """One replica, and the strategy fields, where the object leaves them out."""
    spec = obj.spec
    changes: dict[str, Any] = {}
    if getattr(spec, "replicas", 0) is None:
        changes["replicas"] = 1
    missing = {k: v for k, v in _APPS_DEFAULTS.get(obj.KIND, {}).items() if k not in spec.extra}
    if missing:
        changes["extra"] = {**spec.extra, **missing}
    if not changes:
        return obj
    return replace(obj, spec=replace(spec, **changes))


def _default_job(job: Job) -> Job:
    """``SetDefaults_Job`` (batch/v1): neither count given means one pod, once; parallelism 1."""
    spec = job.spec
    if spec.parallelism is not None:
        return job
    completions = 1 if spec.completions is None else spec.completions
    new = replace(spec, completions=completions, parallelism=1)
    return replace(job, spec=new)
