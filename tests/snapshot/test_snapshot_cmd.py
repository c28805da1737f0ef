"""``python -m framework snapshot`` against ``serve`` over HTTP: a live cluster, replayed offline.

The cluster is the fake API server on loopback with the scheduler running on
it, as ``python -m framework serve`` runs them; the snapshot reads it
through the official client, exactly as it would read a kind cluster.
Expectations from Kubernetes:

* a manifest holding a ``resourceVersion`` is refused on create
  (``k8s.io/apiserver/pkg/storage/etcd3/store.go``, ``Create``), so
  the snapshot must drop it, and the server-set ``uid``, timestamps and
  ``managedFields`` with it;
* the Priority admission plugin refuses a pod whose ``spec.priority``
  differs from what it computes (``plugin/pkg/admission/priority/admission.go``);
* kube-scheduler's pod informer leaves out pods that have ``Succeeded`` or
  ``Failed`` (``pkg/scheduler/scheduler.go``, ``newPodInformer``), so they
  hold nothing on their node;
* a pod with ``spec.nodeName`` is bound and is never scheduled again
  (``pkg/scheduler/eventhandlers.go``, ``assignedPod``), so replayed, it
  stays on its node; the replay of a pending pod fails with the same
  ``FailedScheduling`` message the live scheduler wrote
  (``pkg/scheduler/schedule_one.go``, ``handleSchedulingFailure``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import framework
from framework.__main__ import main
from framework.adapter import KubeClient
from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.apiserver.store import BUILTIN_NAMESPACES
from framework.cli.serve import kubeconfig_text
from framework.cli.snapshot import clean, snapshot, snapshot_text
from framework.clock import RealClock, rfc3339
from framework.objects import Event, Pod, PodCondition, PodDisruptionBudget
from framework.objects.manifest import loads
from framework.scheduler.scheduler import Scheduler
from framework.simulator.state import load_state, state_clock
from tests.serve.helpers import official_client, wait_until

ROOT = Path(__file__).resolve().parents[2]

CLUSTER = """
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: shop}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: b}}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
"""

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: shop
  labels: {{app: web}}
  annotations: {{kubectl.kubernetes.io/last-applied-configuration: '{{}}', note: kept}}
spec:
  priorityClassName: {priority_class}
  schedulerName: {scheduler}
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def pod(name: str, cpu: str, scheduler: str = "default-scheduler", priority: str = "high") -> Pod:
    (made,) = loads(POD.format(name=name, cpu=cpu, scheduler=scheduler, priority_class=priority))
    assert isinstance(made, Pod)
    return made


def get_pod(api: APIServer, name: str) -> Pod:
    return api.get(Pod, name, namespace="shop")


@dataclasses.dataclass
class Live:
    api: APIServer
    server: APIHTTPServer
    client: KubeClient


@pytest.fixture
def live() -> Iterator[Live]:
    """``serve``: the fake API server over HTTP with the scheduler on it, two pods bound, two pending."""
    clock = RealClock()
    api = APIServer(clock)
    for obj in loads(CLUSTER):
        api.create(obj)
    scheduler = Scheduler(api, clock=clock, seed=1)
    with APIHTTPServer(api) as server, official_client(server.url) as api_client:
        scheduler.run()
        try:
            api.create(pod("web-1", "1"))
            api.create(pod("web-2", "500m"))
            wait_until(lambda: get_pod(api, "web-1").spec.node_name == "n1")
            wait_until(lambda: get_pod(api, "web-2").spec.node_name == "n1")
            # A pod that ran on n2 and has finished. (On n2, because the live scheduler, unlike
            # kube-scheduler, still counts a finished pod on its node: see run_cmd's docstring.)
            done = pod("batch", "1500m", priority="")
            done = dataclasses.replace(done, spec=dataclasses.replace(done.spec, node_name="n2"))
            created = api.create(done)
            status = dataclasses.replace(created.status, phase="Succeeded")
            api.update_status(dataclasses.replace(created, status=status))
            api.create(pod("big", "1500m"))
            api.create(pod("theirs", "100m", scheduler="other-scheduler"))
            wait_until(lambda: _failed(api, "big"))
            yield Live(api, server, KubeClient(api_client))
        finally:
            scheduler.stop()


def _failed(api: APIServer, name: str) -> str:
    messages = [
        e.message
        for e in api.list(Event, namespace="shop").items
        if e.reason == "FailedScheduling" and e.involved_object.name == name
    ]
    return messages[-1] if messages else ""


def kinds_and_names(documents: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(d["kind"], d["metadata"]["name"]) for d in documents]


def test_the_snapshot_holds_the_cluster_in_creation_order_without_finished_pods(
    live: Live,
) -> None:
    documents = snapshot(live.client)
    names = kinds_and_names(documents)
    assert ("Namespace", "shop") in names
    assert ("PriorityClass", "high") in names
    assert ("PriorityClass", "system-node-critical") not in names  # every server has it
    assert [n for k, n in names if k == "Node"] == ["n1", "n2"]
    assert [n for k, n in names if k == "Pod"] == ["web-1", "web-2", "big", "theirs"]
    assert ("Pod", "batch") not in names  # Succeeded: holds nothing
    kinds = [k for k, _ in names]
    assert kinds == sorted(kinds, key=["Namespace", "PriorityClass", "Node",
                                       "PodDisruptionBudget", "Pod"].index)  # fmt: skip


def test_server_set_fields_are_dropped_and_meaning_is_kept(live: Live) -> None:
    by_name = {d["metadata"]["name"]: d for d in snapshot(live.client)}
    bound, pending, node = by_name["web-1"], by_name["big"], by_name["n2"]
    for document in by_name.values():
        assert set(document["metadata"]) <= {
            "name",
            "namespace",
            "labels",
            "annotations",
            "ownerReferences",
        }  # fmt: skip (nothing here is being deleted)
    assert bound["spec"]["nodeName"] == "n1"
    assert bound["status"]["phase"] == "Pending"  # no kubelet here: bound, never Running
    assert [c["type"] for c in bound["status"]["conditions"]] == ["PodScheduled"]
    assert bound["metadata"]["annotations"] == {"note": "kept"}
    assert "priority" not in bound["spec"] and bound["spec"]["priorityClassName"] == "high"
    assert "nodeName" not in pending["spec"]
    assert node["spec"]["taints"] == [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    assert set(node["status"]) == {"capacity", "allocatable"}
    assert by_name["web"]["status"]["currentHealthy"] == 2  # as the controller wrote it


def test_the_replay_keeps_bound_pods_and_fails_the_pending_one_with_the_live_message(
    live: Live,
) -> None:
    text = snapshot_text(snapshot(live.client), live.server.url)
    result = framework.simulate(text)
    assert result.placements["shop/web-1"] == "n1"
    assert result.placements["shop/web-2"] == "n1"
    assert result.placements["shop/big"] is None
    assert result.placements["shop/theirs"] is None  # not this profile's pod, as in the cluster
    live_message = _failed(live.api, "big")
    assert live_message.startswith("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had")
    replayed = [
        e.message
        for e in result.events
        if e.reason == "FailedScheduling" and e.object.endswith("big")
    ]
    assert replayed and replayed[-1] == live_message


def _explain(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["explain", *args]) == 0
    return out.getvalue()


def test_explain_on_the_snapshot_says_what_it_says_on_the_same_cluster_in_process(
    live: Live, tmp_path: Path
) -> None:
    snapshot_file = tmp_path / "cluster.yaml"
    snapshot_file.write_text(snapshot_text(snapshot(live.client)))
    # The same cluster written by hand: the bound pods given their nodes, the finished one left out.
    by_hand = tmp_path / "by-hand.yaml"
    manifests = [CLUSTER]
    for name, cpu in (("web-1", "1"), ("web-2", "500m"), ("big", "1500m")):
        manifests.append(POD.format(name=name, cpu=cpu, scheduler="default-scheduler",
                                    priority_class="high"))  # fmt: skip
    documents = [d for text in manifests for d in yaml.safe_load_all(text) if d]
    for document in documents[-3:-1]:
        document["spec"]["nodeName"] = "n1"
    by_hand.write_text(yaml.safe_dump_all(documents))
    replayed = _explain("shop/big", str(snapshot_file))
    assert "Insufficient cpu" in replayed
    assert replayed == _explain("shop/big", str(by_hand))


def test_a_pod_given_a_priority_that_the_class_no_longer_has_still_loads() -> None:
    """The replay recomputes the priority from the class, as the Priority admission plugin does."""
    document = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "resourceVersion": "9", "uid": "u"},
        "spec": {"containers": [{"name": "c", "image": "i"}], "priority": 7,
                 "preemptionPolicy": "Never"},
        "status": {"phase": "Running", "podIP": "10.0.0.1"},
    }  # fmt: skip
    cleaned = clean(document)
    assert cleaned is not None
    assert cleaned["metadata"] == {"name": "p", "namespace": "default"}
    assert cleaned["status"] == {"phase": "Running"}
    result = framework.simulate(yaml.safe_dump(cleaned))
    assert result.placements["default/p"] is None  # no nodes: pending, but loaded


@pytest.mark.parametrize(
    ("phase", "kept"),
    [
        pytest.param("Succeeded", False, id="Succeeded is left out"),
        pytest.param("Failed", False, id="Failed is left out"),
        pytest.param("Running", True, id="Running is kept"),
        pytest.param("Pending", True, id="Pending is kept"),
        pytest.param("Unknown", True, id="Unknown is kept"),
    ],
)
def test_which_pods_are_written_by_phase(phase: str, kept: bool) -> None:
    document = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"nodeName": "n1"}, "status": {"phase": phase}}  # fmt: skip
    assert (clean(document) is not None) is kept


def test_the_command_writes_the_snapshot_to_a_file(live: Live, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(live.server.url))
    out = tmp_path / "cluster.yaml"
    env: dict[str, Any] = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "framework", "snapshot", "--kubeconfig", str(kubeconfig)]
    done = subprocess.run(
        [*command, "--namespace", "shop", "-o", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith(f"# python -m framework snapshot of {live.server.url}\n")
    names = kinds_and_names([d for d in yaml.safe_load_all(text) if d])
    assert [n for k, n in names if k == "Namespace"] == ["shop"]
    assert framework.simulate(str(out)).placements["shop/web-1"] == "n1"


def test_an_unreachable_cluster_is_a_clear_error(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text("http://127.0.0.1:9"))  # discard port: nothing listens
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["snapshot", "--kubeconfig", str(kubeconfig)]) == 1
    assert err.getvalue().startswith("error: cannot read the cluster at http://127.0.0.1:9: ")


def test_a_missing_kubeconfig_is_a_clear_error(tmp_path: Path) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["snapshot", "--kubeconfig", str(tmp_path / "missing")]) == 2
    assert err.getvalue().startswith("error: ")


REAL_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "ksf-control-plane",
        "uid": "4b1c0f0e-7d55-4f0b-9a57-2b0f5b1c8a11",
        "resourceVersion": "612",
        "creationTimestamp": "2026-11-29T10:00:00Z",
        "labels": {"kubernetes.io/hostname": "ksf-control-plane", "kubernetes.io/os": "linux"},
        "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        "managedFields": [{"manager": "kubelet", "operation": "Update", "apiVersion": "v1"}],
    },
    "spec": {"podCIDR": "10.244.0.0/24", "providerID": "kind://docker/ksf/ksf-control-plane"},
    "status": {
        "capacity": {"cpu": "8", "memory": "16322460Ki", "pods": "110"},
        "allocatable": {"cpu": "8", "memory": "16322460Ki", "pods": "110"},
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
        "addresses": [{"type": "InternalIP", "address": "172.18.0.2"}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {"kubeletVersion": "v1.33.1", "operatingSystem": "linux"},
        "images": [{"names": ["registry.k8s.io/pause:3.10"], "sizeBytes": 320368}],
    },
}

MIRROR_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "kube-apiserver-ksf-control-plane",
        "namespace": "kube-system",
        "uid": "9a0d1f55-3c2b-4bde-8d1e-0f4c6f1a2b3c",
        "resourceVersion": "400",
        "creationTimestamp": "2026-11-29T10:00:05Z",
        "labels": {"component": "kube-apiserver", "tier": "control-plane"},
        "annotations": {
            "kubernetes.io/config.hash": "d41d8cd98f00b204e9800998ecf8427e",
            "kubernetes.io/config.mirror": "d41d8cd98f00b204e9800998ecf8427e",
            "kubernetes.io/config.source": "file",
        },
        "ownerReferences": [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "name": "ksf-control-plane",
                "uid": "4b1c0f0e-7d55-4f0b-9a57-2b0f5b1c8a11",
                "controller": True,
            }
        ],
        "managedFields": [{"manager": "kubelet", "operation": "Update", "apiVersion": "v1"}],
    },
    "spec": {
        "containers": [
            {
                "name": "kube-apiserver",
                "image": "registry.k8s.io/kube-apiserver:v1.33.1",
                "command": ["kube-apiserver", "--advertise-address=172.18.0.2"],
                "resources": {"requests": {"cpu": "250m"}},
                "livenessProbe": {"httpGet": {"path": "/livez", "port": 6443, "scheme": "HTTPS"}},
                "volumeMounts": [{"name": "k8s-certs", "mountPath": "/etc/kubernetes/pki"}],
            }
        ],
        "volumes": [{"name": "k8s-certs", "hostPath": {"path": "/etc/kubernetes/pki"}}],
        "nodeName": "ksf-control-plane",
        "hostNetwork": True,
        "priorityClassName": "system-node-critical",
        "priority": 2000001000,
        "preemptionPolicy": "PreemptLowerPriority",
        "tolerations": [{"operator": "Exists", "effect": "NoExecute"}],
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
    },
    "status": {
        "phase": "Running",
        "podIP": "172.18.0.2",
        "qosClass": "Burstable",
        "startTime": "2026-11-29T10:00:01Z",
        "conditions": [{"type": "Ready", "status": "True"}],
        "containerStatuses": [{"name": "kube-apiserver", "ready": True, "restartCount": 0}],
    },
}


def test_objects_as_a_real_cluster_returns_them_load_and_replay() -> None:
    """A kind node and its kube-apiserver mirror pod, as ``kubectl get -o json`` shows them."""
    node, mirror = clean(REAL_NODE), clean(MIRROR_POD)
    assert node is not None and mirror is not None
    assert set(node["status"]) == {"capacity", "allocatable", "images"}
    assert "managedFields" not in mirror["metadata"] and "uid" not in mirror["metadata"]
    assert mirror["metadata"]["ownerReferences"][0]["kind"] == "Node"  # kept: who made it
    assert mirror["status"] == {  # what the scheduler reads; not IPs and container states
        "phase": "Running",
        "startTime": "2026-11-29T10:00:01Z",
        "conditions": [{"type": "Ready", "status": "True"}],
    }
    result = framework.simulate(yaml.safe_dump_all([node, mirror]))
    assert result.placements["kube-system/kube-apiserver-ksf-control-plane"] == "ksf-control-plane"


def test_context_picks_the_cluster_and_the_snapshot_goes_to_standard_output(
    live: Live, tmp_path: Path
) -> None:
    """``--context`` as kubectl's: the named context, not the current one, says which server."""
    config = yaml.safe_load(kubeconfig_text("http://127.0.0.1:9"))  # current: nothing listens
    live_config = yaml.safe_load(kubeconfig_text(live.server.url))
    for section in ("clusters", "users", "contexts"):
        entry = live_config[section][0]
        entry["name"] = "live"
        if section == "contexts":
            entry["context"] = {"cluster": "live", "user": "live"}
        config[section].append(entry)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(config))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(
            ["snapshot", "--kubeconfig", str(kubeconfig), "--context", "live", "-n", "shop"]
        )
    assert code == 0
    names = kinds_and_names([d for d in yaml.safe_load_all(out.getvalue()) if d])
    assert [n for k, n in names if k == "Pod"] == ["web-1", "web-2", "big", "theirs"]


