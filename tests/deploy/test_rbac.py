"""The ClusterRole in ``deploy/rbac.yaml`` grants exactly what the scheduler asks for: no more, no less.

``python -m framework run`` (the adapter: the scheduler on a
:class:`~framework.adapter.client.KubeClient`, with ``deploy/scheduler-config.yaml``)
runs against ``serve`` on loopback while pods are bound, fail, and preempt.
The server records every request; each is turned into the
``(verb, resource, subresource, group)`` an authorizer would check, as
``k8s.io/apiserver/pkg/endpoints/request/requestinfo.go`` does
(:mod:`framework.apiserver.http.requestinfo`), and the set must equal what
the ClusterRole's rules grant (``pkg/apis/rbac/types.go``: a rule grants
each of its verbs on each of its resources, ``pods/binding`` naming a
subresource, in each of its apiGroups).

The scenario walks every path of the default profile that calls the API:
the informers (list, watch), binding, the ``Scheduled`` and repeated
``FailedScheduling`` events, the pod condition (``pods/status``), a
namespaceSelector read by InterPodAffinity, a preemption (PodDisruptionBudgets, deleting
the victim), a pod whose
WaitForFirstConsumer claim VolumeBinding provisions (the volume informers,
the claim's selected node), then, on two nodes, pods behind a Service and a
ReplicaSet, StatefulSet or ReplicationController (PodTopologySpread's
``DefaultSelector``), a claim of a driver that publishes CSIStorageCapacities,
a static binding (PreBind writes the PersistentVolume and reads it, its
claim and the node until bound), a ResourceClaim (DynamicResources'
PreBind writes the claim and its status) and an extended resource a DeviceClass
serves (PostFilter deletes the claim an earlier attempt left, PreBind creates one) — ``pkg/scheduler/schedule_one.go``,
``pkg/scheduler/framework/plugins/defaultpreemption``,
``pkg/scheduler/framework/plugins/interpodaffinity``, ``podtopologyspread``,
``volumebinding``, ``dynamicresources``. The resources are those of kube's
``system:kube-scheduler`` and ``system:volume-scheduler`` roles
(``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go``, v1.33), with
only the verbs this scheduler uses.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.apiserver.http.requestinfo import RequestInfo, request_info
from framework.cli.run import run
from framework.clock import RealClock
from framework.objects import Event, Pod
from framework.objects.manifest import loads
from framework.objects.resource import ResourceClaim, ResourceSlice
from framework.objects.workloads import ReplicaSet, ReplicationController, StatefulSet
from tests.serve.helpers import official_client, wait_until

ROOT = Path(__file__).resolve().parents[2]
RBAC = ROOT / "deploy" / "rbac.yaml"
CONFIG = ROOT / "deploy" / "scheduler-config.yaml"

Grant = tuple[str, str, str, str]  # (verb, resource, subresource, apiGroup)

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""

POD = """
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{app: {name}}}}}
spec:
  schedulerName: kube-scheduling-framework
  priorityClassName: {priority_class}
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""

AFFINE = """
apiVersion: v1
kind: Pod
metadata: {name: affine, namespace: default}
spec:
  schedulerName: kube-scheduling-framework
  containers: [{name: c, image: nginx}]
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: nothing}}
        namespaceSelector: {matchLabels: {team: nobody}}
        topologyKey: kubernetes.io/hostname
"""


