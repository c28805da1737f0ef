"""A failed request's ``metav1.Status``, read back into the project's :class:`APIError` classes.

The scheduler reacts to the *reason* of an error (``Conflict``: read again
and retry, or give the pod up; ``NotFound``: the pod is gone), whether the
error came from the in-memory server or from a real one. So the adapter turns
each Status a real server answers with into the same exception class the
fake server raises, keeping the server's own message.

Mirrors ``k8s.io/apimachinery/pkg/api/errors`` (``FromObject``,
``ReasonForError``, and the ``Is<Reason>`` helpers that fall back to the
HTTP code when the reason is unknown). Simplified: ``details.causes`` of an
``Invalid`` are kept in ``details`` and not rebuilt as
:class:`~framework.apiserver.errors.FieldCause`.
"""

from __future__ import annotations

import json
from typing import Any

from framework.apiserver.errors import (
    AlreadyExists,
    APIError,
    BadRequest,
    Conflict,
    Expired,
    Forbidden,
    Gone,
    InternalError,
    Invalid,
    NotFound,
    ServiceUnavailable,
    Timeout,
)

__all__ = ["error_from_body", "error_from_status"]

_BY_REASON: dict[str, type[APIError]] = {
    cls.reason: cls
    for cls in (
        NotFound, AlreadyExists, Conflict, Invalid, Expired, Gone, BadRequest, Forbidden,
        InternalError, ServiceUnavailable, Timeout,
    )
}  # fmt: skip

# When the reason is missing or unknown, Go's errors.ReasonForError falls back to the code.
_BY_CODE: dict[int, type[APIError]] = {
    400: BadRequest, 403: Forbidden, 404: NotFound, 409: Conflict, 410: Gone,
    422: Invalid, 500: InternalError, 503: ServiceUnavailable, 504: Timeout,
}  # fmt: skip


def error_from_status(status: Any, http_code: int = 0) -> APIError:
    """The :class:`APIError` a ``metav1.Status`` object (a dict) stands for.

    ``http_code`` is the response's code, used when the Status carries none.
    The exception has the Status's message and details; a Conflict's
    ``why`` is the part of the message after the object's name.
    """
    data = status if isinstance(status, dict) else {}
    code = int(data.get("code") or http_code or 500)
    reason = str(data.get("reason") or "")
    message = str(data.get("message") or f"the server answered {code} with no message")
    cls = _BY_REASON.get(reason) or _BY_CODE.get(code) or APIError
    error = cls.__new__(cls)
    APIError.__init__(error, message, data.get("details"))
    if cls is APIError:
        error.code, error.reason = code, reason or "Unknown"
    if isinstance(error, Conflict):
        error.why = message.split('": ', 1)[-1]
    if isinstance(error, Invalid):
        error.kind = str((data.get("details") or {}).get("kind", ""))
        error.causes = []
    return error


def error_from_body(body: bytes | str | None, http_code: int) -> APIError:
    """The error a failed response stands for, from its raw body (a Status, or anything else)."""
    try:
        decoded = json.loads(body or b"")
    except ValueError:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body or "")
        decoded = {"message": text.strip() or None}
    return error_from_status(decoded, http_code)
