"""``DefaultPreemptionArgs``: how many candidate nodes preemption's dry run looks for.

Trying every node would find the best place to preempt, at a cost that
grows with the cluster. The dry run instead stops once it has
``max(numNodes * minCandidateNodesPercentage / 100, minCandidateNodesAbsolute)``
candidates (never more than the nodes there are), starting from a random
node:

* ``minCandidateNodesPercentage`` (default 10, valid 0 to 100);
* ``minCandidateNodesAbsolute`` (default 100, valid 0 and up);
* not both 0.

>>> args = default_preemption_args_from({"minCandidateNodesPercentage": 0,
...                                      "minCandidateNodesAbsolute": 0})
>>> for cause in validate_default_preemption_args(args):
...     print(cause)
minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute
minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage

Mirrors ``DefaultPreemptionArgs`` in
``kubernetes/kubernetes:pkg/scheduler/apis/config/types_pluginargs.go``,
``SetDefaults_DefaultPreemptionArgs`` in ``.../config/v1/defaults.go`` and
``ValidateDefaultPreemptionArgs`` in
``.../config/validation/validation_pluginargs.go`` (v1.33).
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
    "DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE",
    "DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE",
    "DefaultPreemptionArgs",
    "InvalidArgsError",
    "aggregate",
    "check_default_preemption_args",
    "decode_default_preemption_args",
    "default_preemption_args_from",
    "validate_default_preemption_args",
    "validate_default_preemption_config",
]

DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100

Problems = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class DefaultPreemptionArgs(StrictModel):
    """The plugin's args; a field left out takes its default, which is what ``SetDefaults`` sets."""

    min_candidate_nodes_percentage: int = DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE
    min_candidate_nodes_absolute: int = DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE

    _INT32: ClassVar[frozenset[str]] = frozenset(
        {"minCandidateNodesPercentage", "minCandidateNodesAbsolute"}
    )


def decode_default_preemption_args(
    data: Mapping[str, Any] | None, path: str = ""
) -> DefaultPreemptionArgs:
    """Decode (and so default) ``args``; raise :class:`~framework.objects.ObjectInvalid` listing bad fields."""
    body = {k: v for k, v in (data or {}).items() if k not in ("apiVersion", "kind")}
    return DefaultPreemptionArgs.from_dict(body, path)


def validate_default_preemption_args(
    args: DefaultPreemptionArgs, path: str = ""
) -> list[FieldCause]:
    """Every problem with the args (``ValidateDefaultPreemptionArgs``), in Kubernetes' order."""
    prefix = f"{path}." if path else ""
    percentage_path = f"{prefix}minCandidateNodesPercentage"
    absolute_path = f"{prefix}minCandidateNodesAbsolute"
    percentage = args.min_candidate_nodes_percentage
    absolute = args.min_candidate_nodes_absolute
    causes: list[FieldCause] = []
    if not 0 <= percentage <= 100:
        causes.append(
            FieldCause.invalid(percentage_path, percentage, "not in valid range [0, 100]")
        )
    if absolute < 0:
        causes.append(FieldCause.invalid(absolute_path, absolute, "not in valid range [0, inf)"))
    if percentage == 0 and absolute == 0:
        causes.append(
            FieldCause.invalid(
                percentage_path,
                percentage,
                "cannot be zero at the same time as minCandidateNodesAbsolute",
            )
        )
        causes.append(
            FieldCause.invalid(
                absolute_path,
                absolute,
                "cannot be zero at the same time as minCandidateNodesPercentage",
            )
        )
    return causes


def check_default_preemption_args(data: Mapping[str, Any], path: str) -> Problems:
    """The strict-decoding problems of a ``pluginConfig`` entry's args, as ``(field path, message)``."""
    try:
        decode_default_preemption_args(data, path)
    except ObjectInvalid as error:
        return [(e.path, e.message) for e in error.errors]
    return []


def validate_default_preemption_config(data: Mapping[str, Any], path: str) -> Problems:
    """Validation of a defaulted ``pluginConfig`` args dict, as ``(field path, message)``."""
    try:
        args = decode_default_preemption_args(data, path)
    except ObjectInvalid as error:
        return [(e.path, e.message) for e in error.errors]
    return [(c.field, c.body()) for c in validate_default_preemption_args(args, path)]


def default_preemption_args_from(args: Any) -> DefaultPreemptionArgs:
    """The typed args a factory gets: ``None`` means the defaults; a dict is decoded strictly."""
    if isinstance(args, DefaultPreemptionArgs):
        return args
    if args is None or isinstance(args, Mapping):
        try:
            return decode_default_preemption_args(args)
        except ObjectInvalid as error:
            raise InvalidArgsError(f"decoding DefaultPreemptionArgs: {error}") from None
    raise InvalidArgsError(
        f"want args to be of type DefaultPreemptionArgs, got {type(args).__name__}"
    )
