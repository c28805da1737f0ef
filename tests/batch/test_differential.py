"""Two engines, one truth: on random clusters the batch engine decides exactly as the reference.

Hypothesis draws clusters (allocatable, extended resources, pods already running, of
several priorities, taints, cordons, zone labels, images, host ports, GPUs in
ResourceSlices), pending pods (requests, extended resources (some a DeviceClass serves),
pod-level requests, node selectors, preferred node affinity, tolerations, host ports,
priorities, spread constraints (by zone, hostname or pool, hard or soft, with their inclusion
policies; the System defaults through Services and ReplicaSets), terminating pods, pod
affinity and anti-affinity, required and preferred, by zone, hostname or pool, across namespaces
and namespace selectors, with ``matchLabelKeys``, on running pods too, GPU claims from a
template, volumes: claims bound to CSI and in-tree EBS volumes with zone labels or zonal node
affinity, unbound WaitForFirstConsumer claims, ReadWriteOncePod claims, in-line EBS and GCE
disks, CSINodes with attach limits), profiles (the default one, LeastAllocated or
MostAllocated, weights, InterPodAffinity's args, an extended resource in Fit's and
BalancedAllocation's scores, ignored extended resources) and ``percentageOfNodesToScore``,
seeds, and the
emulated release (``--emulated-version``). Each
run goes through the simulator with ``engine="both"``: every scheduling
cycle runs the two engines on the same inputs and compares the chosen node,
the nodes evaluated, the feasible nodes in order (so the next start index),
every rejected node's status (so the FitError text, the rejecting plugins
that decide requeueing, and what preemption reads), every weighted score,
and the RNG's state after the host is drawn; and when no node fits,
DefaultPreemption's candidates, victims and dry-run statuses (the batch
search for candidates, :mod:`framework.batch.preemption`, beside the
reference's, from the same random offset). A difference raises
``EngineMismatchError``. Then the whole trace of a ``reference`` run and of
a ``batch`` run must be the same bytes.

What the rules are comes from ``findNodesThatPassFilters``,
``numFeasibleNodesToFind``, ``prioritizeNodes`` and ``selectHost`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one.go`` (v1.33); the
reference engine implements them and its own tests check it against them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import framework
from framework.batch.engine import DifferentialSchedulingAlgorithm, EngineMismatchError
from framework.featuregate import SUPPORTED_VERSIONS
from framework.simulator import run as simulator_run

ZONES = ("zone-a", "zone-b", "zone-c")
GPU = "nvidia.com/gpu"
DRA_GPU = "example.com/gpu"  # the DeviceClass's extendedResourceName, when it has one
EXTENDED: tuple[dict[str, str], ...] = (
    {},
    {},
    {GPU: "0"},
    {GPU: "1"},
    {GPU: "4"},
    {DRA_GPU: "0"},
    {DRA_GPU: "2"},
    {GPU: "4", DRA_GPU: "2"},
)
IMAGES = ("nginx:1.25", "redis:7", "busybox:1.36")
TAINTS = (
    {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
    {"key": "spot", "value": "true", "effect": "PreferNoSchedule"},
    {"key": "maintenance", "effect": "NoExecute"},
)


@st.composite
def node(draw: Any, index: int) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": f"node-{index}"}
    if draw(st.booleans()):
        labels["topology.kubernetes.io/zone"] = draw(st.sampled_from(ZONES))
    if draw(st.integers(0, 3)) == 0:
        labels["pool"] = draw(st.sampled_from(["batch", "web"]))
    allocatable = {
        "cpu": f"{draw(st.sampled_from([0, 500, 1000, 2000, 4000, 8000]))}m",
        "memory": f"{draw(st.sampled_from([0, 512, 1024, 4096, 16384]))}Mi",
        "pods": str(draw(st.sampled_from([0, 1, 3, 110]))),
    }
    if draw(st.booleans()):
        allocatable["ephemeral-storage"] = f"{draw(st.sampled_from([0, 10, 100]))}Gi"
    # Extended resources: a device plugin's (absent, 0, or some), and one a DeviceClass may
    # serve through DRA (DRAExtendedResource), advertised by a few nodes only.
    # (One draw: test_window draws 200-odd nodes, and Hypothesis minds the bytes.)
    allocatable.update(draw(st.sampled_from(EXTENDED)))
    spec: dict[str, Any] = {}
    if draw(st.integers(0, 9)) == 0:
        spec["unschedulable"] = True
    taints = draw(st.lists(st.sampled_from(TAINTS), max_size=2, unique_by=lambda t: t["key"]))
    if taints and draw(st.integers(0, 2)) == 0:
        spec["taints"] = taints
    status: dict[str, Any] = {"allocatable": allocatable, "capacity": allocatable}
    images = draw(st.lists(st.sampled_from(IMAGES), max_size=2, unique=True))
    if images and draw(st.booleans()):
        status["images"] = [{"names": [image], "sizeBytes": 300_000_000} for image in images]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"node-{index}", "labels": labels},
        "spec": spec,
        "status": status,
    }


CLAIMS = tuple(f"claim-{i}" for i in range(6))
EBS = "ebs.csi.aws.com"


@st.composite
def volumes(draw: Any) -> list[dict[str, Any]]:
    """Storage the pods' volumes may name: bound and unbound claims, their volumes, and spares.

    After the volume plugins' Go sources (v1.33): a bound claim's volume may carry zone labels
    (VolumeZone) or zonal node affinity (VolumeBinding); an unbound claim of a
    WaitForFirstConsumer class is bound or provisioned per node (VolumeBinding); a claim
    may be ReadWriteOncePod (VolumeRestrictions); CSI and in-tree EBS volumes count against
    the CSINodes' limits (NodeVolumeLimits).
    """
    wffc: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "wffc"},
        "provisioner": EBS,
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    if draw(st.booleans()):
        wffc["allowedTopologies"] = [
            {"matchLabelExpressions": [
                {"key": "topology.kubernetes.io/zone", "values": list(ZONES[:2])}]}
        ]  # fmt: skip
    objects: list[dict[str, Any]] = [wffc]
    for index, claim in enumerate(CLAIMS):
        mode = "ReadWriteOncePod" if draw(st.integers(0, 4)) == 0 else "ReadWriteOnce"
        bound = draw(st.integers(0, 2)) > 0
        volume_name = f"pv-{index}" if bound else f"spare-{index}"
        source: dict[str, Any] = (
            {"csi": {"driver": EBS, "volumeHandle": volume_name}}
            if draw(st.booleans())
            else {"awsElasticBlockStore": {"volumeID": volume_name}}
        )
        spec: dict[str, Any] = {
            **source,
            "accessModes": [mode],
            "capacity": {"storage": "1Gi"},
            "storageClassName": "wffc",
        }
        metadata: dict[str, Any] = {"name": volume_name}
        zone = draw(st.sampled_from(ZONES))
        if draw(st.integers(0, 2)) == 0:
            metadata["labels"] = {"topology.kubernetes.io/zone": zone}
        if draw(st.integers(0, 2)) == 0:
            spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]}}  # fmt: skip
        claim_spec: dict[str, Any] = {
            "accessModes": [mode],
            "resources": {"requests": {"storage": "1Gi"}},
            "storageClassName": "wffc",
        }
        claim_metadata: dict[str, Any] = {"name": claim, "namespace": "default"}
        if bound:
            spec["claimRef"] = {"namespace": "default", "name": claim}
            claim_spec["volumeName"] = volume_name
            claim_metadata["annotations"] = {"pv.kubernetes.io/bind-completed": "true"}
        if bound or draw(st.booleans()):  # an unbound claim may have a spare volume to take
            objects.append(
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolume",
                    "metadata": metadata,
                    "spec": spec,
                }
            )
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": claim_metadata,
                "spec": claim_spec,
            }
        )
    return objects


def pod_volumes(draw: Any) -> list[dict[str, Any]]:
    """Claims, and in-line disks VolumeRestrictions compares (EBS always conflicts, PD unless read-only)."""
    found: list[dict[str, Any]] = []
    for i, claim in enumerate(draw(st.lists(st.sampled_from(CLAIMS), max_size=2, unique=True))):
        found.append({"name": f"data-{i}", "persistentVolumeClaim": {"claimName": claim}})
    if draw(st.integers(0, 5)) == 0:
        volume_id = draw(st.sampled_from(["vol-a", "vol-b"]))
        found.append({"name": "ebs", "awsElasticBlockStore": {"volumeID": volume_id}})
    if draw(st.integers(0, 5)) == 0:
        found.append(
            {
                "name": "pd",
                "gcePersistentDisk": {"pdName": "pd-a", "readOnly": draw(st.booleans())},
            }
        )
    return found


APPS = ("web", "db", "batch")
TOPOLOGY_KEYS = ("topology.kubernetes.io/zone", "kubernetes.io/hostname", "pool")
TEAM = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "team", "labels": {"team": "a"}},
}


@st.composite
def pod_affinity_term(draw: Any) -> dict[str, Any]:
    """A podAffinityTerm: a selector on ``app``, a topology key, the namespaces it covers.

    After ``AffinityTerm`` and ``getNamespacesFromPodAffinityTerm`` in
    ``kubernetes/kubernetes:pkg/scheduler/framework/types.go`` (v1.33): no
    namespaces means the pod's own; a ``namespaceSelector`` adds the
    namespaces whose labels match it (``{}``: all). ``matchLabelKeys`` and
    ``mismatchLabelKeys`` are merged into the selector by the API server.
    """
    app = draw(st.sampled_from(APPS))
    selector: dict[str, Any] = {"matchLabels": {"app": app}}
    if draw(st.integers(0, 3)) == 0:
        operator = draw(st.sampled_from(["In", "NotIn"]))
        selector = {"matchExpressions": [{"key": "app", "operator": operator, "values": [app]}]}
    term: dict[str, Any] = {
        "topologyKey": draw(st.sampled_from(TOPOLOGY_KEYS)),
        "labelSelector": selector,
    }
    namespaces = draw(st.integers(0, 5))
    if namespaces == 1:
        term["namespaces"] = ["default"]
    elif namespaces == 2:
        term["namespaces"] = ["team", "default"]
    elif namespaces == 3:
        term["namespaceSelector"] = {}
    elif namespaces == 4:
        term["namespaceSelector"] = {"matchLabels": {"team": "a"}}
        if draw(st.booleans()):
            term["namespaces"] = ["default"]
    if draw(st.integers(0, 4)) == 0:
        term[draw(st.sampled_from(["matchLabelKeys", "mismatchLabelKeys"]))] = ["tier"]
    return term


@st.composite
def pod_affinity(draw: Any) -> dict[str, Any]:
    """``podAffinity`` and ``podAntiAffinity``, each with required and preferred terms or not."""
    affinity: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        rules: dict[str, Any] = {}
        if draw(st.integers(0, 2)) == 0:
            rules["requiredDuringSchedulingIgnoredDuringExecution"] = draw(
                st.lists(pod_affinity_term(), min_size=1, max_size=2)
            )
        if draw(st.integers(0, 2)) == 0:
            rules["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": draw(st.integers(1, 100)), "podAffinityTerm": term}
                for term in draw(st.lists(pod_affinity_term(), min_size=1, max_size=2))
            ]
        if rules:
            affinity[kind] = rules
    return affinity


@st.composite
def spread_constraint(draw: Any, labels: dict[str, str]) -> dict[str, Any]:
    """A topologySpreadConstraint: by zone, hostname or pool, hard or soft, its policies.

    After ``filterTopologySpreadConstraints`` and ``matchNodeInclusionPolicies``
    in ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/common.go``
    (v1.33): ``nodeAffinityPolicy`` (default Honor) has the pod's node selector
    decide which nodes count, ``nodeTaintsPolicy`` (default Ignore) the taints.
    """
    constraint: dict[str, Any] = {
        "maxSkew": draw(st.integers(1, 3)),
        "topologyKey": draw(st.sampled_from(TOPOLOGY_KEYS)),
        "whenUnsatisfiable": draw(st.sampled_from(["DoNotSchedule", "ScheduleAnyway"])),
        "labelSelector": {"matchLabels": draw(st.sampled_from([labels, {"app": labels["app"]}]))},
    }
    if draw(st.integers(0, 3)) == 0:
        constraint["nodeAffinityPolicy"] = draw(st.sampled_from(["Honor", "Ignore"]))
    if draw(st.integers(0, 3)) == 0:
        constraint["nodeTaintsPolicy"] = draw(st.sampled_from(["Honor", "Ignore"]))
    return constraint


@st.composite
def pod(draw: Any, name: str, node_names: list[str], running: bool) -> dict[str, Any]:
    requests: dict[str, str] = {}
    if draw(st.integers(0, 4)) > 0:
        requests["cpu"] = f"{draw(st.sampled_from([50, 100, 250, 500, 1000, 3000]))}m"
    if draw(st.integers(0, 4)) > 0:
        requests["memory"] = f"{draw(st.sampled_from([64, 256, 1024, 3000]))}Mi"
    if draw(st.integers(0, 5)) == 0:
        requests["ephemeral-storage"] = f"{draw(st.sampled_from([1, 20]))}Gi"
    # Extended resources cannot be overcommitted: limits equal to requests, as validation demands.
    limits: dict[str, str] = {}
    for resource, amounts in ((GPU, [0, 1, 2, 8]), (DRA_GPU, [1, 2])):
        if draw(st.integers(0, 4)) == 0:
            requests[resource] = limits[resource] = str(draw(st.sampled_from(amounts)))
    resources: dict[str, Any] = {"requests": requests} if requests else {}
    if limits:
        resources["limits"] = limits
    container: dict[str, Any] = {
        "name": "app",
        "image": draw(st.sampled_from(IMAGES)),
        "resources": resources,
    }
    if draw(st.integers(0, 6)) == 0:
        container["ports"] = [{"containerPort": 80, "hostPort": draw(st.sampled_from([80, 8080]))}]
    spec: dict[str, Any] = {"containers": [container]}
    if draw(st.integers(0, 5)) == 0:
        # Pod-level requests (PodLevelResources, on from v1.34), never below the container's,
        # as the API server's validation demands.
        cpu = draw(st.sampled_from([500, 1000, 4000]))
        if cpu >= int(requests.get("cpu", "0m")[:-1]):
            spec["resources"] = {"requests": {"cpu": f"{cpu}m"}}
    if draw(st.integers(0, 2)) == 0:
        spec["volumes"] = pod_volumes(draw)
    labels = {"app": draw(st.sampled_from(APPS))}
    if draw(st.booleans()):
        labels["tier"] = draw(st.sampled_from(["v1", "v2"]))  # what matchLabelKeys copies
    # Another namespace, with labels a namespaceSelector reads, for pods that need nothing
    # of the default one (claims, templates and Services are there).
    namespace = "default"
    if draw(st.integers(0, 4)) == 0 and "volumes" not in spec:
        namespace = "team"
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels}
    if draw(st.integers(0, 4)) == 0:
        # Owned by a ReplicaSet: the System default spread constraints apply (PreScore runs).
        metadata["ownerReferences"] = [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": labels["app"],
             "uid": f"rs-{labels['app']}", "controller": True}
        ]  # fmt: skip
    if draw(st.integers(0, 3)) == 0:
        # Pod (anti-)affinity, required and preferred, on pending and running pods: a running
        # pod's required anti-affinity rules out domains for others (InterPodAffinity's Filter),
        # its affinity terms score (hardPodAffinityWeight, preferred weights).
        affinity = draw(pod_affinity())
        if affinity:
            spec["affinity"] = affinity
    if running:
        spec["nodeName"] = draw(st.sampled_from(node_names))
        if draw(st.integers(0, 7)) == 0:
            # Terminating: spreading counts it no more (kubernetes#87621), the kubelet
            # deletes it when its grace period ends.
            metadata["deletionTimestamp"] = "2025-04-23T12:05:00Z"
            metadata["deletionGracePeriodSeconds"] = 300
        if draw(st.integers(0, 3)) == 0:
            # Running pods of other priorities: nodes with and without victims in the dry run.
            spec["priorityClassName"] = draw(st.sampled_from(["high", "low"]))
    else:
        if draw(st.integers(0, 4)) == 0:
            spec["nodeSelector"] = {"topology.kubernetes.io/zone": draw(st.sampled_from(ZONES))}
        if draw(st.integers(0, 4)) == 0:
            spec.setdefault("affinity", {})["nodeAffinity"] = {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": draw(st.integers(1, 100)),
                        "preference": {
                            "matchExpressions": [
                                {
                                    "key": "pool",
                                    "operator": draw(st.sampled_from(["In", "NotIn"])),
                                    "values": ["batch"],
                                }
                            ]
                        },
                    }
                ]
            }
        if draw(st.integers(0, 3)) == 0:
            spec["tolerations"] = [
                {"key": draw(st.sampled_from(["dedicated", "spot"])), "operator": "Exists"}
            ]
        if draw(st.integers(0, 4)) == 0:
            spec["topologySpreadConstraints"] = draw(
                st.lists(spread_constraint(labels), min_size=1, max_size=2)
            )
        if draw(st.integers(0, 5)) == 0:
            # May preempt: PostFilter reads the statuses (and "low" ones may be preempted).
            spec["priorityClassName"] = draw(st.sampled_from(["high", "high", "low"]))
        if namespace == "default" and draw(st.integers(0, 5)) == 0:
            # A GPU through a ResourceClaimTemplate: DynamicResources' (v1.34+) batch form
            # rejects the nodes with no free device, the reference allocates on the others.
            spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
            container["resources"] = {**container["resources"], "claims": [{"name": "gpu"}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


# The PriorityClasses the pods' priorityClassName names.
HIGH = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "high"},
    "value": 1000,
}
LOW = {
    "apiVersion": "scheduling.k8s.io/v1",
    "kind": "PriorityClass",
    "metadata": {"name": "low"},
    "value": -10,
}


@st.composite
def cluster(draw: Any) -> list[dict[str, Any]]:
    # Past 100 nodes numFeasibleNodesToFind stops short of the whole list: both sizes matter.
    count = draw(st.one_of(st.integers(1, 12), st.integers(100, 130)))
    nodes = [draw(node(i)) for i in range(count)]
    names = [n["metadata"]["name"] for n in nodes]
    running = [draw(pod(f"run-{i}", names, True)) for i in range(draw(st.integers(0, count)))]
    pending = [draw(pod(f"pod-{i}", names, False)) for i in range(draw(st.integers(1, 15)))]
    # Services select some apps: DefaultSelector reads them, so the System default
    # spread constraints apply to those apps' pods (PodTopologySpread's PreScore runs).
    services = [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": app, "namespace": "default"},
            "spec": {"selector": {"app": app}, "ports": [{"port": 80}]},
        }
        for app in draw(st.sets(st.sampled_from(["web", "db", "batch"])))
    ]
    # ReplicaSets with a few pods each: DefaultSelector reads their selector too.
    replica_sets = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": f"rs-{app}", "namespace": "default"},
            "spec": {
                "replicas": draw(st.integers(1, 3)),
                "selector": {"matchLabels": {"app": app}},
                "template": {
                    "metadata": {"labels": {"app": app}},
                    "spec": {"containers": [{"name": "app", "image": "nginx:1.25"}]},
                },
            },
        }
        for app in draw(st.sets(st.sampled_from(APPS), max_size=2))
    ]
    # Devices on some nodes, and the template GPU pods ask for a device through.
    device_class: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.example.com"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    }
    if draw(st.booleans()):
        # DRA-backed: NodeResourcesFit leaves example.com/gpu to DynamicResources on a node
        # that does not advertise it (DRAExtendedResource, on from v1.36).
        device_class["spec"]["extendedResourceName"] = DRA_GPU
    devices = [
        device_class,
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one-gpu", "namespace": "default"},
            "spec": {
                "spec": {
                    "devices": {
                        "requests": [
                            {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}
                        ]
                    }
                }
            },
        },
    ]
    for name in draw(st.sets(st.sampled_from(names), max_size=3)):
        devices.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{name}-gpus"},
                "spec": {
                    "driver": "gpu.example.com",
                    "nodeName": name,
                    "pool": {"name": name, "resourceSliceCount": 1},
                    "devices": [{"name": f"gpu-{i}"} for i in range(draw(st.integers(1, 2)))],
                },
            }
        )
    # CSINodes for some nodes, with small EBS attach limits (NodeVolumeLimits).
    csi_nodes = [
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {"name": name},
            "spec": {
                "drivers": [
                    {
                        "name": EBS,
                        "nodeID": name,
                        "allocatable": {"count": draw(st.integers(0, 3))},
                    }
                ]
            },
        }
        for name in names
        if draw(st.integers(0, 2)) > 0
    ]
    storage = draw(volumes())
    return [
        HIGH,
        LOW,
        TEAM,
        *services,
        *devices,
        *storage,
        *nodes,
        *csi_nodes,
        *running,
        *pending,
        *replica_sets,
    ]


@st.composite
def configuration(draw: Any) -> str | None:
    percentage = draw(st.sampled_from([None, 0, 1, 10, 50, 100]))
    strategy = draw(st.sampled_from([None, "LeastAllocated", "MostAllocated"]))
    # Without PodTopologySpread's system defaults pods can be signed, so from v1.35 the
    # engines share opportunistic batching's hints too (runtime/batch.py).
    batchable = draw(st.integers(0, 2)) == 0
    # InterPodAffinity's args: the weight of existing pods' required affinity terms in Score
    # (0 turns it off), and whether existing pods' preferred terms count at all.
    affinity_args = None
    if draw(st.integers(0, 3)) == 0:
        weight = draw(st.sampled_from([0, 1, 100]))
        ignore = draw(st.booleans())
        affinity_args = (
            "  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: "
            f"{weight}, ignorePreferredTermsOfExistingPods: {str(ignore).lower()}}}"
        )
    # Extended resources Fit's Filter skips (by name, or by the domain before the slash).
    ignored = draw(
        st.sampled_from(
            [
                None,
                None,
                None,
                f"ignoredResources: [{GPU}]",
                "ignoredResourceGroups: [example.com]",
            ]
        )
    )
    # BalancedAllocation over three resources: the float64 std of up to three fractions.
    balanced_gpu = draw(st.integers(0, 4)) == 0
    if (percentage, strategy, ignored, affinity_args) == (None, None, None, None) and not (
        batchable or balanced_gpu
    ):
        return None  # the v1 default profile, as written by nobody
    lines = ["apiVersion: kubescheduler.config.k8s.io/v1", "kind: KubeSchedulerConfiguration"]
    if percentage is not None:
        lines.append(f"percentageOfNodesToScore: {percentage}")
    lines.append("profiles:\n- schedulerName: default-scheduler\n  pluginConfig:")
    if strategy is not None or ignored is not None:
        lines.append("  - name: NodeResourcesFit\n    args:")
    if ignored is not None:
        lines.append(f"      {ignored}")
    if strategy is not None:
        weight = draw(st.integers(1, 5))
        lines.append(
            "      scoringStrategy:\n"
            f"        type: {strategy}\n        resources:\n        - {{name: cpu, weight: {weight}}}\n"
            "        - {name: memory, weight: 1}"
        )
        if draw(st.integers(0, 3)) == 0:
            # An extended resource in the score: scored node by node (no batch Score form).
            lines.append(f"        - {{name: {GPU}, weight: 2}}")
    if balanced_gpu:
        lines.append(
            "  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n"
            f"      - {{name: cpu, weight: 1}}\n      - {{name: memory, weight: 1}}\n"
            f"      - {{name: {GPU}, weight: 1}}"
        )
    if batchable:
        lines.append(
            "  - name: PodTopologySpread\n    args: {defaultConstraints: [], defaultingType: List}"
        )
    if affinity_args is not None:
        lines.append(affinity_args)
    if (
        strategy is None
        and ignored is None
        and affinity_args is None
        and not (batchable or balanced_gpu)
    ):
        lines[-1] = lines[-1].replace("\n  pluginConfig:", "")
    return "\n".join(lines) + "\n"


class _Compared:
    """Counts the cycles the differential engine compared across the examples (for the note)."""

    cycles = 0
    dry_runs = 0
    batch_filters = 0
    batch_scores = 0
    handed_over: ClassVar[Counter[str]] = Counter()


@pytest.fixture(scope="module", autouse=True)
def report_compared() -> Iterator[None]:
    """Print how many cycles were compared in all (``pytest -s`` shows it; the note cites it)."""
    yield
    print(
        f"\ndifferential: {_Compared.cycles} cycles and {_Compared.dry_runs} preemption dry "
        f"runs compared, 0 mismatches; "
        f"{_Compared.batch_filters} searches and {_Compared.batch_scores} scorings by the "
        f"batch engine itself; to the reference: {dict(_Compared.handed_over)}"
    )


@pytest.fixture
def count_compared(monkeypatch: pytest.MonkeyPatch) -> type[_Compared]:
    original = simulator_run.check_engines_agreed

    def counting(scheduler: Any) -> None:
        algorithm = scheduler.scheduling.algorithm
        assert isinstance(algorithm, DifferentialSchedulingAlgorithm)
        _Compared.cycles += algorithm.compared
        _Compared.dry_runs += sum(finder.compared for finder in algorithm.dry_runs)
        _Compared.batch_filters += algorithm.stats.batch_filters
        _Compared.batch_scores += algorithm.stats.batch_scores
        _Compared.handed_over.update(algorithm.stats.reference)
        original(scheduler)

    monkeypatch.setattr(simulator_run, "check_engines_agreed", counting)
    return _Compared


# A few examples in the everyday run; .ci/run runs many more (KSF_DIFFERENTIAL_EXAMPLES).
EXAMPLES = int(os.environ.get("KSF_DIFFERENTIAL_EXAMPLES", "8"))


# The release matters to the batch forms: gates and fixes change formulas and statuses.
VERSIONS = st.sampled_from(SUPPORTED_VERSIONS)


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(manifests=cluster(), config=configuration(), seed=st.integers(0, 2**16), version=VERSIONS)
def test_the_engines_agree_on_every_cycle(
    manifests: list[dict[str, Any]],
    config: str | None,
    seed: int,
    version: str,
    count_compared: Any,
) -> None:
    framework.simulate(
        *manifests, config=config, seed=seed, engine="both", emulated_version=version
    )
    assert count_compared.cycles > 0


@settings(max_examples=max(2, EXAMPLES // 4))
@given(manifests=cluster(), config=configuration(), seed=st.integers(0, 2**16), version=VERSIONS)
def test_the_traces_are_the_same_bytes(
    manifests: list[dict[str, Any]], config: str | None, seed: int, version: str
) -> None:
    reference = framework.simulate(
        *manifests, config=config, seed=seed, engine="reference", emulated_version=version
    )
    batch = framework.simulate(
        *manifests, config=config, seed=seed, engine="batch", emulated_version=version
    )
    assert batch.to_json() == reference.to_json()


def test_a_wrong_batch_form_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a Fit form that forgets the pod-slot check is found out."""
    from framework.batch import forms
    from framework.plugins.noderesources import fit

    def forgetful(plugin: Any, state: Any, pod: Any, arrays: Any) -> Any:
        request = state.read_as(fit.PRE_FILTER_STATE_KEY, fit.PreFilterState).request
        return forms.FilterVerdict(arrays["free_cpu"] < request.milli_cpu)

    monkeypatch.setitem(forms._FILTER_FORMS, fit.Fit, forgetful)
    full = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "full"},
        "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "0"}},
    }
    roomy = {**full, "metadata": {"name": "roomy"}}
    roomy["status"] = {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}
    pending = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
    }
    with pytest.raises(EngineMismatchError, match=r"feasible nodes|reference passes|rejected"):
        framework.simulate(full, roomy, pending, engine="both")


