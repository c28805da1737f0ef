"""A snapshot keeps the Services and controllers default spreading reads, and the replay no extra pods."""

from __future__ import annotations

import framework
from framework.apiserver import APIServer
from framework.cli.snapshot import snapshot, snapshot_text
from framework.clock import FakeClock
from framework.objects.manifest import loads

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}], clusterIP: 10.0.0.7}
"""

RS = {
    "apiVersion": "apps/v1",
    "kind": "ReplicaSet",
    "metadata": {"name": "web-abc", "namespace": "default"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
    },
}


def owned_pod(name: str) -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{app: web}}
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, uid: u, controller: true}}]
spec:
  nodeName: n1
  containers: [{{name: c, image: nginx}}]
"""


def test_services_and_controllers_are_written_and_their_pods_not_made_again() -> None:
    from framework.objects.workloads import ReplicaSet

    api = APIServer(FakeClock())
    for obj in loads(CLUSTER):
        api.create(obj)
    api.create(ReplicaSet.from_dict(RS))
    for name in ("web-abc-x", "web-abc-y"):
        for obj in loads(owned_pod(name)):
            api.create(obj)
    documents = snapshot(api)
    kinds = [(d["kind"], d["metadata"]["name"]) for d in documents]
    assert ("Service", "web") in kinds and ("ReplicaSet", "web-abc") in kinds
    service = next(d for d in documents if d["kind"] == "Service")
    assert service["spec"] == {"selector": {"app": "web"}}  # no clusterIP to clash with
    result = framework.simulate(snapshot_text(documents))
    # The ReplicaSet's two pods are in the file: the replay creates no more.
    assert dict(result.placements) == {"default/web-abc-x": "n1", "default/web-abc-y": "n1"}


STORAGE = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: zonal}
provisioner: pd.csi.storage.gke.io
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: disk-1, labels: {topology.kubernetes.io/zone: b}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: zonal
  csi: {driver: pd.csi.storage.gke.io, volumeHandle: disk-1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: zonal
  volumeName: disk-1
  resources: {requests: {storage: 10Gi}}
---
apiVersion: v1
kind: Node
metadata: {name: b1, labels: {topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers: [{name: db, image: postgres}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""


def test_storage_is_written_and_a_bound_claim_stays_bound_in_the_replay() -> None:
    api = APIServer(FakeClock())
    for obj in loads(CLUSTER + "---\n" + STORAGE):
        api.create(obj)
    documents = snapshot(api)
    kinds = {d["kind"] for d in documents}
    assert {"StorageClass", "PersistentVolume", "PersistentVolumeClaim"} <= kinds
    volume = next(d for d in documents if d["kind"] == "PersistentVolume")
    assert volume["spec"]["claimRef"] == {"namespace": "default", "name": "data"}
    assert volume["status"] == {"phase": "Bound"}
    result = framework.simulate(snapshot_text(documents))
    assert result.placements["default/db"] == "b1"  # VolumeZone: the disk is in zone b


DEVICES = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: g1-gpus}
spec:
  driver: gpu.example.com
  nodeName: g1
  pool: {name: g1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu}}]
---
apiVersion: v1
kind: Node
metadata: {name: g1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: shared}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
"""


def test_devices_are_written_and_an_allocated_device_stays_taken_in_the_replay() -> None:
    from framework.featuregate import new_feature_gates
    from framework.objects.resource import ResourceClaim
    from framework.scheduler.scheduler import Scheduler

    api = APIServer(FakeClock())
    for obj in loads(DEVICES):
        api.create(obj)
    Scheduler(
        api, clock=FakeClock(), seed=0, feature_gates=new_feature_gates("1.34")
    ).schedule_pending()
    assert api.get(ResourceClaim, "shared").status.allocation is not None
    documents = snapshot(api)
    kinds = [d["kind"] for d in documents]
    assert {"DeviceClass", "ResourceSlice", "ResourceClaim"} <= set(kinds)
    claim = next(d for d in documents if d["kind"] == "ResourceClaim")
    assert claim["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"
    assert "reservedFor" not in claim["status"]
    # In the replay the device is still taken: another claim for it finds none free.
    another = """
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: second}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu}}]
---
apiVersion: v1
kind: Pod
metadata: {name: second}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: second}]
  containers: [{name: c, image: x}]
