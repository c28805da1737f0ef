"""The structured allocator's table test, transcribed from kube's ``TestAllocator``.

Source: ``kubernetes/kubernetes:staging/src/k8s.io/dynamic-resource-allocation/structured/``
``internal/allocatortesting/allocator_testing.go`` (resource.k8s.io/v1 era, index id
3634581438): the cases ``empty``, ``simple``, ``other-node``, ``small-and-large``,
``small-and-large-backtrack-requests``, ``small-and-large-backtrack-claims``,
``devices-split-across-different-slices``, ``obsolete-slice``, ``duplicate-slice``,
``no-slices``, ``not-enough-suitable-devices``, ``no-classes``, ``unknown-class``,
``empty-class``, ``all-devices-single``, ``all-devices-many``,
``all-devices-of-the-incomplete-pool``, ``all-devices-plus-another`` (and
``-reversed``), ``all-devices-many-plus-another``, ``all-devices-no-solution`` (and
``-reversed``), ``all-devices-slice-without-devices``, ``all-devices-no-slices`` and
``all-devices-some-allocated``. Go's helpers: ``class(name, driver)`` selects by
``device.driver``; ``sliceWithOneDevice`` lists ``device-1``; a node-local result
has the node selector ``metadata.name In [node]`` (``localNodeSelector``). Cases of
features not modelled (admin access, partitionable devices, taints, binding
conditions, consumable capacity) are left out.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from framework.objects import Node
from framework.objects.resource import DeviceClass, ResourceClaim, ResourceSlice
from framework.plugins.dynamicresources.structured import AllocationError, Allocator, DeviceID

DRIVER_A, DRIVER_B = "driver-a", "driver-b"
POOL_1, POOL_2 = "pool-1", "pool-2"
NODE_1, NODE_2 = "node-1", "node-2"
CLASS_A, CLASS_B = "class-a", "class-b"
DEVICE_1, DEVICE_2 = "device-1", "device-2"


def node(name: str) -> Node:
    return Node.from_dict({"metadata": {"name": name, "labels": {"region": name}}})


def device_class(name: str, driver: str) -> DeviceClass:
    expression = f'device.driver == "{driver}"'
    return DeviceClass.from_dict(
        {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": expression}}]}}
    )


def device(name: str, memory: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if memory is not None:
        out["capacity"] = {"memory": {"value": memory}}
    return out


def resource_slice(
    name: str,
    node_name: str,
    pool: str,
    driver: str,
    *devices: dict[str, Any],
    generation: int = 0,
    count: int = 1,
) -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "driver": driver,
                "nodeName": node_name,
                "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
                "devices": list(devices),
            },
        }
    )


def one_device(name: str, node_name: str, pool: str, driver: str, **kw: Any) -> ResourceSlice:
    return resource_slice(name, node_name, pool, driver, device(DEVICE_1), **kw)


def request(
    name: str,
    class_name: str,
    count: int = 1,
    selector: str | None = None,
    mode: str = "ExactCount",
) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": class_name, "allocationMode": mode}
    if mode == "ExactCount":
        exactly["count"] = count
    if selector is not None:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"name": name, "exactly": exactly}


def claim(name: str, *requests: dict[str, Any]) -> ResourceClaim:
    return ResourceClaim.from_dict(
        {"metadata": {"name": name}, "spec": {"devices": {"requests": list(requests)}}}
    )


def simple_claim(name: str, req: str, class_name: str) -> ResourceClaim:
    return claim(name, request(req, class_name))


def result(node_name: str, *devices: tuple[str, str, str, str]) -> dict[str, Any]:
    """``allocationResult(localNodeSelector(node), deviceAllocationResult(...)...)``."""
    return {
        "devices": {
            "results": [
                {"request": r, "driver": d, "pool": p, "device": x} for r, d, p, x in devices
            ]
        },
        "nodeSelector": {
            "nodeSelectorTerms": [
                {
                    "matchFields": [
                        {"key": "metadata.name", "operator": "In", "values": [node_name]}
                    ]
                }
            ]
        },
    }


AT_LEAST = 'device.capacity["driver-a"].memory.compareTo(quantity("{}")) >= 0'
SMALL_AND_LARGE = (
    request("req-0", CLASS_A, 1, AT_LEAST.format("1Gi")),
    request("req-1", CLASS_A, 1, AT_LEAST.format("2Gi")),
)
ALL = "All"
CLASSES_AB = [device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)]

CASES: dict[str, dict[str, Any]] = {
    "empty": {"claims": [], "expect": []},
    "simple": {
        "claims": [simple_claim("claim-0", "req-0", CLASS_A)],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "expect": [result(NODE_1, ("req-0", DRIVER_A, POOL_1, DEVICE_1))],
    },
    "other-node": {
        "claims": [simple_claim("claim-0", "req-0", CLASS_A)],
        "slices": [
            one_device("slice-1", NODE_1, POOL_1, DRIVER_B),
            one_device("slice-2", NODE_2, POOL_2, DRIVER_A),
        ],
        "node": NODE_2,
        "expect": [result(NODE_2, ("req-0", DRIVER_A, POOL_2, DEVICE_1))],
    },
    "small-and-large": {
        "claims": [claim("claim-0", *SMALL_AND_LARGE)],
        "slices": [
            resource_slice(
                "slice-1",
                NODE_1,
                POOL_1,
                DRIVER_A,
                device(DEVICE_1, "1Gi"),
                device(DEVICE_2, "2Gi"),
            )
        ],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, DEVICE_1),
                ("req-1", DRIVER_A, POOL_1, DEVICE_2),
            )
        ],
    },
    "small-and-large-backtrack-requests": {
        # The large device listed first is taken for the small request; the search backs up.
        "claims": [claim("claim-0", *SMALL_AND_LARGE)],
        "slices": [
            resource_slice(
                "slice-1",
                NODE_1,
                POOL_1,
                DRIVER_A,
                device(DEVICE_2, "2Gi"),
                device(DEVICE_1, "1Gi"),
            )
        ],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, DEVICE_1),
                ("req-1", DRIVER_A, POOL_1, DEVICE_2),
            )
        ],
    },
    "small-and-large-backtrack-claims": {
        "claims": [claim("claim-0", SMALL_AND_LARGE[0]), claim("claim-1", SMALL_AND_LARGE[1])],
        "slices": [
            resource_slice(
                "slice-1",
                NODE_1,
                POOL_1,
                DRIVER_A,
                device(DEVICE_2, "2Gi"),
                device(DEVICE_1, "1Gi"),
            )
        ],
        "expect": [
            result(NODE_1, ("req-0", DRIVER_A, POOL_1, DEVICE_1)),
            result(NODE_1, ("req-1", DRIVER_A, POOL_1, DEVICE_2)),
        ],
    },
    "devices-split-across-different-slices": {
        "claims": [claim("claim-0", request("req-0", CLASS_A, 2))],
        "slices": [
            one_device("slice-1", NODE_1, POOL_1, DRIVER_A),
            one_device("slice-2", NODE_1, POOL_2, DRIVER_A),
        ],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, DEVICE_1),
                ("req-0", DRIVER_A, POOL_2, DEVICE_1),
            )
        ],
    },
    "obsolete-slice": {
        # Generation 1 of the pool has one of its two slices: the pool is incomplete.
        "claims": [simple_claim("claim-0", "req-0", CLASS_A)],
        "slices": [
            resource_slice(
                "slice-1-obsolete", NODE_1, POOL_1, DRIVER_A, device(DEVICE_1), count=2
            ),
            resource_slice(
                "slice-1-obsolete",
                NODE_1,
                POOL_1,
                DRIVER_A,
                device(DEVICE_2),
                count=2,
                generation=1,
            ),
        ],
        "expect": None,
    },
    "duplicate-slice": {
        "claims": [simple_claim("claim-0", "req-0", CLASS_A)],
        "slices": [
            one_device("slice-1", NODE_1, POOL_1, DRIVER_A, count=2),
            one_device("slice-1-2", NODE_1, POOL_1, DRIVER_A, count=2),
        ],
        "error": "invalid resource pools were encountered",
    },
    "no-slices": {
        "claims": [simple_claim("claim-0", "req-0", CLASS_A)],
        "slices": [],
        "expect": None,
    },
    "not-enough-suitable-devices": {
        "claims": [
            simple_claim("claim-0", "req-0", CLASS_A),
            simple_claim("claim-0", "req-1", CLASS_A),
        ],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "expect": None,
    },
    "no-classes": {
        "claims": [simple_claim("claim-0", "req-0", CLASS_A)],
        "classes": [],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "error": "could not retrieve device class class-a",
    },
    "unknown-class": {
        "claims": [simple_claim("claim-0", "req-0", "unknown-class")],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "error": "could not retrieve device class unknown-class",
    },
    "empty-class": {
        "claims": [simple_claim("claim-0", "req-0", "")],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "error": "claim claim-0, request req-0: missing device class name (unsupported request type?)",
    },
    "all-devices-single": {
        "claims": [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "expect": [result(NODE_1, ("req-0", DRIVER_A, POOL_1, DEVICE_1))],
    },
    "all-devices-many": {
        "claims": [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        "slices": [
            one_device("slice-1", NODE_1, POOL_1, DRIVER_A),
            one_device("slice-1", NODE_1, POOL_2, DRIVER_A),
        ],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, DEVICE_1),
                ("req-0", DRIVER_A, POOL_2, DEVICE_1),
            )
        ],
    },
    "all-devices-of-the-incomplete-pool": {
        "claims": [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A, count=2)],
        "error": (
            "claim claim-0, request req-0: asks for all devices, "
            "but resource pool driver-a/pool-1 is currently being updated"
        ),
    },
    "all-devices-plus-another": {
        "claims": [
            claim("claim-0", request("req-0", CLASS_A, mode=ALL)),
            claim("claim-1", request("req-0", CLASS_B)),
        ],
        "slices": [
            one_device("slice-1", NODE_1, POOL_1, DRIVER_A),
            one_device("slice-1", NODE_1, POOL_1, DRIVER_B),
        ],
        "expect": [
            result(NODE_1, ("req-0", DRIVER_A, POOL_1, DEVICE_1)),
            result(NODE_1, ("req-0", DRIVER_B, POOL_1, DEVICE_1)),
        ],
    },
    "all-devices-plus-another-reversed": {
        "claims": [
            claim("claim-1", request("req-0", CLASS_B)),
            claim("claim-0", request("req-0", CLASS_A, mode=ALL)),
        ],
        "slices": [
            one_device("slice-1", NODE_1, POOL_1, DRIVER_A),
            one_device("slice-1", NODE_1, POOL_1, DRIVER_B),
        ],
        "expect": [
            result(NODE_1, ("req-0", DRIVER_B, POOL_1, DEVICE_1)),
            result(NODE_1, ("req-0", DRIVER_A, POOL_1, DEVICE_1)),
        ],
    },
    "all-devices-many-plus-another": {
        "claims": [
            claim("claim-0", request("req-0", CLASS_A, mode=ALL)),
            claim("claim-1", request("req-0", CLASS_B)),
        ],
        "slices": [
            resource_slice(
                "slice-1", NODE_1, POOL_1, DRIVER_A, device(DEVICE_1), device(DEVICE_2)
            ),
            one_device("slice-1", NODE_1, POOL_1, DRIVER_B),
        ],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, DEVICE_1),
                ("req-0", DRIVER_A, POOL_1, DEVICE_2),
            ),
            result(NODE_1, ("req-0", DRIVER_B, POOL_1, DEVICE_1)),
        ],
    },
    "all-devices-no-solution": {
        "claims": [
            claim("claim-1", request("req-0", CLASS_A)),
            claim("claim-0", request("req-0", CLASS_A, mode=ALL)),
        ],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "expect": None,
    },
    "all-devices-no-solution-reversed": {
        "claims": [
            claim("claim-0", request("req-0", CLASS_A, mode=ALL)),
            claim("claim-1", request("req-0", CLASS_A)),
        ],
        "slices": [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "expect": None,
    },
    "all-devices-slice-without-devices": {
        "claims": [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        "slices": [resource_slice("slice-1", NODE_1, POOL_1, DRIVER_A)],
        "expect": None,
    },
    "all-devices-no-slices": {
        "claims": [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        "slices": [],
        "expect": None,
    },
    "all-devices-some-allocated": {
        "claims": [claim("claim-0", request("req-0", CLASS_A, mode=ALL))],
        "allocated": {DeviceID(DRIVER_A, POOL_1, DEVICE_1)},
        "slices": [
            resource_slice("slice-1", NODE_1, POOL_1, DRIVER_A, device(DEVICE_1), device(DEVICE_2))
        ],
        "expect": None,
    },
}


@pytest.mark.parametrize("name", list(CASES))
def test_allocator(name: str) -> None:
    case = CASES[name]
    classes = case.get("classes", CLASSES_AB)
    allocator = Allocator(
        case["claims"],
        case.get("allocated", set()),
        {c.metadata.name: c for c in classes},
        case.get("slices", []),
    )
    target = node(case.get("node", NODE_1))
    if "error" in case:
        with pytest.raises(AllocationError, match=re.escape(case["error"])):
            allocator.allocate(target)
        return
    results = allocator.allocate(target)
    if case["expect"] is None:
        assert results is None
        return
    assert results is not None
    assert [r.to_dict() for r in results] == case["expect"]


def test_match_attribute_keeps_a_claims_devices_on_one_numa_node() -> None:
    # DeviceConstraint.matchAttribute: every device of the listed requests has the same value;
    # the first device (numa 0) has no partner, so the search backs up to the numa 1 pair.
    devices = [
        {"name": f"gpu-{i}", "attributes": {"numa": {"int": numa}}}
        for i, numa in enumerate((0, 1, 1))
    ]
    the_claim = ResourceClaim.from_dict(
        {
            "metadata": {"name": "claim-0"},
            "spec": {
                "devices": {
                    "requests": [request("req-0", CLASS_A), request("req-1", CLASS_A)],
                    "constraints": [{"matchAttribute": "driver-a/numa"}],
                }
            },
        }
    )
    allocator = Allocator(
        [the_claim],
        set(),
        {c.metadata.name: c for c in CLASSES_AB},
        [resource_slice("slice-1", NODE_1, POOL_1, DRIVER_A, *devices)],
    )
    results = allocator.allocate(node(NODE_1))
    assert results is not None
    assert [r.device for r in results[0].devices.results] == ["gpu-1", "gpu-2"]
    # With only one device per NUMA node, no pair exists.
    allocator = Allocator(
        [the_claim],
        {DeviceID(DRIVER_A, POOL_1, "gpu-2")},
        {c.metadata.name: c for c in CLASSES_AB},
        [resource_slice("slice-1", NODE_1, POOL_1, DRIVER_A, *devices)],
    )
    assert allocator.allocate(node(NODE_1)) is None


def test_a_slice_for_all_nodes_or_a_node_selector_reaches_the_nodes_it_names() -> None:
    def shared(selection: dict[str, Any]) -> ResourceSlice:
        return ResourceSlice.from_dict(
            {
                "metadata": {"name": "net"},
                "spec": {
                    "driver": DRIVER_A,
                    "pool": {"name": "fabric", "resourceSliceCount": 1},
                    "devices": [device(DEVICE_1)],
                    **selection,
                },
            }
        )

    classes = {c.metadata.name: c for c in CLASSES_AB}
    anywhere = Allocator(
        [simple_claim("c", "r", CLASS_A)], set(), classes, [shared({"allNodes": True})]
    )
    (everywhere,) = anywhere.allocate(node(NODE_2)) or []
    assert everywhere.node_selector is None
    selector = {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": "region", "operator": "In", "values": [NODE_1]}]}
        ]
    }
    regional = Allocator(
        [simple_claim("c", "r", CLASS_A)], set(), classes, [shared({"nodeSelector": selector})]
    )
    assert regional.allocate(node(NODE_2)) is None
    (there,) = regional.allocate(node(NODE_1)) or []
    assert there.node_selector is not None
    assert there.node_selector.to_dict() == selector


def test_a_device_is_looked_at_only_when_the_search_reaches_it() -> None:
    # allocator.go allocateOne: in use, then isSelectable, device by device; the search stops
    # at the first device that fits, so a selector that would fail at run time on a later
    # device is never evaluated. On the device in use before it, neither.
    healthy = 'device.attributes["driver-a"].healthy == true'
    devices = (
        {"name": "in-use"},  # no attribute: an error, were it evaluated
        {"name": DEVICE_1, "attributes": {"healthy": {"bool": True}}},
        {"name": DEVICE_2},  # no attribute either
    )
    slices = [resource_slice("slice-1", NODE_1, POOL_1, DRIVER_A, *devices)]
    classes = {c.metadata.name: c for c in CLASSES_AB}
    in_use = {DeviceID(DRIVER_A, POOL_1, "in-use")}
    one = claim("claim-0", request("req-0", CLASS_A, 1, healthy))
    results = Allocator([one], in_use, classes, slices).allocate(node(NODE_1))
    assert results is not None
    assert [r.to_dict() for r in results] == [
        result(NODE_1, ("req-0", DRIVER_A, POOL_1, DEVICE_1))
    ]
    # Two such devices wanted: the search reaches the third device, and fails there.
    two = claim("claim-0", request("req-0", CLASS_A, 2, healthy))
    with pytest.raises(AllocationError, match="CEL runtime error: no such key: healthy"):
        Allocator([two], in_use, classes, slices).allocate(node(NODE_1))


# --- admin access (DRAAdminAccess) and device taints (DRADeviceTaints) ----------------------


def admin_claim() -> ResourceClaim:
    c = claim("claim-0", request("req-0", CLASS_A))
    document = c.to_dict()
    document["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    return ResourceClaim.from_dict(document)


def test_admin_access_disabled() -> None:
    # allocator_testing.go "admin-access-disabled"
    slices = [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)]
    classes = {c.metadata.name: c for c in CLASSES_AB}
    allocator = Allocator([admin_claim()], set(), classes, slices, admin_access=False)
    with pytest.raises(
        AllocationError,
        match="claim claim-0, request req-0: admin access is requested, but the feature is disabled",
    ):
        allocator.allocate(node(NODE_1))


def test_admin_access_enabled_takes_a_device_in_use() -> None:
    # allocator_testing.go "admin-access-enabled": device-1 is allocated, and still given.
    slices = [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)]
    classes = {c.metadata.name: c for c in CLASSES_AB}
    in_use = {DeviceID(DRIVER_A, POOL_1, DEVICE_1), DeviceID(DRIVER_A, POOL_1, DEVICE_2)}
    results = Allocator([admin_claim()], in_use, classes, slices).allocate(node(NODE_1))
    assert results is not None
    want = result(NODE_1, ("req-0", DRIVER_A, POOL_1, DEVICE_1))
    want["devices"]["results"][0]["adminAccess"] = True
    assert [r.to_dict() for r in results] == [want]


def test_an_admin_access_request_leaves_the_device_to_the_next_request() -> None:
    # allocateDevice marks a device as allocating only without admin access.
    slices = [one_device("slice-1", NODE_1, POOL_1, DRIVER_A)]
    classes = {c.metadata.name: c for c in CLASSES_AB}
    results = Allocator(
        [admin_claim(), simple_claim("claim-1", "req-0", CLASS_A)], set(), classes, slices
    ).allocate(node(NODE_1))
    assert results is not None
    assert [r.devices.results[0].device for r in results] == [DEVICE_1, DEVICE_1]


TAINTED = {"name": DEVICE_1, "taints": [{"key": "broken", "value": "yes", "effect": "NoSchedule"}]}


def tolerating(*tolerations: dict[str, Any]) -> ResourceClaim:
    document = claim("claim-0", request("req-0", CLASS_A)).to_dict()
    document["spec"]["devices"]["requests"][0]["exactly"]["tolerations"] = list(tolerations)
    return ResourceClaim.from_dict(document)


@pytest.mark.parametrize(
    ("tolerations", "gate", "fits"),
    [
        ((), True, False),
        (({"key": "broken", "operator": "Exists"},), True, True),
        (({"key": "broken", "operator": "Equal", "value": "yes"},), True, True),
        (({"key": "broken", "value": "no"},), True, False),
        (({"key": "broken", "operator": "Exists", "effect": "NoExecute"},), True, False),
        (({"operator": "Exists"},), True, True),
        ((), False, True),
    ],
    ids=["untolerated", "exists", "equal", "other-value", "other-effect", "any-key", "gate-off"],
)
def test_a_tainted_device_goes_only_to_a_request_that_tolerates_it(
    tolerations: tuple[dict[str, Any], ...], gate: bool, fits: bool
) -> None:
    # allocator.go allTaintsTolerated, resourceclaim.ToleratesTaint (DRADeviceTaints).
    slices = [resource_slice("slice-1", NODE_1, POOL_1, DRIVER_A, TAINTED)]
    classes = {c.metadata.name: c for c in CLASSES_AB}
    results = Allocator(
        [tolerating(*tolerations)], set(), classes, slices, device_taints=gate
    ).allocate(node(NODE_1))
    assert (results is not None) is fits
