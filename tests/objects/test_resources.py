"""A pod's effective requests, per ``PodRequests`` in component-helpers/resource/helpers.go (v1.33)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.objects import Pod
from framework.objects.resources import pod_requests


def make_pod(
    containers: list[dict[str, Any]],
    init: list[dict[str, Any]] | None = None,
    overhead: dict[str, str] | None = None,
) -> Pod:
    def c(i: int, spec: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": f"c{i}",
            "resources": {"requests": spec.get("requests", {})},
        }
        if "restartPolicy" in spec:
            out["restartPolicy"] = spec["restartPolicy"]
        return out

    spec: dict[str, Any] = {"containers": [c(i, x) for i, x in enumerate(containers)]}
    if init:
        spec["initContainers"] = [c(100 + i, x) for i, x in enumerate(init)]
    if overhead:
        spec["overhead"] = overhead
    return Pod.from_dict({"metadata": {"name": "p"}, "spec": spec})


@pytest.mark.parametrize(
    ("the_pod", "expected"),
    [
        pytest.param(make_pod([{}]), {}, id="no requests"),
        pytest.param(
            make_pod(
                [
                    {"requests": {"cpu": "250m", "memory": "64Mi"}},
                    {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}},
                ]
            ),
            {"cpu": 1250, "memory": 64 * 2**20, "nvidia.com/gpu": 1},
            id="containers add up",
        ),
        pytest.param(
            make_pod([{"requests": {"cpu": "1"}}], init=[{"requests": {"cpu": "2"}}]),
            {"cpu": 2000},
            id="a larger init container wins",
        ),
        pytest.param(
            make_pod([{"requests": {"cpu": "3"}}], init=[{"requests": {"cpu": "2"}}]),
            {"cpu": 3000},
            id="a smaller init container does not count",
        ),
        pytest.param(
            make_pod(
                [{"requests": {"cpu": "1"}}],
                init=[
                    {"requests": {"cpu": "500m"}, "restartPolicy": "Always"},
                    {"requests": {"cpu": "2"}},
                ],
            ),
            {"cpu": 2500},
            id="a sidecar runs beside later init containers",
        ),
        pytest.param(
            make_pod(
                [{"requests": {"cpu": "1"}}],
                init=[{"requests": {"cpu": "500m"}, "restartPolicy": "Always"}],
            ),
            {"cpu": 1500},
            id="a sidecar adds to the containers",
        ),
        pytest.param(
            make_pod(
                [{"requests": {"cpu": "1"}}],
                init=[
                    {"requests": {"cpu": "2"}},
                    {"requests": {"cpu": "500m"}, "restartPolicy": "Always"},
                ],
            ),
            {"cpu": 2000},
            id="a sidecar started after an init container does not add to it",
        ),
        pytest.param(
            make_pod([{"requests": {"cpu": "1"}}], overhead={"cpu": "100m", "memory": "10Mi"}),
            {"cpu": 1100, "memory": 10 * 2**20},
            id="overhead is added",
        ),
    ],
)
def test_pod_requests(the_pod: Pod, expected: dict[str, int]) -> None:
    assert pod_requests(the_pod) == expected


def test_overhead_can_be_excluded() -> None:
    the_pod = make_pod([{"requests": {"cpu": "1"}}], overhead={"cpu": "100m"})
    assert pod_requests(the_pod, include_overhead=False) == {"cpu": 1000}


def test_non_missing_defaults_replace_only_absent_requests() -> None:
    the_pod = make_pod(
        [{"requests": {"cpu": "0"}}, {}],
        init=[{"requests": {"memory": "1Gi"}}],
    )
    defaults = {"cpu": 100, "memory": 200 * 2**20}
    # container 0: cpu 0 (explicit) + memory 200Mi; container 1: 100m + 200Mi;
    # init: 100m + 1Gi, which beats the containers' memory.
    assert pod_requests(the_pod, non_missing=defaults) == {"cpu": 100, "memory": 2**30}
