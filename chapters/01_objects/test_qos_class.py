"""Chapter 1: a pod's QoS class, computed exactly as Kubernetes computes it.

The cases follow ``TestComputePodQOS`` in
``kubernetes/kubernetes:pkg/apis/core/v1/helper/qos/qos_test.go`` (v1.33),
in our own words, plus the edges a learner is likely to miss. Run against
your code with ``python -m pytest chapters/01_objects --exercise``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from framework.apiserver import APIServer
from framework.objects import Pod
from framework.objects.qos import QOSClass

pytestmark = pytest.mark.exercise(
    reference="framework.objects.qos", skeleton="exercise.py", asks=["compute_pod_qos"]
)


def container(
    name: str = "app", requests: dict[str, Any] | None = None, limits: dict[str, Any] | None = None
) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    return {"name": name, "image": "registry.k8s.io/pause:3.10", "resources": resources}


def pod(*containers: dict[str, Any], init: tuple[dict[str, Any], ...] = ()) -> Pod:
    spec: dict[str, Any] = {"containers": list(containers)}
    if init:
        spec["initContainers"] = list(init)
    return Pod.from_dict({"metadata": {"name": "p"}, "spec": spec})


GUARANTEED_RESOURCES = {"cpu": "100m", "memory": "100Mi"}

CASES = [
    pytest.param(pod(container()), QOSClass.BEST_EFFORT, id="no requests or limits: best effort"),
    pytest.param(
        pod(container(), container("b")),
        QOSClass.BEST_EFFORT,
        id="two containers without resources: best effort",
    ),
    pytest.param(
        pod(container(requests={"nvidia.com/gpu": "1"}, limits={"nvidia.com/gpu": "1"})),
        QOSClass.BEST_EFFORT,
        id="only extended resources: best effort",
    ),
    pytest.param(
        pod(container(requests={"ephemeral-storage": "1Gi"})),
        QOSClass.BEST_EFFORT,
        id="only ephemeral storage: best effort",
    ),
    pytest.param(
        pod(container(requests={"cpu": "0", "memory": "0"})),
        QOSClass.BEST_EFFORT,
        id="zero requests count as none: best effort",
    ),
    pytest.param(
        pod(container(requests=GUARANTEED_RESOURCES, limits=GUARANTEED_RESOURCES)),
        QOSClass.GUARANTEED,
        id="requests equal limits: guaranteed",
    ),
    pytest.param(
        pod(
            container(requests=GUARANTEED_RESOURCES, limits=GUARANTEED_RESOURCES),
            container("b", requests=GUARANTEED_RESOURCES, limits=GUARANTEED_RESOURCES),
        ),
        QOSClass.GUARANTEED,
        id="every container guaranteed: guaranteed",
    ),
    pytest.param(
        pod(
            container(
                requests={"cpu": "10m", "memory": "1Gi"},
                limits={"cpu": "0.01", "memory": "1073741824"},
            )
        ),
        QOSClass.GUARANTEED,
        id="equal quantities written differently: guaranteed",
    ),
    pytest.param(
        pod(
            container(
                requests={**GUARANTEED_RESOURCES, "nvidia.com/gpu": "1"},
                limits={**GUARANTEED_RESOURCES, "nvidia.com/gpu": "2"},
            )
        ),
        QOSClass.GUARANTEED,
        id="extended resources are ignored: guaranteed",
    ),
    pytest.param(
        pod(
            container(requests=GUARANTEED_RESOURCES, limits=GUARANTEED_RESOURCES),
            init=(container("init", requests=GUARANTEED_RESOURCES, limits=GUARANTEED_RESOURCES),),
        ),
        QOSClass.GUARANTEED,
        id="guaranteed init container: guaranteed",
    ),
    pytest.param(
        pod(container(requests={"cpu": "100m"})),
        QOSClass.BURSTABLE,
        id="requests without limits: burstable",
    ),
    pytest.param(
        pod(
            container(
                requests={"cpu": "100m", "memory": "100Mi"},
                limits={"cpu": "200m", "memory": "100Mi"},
            )
        ),
        QOSClass.BURSTABLE,
        id="request below limit: burstable",
    ),
    pytest.param(
        pod(container(requests={"cpu": "100m"}, limits={"cpu": "100m"})),
        QOSClass.BURSTABLE,
        id="cpu limit only: burstable",
    ),
    pytest.param(
        pod(container(requests=GUARANTEED_RESOURCES, limits=GUARANTEED_RESOURCES), container("b")),
        QOSClass.BURSTABLE,
        id="guaranteed container beside a best-effort one: burstable",
    ),
    pytest.param(
        pod(
            container(requests=GUARANTEED_RESOURCES, limits=GUARANTEED_RESOURCES),
            init=(container("init"),),
        ),
        QOSClass.BURSTABLE,
        id="best-effort init container spoils guaranteed: burstable",
    ),
    pytest.param(
        pod(
            container("x", requests={"memory": "100Mi"}),
            init=(container("init", requests={"cpu": "1"}),),
        ),
        QOSClass.BURSTABLE,
        id="init container requests count: burstable",
    ),
    pytest.param(
        pod(container(limits=GUARANTEED_RESOURCES)),
        QOSClass.BURSTABLE,
        id="limits only, before API defaulting: burstable",
    ),
    pytest.param(
        pod(
            container(
                requests={"cpu": "0", "memory": "100Mi"}, limits={"cpu": "100m", "memory": "100Mi"}
            )
        ),
        QOSClass.BURSTABLE,
        id="explicit zero request under a limit: burstable",
    ),
]


@pytest.mark.parametrize(("the_pod", "expected"), CASES)
def test_compute_pod_qos(impl: ModuleType, the_pod: Pod, expected: QOSClass) -> None:
    assert impl.compute_pod_qos(the_pod) == expected


def test_status_qos_class_is_not_consulted(impl: ModuleType) -> None:
    """``compute_pod_qos`` looks at the containers only; ``status.qosClass`` is ``get_pod_qos``'s shortcut."""
    the_pod = Pod.from_dict(
        {
            "metadata": {"name": "p"},
            "spec": {"containers": [container()]},
            "status": {"qosClass": "Guaranteed"},
        }
    )
    assert impl.compute_pod_qos(the_pod) == QOSClass.BEST_EFFORT


def test_api_server_defaulting_makes_limits_only_pods_guaranteed(impl: ModuleType) -> None:
    """The API server copies limits into missing requests before it stores the pod."""
    api = APIServer()
    stored = api.create(pod(container(limits=GUARANTEED_RESOURCES)))
    assert stored.spec.containers[0].resources.requests["cpu"].milli == 100
    assert impl.compute_pod_qos(stored) == QOSClass.GUARANTEED
    assert stored.status.qos_class == "Guaranteed"
