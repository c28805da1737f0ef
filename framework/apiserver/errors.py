"""The errors the API server answers with, worded as the real one words them.

Every failed request to a Kubernetes API server comes back as a
``metav1.Status`` object: an HTTP code, a machine-readable ``reason`` that
clients branch on (``NotFound``, ``AlreadyExists``, ``Conflict``, ...), a
human ``message`` and ``details`` naming the object. Client code, including
kube-scheduler, reacts to the reason: a ``Conflict`` on update means "read
again and retry", a ``NotFound`` on bind means "the pod is gone, forget it".

Here each reason is an exception class deriving from :class:`APIError`, and
:meth:`APIError.to_status` renders the Status object. Messages follow the real
server word for word, so that a message seen in these tests can be searched for
in Kubernetes issues. The message templates are module constants; tests compare
against them.

Validation failures (:class:`Invalid`) carry one :class:`FieldCause` per bad
field, all reported together, rendered as ``field.Error`` renders them::

    Pod "web" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be ...

Mirrors ``k8s.io/apimachinery/pkg/api/errors/errors.go`` (``NewNotFound``,
``NewAlreadyExists``, ``NewConflict``, ``NewInvalid``, ``NewGone``,
``NewResourceExpired``, ``NewBadRequest``, ``NewForbidden``, ``NewInternalError``,
``NewServiceUnavailable``, ``NewTimeoutError``) and
``k8s.io/apimachinery/pkg/util/validation/field/errors.go``.
Simplified: a quoted value is rendered with JSON quoting where Go uses ``%q``
(the same for the names and numbers that appear here); ``retryAfterSeconds``
and the other rarely used Status fields are left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.objects import (
    Binding,
    Event,
    KubeObject,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PriorityClass,
)
from framework.objects.errors import aggregate
from framework.objects.resource import (
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from framework.objects.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from framework.objects.workload import SchedulingPodGroup, Workload
from framework.objects.workloads import ReplicaSet, ReplicationController, Service, StatefulSet

__all__ = [
    "MSG_ALREADY_EXISTS",
    "MSG_CONFLICT",
    "MSG_FIELD_LABEL_NOT_SUPPORTED",
    "MSG_NOT_FOUND",
    "MSG_OBJECT_MODIFIED",
    "MSG_POD_ALREADY_ASSIGNED",
    "MSG_POD_BEING_DELETED",
    "MSG_POD_SCHEDULING_GATED",
    "MSG_TOO_OLD_RESOURCE_VERSION",
    "APIError",
    "AlreadyExists",
    "BadRequest",
    "Conflict",
    "Expired",
    "FieldCause",
    "Forbidden",
    "Gone",
    "GroupResource",
    "InternalError",
    "Invalid",
    "NotFound",
    "RequestEntityTooLarge",
    "ResourceVersionTooLarge",
    "ServiceUnavailable",
    "Timeout",
    "go_quote",
    "resource_for",
]

# --- message templates, as the real server words them ------------------------

MSG_NOT_FOUND = '{resource} "{name}" not found'
MSG_ALREADY_EXISTS = '{resource} "{name}" already exists'
MSG_CONFLICT = 'Operation cannot be fulfilled on {resource} "{name}": {reason}'
#: The reason of a Conflict on a stale ``resourceVersion``; the client must read again and retry.
MSG_OBJECT_MODIFIED = (
    "the object has been modified; please apply your changes to the latest version and try again"
)
MSG_POD_ALREADY_ASSIGNED = 'pod {pod} is already assigned to node "{node}"'
MSG_POD_BEING_DELETED = "pod {pod} is being deleted, cannot be assigned to a host"
MSG_POD_SCHEDULING_GATED = "pod {pod} has non-empty .spec.schedulingGates"
MSG_TOO_OLD_RESOURCE_VERSION = "too old resource version: {requested} ({oldest})"
MSG_FIELD_LABEL_NOT_SUPPORTED = "field label not supported: {field}"


def go_quote(value: Any) -> str:
    """A value as Go's ``%q`` / ``field.Error`` prints it: strings quoted, numbers bare."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class GroupResource:
    """A resource and its API group: ``pods``, ``priorityclasses.scheduling.k8s.io``.

    ``str()`` gives the form messages use (``schema.GroupResource.String``).
    """

    resource: str
    group: str = ""

    def __str__(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


RESOURCES: Mapping[type[KubeObject], GroupResource] = {
    Pod: GroupResource("pods"),
    Node: GroupResource("nodes"),
    Namespace: GroupResource("namespaces"),
    Event: GroupResource("events"),
    PriorityClass: GroupResource("priorityclasses", "scheduling.k8s.io"),
    PodGroup: GroupResource("podgroups", "scheduling.x-k8s.io"),
    PodDisruptionBudget: GroupResource("poddisruptionbudgets", "policy"),
    Binding: GroupResource("pods/binding"),
    Service: GroupResource("services"),
    ReplicationController: GroupResource("replicationcontrollers"),
    ReplicaSet: GroupResource("replicasets", "apps"),
    StatefulSet: GroupResource("statefulsets", "apps"),
    PersistentVolume: GroupResource("persistentvolumes"),
    PersistentVolumeClaim: GroupResource("persistentvolumeclaims"),
    StorageClass: GroupResource("storageclasses", "storage.k8s.io"),
    CSINode: GroupResource("csinodes", "storage.k8s.io"),
    CSIDriver: GroupResource("csidrivers", "storage.k8s.io"),
    CSIStorageCapacity: GroupResource("csistoragecapacities", "storage.k8s.io"),
    DeviceClass: GroupResource("deviceclasses", "resource.k8s.io"),
    ResourceSlice: GroupResource("resourceslices", "resource.k8s.io"),
    ResourceClaim: GroupResource("resourceclaims", "resource.k8s.io"),
    ResourceClaimTemplate: GroupResource("resourceclaimtemplates", "resource.k8s.io"),
    Workload: GroupResource("workloads", "scheduling.k8s.io"),
    SchedulingPodGroup: GroupResource("podgroups", "scheduling.k8s.io"),
}
"""The REST resource behind each kind, as error messages name it."""


def resource_for(kind: type[KubeObject]) -> GroupResource:
    """``pods`` for Pod, ``priorityclasses.scheduling.k8s.io`` for PriorityClass, ..."""
    return RESOURCES.get(kind) or GroupResource(kind.KIND.lower() + "s")


# --- field errors ------------------------------------------------------------------

# field.ErrorType's text → the metav1.CauseType a Status lists it under.
_CAUSE_TYPES = {
    "Required value": "FieldValueRequired",
    "Invalid value": "FieldValueInvalid",
    "Forbidden": "FieldValueForbidden",
    "Duplicate value": "FieldValueDuplicate",
    "Unsupported value": "FieldValueNotSupported",
    "Too long": "FieldValueTooLong",
}


@dataclass(frozen=True, slots=True)
class FieldCause:
    """One invalid field: where (a manifest path), of what type, the bad value and why.

    ``type`` is one of the ``field.ErrorType`` strings (``Required value``,
    ``Invalid value``, ``Forbidden``, ``Duplicate value``, ``Unsupported value``,
    ``Too long``). Build causes with the class methods, named after Go's
    ``field.Required``, ``field.Invalid`` and friends.
    """

    type: str
    field: str
    detail: str = ""
    value: Any = None
    show_value: bool = False

    @classmethod
    def required(cls, field: str, detail: str = "") -> FieldCause:
        return cls("Required value", field, detail)

    @classmethod
    def invalid(cls, field: str, value: Any, detail: str) -> FieldCause:
        return cls("Invalid value", field, detail, value, show_value=True)

    @classmethod
    def forbidden(cls, field: str, detail: str) -> FieldCause:
        return cls("Forbidden", field, detail)

    @classmethod
    def duplicate(cls, field: str, value: Any) -> FieldCause:
        return cls("Duplicate value", field, "", value, show_value=True)

    @classmethod
    def too_long(cls, field: str, limit: int) -> FieldCause:
        """``field.TooLong``: the value is not shown, only the limit."""
        return cls("Too long", field, f"may not be more than {limit} bytes")

    @classmethod
    def not_supported(cls, field: str, value: Any, supported: list[str]) -> FieldCause:
        detail = "supported values: " + ", ".join(go_quote(s) for s in supported)
        return cls("Unsupported value", field, detail, value, show_value=True)

    @property
    def reason(self) -> str:
        """The ``metav1.CauseType`` a Status lists this cause under (``FieldValueInvalid``)."""
        return _CAUSE_TYPES.get(self.type, "FieldValueInvalid")

    def body(self) -> str:
        """The message without the field path (``field.Error.ErrorBody``)."""
        text = f"{self.type}: {go_quote(self.value)}" if self.show_value else self.type
        return f"{text}: {self.detail}" if self.detail else text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


# --- the errors -----------------------------------------------------------------------


class APIError(Exception):
    """A failed request: HTTP ``code``, ``reason``, ``message`` and ``details``.

    Catch the subclass you can handle (``except Conflict:``); everything else
    is a bug or a condition to report. :meth:`to_status` is what the HTTP
    face of the fake server writes back.
    """

    code: int = 500
    reason: str = "InternalError"

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_status(self) -> dict[str, Any]:
        """This error as a ``metav1.Status`` object (``StatusError.ErrStatus``)."""
        status: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details is not None:
            status["details"] = self.details
        status["code"] = self.code
        return status

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


def _details(resource: GroupResource, name: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name}
    if resource.group:
        details["group"] = resource.group
    details["kind"] = resource.resource
    return details


class NotFound(APIError):
    """404: the object (or the namespace it should live in) does not exist."""

    code = 404
    reason = "NotFound"

    def __init__(self, resource: GroupResource, name: str) -> None:
        super().__init__(
            MSG_NOT_FOUND.format(resource=resource, name=name), _details(resource, name)
        )


class AlreadyExists(APIError):
    """409: an object of that kind and name already exists."""

    code = 409
    reason = "AlreadyExists"

    def __init__(self, resource: GroupResource, name: str) -> None:
        super().__init__(
            MSG_ALREADY_EXISTS.format(resource=resource, name=name), _details(resource, name)
        )


class Conflict(APIError):
    """409: the write lost a race (stale resourceVersion, failed precondition, pod already bound).

    ``why`` is the underlying reason, such as :data:`MSG_OBJECT_MODIFIED`; the
    message wraps it the way ``NewConflict`` does.
    """

    code = 409
    reason = "Conflict"

    def __init__(self, resource: GroupResource, name: str, why: str) -> None:
        message = MSG_CONFLICT.format(resource=resource, name=name, reason=why)
        super().__init__(message, _details(resource, name))
        self.why = why


class Invalid(APIError):
    """422: the object failed validation; ``causes`` lists every bad field.

    ``kind`` is the object's kind (``Pod``), and the message reads
    ``Pod "web" is invalid: <cause>`` for one cause or
    ``Pod "web" is invalid: [<cause>, <cause>]`` for several, as
    ``NewInvalid`` aggregates them.
    """

    code = 422
    reason = "Invalid"

    def __init__(self, kind: str, name: str, causes: list[FieldCause], group: str = "") -> None:
        qualified = f"{kind}.{group}" if group else kind
        details: dict[str, Any] = {"name": name}
        if group:
            details["group"] = group
        details["kind"] = kind
        details["causes"] = [
            {"reason": c.reason, "message": c.body(), "field": c.field} for c in causes
        ]
        super().__init__(f'{qualified} "{name}" is invalid: {aggregate(causes)}', details)
        self.kind = kind
        self.causes = causes


class Gone(APIError):
    """410: what was asked for is no longer available (``NewGone``)."""

    code = 410
    reason = "Gone"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class Expired(Gone):
    """410 with reason ``Expired``: a watch from a resourceVersion older than the history kept.

    The real watch cache answers this with ``NewResourceExpired`` (reason
    ``Expired``, not ``Gone``); a client such as a reflector reacts by listing
    afresh and watching from the list's resourceVersion.
    """

    reason = "Expired"

    @classmethod
    def too_old(cls, requested: int, oldest: int) -> Expired:
        return cls(MSG_TOO_OLD_RESOURCE_VERSION.format(requested=requested, oldest=oldest))


class BadRequest(APIError):
    """400: the request itself is malformed (a bad selector, an unsupported field label)."""

    code = 400
    reason = "BadRequest"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class Forbidden(APIError):
    """403: an admission plugin refused the request (unknown PriorityClass, protected namespace).

    The message reads ``pods "web" is forbidden: <why>``, or
    ``pods is forbidden: <why>`` when the object has no name yet.
    """

    code = 403
    reason = "Forbidden"

    def __init__(self, resource: GroupResource, name: str, why: str) -> None:
        subject = f'{resource} "{name}"' if name else str(resource)
        super().__init__(f"{subject} is forbidden: {why}", _details(resource, name))
        self.why = why


class InternalError(APIError):
    """500: the server failed while handling the request; the client may retry (``NewInternalError``)."""

    code = 500
    reason = "InternalError"

    def __init__(self, cause: str) -> None:
        super().__init__(f"Internal error occurred: {cause}", {"causes": [{"message": cause}]})


class RequestEntityTooLarge(APIError):
    """413: the request, or the object it would store, is too large (``NewRequestEntityTooLargeError``)."""

    code = 413
    reason = "RequestEntityTooLarge"

    def __init__(self, message: str) -> None:
        super().__init__(f"Request entity too large: {message}")


class ServiceUnavailable(APIError):
    """503: the server cannot serve the request now (``NewServiceUnavailable``)."""

    code = 503
    reason = "ServiceUnavailable"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class ResourceVersionTooLarge(APIError):
    """504: a watch or read from a resourceVersion newer than the store has reached.

    ``storage.NewTooLargeResourceVersionError``: a Timeout whose one cause is
    ``ResourceVersionTooLarge``, with a second to wait before retrying. A
    client that resumes from a version of an earlier run meets it here.
    """

    code = 504
    reason = "Timeout"

    def __init__(self, requested: int, current: int) -> None:
        super().__init__(
            f"Timeout: Too large resource version: {requested}, current: {current}",
            {
                "causes": [
                    {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
                ],
                "retryAfterSeconds": 1,
            },
        )


class Timeout(APIError):
    """504: the request did not complete in time; it may or may not have taken effect.

    ``NewTimeoutError``, as the server's request-timeout filter answers. The
    write may have been committed before the answer was lost, so a client
    must not assume it failed: it reads again (or retries and meets the
    Conflict that tells it the first attempt did land).
    """

    code = 504
    reason = "Timeout"

    def __init__(self, message: str = "request did not complete within requested timeout") -> None:
        super().__init__(f"Timeout: {message}")
