"""DynamicResources' Score and NormalizeScore: the best-ranked ``firstAvailable`` alternatives win.

Source: ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/dynamicresources/``
``dynamicresources.go``. kubernetes#134711 ("DRA: Add scoring for Prioritized
List feature", v1.35) added ``Score``, ``computeScore`` and ``NormalizeScore``
(read in the index's copy, id 882775000): for every request with
``firstAvailable``, the sub-request the node's allocation took adds
``FirstAvailableDeviceRequestMaxSize - i`` (8 for the first alternative, 7 for
the second...), and ``helper.DefaultNormalizeScore(MaxNodeScore, false, ...)``
rescales so the best node gets 100. A later change (a patch to the same file,
index id 55693577404, of the release with PodGroup claims) gates Score on
``DRAPrioritizedList`` and reads an allocated claim's own allocation, keeping
a separate index into the node's allocations for the claims allocated in the
cycle (``unallocatedIndex``); that is the behaviour tested here. Go's unit
tests for these cases were not in the index; the cases follow the Go code
line by line (each names the branch it covers).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface import NodeScore, ScorePlugin
from framework.objects import Node, Pod
from framework.objects.resource import DeviceClass, ResourceClaim, ResourceSlice
from framework.plugins.dynamicresources.plugin import new
from framework.status import Code
from tests.plugins.dynamicresources.test_plugin import (
    DRIVER,
    POD,
    POD_UID,
    RESOURCE,
    code,
    info,
    message,
    node,
    run,
    with_status,
)

BIG, SMALL = "big-gpu", "small-gpu"


def device_class(name: str) -> DeviceClass:
    return DeviceClass.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "selectors": [
                    {"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{name}"'}}
                ]
            },
        }
    )


def gpu_slice(node_name: str, *models: str) -> ResourceSlice:
    devices = [
        {"name": f"gpu-{i}", "attributes": {"model": {"string": model}}}
        for i, model in enumerate(models)
    ]
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": f"{node_name}-{DRIVER}"},
            "spec": {
                "driver": DRIVER,
                "nodeName": node_name,
                "pool": {"name": node_name, "resourceSliceCount": 1},
                "devices": devices,
            },
        }
    )


def prioritized(name: str, *requests: tuple[str, list[str]]) -> ResourceClaim:
    """A claim whose requests each take the first available of these classes."""
    return ResourceClaim.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": request,
                            "firstAvailable": [
                                {"name": f"sub-{j}", "deviceClassName": c, "count": 1}
                                for j, c in enumerate(classes)
                            ],
                        }
                        for request, classes in requests
                    ]
                }
            },
        }
    )


def exactly(name: str, class_name: str) -> ResourceClaim:
    return ResourceClaim.from_dict(
        {
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {
                "devices": {
                    "requests": [{"name": "gpu", "exactly": {"deviceClassName": class_name}}]
                }
            },
        }
    )


def pod_with(*claims: str) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": POD, "namespace": "default", "uid": POD_UID},
            "spec": {
                "resourceClaims": [
                    {"name": f"{RESOURCE}-{i}", "resourceClaimName": c}
                    for i, c in enumerate(claims)
                ]
            },
        }
    )


CLASSES = (device_class(BIG), device_class(SMALL))
NODES = [node("node-big"), node("node-small"), node("node-both")]
SLICES = (
    gpu_slice("node-big", BIG),
    gpu_slice("node-small", SMALL),
    gpu_slice("node-both", BIG, SMALL),
)


def scores(the_pod: Pod, *objects: Any, version: str = "1.37", **kw: Any) -> dict[str, int]:
    """PreFilter, Filter on every node, then Score on those that passed."""
    r = run(the_pod, *objects, *CLASSES, *SLICES, nodes=NODES, version=version, **kw)
    assert r.pre_filter() is None
    out = {}
    for n in NODES:
        name = n.metadata.name
        if r.filter(name) is None:
            score, status = r.plugin.score(r.state, r.pod, info(n))
            assert status is None
            out[name] = score
    return out


def test_the_first_alternative_scores_8_the_second_7() -> None:
    # computeScore: FirstAvailableDeviceRequestMaxSize (8) - i for the allocated sub-request i.
    claim = prioritized("c", ("gpu", [BIG, SMALL]))
    assert scores(pod_with("c"), claim) == {"node-big": 8, "node-small": 7, "node-both": 8}


def test_requests_and_claims_add_up() -> None:
    # Every firstAvailable request of every claim adds its sub-request's rank.
    one = prioritized("one", ("a", [BIG, SMALL]), ("b", [SMALL, BIG]))
    # Two devices needed: only node-both has them, a takes its big one (a/sub-0: 8) and
    # b its small one (b/sub-0: 8).
    assert scores(pod_with("one"), one) == {"node-both": 16}


def test_an_exactly_request_adds_nothing() -> None:
    # computeScore: "if req.Exactly != nil { continue }".
    assert scores(pod_with("e"), exactly("e", BIG)) == {"node-big": 0, "node-both": 0}


def test_an_allocated_claim_counts_its_own_allocation() -> None:
    # The later computeScore: a claim allocated before the cycle is read from its status,
    # and the claims allocated in Filter take the node's allocations in order.
    allocated = with_status(
        prioritized("done", ("gpu", [BIG, SMALL])),
        allocation={
            "devices": {
                "results": [
                    {"request": "gpu/sub-1", "driver": DRIVER, "pool": "x", "device": "gpu-9"}
                ]
            }
        },
        reservedFor=[{"resource": "pods", "name": POD, "uid": POD_UID}],
    )
    pending = prioritized("new", ("gpu", [BIG, SMALL]))
    assert scores(pod_with("done", "new"), allocated, pending) == {
        "node-big": 7 + 8,
        "node-small": 7 + 7,
        "node-both": 7 + 8,
    }


def test_a_pod_without_claims_scores_0() -> None:
    r = run(
        Pod.from_dict({"metadata": {"name": "p", "namespace": "default"}}),
        nodes=NODES,
        version="1.37",
    )
    r.pre_filter()
    assert r.plugin.score(r.state, r.pod, info(NODES[0])) == (0, None)


def test_a_node_without_an_allocation_scores_0() -> None:
    # Score: "allocations, found := state.nodeAllocations[...]; if !found { return 0, nil }".
    claim = prioritized("c", ("gpu", [BIG, SMALL]))
    r = run(pod_with("c"), claim, *CLASSES, *SLICES, nodes=NODES, version="1.37")
    r.pre_filter()
    assert r.plugin.score(r.state, r.pod, info(node("elsewhere"))) == (0, None)


def test_without_prefilter_state_score_is_an_error() -> None:
    r = run(pod_with("c"), nodes=NODES, version="1.37")
    score, status = r.plugin.score(r.state, r.pod, info(NODES[0]))
    assert score == 0 and code(status) == Code.ERROR


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ([8, 7, 8], [100, 87, 100]),
        ([16, 15], [100, 93]),
        ([7, 7], [100, 100]),  # one score for all: DefaultNormalizeScore gives them 100
        ([0, 0], [0, 0]),  # the highest is 0: left alone
    ],
)
def test_normalize_score_is_default_normalize_score(raw: list[int], normalized: list[int]) -> None:
    r = run(pod_with("c"), nodes=NODES, version="1.37")
    node_scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    extensions = r.plugin.score_extensions()
    assert extensions is not None
    assert extensions.normalize_score(r.state, r.pod, node_scores) is None
    assert [s.score for s in node_scores] == normalized


@pytest.mark.parametrize(("version", "scores"), [("1.34", False), ("1.35", True)])
def test_a_score_plugin_from_v1_35(version: str, scores: bool) -> None:
    # kubernetes#134711 is in v1.35: Go's v1.34 type is no ScorePlugin, and new() then builds
    # one without Score, so that the framework (which asks isinstance) does not list it.
    handle = run(pod_with("c"), version=version).plugin._handle
    assert isinstance(new(None, handle), ScorePlugin) is scores


def test_with_prioritized_list_off_prefilter_refuses_subrequests() -> None:
    # PreFilter: "has subrequests, but the DRAPrioritizedList feature is disabled" (v1.35).
    claim = prioritized("c", ("gpu", [BIG, SMALL]))
    r = run(
        pod_with("c"),
        claim,
        *CLASSES,
        *SLICES,
        nodes=NODES,
        version="1.35",
        gates={"DRAPrioritizedList": False},
    )
    status = r.pre_filter()
    assert code(status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert message(status) == (
        "resource claim default/c, request gpu: has subrequests, "
        "but the DRAPrioritizedList feature is disabled"
    )


def test_with_prioritized_list_off_an_allocated_claim_scores_0() -> None:
    # The later Score: "if !pl.enabled || !pl.fts.EnableDRAPrioritizedList { return 0, nil }".
    allocated = with_status(
        prioritized("done", ("gpu", [BIG, SMALL])),
        allocation={
            "devices": {
                "results": [
                    {"request": "gpu/sub-0", "driver": DRIVER, "pool": "x", "device": "gpu-9"}
                ]
            }
        },
        reservedFor=[{"resource": "pods", "name": POD, "uid": POD_UID}],
    )
    r = run(
        pod_with("done"),
        allocated,
        *CLASSES,
        nodes=[Node.from_dict({"metadata": {"name": "n"}})],
        version="1.35",
        gates={"DRAPrioritizedList": False},
    )
    assert r.pre_filter() is None
    assert r.plugin.score(r.state, r.pod, info(r.nodes[0])) == (0, None)


def test_the_test_wrappers_keep_a_v1_34_plugin_without_score() -> None:
    # The fault and deadline wrappers pass every method through: a method blocked with None
    # (no such point) must stay absent, or the framework would call None.
    from framework.clock import FakeClock
    from framework.testing.deadline import DeadlinePlugin
    from framework.testing.faults.plan import FaultPlan
    from framework.testing.faults.plugins import FaultyPlugin

    plugin = new(None, run(pod_with("c"), version="1.34").plugin._handle)
    assert not isinstance(FaultyPlugin(plugin, FaultPlan([])), ScorePlugin)
    assert not isinstance(DeadlinePlugin(plugin, 1.0, FakeClock()), ScorePlugin)
