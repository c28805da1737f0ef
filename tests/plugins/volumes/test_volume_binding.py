"""VolumeBinding, after ``TestVolumeBinding`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go``
and the ``FindPodVolumes`` cases of ``binder_test.go`` (v1.33): PreFilter's statuses, Filter's
reasons, and Reserve/PreBind/Unreserve writing through the client."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import KubeObject, Node, Pod
from framework.objects.storage import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    CSIDriver,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from framework.plugins.volumebinding import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    MSG_UNBOUND_IMMEDIATE,
    VolumeBinding,
)
from framework.status import Code
from tests.plugins.volumes.helpers import handle

IMMEDIATE, WAIT, WAIT_PROVISION = "immediate-sc", "wait-sc", "wait-provision-sc"
CLASSES = [
    StorageClass.from_dict(
        {"metadata": {"name": IMMEDIATE}, "volumeBindingMode": "Immediate", "provisioner": "x"}
    ),
    StorageClass.from_dict(
        {
            "metadata": {"name": WAIT},
            "volumeBindingMode": "WaitForFirstConsumer",
            "provisioner": "kubernetes.io/no-provisioner",
        }
    ),
    StorageClass.from_dict(
        {
            "metadata": {"name": WAIT_PROVISION},
            "volumeBindingMode": "WaitForFirstConsumer",
            "provisioner": "driver-with-capacity",
        }
    ),
]


def node(name: str = "node-a", **labels: str) -> Node:
    return Node.from_dict(
        {"metadata": {"name": name, "labels": {"nodeItem": "nodeValue", **labels}}}
    )


def claim(
    name: str, cls: str = WAIT, volume: str = "", size: str = "5Gi", **annotations: str
) -> PersistentVolumeClaim:
    if volume:
        annotations = {ANN_BIND_COMPLETED: "yes", **annotations}
    return PersistentVolumeClaim.from_dict(
        {
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": name,
                "annotations": annotations,
            },
            "spec": {
                "storageClassName": cls,
                "volumeName": volume,
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": size}},
            },
        }
    )


def volume(
    name: str, cls: str = WAIT, size: str = "10Gi", **affinity_labels: str
) -> PersistentVolume:
    spec: dict[str, Any] = {
        "storageClassName": cls,
        "capacity": {"storage": size},
        "accessModes": ["ReadWriteOnce"],
    }
    if affinity_labels:
        spec["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": k, "operator": "In", "values": [v]}
                            for k, v in affinity_labels.items()
                        ]
                    }
                ]
            }
        }
    return PersistentVolume.from_dict(
        {
            "metadata": {"name": name, "resourceVersion": "1"},
            "spec": spec,
            "status": {"phase": "Available"},
        }
    )


def pod(*claims: str) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": "pod-a", "namespace": "default", "uid": "pod-a"},
            "spec": {
                "volumes": [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
            },
        }
    )


def run(
    incoming: Pod, objects: list[KubeObject], target: Node | None = None
) -> tuple[Any, Any, VolumeBinding, CycleState]:
    plugin = VolumeBinding(handle(*CLASSES, *objects))
    state = CycleState()
    _, pre = plugin.pre_filter(state, incoming, [])
    if pre is not None:
        return pre, None, plugin, state
    info = NodeInfo()
    info.set_node(target or node())
    return None, plugin.filter(state, incoming, info), plugin, state


def reasons(status: Any) -> tuple[str, ...]:
    assert status is not None and status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE, status
    return tuple(status.reasons)


def test_pod_has_not_pvcs() -> None:
    pre, _, _, _ = run(Pod.from_dict({"metadata": {"name": "pod-a"}}), [])
    assert pre.code is Code.SKIP


def test_all_bound() -> None:
    pre, filtered, _, _ = run(pod("pvc-a"), [claim("pvc-a", volume="pv-a"), volume("pv-a")])
    assert (pre, filtered) == (None, None)


def test_pvc_does_not_exist() -> None:
    pre, _, _, _ = run(pod("pvc-a"), [])
    assert reasons(pre) == ('persistentvolumeclaims "pvc-a" not found',)


def test_immediate_claims_not_bound() -> None:
    pre, _, _, _ = run(pod("pvc-a"), [claim("pvc-a", cls=IMMEDIATE)])
    assert reasons(pre) == (MSG_UNBOUND_IMMEDIATE,)


def test_unbound_claims_no_matches() -> None:
    _, filtered, _, _ = run(pod("pvc-a"), [claim("pvc-a")])
    assert reasons(filtered) == (ERR_REASON_BIND_CONFLICT,)


def test_bound_and_unbound_unsatisfied() -> None:
    objects = [
        claim("pvc-a", volume="pv-a"),
        volume("pv-a", foo="barbar"),
        claim("pvc-b"),
        volume("pv-b", foo="barbar"),
    ]
    _, filtered, _, _ = run(pod("pvc-a", "pvc-b"), objects, node(foo="bar"))
    assert reasons(filtered) == (ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)


def test_pv_not_found() -> None:
    _, filtered, _, _ = run(pod("pvc-a"), [claim("pvc-a", volume="pv-a")])
    assert reasons(filtered) == (ERR_REASON_PV_NOT_EXIST,)


def test_the_smallest_matching_volume_is_chosen_and_bound_in_prebind() -> None:
    objects = [
        claim("pvc-a"),
        volume("pv-big", size="100Gi"),
        volume("pv-small", size="10Gi"),
        volume("pv-tiny", size="1Gi"),
    ]
    _, filtered, plugin, state = run(pod("pvc-a"), [*objects, node(), pod("pvc-a")])
    assert filtered is None
    assert plugin.reserve(state, pod("pvc-a"), "node-a") is None
    # Assumed: the next pod's search no longer sees pv-small as free.
    assumed = plugin.binder.cache.get_pv("pv-small")
    assert assumed is not None and assumed.spec.claim_ref is not None
    assert assumed.spec.claim_ref.name == "pvc-a"
    plugin.bind_timeout_seconds = 0
    status = plugin.pre_bind(state, pod("pvc-a"), "node-a")
    assert [u.metadata.name for u in plugin.binder.writes] == ["pv-small"]
    # The fake client has no PV controller: the claim is never bound, and PreBind gives up.
    assert status is not None and status.code is Code.ERROR
    assert str(status.error) == "binding volumes: context deadline exceeded"


def test_unreserve_forgets_the_assumed_volume() -> None:
    objects = [claim("pvc-a"), volume("pv-a")]
    _, _, plugin, state = run(pod("pvc-a"), objects)
    plugin.reserve(state, pod("pvc-a"), "node-a")
    plugin.unreserve(state, pod("pvc-a"), "node-a")
    restored = plugin.binder.cache.get_pv("pv-a")
    assert restored is not None and restored.spec.claim_ref is None


def capacity(name: str, size: str, **topology: str) -> CSIStorageCapacity:
    return CSIStorageCapacity.from_dict(
        {
            "metadata": {"name": name, "namespace": "default"},
            "storageClassName": WAIT_PROVISION,
            "capacity": size,
            "nodeTopology": {"matchLabels": topology},
        }
    )


DRIVER = CSIDriver.from_dict(
    {"metadata": {"name": "driver-with-capacity"}, "spec": {"storageCapacity": True}}
)


@pytest.mark.parametrize(
    ("objects", "expected"),
    [
        pytest.param(
            [DRIVER, capacity("c", "10Gi", nodeItem="nodeValue")],
            (),
            id="enough capacity on the node's segment",
        ),
        pytest.param(
            [DRIVER, capacity("c", "1Gi", nodeItem="nodeValue")],
            (ERR_REASON_NOT_ENOUGH_SPACE,),
            id="too little",
        ),
        pytest.param(
            [DRIVER, capacity("c", "10Gi", nodeItem="other")],
            (ERR_REASON_NOT_ENOUGH_SPACE,),
            id="another segment",
        ),
        pytest.param([], (), id="a driver that publishes no capacity"),
    ],
)
def test_provisioning_checks_csi_storage_capacity(
    objects: list[KubeObject], expected: tuple[str, ...]
) -> None:
    _, filtered, _, _ = run(pod("pvc-a"), [claim("pvc-a", cls=WAIT_PROVISION), *objects])
    assert (reasons(filtered) if expected else filtered) == (expected or None)


def test_a_claim_provisioned_for_another_node_rules_this_one_out() -> None:
    selected = claim("pvc-a", cls=WAIT_PROVISION, **{ANN_SELECTED_NODE: "node-b"})
    _, filtered, _, _ = run(pod("pvc-a"), [selected])
    assert reasons(filtered) == (ERR_REASON_BIND_CONFLICT,)


def test_local_volumes_narrow_prefilter_to_their_nodes() -> None:
    objects = [
        claim("pvc-a", volume="pv-a"),
        volume("pv-a", **{"kubernetes.io/hostname": "node-b"}),
    ]
    plugin = VolumeBinding(handle(*CLASSES, *objects))
    result, status = plugin.pre_filter(CycleState(), pod("pvc-a"), [])
    assert status is None and result is not None and result.node_names == frozenset({"node-b"})


# --- PreBind waits for the PV controller, at most bindTimeoutSeconds -------------------------
# BindPodVolumes in binder.go (v1.33) writes, then polls checkBindings every second
# (wait.PollUntilContextTimeout, immediate=false) until the claims are bound, checkBindings
# fails, or bindTimeoutSeconds pass: "binding volumes: context deadline exceeded".


def _prebind_in_thread(
    objects: list[KubeObject], timeout: int
) -> tuple[FakeClock, Any, dict[str, Any], threading.Thread]:
    clock = FakeClock()
    incoming = pod("pvc-a")
    fixture = handle(*CLASSES, *objects, node(), incoming)
    fixture.time = clock
    plugin = VolumeBinding(fixture, {"bindTimeoutSeconds": timeout})
    state = CycleState()
    assert plugin.pre_filter(state, incoming, []) == (None, None)
    info = NodeInfo()
    info.set_node(node())
    assert plugin.filter(state, incoming, info) is None
    assert plugin.reserve(state, incoming, "node-a") is None
    outcome: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: outcome.setdefault("status", plugin.pre_bind(state, incoming, "node-a"))
    )
    thread.start()
    return clock, fixture.fake, outcome, thread


def _tick_until_done(clock: FakeClock, thread: threading.Thread, most: int) -> int:
    """Advance the clock a second at a time while PreBind waits on it; how many seconds."""
    ticks = 0
    while thread.is_alive() and ticks < most:
        try:
            clock.block_until_waiters(1, timeout=2)
        except TimeoutError:
            continue
        clock.advance(1)
        ticks += 1
    thread.join(5)
    assert not thread.is_alive()
    return ticks


def test_prebind_waits_until_the_controller_binds_the_claim() -> None:
    clock, fake, outcome, thread = _prebind_in_thread([claim("pvc-a"), volume("pv-a")], 600)
    clock.block_until_waiters(1)  # written, not bound yet: PreBind waits
    assert "status" not in outcome
    clock.advance(1)
    clock.block_until_waiters(1)
    assert "status" not in outcome
    fake.replace(claim("pvc-a", volume="pv-a"))  # the PV controller completes the binding
    _tick_until_done(clock, thread, 5)
    assert outcome["status"] is None


def test_prebind_fails_after_bind_timeout_seconds() -> None:
    clock, _, outcome, thread = _prebind_in_thread([claim("pvc-a"), volume("pv-a")], 30)
    start = clock.now()
    clock.block_until_waiters(1)
    clock.advance(29)
    clock.block_until_waiters(1)
    assert "status" not in outcome  # 29 s, and still waiting
    clock.advance(1)
    thread.join(5)
    status = outcome["status"]
    assert status is not None and status.code is Code.ERROR
    assert str(status.error) == "binding volumes: context deadline exceeded"
    assert clock.now() - start == 30


@pytest.mark.parametrize(
    ("annotations", "message"),
    [
        (
            {"volume.kubernetes.io/storage-provisioner": "driver-with-capacity"},
            "provisioning failed",
        ),
        ({}, "selectedNode annotation reset"),
    ],
)
def test_prebind_fails_at_once_when_the_provisioner_gives_up(
    annotations: dict[str, str], message: str
) -> None:
    """The provisioner removes ``selected-node`` to say it failed: checkBindings stops the wait."""
    clock, fake, outcome, thread = _prebind_in_thread([claim("pvc-a", cls=WAIT_PROVISION)], 600)
    clock.block_until_waiters(1)
    fake.replace(claim("pvc-a", cls=WAIT_PROVISION, **annotations))  # the annotation removed
    _tick_until_done(clock, thread, 5)
    status = outcome["status"]
    assert status is not None and status.code is Code.ERROR
    assert str(status.error) == f'binding volumes: {message} for PVC "pvc-a"'


def test_prebind_fails_when_the_volume_loses_its_claim_ref() -> None:
    clock, fake, outcome, thread = _prebind_in_thread([claim("pvc-a"), volume("pv-a")], 600)
    clock.block_until_waiters(1)
    fake.replace(volume("pv-a"))  # unbindVolume() dropped the claimRef
    _tick_until_done(clock, thread, 5)
    status = outcome["status"]
    assert status is not None and status.code is Code.ERROR
    assert str(status.error) == 'binding volumes: ClaimRef got reset for pv "pv-a"'


def test_filter_without_prefilter_state_is_go_s_bare_error() -> None:
    # volume_binding.go's getStateData returns CycleState.Read's error unwrapped, and
    # Filter makes it the status: the message is framework.ErrNotFound's "not found".
    plugin = VolumeBinding(handle(*CLASSES))
    info = NodeInfo()
    info.set_node(node())
    status = plugin.filter(CycleState(), pod("claim-a"), info)
    assert status is not None and status.code is Code.ERROR
    assert status.message() == "not found"
