"""``deploy/``: every manifest loads, and they agree with each other on names.

Kinds the project serves (Pods; Deployments, which the simulator expands
into pods) must load with its own manifest loader; the others (RBAC,
ServiceAccount, ConfigMap) must be well-formed YAML with the fields
``kubectl apply`` needs. Expectations from Kubernetes:

* a pod is scheduled by the profile its ``spec.schedulerName`` names, and
  ignored by every other scheduler (``pkg/scheduler/eventhandlers.go``,
  ``responsibleForPod``);
* a ClusterRoleBinding grants its ``roleRef`` to its ``subjects``
  (``pkg/apis/rbac/types.go``); a pod runs as the ServiceAccount its
  ``spec.serviceAccountName`` names, in its own namespace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import framework
from framework.config import load_config, loads_config
from framework.objects import Pod
from framework.objects.manifest import load_manifests
from framework.simulator.inputs import load_inputs

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SCHEDULER_NAME = "kube-scheduling-framework"
MANIFESTS = sorted(DEPLOY.rglob("*.yaml"))

NODE = """
apiVersion: v1
kind: Node
metadata: {name: kind-worker}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def by_kind(kind: str) -> list[dict[str, Any]]:
    return [d for path in MANIFESTS for d in documents(path) if d["kind"] == kind]


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_manifest_loads_with_the_project_loader(path: Path) -> None:
    """Served kinds come back typed; the rest come back whole (Unstructured), never an error."""
    loaded = load_manifests(path)
    assert loaded
    for obj in loaded:
        assert obj.api_version and obj.kind_name()
        # A configuration file is not an API object and has no name; everything else has one.
        assert obj.metadata.name or obj.kind_name() == "KubeSchedulerConfiguration"


def test_the_configuration_names_our_profile_and_the_configmap_holds_the_same_text() -> None:
    config = load_config(DEPLOY / "scheduler-config.yaml")
    assert [p.scheduler_name for p in config.profiles] == [SCHEDULER_NAME]
    (configmap,) = by_kind("ConfigMap")
    embedded = configmap["data"]["scheduler-config.yaml"]
    assert embedded == (DEPLOY / "scheduler-config.yaml").read_text()
    assert loads_config(embedded) == config


def test_the_example_pods_go_to_our_scheduler_and_one_to_the_default() -> None:
    inputs = load_inputs([str(DEPLOY / "examples")])
    names = {
        o.obj.name: o.obj.spec.scheduler_name for o in inputs.objects if isinstance(o.obj, Pod)
    }
    assert names.pop("hello-default") in ("", "default-scheduler")
    assert set(names.values()) == {SCHEDULER_NAME}
    assert len([n for n in names if n.startswith("web-")]) == 3  # the Deployment's replicas


def test_the_examples_simulated_with_the_deployed_configuration() -> None:
    result = framework.simulate(
        NODE, str(DEPLOY / "examples"), config=str(DEPLOY / "scheduler-config.yaml")
    )
    placed = {key: node for key, node in result.placements.items()}
    assert placed["default/hello-ksf"] == "kind-worker"
    assert placed["default/too-big"] is None
    assert placed["default/hello-default"] is None  # another scheduler's pod: not ours to place
    assert sum(1 for k, n in placed.items() if k.startswith("default/web-") and n) == 3


def test_the_scheduler_deployment_runs_as_the_bound_service_account_with_the_configmap() -> None:
    (account,) = by_kind("ServiceAccount")
    (binding,) = by_kind("ClusterRoleBinding")
    (role,) = by_kind("ClusterRole")
    (configmap,) = by_kind("ConfigMap")
    (deployment,) = [d for d in by_kind("Deployment") if d["metadata"]["name"] == SCHEDULER_NAME]
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": role["metadata"]["name"],
    }
    assert binding["subjects"] == [
        {
            "kind": "ServiceAccount",
            "name": account["metadata"]["name"],
            "namespace": account["metadata"]["namespace"],
        }
    ]
    pod = deployment["spec"]["template"]["spec"]
    assert deployment["metadata"]["namespace"] == account["metadata"]["namespace"]
    assert pod["serviceAccountName"] == account["metadata"]["name"]
    assert configmap["metadata"]["namespace"] == deployment["metadata"]["namespace"]
    (volume,) = pod["volumes"]
    assert volume["configMap"]["name"] == configmap["metadata"]["name"]
    (container,) = pod["containers"]
    (mount,) = container["volumeMounts"]
    config_path = container["args"][container["args"].index("--config") + 1]
    assert config_path == f"{mount['mountPath']}/{next(iter(configmap['data']))}"
    assert deployment["spec"]["replicas"] == 1  # no leader election: one replica


def test_the_dockerfile_runs_the_adapter_with_the_mounted_configuration() -> None:
    lines = (DEPLOY / "Dockerfile").read_text().splitlines()
    assert "FROM python:3.11-slim" in lines
    assert 'ENTRYPOINT ["python", "-m", "framework", "run"]' in lines
    assert 'CMD ["--config", "/etc/kube-scheduling-framework/scheduler-config.yaml"]' in lines


def test_the_scheduler_runs_restricted_and_with_a_memory_limit() -> None:
    """The Pod Security Standards' ``restricted`` profile (kubernetes.io/docs/concepts/security/
    pod-security-standards): non-root, no privilege escalation, every capability dropped,
    RuntimeDefault seccomp; and a read-only root filesystem and a memory limit besides."""
    (deployment,) = [d for d in by_kind("Deployment") if d["metadata"]["name"] == SCHEDULER_NAME]
    pod = deployment["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    (container,) = pod["containers"]
    context = container["securityContext"]
    assert context["allowPrivilegeEscalation"] is False
    assert context["readOnlyRootFilesystem"] is True
    assert context["capabilities"]["drop"] == ["ALL"]
    assert "memory" in container["resources"]["limits"]
