"""The real ``kubectl`` on workloads: apply, get with printer columns, scale, rollout status.

What a real cluster (v1.33) answers, and where: the printer columns of
``printDeployment``, ``printReplicaSet``, ``printStatefulSet``,
``printDaemonSet`` and ``printJob`` (``pkg/printers/internalversion/printers.go``);
``kubectl scale`` patches the ``scale`` subresource, an ``autoscaling/v1``
Scale (``pkg/registry/apps/deployment/storage/storage.go``, ``ScaleREST``);
``kubectl rollout status`` waits on the status the controllers write
(``observedGeneration``, ``updatedReplicas``, ``availableReplicas``; kubectl's
``polymorphichelpers/rollout_status.go``); a Job's pods succeed and it is
``Complete``. Server-side apply is not served: kubectl says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kubernetes import client as k8s

from tests.serve.helpers import columns, kubectl, needs_kubectl, official_client, run, wait_until
from tests.simulate.workloads import GPU_TAINT, as_yaml, daemon_set, node, template, workload

pytestmark = needs_kubectl

WORKLOADS = as_yaml(
    node("node-a", cpu="8"),
    node("node-gpu", [GPU_TAINT], cpu="8"),
    workload("Deployment", "web", template(container="nginx", cpu="100m"), replicas=3),
    workload("StatefulSet", "db", template("db", "pg", "postgres"), replicas=2, serviceName="db"),
    daemon_set(),
    workload("Job", "pi", template(None, "pi", "perl", restartPolicy="Never"), completions=2),
)


@pytest.fixture
def workloads(kubeconfig: Path) -> Path:
    out = kubectl(kubeconfig, "apply", "-f", "-", stdin=WORKLOADS)
    assert out.splitlines()[2:] == [
        "deployment.apps/web created",
        "statefulset.apps/db created",
        "daemonset.apps/agent created",
        "job.batch/pi created",
    ]
    return kubeconfig


def test_rollout_status_waits_for_each_workload_and_get_shows_kubes_columns(
    workloads: Path,
) -> None:
    for target in ("deployment/web", "statefulset/db", "daemonset/agent"):
        done = run(workloads, "rollout", "status", target, "--timeout=60s")
        assert done.returncode == 0, done.stderr
    out = kubectl(workloads, "get", "deploy,rs,sts,ds")
    rows = columns(out)
    assert ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"] in rows
    assert any(r[:4] == ["deployment.apps/web", "3/3", "3", "3"] for r in rows)
    assert any(r[0].startswith("replicaset.apps/web-") and r[1:4] == ["3", "3", "3"] for r in rows)
    assert any(r[:2] == ["statefulset.apps/db", "2/2"] for r in rows)
    # The DaemonSet tolerates no taint of its own: the GPU node gets none of its pods.
    assert any(r[:7] == ["daemonset.apps/agent", "1", "1", "1", "1", "1", "<none>"] for r in rows)
    pods = columns(kubectl(workloads, "get", "pods", "--no-headers"))
    assert sorted(r[0] for r in pods if r[0].startswith("db-")) == ["db-0", "db-1"]


def test_scale_goes_through_the_scale_subresource(workloads: Path) -> None:
    assert kubectl(workloads, "scale", "deployment", "web", "--replicas=5").strip() == (
        "deployment.apps/web scaled"
    )
    kubectl(workloads, "scale", "statefulset", "db", "--replicas=1")
    kubectl(workloads, "rollout", "status", "deployment/web", "--timeout=60s")

    def scaled() -> bool:
        names = [r[0] for r in columns(kubectl(workloads, "get", "pods", "--no-headers"))]
        return sum(n.startswith("web-") for n in names) == 5 and "db-1" not in names

    wait_until(scaled)
    scale = kubectl(
        workloads, "get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"
    )
    kubectl(workloads, "set", "image", "deployment/web", "nginx=nginx:1.27")
    kubectl(workloads, "rollout", "status", "deployment/web", "--timeout=60s")
    rows = columns(kubectl(workloads, "get", "rs", "--no-headers"))
    assert sorted(r[1] for r in rows) == ["0", "5"]  # the old set scaled away, the new one whole
    events = kubectl(workloads, "get", "events", "--field-selector", "reason=ScalingReplicaSet")
    assert "Scaled down replica set web-" in events and "Scaled up replica set web-" in events
    # rollout undo patches the old template back: the old set (found by its template) returns.
    old_set = next(r[0] for r in rows if r[1] == "0")
    kubectl(workloads, "rollout", "undo", "deployment/web")
    kubectl(workloads, "rollout", "status", "deployment/web", "--timeout=60s")
    rows = columns(kubectl(workloads, "get", "rs", "--no-headers"))
    assert [r[0] for r in rows if r[1] == "5"] == [old_set]
    scale = kubectl(
        workloads, "get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"
    )
    answer = json.loads(scale)
    assert (answer["kind"], answer["apiVersion"]) == ("Scale", "autoscaling/v1")
    assert answer["status"] == {"replicas": 5, "selector": "app=web"}


def test_a_job_completes_and_deleting_a_deployment_deletes_its_pods(workloads: Path) -> None:
    done = run(workloads, "wait", "--for=condition=complete", "job/pi", "--timeout=60s")
    assert done.returncode == 0, done.stderr
    (row,) = columns(kubectl(workloads, "get", "job", "pi", "--no-headers"))
    assert row[1:3] == ["Complete", "2/2"]
    kubectl(workloads, "delete", "deployment", "web")

    def gone() -> bool:
        out = kubectl(workloads, "get", "pods,rs", "--no-headers")
        return "web-" not in out

    wait_until(gone)


def test_server_side_apply_is_refused_plainly(workloads: Path) -> None:
    done = run(workloads, "apply", "--server-side", "-f", "-", stdin=WORKLOADS)
    assert done.returncode != 0
    assert "Server-side apply not available on the server" in done.stderr


def test_the_official_client_lists_every_workload_with_typed_models(workloads: Path) -> None:
    text = kubectl(
        workloads, "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"
    )
    run(workloads, "rollout", "status", "deployment/web", "--timeout=60s")
    with official_client(text) as api_client:
        apps, batch = k8s.AppsV1Api(api_client), k8s.BatchV1Api(api_client)
        (deployment,) = apps.list_namespaced_deployment("default").items
        assert deployment.status.ready_replicas == 3
        assert apps.list_namespaced_replica_set("default").items[0].spec.replicas == 3
        assert apps.list_namespaced_stateful_set("default").items[0].metadata.name == "db"
        assert (
            apps.list_namespaced_daemon_set("default").items[0].status.desired_number_scheduled
            == 1
        )
        assert batch.list_namespaced_job("default").items[0].spec.completions == 2
        scale = apps.read_namespaced_deployment_scale("web", "default")
        assert scale.spec.replicas == 3
        apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 4}})
        assert apps.read_namespaced_deployment("web", "default").spec.replicas == 4