def test_every_state_field_survives_serve_snapshot_simulate(live: Live) -> None:
    """The state a kubelet, a scheduler and the disruption controller wrote, read back offline."""
    api = live.api
    web = get_pod(api, "web-1")
    ready = PodCondition(type="Ready", status="True", last_transition_time="2026-12-01T09:00:02Z")
    running = dataclasses.replace(
        web.status,
        phase="Running",
        start_time="2026-12-01T09:00:00.123456789Z",
        conditions=(*web.status.conditions, ready),
    )
    api.update_status(dataclasses.replace(web, status=running))  # the kubelet
    api.delete(Pod, "web-2", "shop", grace_period_seconds=600)  # terminating
    theirs = get_pod(api, "theirs")  # another scheduler's preemption nominated it
    nominated = dataclasses.replace(theirs.status, nominated_node_name="n2")
    api.update_status(dataclasses.replace(theirs, status=nominated))
    budget = api.get(PodDisruptionBudget, "web", "shop")  # the Eviction API let web-1 go
    evicted = {"web-1": rfc3339(RealClock().now())}
    api.update_status(
        dataclasses.replace(
            budget, status=dataclasses.replace(budget.status, disrupted_pods=evicted)
        )
    )
    text = snapshot_text(snapshot(live.client), live.server.url)

    objects = [o for o in loads(text) if o.metadata.name not in BUILTIN_NAMESPACES]
    clock = state_clock(objects)
    replayed = APIServer(clock)
    load_state(replayed, clock, objects)
    for name in ("web-1", "web-2", "big", "theirs"):
        before, after = get_pod(api, name), get_pod(replayed, name)
        assert after.status.phase == before.status.phase, name
        assert after.status.start_time == before.status.start_time, name
        assert after.status.conditions == before.status.conditions, name
        assert after.status.nominated_node_name == before.status.nominated_node_name, name
        assert after.metadata.deletion_timestamp == before.metadata.deletion_timestamp, name
        assert (
            after.metadata.deletion_grace_period_seconds
            == before.metadata.deletion_grace_period_seconds
        ), name
    assert get_pod(replayed, "web-2").metadata.deletion_timestamp is not None
    assert get_pod(replayed, "theirs").status.nominated_node_name == "n2"
    live_budget = api.get(PodDisruptionBudget, "web", "shop").status
    replayed_budget = replayed.get(PodDisruptionBudget, "web", "shop").status
    assert replayed_budget.disrupted_pods == live_budget.disrupted_pods == evicted
    for field in ("current_healthy", "desired_healthy", "disruptions_allowed"):
        assert getattr(replayed_budget, field) == getattr(live_budget, field), field
    # Recomputed from the pods the snapshot holds: the finished batch pod, which the controller
    # counts and the scheduler does not, is not among them.
    assert replayed_budget.expected_pods == live_budget.expected_pods - 1

    # The same decisions: web-2, being deleted, still holds its cpu on n1, so big still fails.
    result = framework.simulate(text)
    assert result.placements["shop/web-1"] == "n1"
    assert result.placements["shop/big"] is None
    replayed_messages = [
        e.message for e in result.events if e.reason == "FailedScheduling" and "big" in e.object
    ]
    wait_until(lambda: _failed(api, "big") == replayed_messages[0])
