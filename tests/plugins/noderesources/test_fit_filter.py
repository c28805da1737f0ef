"""NodeResourcesFit's PreFilter and Filter: which nodes the pod fits, and the exact reasons when not.

The tables port ``TestEnoughRequests``, ``TestNotEnoughRequests``,
``TestStorageRequests`` and ``TestPreFilterDisabled`` of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/fit_test.go``
(v1.33): same pods, same nodes, same ids, same statuses and same
``InsufficientResource`` numbers, in our own words.
"""

from __future__ import annotations

import pytest

from framework.config.args_noderesources import (
    NodeResourcesFitArgs,
    set_defaults_node_resources_fit_args,
)
from framework.cycle_state import CycleState
from framework.interface import FilterPlugin, PreFilterPlugin
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.plugins.noderesources.fit import PRE_FILTER_STATE_KEY, Fit, PreFilterState
from framework.plugins.noderesources.fits import (
    ERR_REASON_TOO_MANY_PODS,
    InsufficientResource,
    compute_pod_resource_request,
    fits_request,
    insufficient_reason,
)
from framework.status import Code, Status
from tests.plugins.noderesources.helpers import (
    EXTENDED_A,
    EXTENDED_B,
    HUGE_PAGE_A,
    KUBERNETES_IO_A,
    KUBERNETES_IO_B,
    make_node,
    make_pod,
    node_info,
    requests,
)


def allocatable(
    milli_cpu: int, memory: int, pods: int, extended_a: int, storage: int, huge: int
) -> Node:
    """``makeAllocatableResources`` of fit_test.go."""
    return make_node(
        "n1",
        {
            "cpu": f"{milli_cpu}m",
            "memory": str(memory),
            "pods": str(pods),
            EXTENDED_A: str(extended_a),
            "ephemeral-storage": str(storage),
            HUGE_PAGE_A: str(huge),
        },
    )


def existing(milli_cpu: int = 0, memory: int = 0, **scalars: int) -> NodeInfo:
    """A NodeInfo holding one pod with these requests (``NewNodeInfo(newResourcePod(...))``)."""
    return node_info(None, make_pod(cpu_mem(milli_cpu, memory, **scalars), name="existing"))


SCALARS = {
    "a": EXTENDED_A,
    "b": EXTENDED_B,
    "kio_a": KUBERNETES_IO_A,
    "kio_b": KUBERNETES_IO_B,
    "huge": HUGE_PAGE_A,
}


def cpu_mem(milli_cpu: int, memory: int, **scalars: int) -> dict[str, str]:
    """One container's requests; ``a=1`` is 1 of ``example.com/aaa`` (see ``SCALARS``)."""
    return requests(milli_cpu, memory, scalars={SCALARS[k]: v for k, v in scalars.items()})


def short(name: str, requested: int, used: int, capacity: int) -> InsufficientResource:
    return InsufficientResource(name, insufficient_reason(name), requested, used, capacity)


def run_filter(fit: Fit, pod: Pod, info: NodeInfo) -> Status | None:
    state = CycleState()
    result, status = fit.pre_filter(state, pod, [info])
    assert (result, status) == (None, None)
    return fit.filter(state, pod, info)


