"""The errors only an HTTP request can meet: no token, wrong method, wrong body format, too big.

The in-memory server's errors (:mod:`framework.apiserver.errors`) are about
objects; these are about requests, answered before any object is touched.
Each renders as a ``metav1.Status`` with the code and reason the real server
gives, worded as it words them.

Mirrors ``k8s.io/apimachinery/pkg/api/errors/errors.go``
(``NewUnauthorized``, ``NewMethodNotSupported``,
``NewUnsupportedMediaType``, ``NewRequestEntityTooLargeError``,
``NewGenericServerResponse`` for an unknown path) and
``k8s.io/apiserver/pkg/endpoints/handlers/rest.go`` (``limitedReadBody``).
"""

from __future__ import annotations

from collections.abc import Sequence

from framework.apiserver.errors import APIError, RequestEntityTooLarge

__all__ = [
    "MSG_NOT_FOUND_PATH",
    "MSG_UNAUTHORIZED",
    "BodyTooLarge",
    "MethodNotSupported",
    "PathNotFound",
    "Unauthorized",
    "UnsupportedMediaType",
]

MSG_UNAUTHORIZED = "Unauthorized"
MSG_NOT_FOUND_PATH = "the server could not find the requested resource"


class Unauthorized(APIError):
    """401: the request carries no valid bearer token."""

    code = 401
    reason = "Unauthorized"

    def __init__(self) -> None:
        super().__init__(MSG_UNAUTHORIZED)


class PathNotFound(APIError):
    """404 for a URL that names no resource at all (rather than a missing object)."""

    code = 404
    reason = "NotFound"

    def __init__(self) -> None:
        super().__init__(MSG_NOT_FOUND_PATH, {})


class MethodNotSupported(APIError):
    """405: the resource exists but does not take this verb (``deletecollection``, POST on a name)."""

    code = 405
    reason = "MethodNotAllowed"

    def __init__(self, resource: str, action: str) -> None:
        super().__init__(
            f'{action} is not supported on resources of kind "{resource}"', {"kind": resource}
        )


class UnsupportedMediaType(APIError):
    """415: the body is in a format this endpoint does not read."""

    code = 415
    reason = "UnsupportedMediaType"

    def __init__(self, accepted: Sequence[str]) -> None:
        super().__init__(
            "the body of the request was in an unknown format - accepted media types include: "
            + ", ".join(accepted)
        )


class BodyTooLarge(RequestEntityTooLarge):
    """413: the body is over the server's limit (3 MiB, twice etcd's default request size)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"limit is {limit}")
