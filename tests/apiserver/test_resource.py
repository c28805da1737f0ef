"""The resource.k8s.io/v1 kinds in the fake API server, and the resourceclaim controller's part.

Defaults and validation follow ``pkg/apis/resource/v1/defaults.go`` and
``pkg/apis/resource/validation/validation.go`` (v1.34) and the pod's
``validatePodResourceClaims``; the claims made for templates follow
``pkg/controller/resourceclaim/controller.go`` (see
:mod:`framework.apiserver.resourceclaim_controller`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.apiserver import APIServer, Invalid
from framework.clock import FakeClock
from framework.objects import Pod
from framework.objects.resource import (
    ANN_POD_CLAIM_NAME,
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)

REQUEST = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}


def claim(*requests: dict[str, Any], name: str = "c", **devices: Any) -> ResourceClaim:
    return ResourceClaim.from_dict(
        {
            "metadata": {"name": name},
            "spec": {"devices": {"requests": list(requests or (REQUEST,)), **devices}},
        }
    )


def template(name: str = "one-gpu") -> ResourceClaimTemplate:
    return ResourceClaimTemplate.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "metadata": {"labels": {"app": "train"}},
                "spec": {"devices": {"requests": [REQUEST]}},
            },
        }
    )


def gpu_pod(name: str = "train", **source: str) -> Pod:
    return Pod.from_dict(
        {
            "metadata": {"name": name},
            "spec": {
                "resourceClaims": [
                    {"name": "gpu", **(source or {"resourceClaimTemplateName": "one-gpu"})}
                ],
                "containers": [
                    {"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}
                ],
            },
        }
    )


def invalid(api: APIServer, obj: Any) -> str:
    with pytest.raises(Invalid) as refused:
        api.create(obj)
    return str(refused.value)


def test_a_request_takes_one_device_exactly_by_default() -> None:
    api = APIServer(FakeClock())
    stored = api.create(claim())
    exact = stored.spec.devices.requests[0].exactly
    assert exact is not None
    assert (exact.allocation_mode, exact.count) == ("ExactCount", 1)
    made = api.create(template())
    inner = made.spec.spec.devices.requests[0].exactly
    assert inner is not None and inner.count == 1


def test_claim_validation_names_the_object_and_the_field() -> None:
    api = APIServer(FakeClock())
    message = invalid(api, claim({"name": "gpu"}))
    assert 'ResourceClaim.resource.k8s.io "c" is invalid' in message
    assert (
        "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` "
        "is required" in message
    )
    message = invalid(api, claim({"name": "gpu", "exactly": {"deviceClassName": "g", "count": 0}}))
    assert (
        "spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero"
        in message
    )
    message = invalid(
        api, claim({"name": "gpu", "exactly": {"deviceClassName": "g", "allocationMode": "Some"}})
    )
    assert 'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some"' in message
    message = invalid(api, claim(REQUEST, REQUEST))
    assert 'spec.devices.requests[1].name: Duplicate value: "gpu"' in message
    message = invalid(api, claim(constraints=[{"requests": ["nic"], "matchAttribute": "x/numa"}]))
    assert "spec.devices.constraints[0].requests[0]" in message
    assert "must be the name of a request in the claim" in message


def test_slice_validation() -> None:
    api = APIServer(FakeClock())
    nowhere = ResourceSlice.from_dict(
        {
            "metadata": {"name": "s"},
            "spec": {"driver": "d", "pool": {"name": "p", "resourceSliceCount": 1}},
        }
    )
    message = invalid(api, nowhere)
    assert (
        "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
        "`perDeviceNodeSelection` is required" in message
    )
    twice = ResourceSlice.from_dict(
        {
            "metadata": {"name": "s"},
            "spec": {
                "driver": "d",
                "nodeName": "n",
                "pool": {"name": "p"},
                "devices": [
                    {"name": "a"},
                    {"name": "a", "attributes": {"x": {"int": 1, "string": "y"}}},
                ],
            },
        }
    )
    message = invalid(api, twice)
    assert "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero" in message
    assert 'spec.devices[1].name: Duplicate value: "a"' in message
    assert "spec.devices[1].attributes[x]" in message and "exactly one value" in message


def test_device_class_selectors_need_an_expression() -> None:
    api = APIServer(FakeClock())
    message = invalid(
        api, DeviceClass.from_dict({"metadata": {"name": "g"}, "spec": {"selectors": [{}]}})
    )
    assert "spec.selectors[0].cel: Required value" in message


def test_pod_claims_name_exactly_one_source_and_containers_name_pod_claims() -> None:
    api = APIServer(FakeClock())
    both = gpu_pod(resourceClaimName="c", resourceClaimTemplateName="t")
    assert "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`" in invalid(
        api, both
    )
    stray = Pod.from_dict(
        {
            "metadata": {"name": "p"},
            "spec": {
                "containers": [
                    {"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}
                ]
            },
        }
    )
    assert (
        'spec.containers[0].resources.claims[0].name: Not found: "gpu": must be one of the names '
        "in pod.spec.resourceClaims which is empty" in invalid(api, stray)
    )


def test_a_template_entry_gets_a_claim_of_its_own_named_in_the_pods_status() -> None:
    api = APIServer(FakeClock())
    api.create(template())
    pod = api.create(gpu_pod())
    stored = api.get(Pod, "train")
    (status,) = stored.status.extra["resourceClaimStatuses"]
    made = api.get(ResourceClaim, status["resourceClaimName"])
    assert (
        made.metadata.name.startswith("train-gpu-")
        and len(made.metadata.name) == len("train-gpu-") + 5
    )
    assert made.metadata.annotations[ANN_POD_CLAIM_NAME] == "gpu"
    assert made.metadata.labels == {"app": "train"}
    (owner,) = made.metadata.owner_references
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == (
        "Pod",
        "train",
        pod.metadata.uid,
        True,
    )
    assert made.spec == api.get(ResourceClaimTemplate, "one-gpu").spec.spec


def test_a_pod_waits_for_its_template_and_gets_its_claim_when_it_comes() -> None:
    api = APIServer(FakeClock())
    api.create(gpu_pod())
    assert "resourceClaimStatuses" not in api.get(Pod, "train").status.extra
    assert api.list(ResourceClaim).items == ()
    api.create(template())
    (status,) = api.get(Pod, "train").status.extra["resourceClaimStatuses"]
    assert api.get(ResourceClaim, status["resourceClaimName"]).metadata.namespace == "default"


def test_a_claims_status_is_written_only_through_status() -> None:
    api = APIServer(FakeClock())
    stored = api.create(claim())
    reserved = {"resource": "pods", "name": "p", "uid": "u"}
    with_status = ResourceClaim.from_dict(
        {**stored.to_dict(), "status": {"reservedFor": [reserved]}}
    )
    assert api.update(with_status).status.reserved_for == ()
    written = api.update_status(with_status)
    assert [r.name for r in written.status.reserved_for] == ["p"]
    changed_spec = dataclasses.replace(
        written, spec=claim(REQUEST, {**REQUEST, "name": "other"}).spec
    )
    assert len(api.update_status(changed_spec).spec.devices.requests) == 1
