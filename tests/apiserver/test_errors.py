"""API errors carry the real server's codes, reasons and words.

(``k8s.io/apimachinery/pkg/api/errors`` and ``pkg/util/validation/field``.)
"""

from __future__ import annotations

import pytest

from framework.apiserver.errors import (
    MSG_OBJECT_MODIFIED,
    AlreadyExists,
    APIError,
    BadRequest,
    Conflict,
    Expired,
    FieldCause,
    Forbidden,
    Gone,
    GroupResource,
    Invalid,
    NotFound,
    resource_for,
)
from framework.objects import Pod, PriorityClass

PODS = GroupResource("pods")


@pytest.mark.parametrize(
    ("error", "code", "reason", "message"),
    [
        (NotFound(PODS, "web"), 404, "NotFound", 'pods "web" not found'),
        (AlreadyExists(PODS, "web"), 409, "AlreadyExists", 'pods "web" already exists'),
        (
            Conflict(PODS, "web", MSG_OBJECT_MODIFIED),
            409,
            "Conflict",
            'Operation cannot be fulfilled on pods "web": the object has been modified; '
            "please apply your changes to the latest version and try again",
        ),
        (Gone("gone"), 410, "Gone", "gone"),
        (
            Expired.too_old(5, 10),
            410,
            "Expired",
            "too old resource version: 5 (10)",
        ),
        (BadRequest("bad"), 400, "BadRequest", "bad"),
        (
            Forbidden(PODS, "web", "no PriorityClass with name x was found"),
            403,
            "Forbidden",
            'pods "web" is forbidden: no PriorityClass with name x was found',
        ),
        (Forbidden(PODS, "", "nope"), 403, "Forbidden", "pods is forbidden: nope"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_each_error_has_the_real_code_reason_and_message(error, code, reason, message):
    assert isinstance(error, APIError)
    assert (error.code, error.reason, error.message, str(error)) == (
        code,
        reason,
        message,
        message,
    )


def test_expired_is_a_kind_of_gone():
    assert isinstance(Expired.too_old(1, 2), Gone)


def test_to_status_renders_a_metav1_status():
    status = NotFound(GroupResource("priorityclasses", "scheduling.k8s.io"), "high").to_status()
    assert status == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'priorityclasses.scheduling.k8s.io "high" not found',
        "reason": "NotFound",
        "details": {"name": "high", "group": "scheduling.k8s.io", "kind": "priorityclasses"},
        "code": 404,
    }


def test_a_status_without_details_leaves_them_out():
    assert "details" not in BadRequest("field label not supported: x").to_status()


@pytest.mark.parametrize(
    ("cause", "text", "reason"),
    [
        (
            FieldCause.required("spec.containers"),
            "spec.containers: Required value",
            "FieldValueRequired",
        ),
        (
            FieldCause.invalid(
                "spec.containers[0].resources.requests",
                "2",
                "must be less than or equal to cpu limit of 1",
            ),
            'spec.containers[0].resources.requests: Invalid value: "2": '
            "must be less than or equal to cpu limit of 1",
            "FieldValueInvalid",
        ),
        (
            FieldCause.invalid("spec.priority", 5, "bad"),
            "spec.priority: Invalid value: 5: bad",
            "FieldValueInvalid",
        ),
        (FieldCause.forbidden("spec", "no"), "spec: Forbidden: no", "FieldValueForbidden"),
        (
            FieldCause.duplicate("spec.containers[1].name", "app"),
            'spec.containers[1].name: Duplicate value: "app"',
            "FieldValueDuplicate",
        ),
        (
            FieldCause.not_supported("target.kind", "Pod", ["Node", "<empty>"]),
            'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
            "FieldValueNotSupported",
        ),
    ],
)
def test_field_causes_read_like_field_errors(cause: FieldCause, text: str, reason: str):
    assert str(cause) == text
    assert cause.reason == reason


def test_invalid_with_one_cause_names_it_plainly():
    error = Invalid("Pod", "web", [FieldCause.required("spec.containers")])
    assert error.message == 'Pod "web" is invalid: spec.containers: Required value'
    assert error.code == 422 and error.reason == "Invalid"


def test_invalid_with_several_causes_lists_them_in_brackets_and_in_details():
    causes = [FieldCause.required("metadata.name"), FieldCause.required("spec.containers")]
    error = Invalid("Pod", "", causes)
    assert error.message == (
        'Pod "" is invalid: [metadata.name: Required value, spec.containers: Required value]'
    )
    assert error.to_status()["details"]["causes"] == [
        {"reason": "FieldValueRequired", "message": "Required value", "field": "metadata.name"},
        {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers"},
    ]


def test_invalid_names_the_group_of_a_grouped_kind():
    error = Invalid(
        "PriorityClass", "x", [FieldCause.forbidden("value", "no")], "scheduling.k8s.io"
    )
    assert error.message.startswith('PriorityClass.scheduling.k8s.io "x" is invalid')


def test_resources_are_named_as_in_urls():
    assert str(resource_for(Pod)) == "pods"
    assert str(resource_for(PriorityClass)) == "priorityclasses.scheduling.k8s.io"