ENOUGH_REQUESTS = [
    pytest.param(
        Pod(),
        existing(10, 20),
        NodeResourcesFitArgs(),
        [],
        id="no resources requested always fits",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1)),
        existing(10, 20),
        NodeResourcesFitArgs(),
        [short("cpu", 1, 10, 10), short("memory", 1, 20, 20)],
        id="too many resources fails",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1), init=[cpu_mem(3, 1)]),
        existing(8, 19),
        NodeResourcesFitArgs(),
        [short("cpu", 3, 8, 10)],
        id="too many resources fails due to init container cpu",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1), init=[cpu_mem(3, 1), cpu_mem(2, 1)]),
        existing(8, 19),
        NodeResourcesFitArgs(),
        [short("cpu", 3, 8, 10)],
        id="too many resources fails due to highest init container cpu",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1), init=[cpu_mem(1, 3)]),
        existing(9, 19),
        NodeResourcesFitArgs(),
        [short("memory", 3, 19, 20)],
        id="too many resources fails due to init container memory",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1), init=[cpu_mem(1, 3), cpu_mem(1, 2)]),
        existing(9, 19),
        NodeResourcesFitArgs(),
        [short("memory", 3, 19, 20)],
        id="too many resources fails due to highest init container memory",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1), init=[cpu_mem(1, 1)]),
        existing(9, 19),
        NodeResourcesFitArgs(),
        [],
        id="init container fits because it's the max, not sum, of containers and init containers",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1), init=[cpu_mem(1, 1), cpu_mem(1, 1)]),
        existing(9, 19),
        NodeResourcesFitArgs(),
        [],
        id="multiple init containers fit because it's the max, not sum, of containers and init containers",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1)),
        existing(5, 5),
        NodeResourcesFitArgs(),
        [],
        id="both resources fit",
    ),
    pytest.param(
        make_pod(cpu_mem(2, 1)),
        existing(9, 5),
        NodeResourcesFitArgs(),
        [short("cpu", 2, 9, 10)],
        id="one resource memory fits",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 2)),
        existing(5, 19),
        NodeResourcesFitArgs(),
        [short("memory", 2, 19, 20)],
        id="one resource cpu fits",
    ),
    pytest.param(
        make_pod(cpu_mem(5, 1)), existing(5, 19), NodeResourcesFitArgs(), [], id="equal edge case"
    ),
    pytest.param(
        make_pod(cpu_mem(4, 1), init=[cpu_mem(5, 1)]),
        existing(5, 19),
        NodeResourcesFitArgs(),
        [],
        id="equal edge case for init container",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0, a=1)),
        existing(),
        NodeResourcesFitArgs(),
        [],
        id="extended resource fits",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0), init=[cpu_mem(0, 0, a=1)]),
        existing(),
        NodeResourcesFitArgs(),
        [],
        id="extended resource fits for init container",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, a=10)),
        existing(0, 0, a=0),
        NodeResourcesFitArgs(),
        [short(EXTENDED_A, 10, 0, 5)],
        id="extended resource capacity enforced",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0), init=[cpu_mem(1, 1, a=10)]),
        existing(0, 0, a=0),
        NodeResourcesFitArgs(),
        [short(EXTENDED_A, 10, 0, 5)],
        id="extended resource capacity enforced for init container",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, a=1)),
        existing(0, 0, a=5),
        NodeResourcesFitArgs(),
        [short(EXTENDED_A, 1, 5, 5)],
        id="extended resource allocatable enforced",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0), init=[cpu_mem(1, 1, a=1)]),
        existing(0, 0, a=5),
        NodeResourcesFitArgs(),
        [short(EXTENDED_A, 1, 5, 5)],
        id="extended resource allocatable enforced for init container",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, a=3), cpu_mem(1, 1, a=3)),
        existing(0, 0, a=2),
        NodeResourcesFitArgs(),
        [short(EXTENDED_A, 6, 2, 5)],
        id="extended resource allocatable enforced for multiple containers",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0), init=[cpu_mem(1, 1, a=3), cpu_mem(1, 1, a=3)]),
        existing(0, 0, a=2),
        NodeResourcesFitArgs(),
        [],
        id="extended resource allocatable admits multiple init containers",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0), init=[cpu_mem(1, 1, a=6), cpu_mem(1, 1, a=3)]),
        existing(0, 0, a=2),
        NodeResourcesFitArgs(),
        [short(EXTENDED_A, 6, 2, 5)],
        id="extended resource allocatable enforced for multiple init containers",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, b=1)),
        existing(),
        NodeResourcesFitArgs(),
        [short(EXTENDED_B, 1, 0, 0)],
        id="extended resource allocatable enforced for unknown resource",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0), init=[cpu_mem(1, 1, b=1)]),
        existing(),
        NodeResourcesFitArgs(),
        [short(EXTENDED_B, 1, 0, 0)],
        id="extended resource allocatable enforced for unknown resource for init container",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, kio_a=10)),
        existing(),
        NodeResourcesFitArgs(),
        [short(KUBERNETES_IO_A, 10, 0, 0)],
        id="kubernetes.io resource capacity enforced",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0), init=[cpu_mem(1, 1, kio_b=10)]),
        existing(),
        NodeResourcesFitArgs(),
        [short(KUBERNETES_IO_B, 10, 0, 0)],
        id="kubernetes.io resource capacity enforced for init container",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, huge=10)),
        existing(0, 0, huge=0),
        NodeResourcesFitArgs(),
        [short(HUGE_PAGE_A, 10, 0, 5)],
        id="hugepages resource capacity enforced",
    ),
    pytest.param(
        make_pod(cpu_mem(0, 0), init=[cpu_mem(1, 1, huge=10)]),
        existing(0, 0, huge=0),
        NodeResourcesFitArgs(),
        [short(HUGE_PAGE_A, 10, 0, 5)],
        id="hugepages resource capacity enforced for init container",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, huge=3), cpu_mem(1, 1, huge=3)),
        existing(0, 0, huge=2),
        NodeResourcesFitArgs(),
        [short(HUGE_PAGE_A, 6, 2, 5)],
        id="hugepages resource allocatable enforced for multiple containers",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, b=1)),
        existing(),
        NodeResourcesFitArgs(ignored_resources=(EXTENDED_B,)),
        [],
        id="skip checking ignored extended resource",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1), overhead={"cpu": "3m", "memory": "13"}),
        existing(5, 5),
        NodeResourcesFitArgs(),
        [],
        id="resources + pod overhead fits",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1), overhead={"cpu": "1m", "memory": "15"}),
        existing(5, 5),
        NodeResourcesFitArgs(),
        [short("memory", 16, 5, 20)],
        id="requests + overhead does not fit for memory",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, b=1, kio_a=1)),
        existing(),
        NodeResourcesFitArgs(ignored_resource_groups=("example.com",)),
        [short(KUBERNETES_IO_A, 1, 0, 0)],
        id="skip checking ignored extended resource via resource groups",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1, a=0)),
        existing(0, 0, a=6),
        NodeResourcesFitArgs(),
        [],
        id="skip checking extended resource request with quantity zero via resource groups",
    ),
    pytest.param(
        make_pod(requests(scalars={EXTENDED_A: 1})),
        existing(20, 30, a=1),
        NodeResourcesFitArgs(),
        [],
        id="skip checking resource request with quantity zero",
    ),
]


