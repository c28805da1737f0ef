"""A real server's Status objects become the project's APIError classes.

Expectations from ``k8s.io/apimachinery/pkg/api/errors/errors.go``
(``ReasonForError`` and the code fallback of ``IsConflict`` and friends).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.adapter.errors import error_from_body, error_from_status
from framework.apiserver.errors import (
    AlreadyExists,
    APIError,
    BadRequest,
    Conflict,
    Expired,
    Gone,
    Invalid,
    NotFound,
)

CONFLICT_MESSAGE = 'Operation cannot be fulfilled on pods/binding "a": pod a is already assigned'


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        pytest.param({"reason": "NotFound", "code": 404}, NotFound, id="not found"),
        pytest.param({"reason": "AlreadyExists", "code": 409}, AlreadyExists, id="already exists"),
        pytest.param({"reason": "Conflict", "code": 409}, Conflict, id="conflict"),
        pytest.param({"reason": "Expired", "code": 410}, Expired, id="expired watch"),
        pytest.param({"reason": "Gone", "code": 410}, Gone, id="gone"),
        pytest.param({"reason": "Invalid", "code": 422}, Invalid, id="invalid"),
        pytest.param({"code": 409}, Conflict, id="no reason: the code decides"),
        pytest.param({"reason": "SomethingNew", "code": 400}, BadRequest, id="unknown reason"),
    ],
)
def test_a_status_becomes_the_error_class_of_its_reason(
    status: dict[str, Any], expected: type[APIError]
) -> None:
    error = error_from_status({"kind": "Status", "message": "m", **status})
    assert type(error) is expected
    assert error.message == "m"


def test_a_conflict_keeps_the_servers_message_and_its_why() -> None:
    error = error_from_status({"reason": "Conflict", "code": 409, "message": CONFLICT_MESSAGE})
    assert isinstance(error, Conflict)
    assert str(error) == CONFLICT_MESSAGE
    assert error.why == "pod a is already assigned"


def test_a_body_that_is_not_a_status_still_gives_an_error_of_the_http_code() -> None:
    error = error_from_body(b"upstream connect error", 503)
    assert error.code == 503
    assert "upstream connect error" in error.message


def test_an_unknown_code_keeps_its_code_and_reason() -> None:
    error = error_from_status({"reason": "TooManyRequests", "code": 429, "message": "slow down"})
    assert (error.code, error.reason, error.message) == (429, "TooManyRequests", "slow down")