VOLUMES = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: zonal}
provisioner: pd.csi.storage.gke.io
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: zonal
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: default}
spec:
  schedulerName: kube-scheduling-framework
  containers: [{name: db, image: postgres, resources: {requests: {cpu: 100m}}}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""


# A second node, so Score runs: PodTopologySpread's system-default constraints take their
# selector from the Services and the controller selecting the pod (DefaultSelector).
SPREAD = """
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "110"}
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {selector: {app: web}, ports: [{port: 80}]}
""" + "".join(
    f"""---
apiVersion: {api}
kind: {kind}
metadata: {{name: {name}, namespace: default}}
spec: {{replicas: 0, selector: {selector}, template: {{metadata: {{labels: {{app: web}}}}}}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}-0
  namespace: default
  labels: {{app: web}}
  ownerReferences: [{{apiVersion: {api}, kind: {kind}, name: {name}, uid: u-{name}, controller: true}}]
spec:
  schedulerName: kube-scheduling-framework
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 10m}}}}}}]
"""
    for api, kind, name, selector in (
        ("apps/v1", "ReplicaSet", "web-rs", "{matchLabels: {app: web}}"),
        ("apps/v1", "StatefulSet", "web-ss", "{matchLabels: {app: web}}"),
        ("v1", "ReplicationController", "web-rc", "{app: web}"),
    )
)

# A driver that publishes capacity (VolumeBinding lists the CSIStorageCapacities), a
# static binding (PreBind writes the volume's claimRef, then reads what it wrote), and a
# device claim (DynamicResources' PreBind writes the claim and its status).
MORE_VOLUMES = """
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: counted}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: room, namespace: default}
storageClassName: counted
capacity: 10Gi
nodeTopology: {matchLabels: {kubernetes.io/hostname: n2}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: manual}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: static}
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  capacity: {storage: 1Gi}
  csi: {driver: ebs.csi.aws.com, volumeHandle: static}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: counted, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: counted
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: static, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: stateful, namespace: default}
spec:
  schedulerName: kube-scheduling-framework
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 10m}}}]
  volumes:
  - {name: counted, persistentVolumeClaim: {claimName: counted}}
  - {name: static, persistentVolumeClaim: {claimName: static}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  extendedResourceName: example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n2-gpus}
spec:
  driver: gpu.example.com
  nodeName: n2
  pool: {name: n2, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, namespace: default}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default}
spec:
  schedulerName: kube-scheduling-framework
  resourceClaims: [{name: gpu, resourceClaimName: gpu}]
  containers: [{name: c, image: nginx, resources: {claims: [{name: gpu}], requests: {cpu: 10m}}}]
"""


# A pod asking for example.com/gpu, which only the DeviceClass above will serve
# (DRAExtendedResource): it waits until the class exists, then finds a claim left by an
# earlier attempt (PostFilter deletes it), and gets one PreBind creates.
EXTENDED = """
apiVersion: v1
kind: Pod
metadata: {name: gpu-ext, namespace: default}
spec:
  schedulerName: kube-scheduling-framework
  containers: [{name: c, image: cuda, resources: {limits: {example.com/gpu: "1"}}}]
"""


def stale_claim(owner: Pod) -> ResourceClaim:
    """The special claim an earlier attempt created for ``owner`` and failed to use."""
    return ResourceClaim.from_dict(
        {
            "metadata": {
                "name": "gpu-ext-extended-resources-old",
                "namespace": "default",
                "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "name": owner.metadata.name,
                        "uid": owner.metadata.uid,
                        "controller": True,
                    }
                ],
            },
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "container-0-request-0",
                            "exactly": {"deviceClassName": "gpu.example.com"},
                        }
                    ]
                }
            },
        }
    )


def claims(api: APIServer) -> list[str]:
    return [c.metadata.name for c in api.list(ResourceClaim, "default").items]


def controller(obj: Any) -> Any:
    """A controller the manifest loader left unstructured, as the API server's typed object."""
    kinds = {"ReplicaSet": ReplicaSet, "StatefulSet": StatefulSet}
    kinds["ReplicationController"] = ReplicationController
    kind = kinds.get(getattr(obj, "kind", ""))
    return obj if kind is None else kind.from_dict(obj.to_dict())


def pod(name: str, cpu: str, priority_class: str = "") -> Pod:
    (made,) = loads(POD.format(name=name, cpu=cpu, priority_class=priority_class))
    assert isinstance(made, Pod)
    return made


def granted(path: Path = RBAC) -> set[Grant]:
    """Every (verb, resource, subresource, group) the ClusterRole in ``path`` grants."""
    (role,) = [d for d in yaml.safe_load_all(path.read_text()) if d and d["kind"] == "ClusterRole"]
    grants: set[Grant] = set()
    for rule in role["rules"]:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                name, _, subresource = resource.partition("/")
                grants |= {(verb, name, subresource, group) for verb in rule["verbs"]}
    return grants


def as_grant(info: RequestInfo) -> Grant:
    return (info.verb, info.resource, info.subresource, info.api_group)