@pytest.mark.parametrize(("pod", "info", "args", "want"), ENOUGH_REQUESTS)
def test_filter_lists_every_insufficient_resource(
    pod: Pod, info: NodeInfo, args: NodeResourcesFitArgs, want: list[InsufficientResource]
) -> None:
    info.set_node(allocatable(10, 20, 32, 5, 20, 5))
    # As in Go's test: args without a strategy get the default one. Go's v1.33 cases: from
    # v1.34 a node too small in total says UnschedulableAndUnresolvable (tested below).
    fit = Fit(set_defaults_node_resources_fit_args(args), _Handle("1.33"))
    status = run_filter(fit, pod, info)
    if want:
        assert status == Status.unschedulable(*(r.reason for r in want))
    else:
        assert status is None
    got = fits_request(
        compute_pod_resource_request(pod), info, fit.ignored_resources, fit.ignored_resource_groups
    )
    assert got == want


NOT_ENOUGH_PODS = [
    pytest.param(
        Pod(),
        existing(10, 20),
        id="even without specified resources, predicate fails when there's no space for additional pod",
    ),
    pytest.param(
        make_pod(cpu_mem(1, 1)),
        existing(5, 5),
        id="even if both resources fit, predicate fails when there's no space for additional pod",
    ),
    pytest.param(
        make_pod(cpu_mem(5, 1)),
        existing(5, 19),
        id="even for equal edge case, predicate fails when there's no space for additional pod",
    ),
    pytest.param(
        make_pod(cpu_mem(5, 1), init=[cpu_mem(5, 1)]),
        existing(5, 19),
        id="even for equal edge case, predicate fails when there's no space for additional pod due to init container",
    ),
]


@pytest.mark.parametrize(("pod", "info"), NOT_ENOUGH_PODS)
def test_a_node_without_a_free_pod_slot_rejects_every_pod(pod: Pod, info: NodeInfo) -> None:
    info.set_node(allocatable(10, 20, 1, 0, 0, 0))
    assert run_filter(Fit(), pod, info) == Status.unschedulable(ERR_REASON_TOO_MANY_PODS)


def test_too_many_pods_comes_first_and_the_other_shortages_follow_it() -> None:
    info = existing(5, 5)
    info.set_node(allocatable(10, 20, 1, 0, 0, 0))
    status = run_filter(Fit(), make_pod(cpu_mem(6, 16)), info)
    assert status == Status.unschedulable(
        "Too many pods", "Insufficient cpu", "Insufficient memory"
    )
    assert status is not None and status.message() == (
        "Too many pods, Insufficient cpu, Insufficient memory"
    )