"""
    result = framework.simulate(snapshot_text(documents) + another, emulated_version="1.34")
    assert result.placements["default/trainer"] == "g1"
    assert result.placements["default/second"] is None


def test_gangs_are_written_and_the_replay_keeps_the_waiting_gang_whole() -> None:
    # Issue 20 item 4: scheduling.k8s.io/v1alpha2 Workloads and PodGroups (v1.36+), through
    # serve's HTTP face and the client a real cluster is read with. Their spec is kept, not
    # the PodGroupScheduled condition (the replay's scheduler writes its own).
    from pathlib import Path

    from framework.adapter import KubeClient
    from framework.apiserver.http import APIHTTPServer
    from framework.featuregate import new_feature_gates
    from framework.objects.manifest import load_manifests
    from framework.objects.workload import SchedulingPodGroup
    from framework.scheduler.scheduler import Scheduler
    from tests.serve.helpers import official_client

    example = Path(__file__).resolve().parents[2] / "examples" / "gangs" / "two-gangs-v1.36.yaml"
    gates = {"GenericWorkload": True, "GangScheduling": True}
    api = APIServer(FakeClock())
    for obj in load_manifests(example):
        api.create(obj)
    Scheduler(
        api, clock=FakeClock(), seed=0, feature_gates=new_feature_gates("1.36", gates)
    ).schedule_pending()
    assert api.get(SchedulingPodGroup, "job-b", namespace="default").status.conditions
    with APIHTTPServer(api) as server, official_client(server.url) as api_client:
        documents = snapshot(KubeClient(api_client))
    kinds = [d["kind"] for d in documents]
    assert kinds.count("Workload") == 1 and kinds.count("PodGroup") == 2
    assert kinds.index("PodGroup") < kinds.index("Pod")
    group = next(d for d in documents if d["kind"] == "PodGroup")
    assert group["apiVersion"] == "scheduling.k8s.io/v1alpha2"
    assert group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 8}}
    assert "status" not in group
    text = snapshot_text(documents)
    assert "1 Workload, 2 PodGroup" in text.splitlines()[1]
    result = framework.simulate(text, emulated_version="1.36", feature_gates=gates)
    assert all(result.placements[f"default/job-a-{i}"] for i in range(8))
    assert not any(result.placements[f"default/job-b-{i}"] for i in range(8))
    waiting = {e.message for e in result.events if e.object == "default/job-b-0"}
    assert "waiting for minCount pods from a gang to be scheduled" in waiting


def test_a_pod_groups_priority_is_left_for_the_replays_admission_to_resolve() -> None:
    # As a pod's: spec.priority is what the Priority admission plugin computed from
    # spec.priorityClassName; written back, it would be refused if the classes differ in the
    # replay (a new global default), so only the class name is kept.
    from framework.cli.snapshot import clean
    from framework.objects import ObjectMeta, PriorityClass
    from framework.objects.workload import SchedulingPodGroup

    api = APIServer(FakeClock())
    api.create(PriorityClass(metadata=ObjectMeta(name="batch"), value=10))
    pg = SchedulingPodGroup.from_dict(
        {
            "metadata": {"name": "train", "namespace": "default"},
            "spec": {"priorityClassName": "batch", "schedulingPolicy": {"gang": {"minCount": 2}}},
        }
    )
    stored = api.create(pg)
    assert stored.spec.priority == 10
    written = clean(stored.to_dict())
    assert written is not None
    assert written["spec"]["priorityClassName"] == "batch" and "priority" not in written["spec"]
    replay = APIServer(FakeClock())
    replay.create(PriorityClass(metadata=ObjectMeta(name="batch"), value=20))
    assert replay.create(SchedulingPodGroup.from_dict(written)).spec.priority == 20
