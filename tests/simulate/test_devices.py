"""End to end: GPU pods asking for devices through ResourceClaimTemplates.

A pod lands only on a node whose ResourceSlice has a free device of the
class; its claim (made from the template by the resourceclaim controller's
part of the fake API server) shows the allocation and the pod in
``reservedFor`` afterwards. Reasons are kube-scheduler's
(``dynamicresources.go``: "cannot allocate all claims").
"""

from __future__ import annotations

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.featuregate import new_feature_gates
from framework.objects import Pod
from framework.objects.resource import ResourceClaim
from framework.scheduler.scheduler import Scheduler
from framework.simulator import simulate
from framework.simulator.inputs import load_inputs

VERSION = "1.34"  # DRA is GA and in the default profile from v1.34


def node(name: str) -> str:
    return f"""---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
status:
  allocatable: {{cpu: "16", memory: 64Gi, pods: "110"}}
"""


def gpu_slice(node_name: str, gpus: int, model: str = "a100") -> str:
    devices = ", ".join(
        f"{{name: gpu-{i}, attributes: {{model: {{string: {model}}}, index: {{int: {i}}}}}, "
        f"capacity: {{memory: {{value: 80Gi}}}}}}"
        for i in range(gpus)
    )
    return f"""---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node_name}-gpu.example.com}}
spec:
  driver: gpu.example.com
  nodeName: {node_name}
  pool: {{name: {node_name}, generation: 1, resourceSliceCount: 1}}
  devices: [{devices}]
"""


CLASS = """---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com}
"""

CLUSTER = (
    node("cpu-1") + node("gpu-1") + node("gpu-2") + gpu_slice("gpu-1", 1) + gpu_slice("gpu-2", 2)
)


def gpu_pod(name: str) -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-gpu}}]
  containers:
  - name: train
    image: trainer
    resources: {{requests: {{cpu: 100m}}, claims: [{{name: gpu}}]}}