STORAGE_REQUESTS = [
    pytest.param(
        make_pod(cpu_mem(1, 1)), existing(2, 10), None, id="empty storage requested, and pod fits"
    ),
    pytest.param(
        make_pod(requests(ephemeral_storage=25)),
        existing(2, 2),
        Status.unschedulable("Insufficient ephemeral-storage"),
        id="storage ephemeral local storage request exceeds allocatable",
    ),
    pytest.param(
        make_pod(requests(ephemeral_storage=5)),
        node_info(None, make_pod(requests(2, 2, ephemeral_storage=10), name="existing")),
        None,
        id="ephemeral local storage is sufficient",
    ),
    pytest.param(make_pod(requests(ephemeral_storage=10)), existing(2, 2), None, id="pod fits"),
]


@pytest.mark.parametrize(("pod", "info", "want"), STORAGE_REQUESTS)
def test_ephemeral_storage_is_checked_like_cpu_and_memory(
    pod: Pod, info: NodeInfo, want: Status | None
) -> None:
    info.set_node(allocatable(10, 20, 32, 5, 20, 5))
    assert run_filter(Fit(None, _Handle("1.33")), pod, info) == want


def test_filter_without_pre_filter_is_an_error_naming_the_missing_state() -> None:
    """``TestPreFilterDisabled``: Filter needs PreFilter's state and says so."""
    info = node_info(make_node("n1"))
    status = Fit().filter(CycleState(), Pod(), info)
    assert status is not None and status.code is Code.ERROR
    assert (
        status.message() == 'error reading "PreFilterNodeResourcesFit" from cycleState: not found'
    )


def test_pre_filter_stores_the_effective_request_and_its_clone_is_the_same_object() -> None:
    state = CycleState()
    pod = make_pod(cpu_mem(1, 1), cpu_mem(2, 3), init=[cpu_mem(2, 1)], overhead={"cpu": "1m"})
    Fit().pre_filter(state, pod, [])
    stored = state.read_as(PRE_FILTER_STATE_KEY, PreFilterState)
    assert (stored.request.milli_cpu, stored.request.memory) == (4, 4)
    assert stored.clone() is stored
    assert Fit().pre_filter_extensions() is None


def test_a_pod_with_a_zero_extended_request_is_still_checked_for_pod_slots() -> None:
    # A scalar entry of 0 makes the request "not empty", but no check fails on it.
    info = node_info(None)
    info.set_node(make_node("n1", {"pods": "0"}))
    assert run_filter(Fit(), make_pod(requests(scalars={EXTENDED_A: 0})), info) == (
        Status.unschedulable(ERR_REASON_TOO_MANY_PODS)
    )


def test_the_plugin_implements_pre_filter_and_filter() -> None:
    fit = Fit()
    assert isinstance(fit, PreFilterPlugin) and isinstance(fit, FilterPlugin)
    assert fit.name() == "NodeResourcesFit"


class _Handle:
    def __init__(self, version: str) -> None:
        from framework.featuregate import new_feature_gates

        self.feature_gates = new_feature_gates(version)


@pytest.mark.parametrize(
    ("version", "request_cpu", "code"),
    [
        ("1.33", 5000, Code.UNSCHEDULABLE),  # v1.33: every shortage is Unschedulable
        ("1.34", 3000, Code.UNSCHEDULABLE),  # 3 > 4 - 2 free, but an empty node would fit it
        (
            "1.34",
            5000,
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        ),  # 5 > 4 allocatable: no eviction helps
        ("1.37", 5000, Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
    ],
)
def test_a_node_too_small_in_total_is_unresolvable_since_v1_34(
    version: str, request_cpu: int, code: Code
) -> None:
    # kubernetes#131345 (merged for v1.34), fit.go Filter: a shortage whose request exceeds
    # the node's whole allocatable marks the status UnschedulableAndUnresolvable.
    plugin = Fit(None, _Handle(version))
    running = make_pod(requests(milli_cpu=2000), name="running")
    info = node_info(make_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "10"}), running)
    pod = make_pod(requests(milli_cpu=request_cpu))
    state = CycleState()
    plugin.pre_filter(state, pod, [info])
    status = plugin.filter(state, pod, info)
    assert status is not None
    assert (status.code, status.reasons) == (code, ("Insufficient cpu",))