class Recorder:
    """The server's request hook: every request, as an authorizer sees it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.infos: list[RequestInfo] = []

    def __call__(self, method: str, target: str) -> None:
        with self._lock:
            self.infos.append(request_info(method, target))

    def grants(self) -> set[Grant]:
        with self._lock:
            return {as_grant(i) for i in self.infos if i.is_resource_request}

    def non_resource(self) -> set[str]:
        with self._lock:
            return {i.path for i in self.infos if not i.is_resource_request}


@pytest.fixture
def recorded() -> Iterator[tuple[APIServer, Recorder]]:
    """``run --config deploy/scheduler-config.yaml`` against a recording ``serve --no-scheduler``."""
    api = APIServer(RealClock())
    for obj in loads(CLUSTER):
        api.create(obj)
    recorder = Recorder()
    stop = threading.Event()
    ready: list[object] = []
    codes: list[int] = []
    with APIHTTPServer(api, on_request=recorder) as server, official_client(server.url) as client:
        thread = threading.Thread(
            target=lambda: codes.append(
                run(api_client=client, config=str(CONFIG), stop=stop, on_ready=ready.append)
            )
        )
        thread.start()
        try:
            wait_until(lambda: bool(ready) or bool(codes))
            assert ready, f"run exited with {codes}"
            yield api, recorder
        finally:
            stop.set()
            thread.join(timeout=60)
    assert codes == [0]


def failures(api: APIServer, name: str) -> int:
    """How many times ``name`` has failed to schedule, as its FailedScheduling events count."""
    return sum(
        e.count
        for e in api.list(Event).items
        if e.reason == "FailedScheduling" and e.involved_object.name == name
    )


def node_of(api: APIServer, name: str) -> str:
    return api.get(Pod, name, namespace="default").spec.node_name


def test_the_cluster_role_grants_exactly_what_the_scheduler_asks_for(
    recorded: tuple[APIServer, Recorder],
) -> None:
    api, recorder = recorded
    expected = granted()
    api.create(pod("low", "1500m"))
    wait_until(lambda: node_of(api, "low") == "n1")  # informers, binding, Scheduled
    api.create(pod("big", "3"))  # fits nowhere: FailedScheduling, PodScheduled=False
    wait_until(lambda: failures(api, "big") == 1)
    api.create(pod("tick", "100m"))
    wait_until(lambda: node_of(api, "tick") == "n1")
    api.delete(Pod, "tick", "default", grace_period_seconds=0)  # room freed: big is tried again
    wait_until(lambda: failures(api, "big") == 2)  # failing the same way: the event is counted
    (affine,) = loads(AFFINE)
    api.create(affine)  # InterPodAffinity lists namespaces by label
    api.create(pod("high", "1", "high"))  # preempts low: PDBs listed, low deleted
    for obj in loads(VOLUMES):
        api.create(obj)  # VolumeBinding: a WaitForFirstConsumer claim provisioned in PreBind
    wait_until(lambda: node_of(api, "db") != "")
    (extended,) = loads(EXTENDED)
    api.create(extended)  # no class serves example.com/gpu yet: Insufficient example.com/gpu
    wait_until(lambda: failures(api, "gpu-ext") >= 1)
    api.create(stale_claim(api.get(Pod, "gpu-ext", namespace="default")))
    n2, *spread = loads(SPREAD)
    api.create(n2)
    for obj in loads(MORE_VOLUMES):
        api.create(obj)
    wait_until(lambda: node_of(api, "stateful") == "n2")
    wait_until(lambda: node_of(api, "trainer") == "n2")
    # The class made gpu-ext schedulable again; PostFilter deleted the stale claim. A change
    # to the slice moves the pod again (DynamicResources' ResourceSlice/Update event).
    wait_until(lambda: "gpu-ext-extended-resources-old" not in claims(api))
    (gpus,) = [s for s in api.list(ResourceSlice).items if s.metadata.name == "n2-gpus"]
    api.update(gpus.with_metadata(labels={"touched": "yes"}))
    wait_until(lambda: node_of(api, "gpu-ext") == "n2")
    assert any(name.startswith("gpu-ext-extended-resources-") for name in claims(api))
    # The scheduler has seen n2 now: the web pods have two feasible nodes, so Score (where
    # DefaultSelector reads the controllers) runs; with only one it would be skipped.
    for obj in spread:
        api.create(controller(obj))  # DefaultSelector: the Service, then each pod's controller
    for name in ("web-rs-0", "web-ss-0", "web-rc-0"):
        wait_until(lambda name=name: node_of(api, name) != "")
    deadline = time.monotonic() + 60
    while not expected <= recorder.grants() and time.monotonic() < deadline:
        threading.Event().wait(0.05)
    asked = recorder.grants()
    assert asked - expected == set(), (
        f"requests the ClusterRole does not grant: {sorted(asked - expected)}"
    )
    assert expected - asked == set(), "grants no request needed (or the scenario missed a path)"


def test_requests_outside_the_resources_are_none_but_discovery(
    recorded: tuple[APIServer, Recorder],
) -> None:
    """The adapter never asks for discovery documents; every authenticated user may read them anyway.

    (``system:discovery`` and ``system:public-info-viewer``, bound to all
    authenticated users in ``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go``.)
    """
    api, recorder = recorded
    api.create(pod("one", "100m"))
    wait_until(lambda: node_of(api, "one") == "n1")
    assert recorder.non_resource() <= {"/api", "/apis", "/version"}


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        pytest.param(
            "- {apiGroups: [''], resources: [pods, pods/binding], verbs: [get, create]}",
            {("get", "pods", "", ""), ("create", "pods", "", ""),
             ("get", "pods", "binding", ""), ("create", "pods", "binding", "")},
            id="each verb on each resource",
        ),
        pytest.param(
            "- {apiGroups: [policy], resources: [poddisruptionbudgets], verbs: [list]}",
            {("list", "poddisruptionbudgets", "", "policy")},
            id="a named group",
        ),
    ],
)  # fmt: skip
def test_how_rules_are_read(tmp_path: Path, rules: str, expected: set[Grant]) -> None:
    role = tmp_path / "role.yaml"
    role.write_text(f"kind: ClusterRole\nrules:\n{rules}\n")
    assert granted(role) == expected
