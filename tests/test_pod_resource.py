"""PodInfo.calculate_resource: a pod's requests, computed once and kept.

The cache is later kube-scheduler's (``PodInfo.CalculateResource`` and
``cachedResource`` in ``pkg/scheduler/framework/types.go``); v1.33
recomputes ``calculateResource(pod)`` on every NodeInfo update, and the
totals must come out the same either way.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.objects.resources import pod_requests
from framework.types import PodInfo

MI = 2**20


def pod(uid: str, *containers: dict[str, Any], init: tuple[dict[str, Any], ...] = ()) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": f"p{uid}", "uid": uid},
            "spec": {"containers": list(containers), "initContainers": list(init)},
        }
    )


def requests(**amounts: str) -> dict[str, Any]:
    return {"name": "c", "resources": {"requests": amounts}}


@pytest.mark.parametrize(
    ("p", "non0_cpu", "non0_mem"),
    [
        (pod("1", requests(cpu="1", memory="1Gi")), 1000, 1024 * MI),
        # No requests: scoring counts 100m and 200Mi (pkg/scheduler/util/pod_resources.go).
        (pod("2", {"name": "c"}), 100, 200 * MI),
        # An init container larger than the containers sets the peak (component-helpers
        # PodRequests); both default to 200Mi, and the larger of the two is kept, not the sum.
        (
            pod("3", requests(cpu="100m"), init=({"name": "i", **requests(cpu="2")},)),
            2000,
            200 * MI,
        ),
    ],
    ids=["requests", "none", "init-peak"],
)
def test_calculate_resource_matches_pod_requests(p: Pod, non0_cpu: int, non0_mem: int) -> None:
    resource = PodInfo(p).calculate_resource()
    assert resource.requests == pod_requests(p)
    assert (resource.non0_cpu, resource.non0_mem) == (non0_cpu, non0_mem)


def test_computed_once_and_cleared_by_update() -> None:
    info = PodInfo(pod("1", requests(cpu="1")))
    first = info.calculate_resource()
    assert info.calculate_resource() is first
    info.update(pod("1", requests(cpu="3")))
    assert info.calculate_resource().requests["cpu"] == 3000


def test_remove_and_add_again_leaves_totals_unchanged() -> None:
    # What preemption's dry run does, many times, with the same PodInfos.
    infos = [PodInfo(pod(str(i), requests(cpu="250m", memory="64Mi"))) for i in range(4)]
    node = NodeInfo()
    for info in infos:
        node.add_pod(info)
    before = (node.requested.clone(), node.non_zero_requested.clone())
    for info in infos:
        assert node.remove_pod(info.pod)
    assert (node.requested.milli_cpu, node.non_zero_requested.memory) == (0, 0)
    for info in infos:
        node.add_pod(info)
    assert (node.requested, node.non_zero_requested) == before
