"""The workload manifests shared by the controller tests and the kubectl tests.

``tests/simulate/test_workload_controllers.py`` drives the workload
controllers on a fake clock; ``tests/serve/test_kubectl_workloads.py`` applies
the same kinds with the real kubectl to ``serve``. Both build their Nodes,
Deployments, StatefulSets, DaemonSets and Jobs here, as the plain dicts a
manifest holds (``as_yaml`` writes them as one multi-document file).
"""

from __future__ import annotations

from typing import Any

import yaml

GPU_TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}

API_VERSIONS = {
    "Deployment": "apps/v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "Job": "batch/v1",
    "ReplicationController": "v1",
}


def node(name: str, taints: list[dict[str, str]] | None = None, cpu: str = "4") -> dict[str, Any]:
    """A Node manifest with ``cpu`` CPUs, 8Gi of memory and room for 110 pods."""
    room = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "spec": {"taints": taints or []},
        "status": {"capacity": room, "allocatable": room},
    }


def template(
    app: str | None = "web",
    container: str = "c",
    image: str = "nginx",
    cpu: str | None = None,
    **pod_spec: Any,
) -> dict[str, Any]:
    """A pod template: one container, labelled ``app`` (no labels if None); ``pod_spec`` adds fields."""
    one: dict[str, Any] = {"name": container, "image": image}
    if cpu is not None:
        one["resources"] = {"requests": {"cpu": cpu}}
    out: dict[str, Any] = {"spec": {**pod_spec, "containers": [one]}}
    if app is not None:
        out["metadata"] = {"labels": {"app": app}}
    return out


def workload(
    kind: str, name: str, pod_template: dict[str, Any] | None = None, **spec: Any
) -> dict[str, Any]:
    """A workload manifest of ``kind``; its selector matches its template's ``app`` label.

    ``spec`` adds fields to the spec as they are named in the manifest
    (``replicas=3``, ``serviceName="db"``). A Job's selector is left for the
    API server to generate, as kube's is.
    """
    pod_template = template() if pod_template is None else pod_template
    body: dict[str, Any] = {**spec, "template": pod_template}
    labels = pod_template.get("metadata", {}).get("labels")
    if labels and kind == "ReplicationController":
        body["selector"] = dict(labels)  # a plain map, not a LabelSelector
    elif labels and kind != "Job":
        body["selector"] = {"matchLabels": dict(labels)}
    return {
        "apiVersion": API_VERSIONS[kind],
        "kind": kind,
        "metadata": {"name": name},
        "spec": body,
    }


def daemon_set() -> dict[str, Any]:
    """The DaemonSet ``agent``, which tolerates no taint of its own."""
    return workload("DaemonSet", "agent", template("agent", image="fluentd"))


def as_yaml(*manifests: dict[str, Any]) -> str:
    """The manifests as one multi-document YAML file, in order."""
    return yaml.safe_dump_all(manifests, sort_keys=False)
