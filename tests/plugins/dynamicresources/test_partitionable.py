"""Partitionable devices (``DRAPartitionableDevices``): shared counters in ResourceSlices.

A driver that can cut one GPU into partitions lists every partition as a
device, and says how much of the physical device each one uses: a slice of
the pool declares ``sharedCounters`` (counter sets, ``memory: 8Gi``), and a
device ``consumesCounters`` from them. The allocator never gives out devices
whose consumption exceeds a counter set, counting what allocated devices of
the pool (on any node) already consume.

The cases are kube's ``TestAllocator`` partitionable cases, transcribed from
``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/``
``allocator_testing.go`` (resource.k8s.io/v1 era, index id 3634581438):
``partitionable-devices-single-device``, ``-prioritized-list``, ``-multiple-devices``,
``-multiple-capacity-pools``, ``-multiple-counters``, ``-multiple-pools``,
``-unused-counters-in-counter-set``, ``-no-capacity-available``,
``-overallocated-capacity-pool``, ``-disabled-device-consumes-counters``,
``-disabled-other-device-do-not-consume-counters`` and
``-disabled-per-device-node-selection``. Go's ``sliceWithDevices(slice, node,
pool, ...)`` with a bare pool name has ``resourceSliceCount: 1``;
``resourcePool(pool, 2)`` has 2. The code was read in the incubating
allocator's ``allocator_incubating.go`` (``allocateDevice``,
``checkAvailableCounters``, index id 143551145) and ``pools_incubating.go``
(``GatherPools``, ``buildPool``, index id 138829402).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from framework.objects.resource import ResourceClaim, ResourceSlice
from framework.plugins.dynamicresources.structured import (
    AllocationError,
    Allocator,
    DeviceID,
    FailedOnNode,
    SliceIndex,
)
from tests.plugins.dynamicresources.test_allocator import (
    CLASS_A,
    CLASSES_AB,
    DRIVER_A,
    NODE_1,
    POOL_1,
    POOL_2,
    claim,
    node,
    request,
    result,
)

SET_1, SET_2 = "counter-set-1", "counter-set-2"


def consumes(*sets: tuple[str, dict[str, str]]) -> list[dict[str, Any]]:
    return [
        {"counterSet": name, "counters": {k: {"value": v} for k, v in counters.items()}}
        for name, counters in sets
    ]


def dev(name: str, *sets: tuple[str, dict[str, str]], memory: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if sets:
        out["consumesCounters"] = consumes(*sets)
    if memory is not None:
        out["capacity"] = {"memory": {"value": memory}}
    return out


def with_devices(
    name: str, pool: str, *devices: dict[str, Any], count: int = 2, driver: str = DRIVER_A
) -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "driver": driver,
                "nodeName": NODE_1,
                "pool": {"name": pool, "resourceSliceCount": count},
                "devices": list(devices),
            },
        }
    )


def with_counters(
    name: str, pool: str, *sets: tuple[str, dict[str, str]], count: int = 2, **spec: Any
) -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "driver": DRIVER_A,
                "nodeName": NODE_1,
                **spec,
                "pool": {"name": pool, "resourceSliceCount": count},
                "sharedCounters": [
                    {"name": n, "counters": {k: {"value": v} for k, v in c.items()}}
                    for n, c in sets
                ],
            },
        }
    )


def mem(value: str) -> tuple[str, dict[str, str]]:
    return (SET_1, {"memory": value})


# device-1, device-2, device-3 of 4Gi, 6Gi and 4Gi out of 8Gi: "fromCounters" capacity.
THREE = (
    dev("device-1", mem("4Gi"), memory="4Gi"),
    dev("device-2", mem("6Gi"), memory="6Gi"),
    dev("device-3", mem("4Gi"), memory="4Gi"),
)
EIGHT = with_counters("slice-2", POOL_1, mem("8Gi"))
AT_LEAST = 'device.capacity["driver-a"].memory.compareTo(quantity("{}")) >= 0'


def prioritized(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "firstAvailable": [
            {
                "name": sub,
                "deviceClassName": CLASS_A,
                "count": 1,
                "selectors": [{"cel": {"expression": AT_LEAST.format(size)}}],
            }
            for sub, size in (("subreq-0", "6Gi"), ("subreq-1", "4Gi"))
        ],
    }


CASES: dict[str, dict[str, Any]] = {
    "partitionable-devices-single-device": {
        "claims": [claim("claim-0", request("req-0", CLASS_A))],
        "slices": [
            with_devices("slice-1", POOL_1, dev("device-1", mem("4Gi"))),
            EIGHT,
        ],
        "expect": [result(NODE_1, ("req-0", DRIVER_A, POOL_1, "device-1"))],
    },
    "partitionable-devices-prioritized-list": {
        # req-0 takes device-1 (4Gi); device-2 (6Gi) would exceed 8Gi, so req-1 gets
        # its second choice, device-3.
        "claims": [claim("claim-0", request("req-0", CLASS_A), prioritized("req-1"))],
        "slices": [with_devices("slice-1", POOL_1, *THREE), EIGHT],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, "device-1"),
                ("req-1/subreq-1", DRIVER_A, POOL_1, "device-3"),
            )
        ],
    },
    "partitionable-devices-multiple-devices": {
        "claims": [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A))],
        "slices": [with_devices("slice-1", POOL_1, *THREE), EIGHT],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, "device-1"),
                ("req-1", DRIVER_A, POOL_1, "device-3"),
            )
        ],
    },
    "partitionable-devices-multiple-capacity-pools": {
        "claims": [claim("claim-0", request("req-0", CLASS_A), prioritized("req-1"))],
        "slices": [
            with_devices(
                "slice-1",
                POOL_1,
                dev("device-1", mem("4Gi"), (SET_2, {"cpus": "4"}), memory="4Gi"),
                dev("device-2", mem("6Gi"), (SET_2, {"cpus": "6"}), memory="6Gi"),
                dev("device-3", mem("4Gi"), (SET_2, {"cpus": "4"}), memory="4Gi"),
            ),
            with_counters("slice-2", POOL_1, mem("18Gi"), (SET_2, {"cpus": "8"})),
        ],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, "device-1"),
                ("req-1/subreq-1", DRIVER_A, POOL_1, "device-3"),
            )
        ],
    },
    "partitionable-devices-multiple-counters": {
        "claims": [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A))],
        "slices": [
            with_devices(
                "slice-1",
                POOL_1,
                dev(
                    "device-1",
                    (SET_1, {"memory": "4Gi", "cpus": "6"}),
                    (SET_2, {"cpus": "4", "memory": "2Gi"}),
                ),
                dev(
                    "device-2",
                    (SET_1, {"memory": "6Gi", "cpus": "4"}),
                    (SET_2, {"cpus": "6", "memory": "6Gi"}),
                ),
                dev(
                    "device-3",
                    (SET_1, {"memory": "4Gi", "cpus": "4"}),
                    (SET_2, {"cpus": "4", "memory": "4Gi"}),
                ),
            ),
            with_counters(
                "slice-2",
                POOL_1,
                (SET_1, {"cpus": "8", "memory": "18Gi"}),
                (SET_2, {"cpus": "12", "memory": "18Gi"}),
            ),
        ],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, "device-2"),
                ("req-1", DRIVER_A, POOL_1, "device-3"),
            )
        ],
    },
    "partitionable-devices-multiple-pools": {
        # pool-1's counters are spent by its allocated device-2 and device-3; pool-2's
        # device-1 is allocated, leaving 2 CPUs and 14Gi for two 1-CPU, 7Gi partitions.
        "claims": [claim("claim-0", request("req-0", CLASS_A), request("req-1", CLASS_A))],
        "slices": [
            with_devices(
                "slice-1",
                POOL_1,
                dev("device-1", (SET_1, {"cpus": "6", "memory": "4Gi"})),
                dev("device-2", (SET_1, {"cpus": "4", "memory": "6Gi"})),
                dev("device-3", (SET_1, {"cpus": "4", "memory": "4Gi"})),
            ),
            with_counters("slice-2", POOL_1, (SET_1, {"cpus": "8", "memory": "18Gi"})),
            with_devices(
                "slice-3",
                POOL_2,
                dev("device-1", (SET_1, {"cpus": "6", "memory": "4Gi"})),
                dev("device-2", (SET_1, {"cpus": "1", "memory": "7Gi"})),
                dev("device-3", (SET_1, {"cpus": "1", "memory": "7Gi"})),
            ),
            with_counters("slice-4", POOL_2, (SET_1, {"cpus": "8", "memory": "18Gi"})),
        ],
        "allocated": {
            DeviceID(DRIVER_A, POOL_1, "device-2"),
            DeviceID(DRIVER_A, POOL_1, "device-3"),
            DeviceID(DRIVER_A, POOL_2, "device-1"),
        },
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_2, "device-2"),
                ("req-1", DRIVER_A, POOL_2, "device-3"),
            )
        ],
    },
    "partitionable-devices-unused-counters-in-counter-set": {
        "claims": [claim("claim-0", request("req-0", CLASS_A, 2))],
        "slices": [
            with_devices(
                "slice-1",
                POOL_1,
                dev("device-1", mem("5Gi")),
                dev("device-2", mem("4Gi")),
                dev("device-3", mem("4Gi")),
            ),
            with_counters("slice-2", POOL_1, (SET_1, {"memory": "8Gi", "unused": "1Gi"})),
        ],
        "expect": [
            result(
                NODE_1,
                ("req-0", DRIVER_A, POOL_1, "device-2"),
                ("req-0", DRIVER_A, POOL_1, "device-3"),
            )
        ],
    },
    "partitionable-devices-no-capacity-available": {
        "claims": [claim("claim-0", request("req-0", CLASS_A))],
        "slices": [
            with_devices(
                "slice-1", POOL_1, dev("device-1", mem("4Gi")), dev("device-2", mem("16Gi"))
            ),
            with_counters("slice-2", POOL_1, mem("18Gi")),
        ],
        "allocated": {DeviceID(DRIVER_A, POOL_1, "device-2")},
        "expect": None,
    },
    "partitionable-devices-overallocated-capacity-pool": {
        "claims": [claim("claim-0", request("req-0", CLASS_A))],
        "slices": [
            with_devices(
                "slice-1", POOL_1, dev("device-1", mem("4Gi")), dev("device-2", mem("20Gi"))
            ),
            with_counters("slice-2", POOL_1, mem("18Gi")),
        ],
        "allocated": {DeviceID(DRIVER_A, POOL_1, "device-2")},
        "expect": None,
    },
    "partitionable-devices-disabled-device-consumes-counters": {
        "partitionable": False,
        "claims": [claim("claim-0", request("req-0", CLASS_A))],
        "slices": [
            with_devices("slice-1", POOL_1, dev("device-1", mem("4Gi")), count=1),
            with_counters("slice-2", POOL_1, mem("18Gi"), count=1),
        ],
        "expect": None,
    },
    "partitionable-devices-disabled-other-device-do-not-consume-counters": {
        # The counter slice is left out, yet counts for the pool's completeness.
        "partitionable": False,
        "claims": [claim("claim-0", request("req-0", CLASS_A))],
        "slices": [
            with_devices("slice-1", POOL_1, dev("device-1", mem("4Gi")), dev("device-2")),
            with_counters("slice-2", POOL_1, mem("18Gi")),
        ],
        "expect": [result(NODE_1, ("req-0", DRIVER_A, POOL_1, "device-2"))],
    },
    "partitionable-devices-disabled-per-device-node-selection": {
        "partitionable": False,
        "claims": [claim("claim-0", request("req-0", CLASS_A))],
        "slices": [
            ResourceSlice.from_dict(
                {
                    "metadata": {"name": "slice-1"},
                    "spec": {
                        "driver": DRIVER_A,
                        "perDeviceNodeSelection": True,
                        "pool": {"name": POOL_1, "resourceSliceCount": 1},
                        "devices": [{"name": "device-2", "nodeName": NODE_1}],
                    },
                }
            )
        ],
        "expect": None,
    },
}


def allocate(case: dict[str, Any], claims: list[ResourceClaim] | None = None) -> Any:
    allocator = Allocator(
        claims if claims is not None else case["claims"],
        case.get("allocated", set()),
        {c.metadata.name: c for c in CLASSES_AB},
        case["slices"],
        partitionable_devices=case.get("partitionable", True),
    )
    return allocator.allocate(case.get("node", node(NODE_1)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_partitionable_devices(name: str) -> None:
    case = CASES[name]
    results = allocate(case)
    if case["expect"] is None:
        assert results is None
        return
    assert results is not None
    assert [r.to_dict() for r in results] == case["expect"]


def test_counters_spent_by_a_device_allocated_on_another_node_count_too() -> None:
    # One counter set for the pool, devices on two nodes: the pool's other slice (not
    # reaching node-1) holds an allocated device that spends 6 of the 8Gi.
    here = with_devices("slice-1", POOL_1, dev("device-1", mem("4Gi")), count=3)
    there = ResourceSlice.from_dict(
        {
            "metadata": {"name": "slice-3"},
            "spec": {
                "driver": DRIVER_A,
                "nodeName": "node-2",
                "pool": {"name": POOL_1, "resourceSliceCount": 3},
                "devices": [dev("device-2", mem("6Gi"))],
            },
        }
    )
    counters = with_counters("slice-2", POOL_1, mem("8Gi"), count=3)
    case = {
        "claims": [claim("claim-0", request("req-0", CLASS_A))],
        "slices": [here, there, counters],
        "allocated": {DeviceID(DRIVER_A, POOL_1, "device-2")},
    }
    assert allocate(case) is None
    assert allocate({**case, "allocated": set()}) is not None


def test_a_counter_slice_reaches_every_node() -> None:
    # buildPool: slices with sharedCounters belong to the pool whatever their node.
    elsewhere = with_counters("slice-2", POOL_1, mem("8Gi"), nodeName="node-2")
    case = {
        "claims": [claim("claim-0", request("req-0", CLASS_A))],
        "slices": [with_devices("slice-1", POOL_1, dev("device-1", mem("4Gi"))), elsewhere],
    }
    assert allocate(case) is not None


@pytest.mark.parametrize(
    ("sets", "device_sets", "reason"),
    [
        ([mem("8Gi"), mem("4Gi")], [mem("4Gi")], "duplicate counter set name counter-set-1"),
        ([mem("8Gi")], [(SET_2, {"memory": "4Gi"})], "counter set counter-set-2 not found"),
        (
            [mem("8Gi")],
            [(SET_1, {"cpus": "1"})],
            "counter cpus not found in counter set counter-set-1",
        ),
    ],
    ids=["duplicate counter set", "missing counter set", "missing counter"],
)
def test_an_invalid_pool(
    sets: list[tuple[str, dict[str, str]]],
    device_sets: list[tuple[str, dict[str, str]]],
    reason: str,
) -> None:
    # buildPool marks the pool invalid (InvalidReason): its devices are not searched; when
    # nothing fits, the node fails with "invalid resource pools were encountered"
    # (ErrFailedAllocationOnNode, not an error), and a request for All refuses the pool.
    slices = [
        with_devices("slice-1", POOL_1, dev("device-1", *device_sets)),
        with_counters("slice-2", POOL_1, *sets),
    ]
    (candidate,) = SliceIndex(slices)._candidates(node(NODE_1))
    assert candidate.counters is not None and candidate.counters.invalid == reason
    exact = {"claims": [claim("claim-0", request("req-0", CLASS_A))], "slices": slices}
    with pytest.raises(FailedOnNode, match=r"^invalid resource pools were encountered$"):
        allocate(exact)
    everything = claim("claim-0", request("req-0", CLASS_A, mode="All"))
    with pytest.raises(
        AllocationError,
        match=re.escape(
            "claim claim-0, request req-0: asks for all devices, but resource pool "
            "driver-a/pool-1 is currently invalid"
        ),
    ):
        allocate(exact, [everything])


def test_another_pool_serves_when_one_is_invalid() -> None:
    slices = [
        with_devices("slice-1", POOL_1, dev("device-1", (SET_2, {"memory": "1Gi"}))),
        with_counters("slice-2", POOL_1, mem("8Gi")),
        with_devices("slice-3", POOL_2, dev("device-1"), count=1),
    ]
    results = allocate({"claims": [claim("claim-0", request("req-0", CLASS_A))], "slices": slices})
    assert results is not None
    assert [(r.pool, r.device) for r in results[0].devices.results] == [(POOL_2, "device-1")]
