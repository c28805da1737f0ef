"""``events.k8s.io/v1`` Events: the same stored Events, under the newer group's field names.

kube-apiserver stores one Event and serves it in both groups, converting
between them: what ``core/v1`` calls ``involvedObject``, ``message``,
``source``, ``firstTimestamp``, ``lastTimestamp``, ``count`` and
``reportingComponent``, ``events.k8s.io/v1`` calls ``regarding``, ``note``,
``deprecatedSource``, ``deprecatedFirstTimestamp``,
``deprecatedLastTimestamp``, ``deprecatedCount`` and
``reportingController``; the other fields keep their names.

Mirrors ``pkg/apis/events/v1/conversion.go`` (v1.33). Simplified: an Event without ``eventTime`` is given one (see
:func:`from_core`); an Event
created through ``events.k8s.io/v1`` is validated by the ``core/v1`` rules,
not the stricter ones of the newer group (``eventTime``,
``reportingController`` and ``action`` required).
"""

from __future__ import annotations

from typing import Any

from framework.clock import parse_rfc3339, rfc3339_micro

__all__ = ["GROUP_VERSION", "from_core", "to_core"]

GROUP_VERSION = "events.k8s.io/v1"

_RENAMED = {
    "involvedObject": "regarding",
    "message": "note",
    "source": "deprecatedSource",
    "firstTimestamp": "deprecatedFirstTimestamp",
    "lastTimestamp": "deprecatedLastTimestamp",
    "count": "deprecatedCount",
    "reportingComponent": "reportingController",
}
_BACK = {new: old for old, new in _RENAMED.items()}


def from_core(event: dict[str, Any]) -> dict[str, Any]:
    """A ``core/v1`` Event (as encoded) in ``events.k8s.io/v1``'s names.

    An Event written without ``eventTime`` gets its first timestamp there
    (or its creation's): kube-apiserver writes ``null``, which the official
    Python client's ``EventsV1Event`` refuses, failing the whole list.
    """
    out = {_RENAMED.get(key, key): value for key, value in event.items()}
    out["apiVersion"] = GROUP_VERSION
    if not out.get("eventTime"):
        first = out.get("deprecatedFirstTimestamp") or event["metadata"].get("creationTimestamp")
        if first:
            out["eventTime"] = rfc3339_micro(parse_rfc3339(first))
    return out


def to_core(event: dict[str, Any]) -> dict[str, Any]:
    """An ``events.k8s.io/v1`` Event (as decoded) in ``core/v1``'s names."""
    out = {_BACK.get(key, key): value for key, value in event.items()}
    out["apiVersion"] = "v1"
    return out
