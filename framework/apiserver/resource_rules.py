"""Defaults and validation of the resource.k8s.io kinds and a pod's claims, for what the scheduler reads.

**Defaults** (``SetDefaults_ExactDeviceRequest``, ``SetDefaults_DeviceSubRequest``
of ``pkg/apis/resource/v1``): a request takes ``ExactCount`` devices, and
one of them, unless it says otherwise.

**Validation** (``ValidateDeviceClass``, ``ValidateResourceSlice``,
``ValidateResourceClaim``, ``ValidateResourceClaimTemplate`` of
``pkg/apis/resource/validation/validation.go``, and ``validatePodResourceClaims``
/ ``validateResourceClaimNames`` of ``pkg/apis/core/validation``), in kube's
words, only for what an allocation depends on: request names and modes,
counts, class names, selectors given, constraints naming requests, a
slice's driver, pool and node choice, device names, attribute values, and
each pod claim naming exactly one source. CEL selectors are not compiled
here (the real server compiles them with cel-go; this project evaluates a
subset, :mod:`framework.plugins.dynamicresources.cel`, and says so when a
selector is used).

>>> from framework.objects.resource import ResourceClaim
>>> claim = ResourceClaim.from_dict({"metadata": {"name": "c"}, "spec": {"devices":
...     {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}})
>>> exact = set_defaults(claim).spec.devices.requests[0].exactly
>>> exact.allocation_mode, exact.count
('ExactCount', 1)
>>> [str(c) for c in validate(ResourceClaim.from_dict({"metadata": {"name": "c"},
...     "spec": {"devices": {"requests": [{"name": "gpu"}]}}}))]
['spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required']

Mirrors ``pkg/apis/resource/v1/defaults.go`` and
``pkg/apis/resource/validation/validation.go`` (v1.34), in part.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from framework.apiserver.errors import FieldCause
from framework.objects import KubeObject, Pod
from framework.objects.resource import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    DeviceClaim,
    DeviceClass,
    DeviceSelector,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceClaimTemplate,
    ResourceSlice,
    pod_resource_claims,
)

__all__ = ["ALLOCATION_MODES", "set_defaults", "validate"]

T = TypeVar("T", bound=KubeObject)

ALLOCATION_MODES = (ALLOCATION_MODE_ALL, ALLOCATION_MODE_EXACT_COUNT)
_NODE_CHOICES = (
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
)


def _default_request(request: Any) -> Any:
    mode = request.allocation_mode or ALLOCATION_MODE_EXACT_COUNT
    count = request.count
    if mode == ALLOCATION_MODE_EXACT_COUNT and count is None:
        count = 1
    return dataclasses.replace(request, allocation_mode=mode, count=count)


def _default_spec(spec: ResourceClaimSpec) -> ResourceClaimSpec:
    requests = tuple(
        dataclasses.replace(
            r,
            exactly=_default_request(r.exactly) if r.exactly is not None else None,
            first_available=tuple(_default_request(s) for s in r.first_available),
        )
        for r in spec.devices.requests
    )
    return dataclasses.replace(spec, devices=dataclasses.replace(spec.devices, requests=requests))


def set_defaults(obj: T) -> T:
    """``obj`` with the request defaults filled in; any other object unchanged."""
    if isinstance(obj, ResourceClaim):
        return cast(T, dataclasses.replace(obj, spec=_default_spec(obj.spec)))
    if isinstance(obj, ResourceClaimTemplate):
        inner = dataclasses.replace(obj.spec, spec=_default_spec(obj.spec.spec))
        return cast(T, dataclasses.replace(obj, spec=inner))
    return obj


def _selectors(path: str, selectors: tuple[DeviceSelector, ...]) -> list[FieldCause]:
    causes = []
    for i, selector in enumerate(selectors):
        if selector.cel is None:
            causes.append(FieldCause.required(f"{path}[{i}].cel", ""))
        elif not selector.cel.expression.strip():
            causes.append(FieldCause.required(f"{path}[{i}].cel.expression", ""))
    return causes


def _exact(path: str, request: Any) -> list[FieldCause]:
    causes = []
    if not request.device_class_name:
        causes.append(FieldCause.required(f"{path}.deviceClassName", ""))
    causes += _selectors(f"{path}.selectors", request.selectors)
    mode = request.allocation_mode or ALLOCATION_MODE_EXACT_COUNT
    if mode not in ALLOCATION_MODES:
        causes.append(
            FieldCause.not_supported(f"{path}.allocationMode", mode, list(ALLOCATION_MODES))
        )
    elif mode == ALLOCATION_MODE_EXACT_COUNT and request.count is not None and request.count <= 0:
        causes.append(
            FieldCause.invalid(f"{path}.count", request.count, "must be greater than zero")
        )
    elif mode == ALLOCATION_MODE_ALL and request.count:
        causes.append(
            FieldCause.invalid(
                f"{path}.count",
                request.count,
                "must not be specified when allocationMode is 'All'",
            )
        )
    return causes


def _device_claim(path: str, devices: DeviceClaim) -> list[FieldCause]:
    causes = []
    seen: set[str] = set()
    for i, request in enumerate(devices.requests):
        where = f"{path}.requests[{i}]"
        if not request.name:
            causes.append(FieldCause.required(f"{where}.name", ""))
        elif request.name in seen:
            causes.append(FieldCause.duplicate(f"{where}.name", request.name))
        seen.add(request.name)
        if (request.exactly is None) == (not request.first_available):
            causes.append(
                FieldCause.required(
                    where, "exactly one of `exactly` or `firstAvailable` is required"
                )
            )
        if request.exactly is not None:
            causes += _exact(f"{where}.exactly", request.exactly)
        subs: set[str] = set()
        for j, sub in enumerate(request.first_available):
            sub_path = f"{where}.firstAvailable[{j}]"
            if not sub.name:
                causes.append(FieldCause.required(f"{sub_path}.name", ""))
            elif sub.name in subs:
                causes.append(FieldCause.duplicate(f"{sub_path}.name", sub.name))
            subs.add(sub.name)
            causes += _exact(sub_path, sub)
    for i, constraint in enumerate(devices.constraints):
        where = f"{path}.constraints[{i}]"
        for j, name in enumerate(constraint.requests):
            if name.split("/")[0] not in seen:
                causes.append(
                    FieldCause.invalid(
                        f"{where}.requests[{j}]",
                        name,
                        "must be the name of a request in the claim",
                    )
                )
        if not constraint.match_attribute:
            causes.append(FieldCause.required(f"{where}.matchAttribute", ""))
    return causes


def _slice(resource_slice: ResourceSlice) -> list[FieldCause]:
    spec = resource_slice.spec
    causes = []
    if not spec.driver:
        causes.append(FieldCause.required("spec.driver", ""))
    if not spec.pool.name:
        causes.append(FieldCause.required("spec.pool.name", ""))
    if spec.pool.resource_slice_count <= 0:
        causes.append(
            FieldCause.invalid(
                "spec.pool.resourceSliceCount",
                spec.pool.resource_slice_count,
                "must be greater than zero",
            )
        )
    if spec.pool.generation < 0:
        causes.append(
            FieldCause.invalid(
                "spec.pool.generation", spec.pool.generation, "must be greater than or equal to 0"
            )
        )
    choices = [
        bool(spec.node_name),
        spec.node_selector is not None,
        bool(spec.all_nodes),
        bool(spec.per_device_node_selection),
    ]
    if sum(choices) != 1:
        causes.append(FieldCause.required("spec", _NODE_CHOICES))
    seen: set[str] = set()
    for i, device in enumerate(spec.devices):
        where = f"spec.devices[{i}]"
        if not device.name:
            causes.append(FieldCause.required(f"{where}.name", ""))
        elif device.name in seen:
            causes.append(FieldCause.duplicate(f"{where}.name", device.name))
        seen.add(device.name)
        for name, attribute in device.attributes.items():
            values = [
                attribute.int_value,
                attribute.bool_value,
                attribute.string,
                attribute.version,
            ]
            if sum(v is not None for v in values) != 1:
                causes.append(
                    FieldCause.invalid(
                        f"{where}.attributes[{name}]", "", "exactly one value must be specified"
                    )
                )
        for name, capacity in device.capacity.items():
            if capacity.value is None:
                causes.append(FieldCause.required(f"{where}.capacity[{name}].value", ""))
    return causes


def _pod(pod: Pod) -> list[FieldCause]:
    causes = []
    names: list[str] = []
    for i, claim in enumerate(pod_resource_claims(pod)):
        where = f"spec.resourceClaims[{i}]"
        if not claim.name:
            causes.append(FieldCause.required(f"{where}.name", ""))
        elif claim.name in names:
            causes.append(FieldCause.duplicate(f"{where}.name", claim.name))
        names.append(claim.name)
        given = (claim.resource_claim_name is not None) + (
            claim.resource_claim_template_name is not None
        )
        if given != 1:
            causes.append(
                FieldCause.invalid(
                    where,
                    claim.name,
                    "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
                )
            )
    for c, container in enumerate((*pod.spec.init_containers, *pod.spec.containers)):
        kind = "initContainers" if c < len(pod.spec.init_containers) else "containers"
        index = c if kind == "initContainers" else c - len(pod.spec.init_containers)
        for j, used in enumerate(container.resources.extra.get("claims") or ()):
            name = used.get("name", "") if isinstance(used, Mapping) else ""
            if name in names:
                continue
            detail = (
                "must be one of the names in pod.spec.resourceClaims: " + ", ".join(names)
                if names
                else "must be one of the names in pod.spec.resourceClaims which is empty"
            )
            causes.append(
                FieldCause(
                    "Not found",
                    f"spec.{kind}[{index}].resources.claims[{j}].name",
                    detail,
                    name,
                    show_value=True,
                )
            )
    return causes


def validate(obj: KubeObject) -> list[FieldCause]:
    """Every problem with a resource.k8s.io object or a pod's claims; [] for valid ones."""
    if isinstance(obj, DeviceClass):
        return _selectors("spec.selectors", obj.spec.selectors)
    if isinstance(obj, ResourceSlice):
        return _slice(obj)
    if isinstance(obj, ResourceClaim):
        return _device_claim("spec.devices", obj.spec.devices)
    if isinstance(obj, ResourceClaimTemplate):
        return _device_claim("spec.spec.devices", obj.spec.spec.devices)
    if isinstance(obj, Pod) and (obj.spec.extra.get("resourceClaims") or _uses_claims(obj)):
        return _pod(obj)
    return []


def _uses_claims(pod: Pod) -> bool:
    return any(
        container.resources.extra.get("claims")
        for container in (*pod.spec.init_containers, *pod.spec.containers)
    )