def test_a_wrong_pre_score_skip_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A PreScore Skip check that skips PodTopologySpread for a pod behind a Service is found out."""
    from framework.batch import forms
    from framework.plugins.podtopologyspread import plugin as spread

    monkeypatch.setitem(forms._PRE_SCORE_SKIPS, spread.PodTopologySpread, lambda *args: True)
    nodes = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}},
        }
        for name in ("a", "b")
    ]
    owned = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "labels": {"app": "web"},
        },
        "spec": {"containers": [{"name": "app", "image": "nginx"}]},
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
    }
    with pytest.raises(EngineMismatchError, match="PreScore skips"):
        framework.simulate(*nodes, service, owned, engine="both")


def test_gpu_pods_get_the_same_trace_from_both_engines() -> None:
    """DynamicResources' batch form rejects full nodes only: the allocator still runs elsewhere.

    (A form that let a node with a free device pass without the allocator
    would leave Reserve no allocation for it: every GPU pod would fail.)
    """
    from tests.simulate.test_devices import CLASS, CLUSTER, VERSION, gpu_pod

    pods = "".join(gpu_pod(f"train-{i}") for i in range(4))
    reference = framework.simulate(
        CLUSTER, CLASS, pods, engine="reference", emulated_version=VERSION
    )
    batch = framework.simulate(CLUSTER, CLASS, pods, engine="batch", emulated_version=VERSION)
    assert sum(n is not None for n in reference.placements.values()) == 3
    assert batch.to_json() == reference.to_json()