"""


def test_gpu_pods_land_only_where_a_device_is_free() -> None:
    pods = "".join(gpu_pod(f"train-{i}") for i in range(4))
    result = simulate(CLUSTER, CLASS, pods, emulated_version=VERSION)
    placed = [n for n in result.placements.values() if n is not None]
    # Three GPUs in the cluster: three pods placed, never on the node without a slice.
    assert sorted(placed) == ["gpu-1", "gpu-2", "gpu-2"]
    assert list(result.placements.values()).count(None) == 1
    (waiting,) = [p for p, n in result.placements.items() if n is None]
    messages = [
        e.message
        for e in result.events
        if e.reason == "FailedScheduling" and e.object.endswith(waiting.split("/")[1])
    ]
    assert messages
    assert "3 cannot allocate all claims" in messages[-1]


def test_the_claim_shows_the_allocation_and_the_pod_after_scheduling() -> None:
    api = APIServer(FakeClock())
    inputs = load_inputs([CLUSTER, CLASS, gpu_pod("train")])
    for item in inputs.objects:
        api.create(item.obj)
    pod = api.get(Pod, "train")
    (status,) = pod.status.extra["resourceClaimStatuses"]
    claim_name = status["resourceClaimName"]
    assert claim_name.startswith("train-gpu-")
    claim = api.get(ResourceClaim, claim_name)
    assert claim.status.allocation is None
    assert claim.metadata.owner_references[0]["uid"] == pod.metadata.uid
    gates = new_feature_gates(VERSION)
    scheduler = Scheduler(api, clock=FakeClock(), seed=0, feature_gates=gates)
    scheduler.schedule_pending()
    bound = api.get(Pod, "train")
    assert bound.spec.node_name in ("gpu-1", "gpu-2")
    claim = api.get(ResourceClaim, claim_name)
    assert claim.status.allocation is not None
    (result,) = claim.status.allocation.devices.results
    assert (result.request, result.driver, result.pool) == (
        "gpu",
        "gpu.example.com",
        bound.spec.node_name,
    )
    assert [r.name for r in claim.status.reserved_for] == ["train"]
    assert "resource.kubernetes.io/delete-protection" in claim.metadata.finalizers
    (term,) = claim.status.allocation.node_selector.node_selector_terms  # type: ignore[union-attr]
    assert [(f.key, f.values) for f in term.match_fields] == [
        ("metadata.name", (bound.spec.node_name,))
    ]


def test_both_engines_place_gpu_pods_alike() -> None:
    # DynamicResources' batch form rejects the nodes with no free device, the allocator
    # decides the others; "both" raises if the two engines disagreed anywhere.
    pods = "".join(gpu_pod(f"train-{i}") for i in range(4))
    both = simulate(CLUSTER, CLASS, pods, emulated_version=VERSION, engine="both")
    reference = simulate(CLUSTER, CLASS, pods, emulated_version=VERSION, engine="reference")
    assert both.placements == reference.placements


TAINTED_GPU = """---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-1-gpu.example.com}
spec:
  driver: gpu.example.com
  nodeName: gpu-1
  pool: {name: gpu-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    taints: [{key: ecc-errors, value: "true", effect: NoSchedule}]
"""

TOLERATING = """---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          tolerations: [{key: ecc-errors, operator: Exists}]
"""


def test_a_tainted_gpu_goes_only_to_a_pod_that_tolerates_it() -> None:
    # v1.37: DRADeviceTaints is GA. The only GPU is tainted: an ordinary claim cannot
    # have it, a claim whose request tolerates the taint can.
    cluster = node("gpu-1") + TAINTED_GPU
    device_class = CLASS.split("---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate")[
        0
    ]
    plain = simulate(cluster, CLASS, gpu_pod("train"), emulated_version="1.37")
    assert plain.placements == {"default/train": None}
    tolerant = simulate(
        cluster, device_class, TOLERATING, gpu_pod("train"), emulated_version="1.37"
    )
    assert tolerant.placements == {"default/train": "gpu-1"}
    # Before v1.36 the gate is off by default: the taint is not looked at.
    old = simulate(cluster, CLASS, gpu_pod("train"), emulated_version="1.35")
    assert old.placements == {"default/train": "gpu-1"}


# --- extended resources backed by DRA (DRAExtendedResource, GA in v1.37) -----------------------

# The class of CLASS (without its template), naming the extended resource it serves.
EXTENDED_CLASS = (
    "---" + CLASS.split("---")[1].rstrip() + "\n  extendedResourceName: example.com/gpu\n"
)


def limits_pod(name: str, gpus: int = 1) -> str:
    """A pod that asks for GPUs the way a device-plugin user does: ``limits``, no claim."""
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers:
  - name: train
    image: trainer
    resources: {{limits: {{example.com/gpu: {gpus}}}}}
"""


def test_an_extended_resource_pod_lands_where_a_device_of_its_class_is_free() -> None:
    # gpu-1 has one GPU, gpu-2 two, cpu-1 none; no node advertises example.com/gpu in
    # allocatable, so NodeResourcesFit leaves it to DynamicResources, which allocates a
    # special claim per pod from the class's devices.
    pods = "".join(limits_pod(f"train-{i}") for i in range(4))
    result = simulate(CLUSTER, EXTENDED_CLASS, pods, emulated_version="1.37")
    placed = [n for n in result.placements.values() if n is not None]
    assert sorted(placed) == ["gpu-1", "gpu-2", "gpu-2"]
    (waiting,) = [p for p, n in result.placements.items() if n is None]
    messages = [
        e.message
        for e in result.events
        if e.reason == "FailedScheduling" and e.object.endswith(waiting.split("/")[1])
    ]
    assert "3 cannot allocate all claims" in messages[-1]


def test_the_special_claim_shows_the_allocation_and_the_pod_its_mapping() -> None:
    api = APIServer(FakeClock())
    for item in load_inputs([CLUSTER, EXTENDED_CLASS, limits_pod("train", 2)]).objects:
        api.create(item.obj)
    scheduler = Scheduler(api, clock=FakeClock(), seed=0, feature_gates=new_feature_gates("1.37"))
    scheduler.schedule_pending()
    bound = api.get(Pod, "train")
    assert bound.spec.node_name == "gpu-2"  # the only node with two free GPUs
    (claim,) = api.list(ResourceClaim, "default").items
    assert claim.metadata.name.startswith("train-extended-resources-")
    assert claim.metadata.annotations == {"resource.kubernetes.io/extended-resource-claim": "true"}
    assert claim.metadata.owner_references[0]["uid"] == bound.metadata.uid
    (request,) = claim.spec.devices.requests
    assert request.name == "container-0-request-0"
    assert request.exactly is not None
    assert (request.exactly.device_class_name, request.exactly.count) == ("gpu.example.com", 2)
    assert claim.status.allocation is not None
    assert [
        (r.request, r.driver, r.pool, r.device) for r in claim.status.allocation.devices.results
    ] == [
        ("container-0-request-0", "gpu.example.com", "gpu-2", "gpu-0"),
        ("container-0-request-0", "gpu.example.com", "gpu-2", "gpu-1"),
    ]
    assert [r.name for r in claim.status.reserved_for] == ["train"]
    assert bound.status.extra["extendedResourceClaimStatus"] == {
        "requestMappings": [
            {
                "containerName": "train",
                "resourceName": "example.com/gpu",
                "requestName": "container-0-request-0",
            }
        ],
        "resourceClaimName": claim.metadata.name,
    }


def test_before_v1_36_the_extended_resource_is_node_resources_fits_alone() -> None:
    result = simulate(CLUSTER, EXTENDED_CLASS, limits_pod("train"), emulated_version="1.35")
    assert result.placements == {"default/train": None}


# --- partitionable devices (DRAPartitionableDevices, beta and on from v1.36) -----------------

PARTITIONS = """---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-1-counters}
spec:
  driver: gpu.example.com
  nodeName: gpu-1
  pool: {name: gpu-1, generation: 1, resourceSliceCount: 2}
  sharedCounters:
  - name: gpu-0-counters
    counters: {memory: {value: 40Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-1-partitions}
spec:
  driver: gpu.example.com
  nodeName: gpu-1
  pool: {name: gpu-1, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-0-half-0
    consumesCounters: [{counterSet: gpu-0-counters, counters: {memory: {value: 20Gi}}}]
  - name: gpu-0-half-1
    consumesCounters: [{counterSet: gpu-0-counters, counters: {memory: {value: 20Gi}}}]
  - name: gpu-0
    consumesCounters: [{counterSet: gpu-0-counters, counters: {memory: {value: 40Gi}}}]
"""


def test_partitions_of_one_gpu_never_overcommit_it() -> None:
    # Two halves and the whole GPU are three devices, but one GPU's 40Gi: two pods get a
    # half each, the third would need the whole, whose memory the halves already spend.
    pods = "".join(gpu_pod(f"train-{i}") for i in range(3))
    result = simulate(node("gpu-1") + PARTITIONS, CLASS, pods, emulated_version="1.37")
    assert sorted(n for n in result.placements.values() if n is not None) == ["gpu-1", "gpu-1"]
    assert list(result.placements.values()).count(None) == 1
    # Before v1.36 the gate is off: devices that consume counters are never allocated.
    result = simulate(node("gpu-1") + PARTITIONS, CLASS, pods, emulated_version="1.35")
    assert set(result.placements.values()) == {None}
