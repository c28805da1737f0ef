"""Chapter 7b: the volume a claim binds to, as ``FindMatchingVolume`` chooses it.

The rules are those of ``FindMatchingVolume`` in
``k8s.io/component-helpers/storage/volume/pv_helpers.go`` (v1.33), the
cases in our own words after ``TestFindMatchingVolume`` of the PV
controller's ``index_test.go``. The last test puts your function inside the
real VolumeBinding plugin and runs a scheduler with it. Run against your
code with ``python -m pytest chapters/07b_volumes --exercise``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Node, Pod
from framework.objects.manifest import loads
from framework.objects.storage import PersistentVolume, PersistentVolumeClaim
from framework.plugins import volumebinding
from framework.scheduler.scheduler import Scheduler

pytestmark = pytest.mark.exercise(
    reference="framework.objects.volume_helpers",
    skeleton="exercise.py",
    asks=["find_matching_volume"],
)


def claim(size: str = "5Gi", cls: str = "gold", **spec: Any) -> PersistentVolumeClaim:
    return PersistentVolumeClaim.from_dict(
        {
            "metadata": {"name": "data", "namespace": "default", "uid": "claim-uid"},
            "spec": {
                "storageClassName": cls,
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": size}},
                **spec,
            },
        }
    )


def volume(
    name: str,
    size: str = "10Gi",
    cls: str = "gold",
    phase: str = "Available",
    labels: dict[str, str] | None = None,
    zone: str | None = None,
    **spec: Any,
) -> PersistentVolume:
    body: dict[str, Any] = {
        "capacity": {"storage": size},
        "accessModes": ["ReadWriteOnce"],
        "storageClassName": cls,
        **spec,
    }
    if zone is not None:
        body["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": [zone]}]}
                ]
            }
        }
    return PersistentVolume.from_dict(
        {
            "metadata": {"name": name, "labels": labels or {}},
            "spec": body,
            "status": {"phase": phase},
        }
    )


NODE_A = Node.from_dict({"metadata": {"name": "n1", "labels": {"zone": "a"}}})
BOUND_TO_OTHER = {"claimRef": {"name": "other", "namespace": "default"}}
BOUND_TO_US = {"claimRef": {"name": "data", "namespace": "default"}}


def choose(
    impl: ModuleType, c: PersistentVolumeClaim, vols: list[PersistentVolume], **kw: Any
) -> str | None:
    kw.setdefault("node", NODE_A)
    kw.setdefault("excluded", ())
    kw.setdefault("delay_binding", True)
    found = impl.find_matching_volume(c, vols, kw["node"], kw["excluded"], kw["delay_binding"])
    return None if found is None else found.metadata.name


@pytest.mark.parametrize(
    ("the_claim", "volumes", "options", "expected"),
    [
        pytest.param(
            claim(),
            [volume("big", "100Gi"), volume("fit", "5Gi"), volume("mid", "10Gi")],
            {},
            "fit",
            id="the smallest volume large enough",
        ),
        pytest.param(
            claim("20Gi"), [volume("small", "10Gi")], {}, None, id="nothing large enough"
        ),
        pytest.param(
            claim(),
            [volume("taken", **BOUND_TO_OTHER), volume("free", "50Gi")],
            {},
            "free",
            id="a volume bound to another claim is not a candidate",
        ),
        pytest.param(
            claim(),
            [volume("free", "5Gi"), volume("mine", "50Gi", **BOUND_TO_US)],
            {},
            "mine",
            id="a volume pre-bound to the claim wins over a smaller one",
        ),
        pytest.param(
            claim(),
            [volume("mine", zone="b", **BOUND_TO_US), volume("free")],
            {},
            None,
            id="a pre-bound volume the node cannot use: no match at all",
        ),
        pytest.param(
            claim(),
            [volume("released", phase="Released"), volume("ok", "20Gi")],
            {},
            "ok",
            id="only Available volumes",
        ),
        pytest.param(
            claim(),
            [volume("silver", "5Gi", cls="silver"), volume("gold", "20Gi")],
            {},
            "gold",
            id="only the claim's class",
        ),
        pytest.param(
            claim(selector={"matchLabels": {"tier": "fast"}}),
            [volume("plain", "5Gi"), volume("fast", "20Gi", labels={"tier": "fast"})],
            {},
            "fast",
            id="only volumes the claim's selector selects",
        ),
        pytest.param(
            claim(),
            [volume("zone-b", "5Gi", zone="b"), volume("zone-a", "20Gi", zone="a")],
            {},
            "zone-a",
            id="only volumes the node can use",
        ),
        pytest.param(
            claim(),
            [volume("fit", "5Gi"), volume("next", "10Gi")],
            {"excluded": {"fit"}},
            "next",
            id="volumes chosen for the pod's other claims are excluded",
        ),
        pytest.param(
            claim(volumeMode="Block"),
            [volume("fs", "5Gi"), volume("block", "20Gi", volumeMode="Block")],
            {},
            "block",
            id="the claim's volume mode",
        ),
        pytest.param(
            claim(accessModes=["ReadWriteMany"]),
            [volume("rwo")],
            {},
            None,
            id="every access mode the claim asks for",
        ),
        pytest.param(
            claim(),
            [volume("fit")],
            {"node": None, "delay_binding": True},
            None,
            id="the PV controller leaves delay-binding claims to the scheduler",
        ),
        pytest.param(
            claim(),
            [volume("fit", zone="b")],
            {"node": None, "delay_binding": False},
            "fit",
            id="without a node, node affinity is not checked",
        ),
    ],
)
def test_find_matching_volume(
    impl: ModuleType,
    the_claim: PersistentVolumeClaim,
    volumes: list[PersistentVolume],
    options: dict[str, Any],
    expected: str | None,
) -> None:
    assert choose(impl, the_claim, volumes, **options) == expected


CLUSTER = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: b}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: disk-b}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/b}
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [b]}]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 5Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers: [{name: db, image: postgres}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""


def test_your_function_inside_volume_binding_binds_the_claim(
    impl: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(volumebinding, "find_matching_volume", impl.find_matching_volume)
    api = APIServer(FakeClock())
    for obj in loads(CLUSTER):
        api.create(obj)
    Scheduler(api, clock=FakeClock(), seed=0).schedule_pending()
    assert api.get(Pod, "db").spec.node_name == "n2"  # where the volume is
    bound = api.get(PersistentVolumeClaim, "data")
    assert (bound.spec.volume_name, bound.status.phase) == ("disk-b", "Bound")
