"""End to end, per volume plugin: where pods with volumes land, and why not elsewhere.

The reasons are kube-scheduler's (v1.33): ``volume_zone.go``,
``volume_restrictions.go``, ``nodevolumelimits/csi.go``,
``volumebinding/volume_binding.go``.
"""

from __future__ import annotations

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Pod
from framework.objects.manifest import loads
from framework.objects.storage import PersistentVolume, PersistentVolumeClaim
from framework.scheduler.scheduler import Scheduler
from framework.simulator import simulate
from framework.simulator.inputs import load_inputs


def node(name: str, zone: str, cpu: int = 8) -> str:
    return f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{topology.kubernetes.io/zone: {zone}, kubernetes.io/hostname: {name}}}
status:
  allocatable: {{cpu: "{cpu}", memory: 32Gi, pods: "110"}}
"""


NODES = node("a1", "a", 64) + node("b1", "b") + node("c1", "c")

WAIT_CLASS = """---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: zonal}
provisioner: pd.csi.storage.gke.io
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions:
  - {key: topology.kubernetes.io/zone, values: [b]}
"""

STATEFULSET = """---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres, resources: {requests: {cpu: 500m}}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      storageClassName: zonal
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 10Gi}}
"""


def failed(result: object, pod: str) -> list[str]:
    return [
        e.message
        for e in result.events  # type: ignore[attr-defined]
        if e.reason == "FailedScheduling" and e.object.endswith(pod)
    ]


def test_a_statefulset_with_wait_for_first_consumer_claims_lands_where_they_can_be_provisioned() -> (
    None
):
    result = simulate(NODES, WAIT_CLASS, STATEFULSET)
    assert result.placements == {"default/db-0": "b1", "default/db-1": "b1"}


def test_the_claims_show_bound_to_volumes_in_the_pods_zone() -> None:
    api = APIServer(FakeClock())
    inputs = load_inputs([NODES, WAIT_CLASS, STATEFULSET])
    for item in inputs.objects:
        api.create(item.obj)
    scheduler = Scheduler(api, clock=FakeClock(), seed=0)
    scheduler.schedule_pending()
    assert api.get(Pod, "db-0").spec.node_name == "b1"
    for claim_name in ("data-db-0", "data-db-1"):
        claim = api.get(PersistentVolumeClaim, claim_name)
        assert claim.status.phase == "Bound", claim
        assert claim.metadata.annotations["volume.kubernetes.io/selected-node"] == "b1"
        volume = api.get(PersistentVolume, claim.spec.volume_name)
        assert volume.status.phase == "Bound"
        assert volume.spec.node_affinity is not None
        (term,) = volume.spec.node_affinity.required.node_selector_terms  # type: ignore[union-attr]
        assert [(r.key, r.values) for r in term.match_expressions] == [
            ("topology.kubernetes.io/zone", ("b",))
        ]


ZONE_A_VOLUME = """---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: disk-a
  labels: {topology.kubernetes.io/zone: a}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  gcePersistentDisk: {pdName: disk-a}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: disk-a
  resources: {requests: {storage: 10Gi}}
"""


def pod_with(name: str, volumes: str, node_name: str = "", cpu: str = "100m") -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  nodeName: "{node_name}"
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: {cpu}}}}}}}]
  volumes: {volumes}
"""


def test_a_pod_whose_volume_is_in_zone_a_never_lands_elsewhere() -> None:
    # Zone a's only node is full: VolumeZone rules out b and c, so the pod stays pending.
    claim = "[{name: data, persistentVolumeClaim: {claimName: data}}]"
    filler = pod_with("filler", "[]", node_name="a1", cpu="64")
    result = simulate(NODES, ZONE_A_VOLUME, filler, pod_with("web", claim))
    assert result.placements["default/web"] is None
    (message, *_) = failed(result, "web")
    assert message.startswith("0/3 nodes are available: 1 Insufficient cpu, ")
    assert "2 node(s) had no available volume zone" in message
    # With room in zone a, it lands there.
    assert simulate(NODES, ZONE_A_VOLUME, pod_with("web", claim)).placements["default/web"] == "a1"


CSI = """---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: csi}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: a1}
spec:
  drivers: [{name: ebs.csi.aws.com, nodeID: a1, allocatable: {count: 1}}]
"""


def claim(name: str) -> str:
    return f"""---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: {name}}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: csi
  resources: {{requests: {{storage: 1Gi}}}}
"""


def test_a_node_at_its_csi_attach_limit_is_skipped_with_kubes_reason() -> None:
    only_a = node("a1", "a")
    uses = "[{{name: v, persistentVolumeClaim: {{claimName: {}}}}}]"
    result = simulate(
        only_a,
        CSI,
        claim("first"),
        claim("second"),
        pod_with("one", uses.format("first")),
        pod_with("two", uses.format("second")),
    )
    assert result.placements["default/one"] == "a1"
    assert result.placements["default/two"] is None
    assert failed(result, "two")[0] == (
        "0/1 nodes are available: 1 node(s) exceed max volume count. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


def test_two_pods_cannot_mount_one_gce_disk_read_write_on_one_node() -> None:
    disk = "[{name: d, gcePersistentDisk: {pdName: shared}}]"
    result = simulate(node("a1", "a"), pod_with("one", disk, "a1"), pod_with("two", disk))
    assert result.placements["default/two"] is None
    assert failed(result, "two")[0].startswith(
        "0/1 nodes are available: 1 node(s) had no available disk."
    )


def test_a_volume_pinned_to_one_node_narrows_the_candidates() -> None:
    local = """---
apiVersion: v1
kind: PersistentVolume
metadata: {name: local-c1}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/disk}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [c1]}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 5Gi}}
"""
    claim_volume = "[{name: data, persistentVolumeClaim: {claimName: data}}]"
    result = simulate(NODES, local, pod_with("web", claim_volume))
    assert result.placements["default/web"] == "c1"
    second = simulate(NODES, local, pod_with("web", claim_volume), pod_with("other", claim_volume))
    assert second.placements["default/other"] == "c1"  # the same claim, now bound on c1


def test_the_manifests_load() -> None:
    assert len(loads(WAIT_CLASS + CSI)) == 3


def test_a_pod_waiting_for_its_claim_is_scheduled_when_the_claim_appears() -> None:
    # VolumeBinding registers PersistentVolumeClaim/Add: the scheduler watches claims and
    # moves the pod back to the active queue when its claim is created.
    clock = FakeClock()
    api = APIServer(clock)
    for obj in loads(node("b1", "b") + WAIT_CLASS):
        api.create(obj)
    (waiting,) = loads(pod_with("web", "[{name: data, persistentVolumeClaim: {claimName: data}}]"))
    api.create(waiting)
    scheduler = Scheduler(api, clock=clock, seed=0)
    scheduler.schedule_pending()
    assert api.get(Pod, "web").spec.node_name == ""
    api.create(
        PersistentVolumeClaim.from_dict(
            {
                "metadata": {"name": "data"},
                "spec": {
                    "storageClassName": "zonal",
                    "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}},
                },
            }
        )
    )
    clock.advance(2)  # past the pod's backoff: the claim's event moved it to backoffQ
    scheduler.sync()
    scheduler.queue.flush_backoff_q_completed()
    scheduler.schedule_pending()
    assert api.get(Pod, "web").spec.node_name == "b1"
    assert api.get(PersistentVolumeClaim, "data").status.phase == "Bound"
