"""``CoschedulingArgs``: how long a gang member waits at Permit, and how long a failed gang backs off.

Two fields, both in whole seconds:

* ``permitWaitingTimeSeconds`` (default 60): how long a member may wait at
  Permit for the rest of its group, unless its PodGroup says otherwise
  (``spec.scheduleTimeoutSeconds``). It is also how long a group that passed
  the ``minResources`` check is remembered as having passed it.
* ``podGroupBackoffSeconds`` (default 0, off): after PostFilter has given up
  on a group, PreFilter turns all its members away for this long, so that a
  group that cannot fit stops cycling through the scheduler.

In a profile::

    pluginConfig:
    - name: Coscheduling
      args: {permitWaitingTimeSeconds: 10, podGroupBackoffSeconds: 30}

Both must be 0 or more. The message says "greater than 0", as upstream's
does, though 0 passes: for the wait, 0 falls back to 60 seconds; for the
backoff, 0 turns it off.

>>> coscheduling_args_from({"permitWaitingTimeSeconds": 10})
CoschedulingArgs(permit_waiting_time_seconds=10, pod_group_backoff_seconds=0)
>>> aggregate(validate_coscheduling_args(decode_coscheduling_args({"podGroupBackoffSeconds": -1})))
'podGroupBackoffSeconds: Invalid value: -1: must be greater than 0'

Mirrors ``CoschedulingArgs`` in
``kubernetes-sigs/scheduler-plugins:apis/config/types.go`` and ``v1/types.go``,
``SetDefaults_CoschedulingArgs`` in ``apis/config/v1/defaults.go`` and
``ValidateCoschedulingArgs`` in ``apis/config/validation/validation_pluginargs.go``
(v0.33.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from framework.apiserver.errors import FieldCause
from framework.config.args_noderesources import InvalidArgsError, aggregate
from framework.config.strict import StrictModel
from framework.objects.schema import ObjectInvalid

__all__ = [
    "DEFAULT_PERMIT_WAITING_TIME_SECONDS",
    "DEFAULT_POD_GROUP_BACKOFF_SECONDS",
    "CoschedulingArgs",
    "InvalidArgsError",
    "aggregate",
    "check_coscheduling_args",
    "coscheduling_args_from",
    "decode_coscheduling_args",
    "set_defaults_coscheduling_args",
    "validate_coscheduling_args",
    "validate_coscheduling_config",
]

DEFAULT_PERMIT_WAITING_TIME_SECONDS = 60
DEFAULT_POD_GROUP_BACKOFF_SECONDS = 0
MSG_NOT_NEGATIVE = "must be greater than 0"
"""Upstream's words for "0 or more" (the check is ``< 0``)."""

Problems = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class CoschedulingArgs(StrictModel):
    """The plugin's args; a field left out takes the default ``SetDefaults_CoschedulingArgs`` sets."""

    permit_waiting_time_seconds: int = DEFAULT_PERMIT_WAITING_TIME_SECONDS
    pod_group_backoff_seconds: int = DEFAULT_POD_GROUP_BACKOFF_SECONDS

    _INT64: ClassVar[frozenset[str]] = frozenset(
        {"permitWaitingTimeSeconds", "podGroupBackoffSeconds"}
    )


def set_defaults_coscheduling_args(args: dict[str, Any]) -> None:
    """Fill in the fields left out, in place (``SetDefaults_CoschedulingArgs``)."""
    if args.get("permitWaitingTimeSeconds") is None:
        args["permitWaitingTimeSeconds"] = DEFAULT_PERMIT_WAITING_TIME_SECONDS
    if args.get("podGroupBackoffSeconds") is None:
        args["podGroupBackoffSeconds"] = DEFAULT_POD_GROUP_BACKOFF_SECONDS


def decode_coscheduling_args(data: Mapping[str, Any] | None, path: str = "") -> CoschedulingArgs:
    """Decode (and so default) ``args``; raise :class:`~framework.objects.ObjectInvalid` listing bad fields."""
    body = {k: v for k, v in (data or {}).items() if k not in ("apiVersion", "kind")}
    return CoschedulingArgs.from_dict(body, path)


def validate_coscheduling_args(args: CoschedulingArgs, path: str = "") -> list[FieldCause]:
    """Neither duration may be negative (``ValidateCoschedulingArgs``); every problem is reported."""
    causes = []
    for key, value in (
        ("permitWaitingTimeSeconds", args.permit_waiting_time_seconds),
        ("podGroupBackoffSeconds", args.pod_group_backoff_seconds),
    ):
        if value < 0:
            where = f"{path}.{key}" if path else key
            causes.append(FieldCause.invalid(where, value, MSG_NOT_NEGATIVE))
    return causes


def check_coscheduling_args(data: Mapping[str, Any], path: str) -> Problems:
    """The strict-decoding problems of a ``pluginConfig`` entry's args, as ``(field path, message)``."""
    try:
        decode_coscheduling_args(data, path)
    except ObjectInvalid as error:
        return [(e.path, e.message) for e in error.errors]
    return []


def validate_coscheduling_config(data: Mapping[str, Any], path: str) -> Problems:
    """Validation of a defaulted ``pluginConfig`` args dict, as ``(field path, message)``."""
    try:
        args = decode_coscheduling_args(data, path)
    except ObjectInvalid as error:
        return [(e.path, e.message) for e in error.errors]
    return [(c.field, c.body()) for c in validate_coscheduling_args(args, path)]


def coscheduling_args_from(args: Any) -> CoschedulingArgs:
    """The typed, validated args a factory gets: None means the defaults; a dict is decoded strictly.

    Raises :class:`InvalidArgsError` naming every bad field, as the
    configuration would have (a plugin built without the configuration
    loader must not accept what the loader refuses).
    """
    if isinstance(args, CoschedulingArgs):
        decoded = args
    elif args is None or isinstance(args, Mapping):
        try:
            decoded = decode_coscheduling_args(args)
        except ObjectInvalid as error:
            raise InvalidArgsError(f"decoding CoschedulingArgs: {error}") from None
    else:
        raise InvalidArgsError(
            f"want args to be of type CoschedulingArgs, got {type(args).__name__}"
        )
    causes = validate_coscheduling_args(decoded)
    if causes:
        raise InvalidArgsError(aggregate(causes))
    return decoded
