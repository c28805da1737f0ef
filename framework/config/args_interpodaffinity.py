"""``InterPodAffinityArgs``: how much an existing pod's *required* affinity counts in scoring.

Two fields, both about Score:

* ``hardPodAffinityWeight`` (default 1, valid 0 to 100): an existing pod
  whose *required* affinity the incoming pod satisfies adds this weight to
  every node in that pod's topology domain. Symmetry: if ``web`` must run
  near ``cache`` pods, a new ``cache`` pod should lean toward the ``web``
  pods. 0 turns this off.
* ``ignorePreferredTermsOfExistingPods`` (default false): when the incoming
  pod has no preferred inter-pod terms of its own, skip scoring entirely
  instead of looking at the existing pods' terms (a speed-up for large
  clusters).

>>> args = inter_pod_affinity_args_from({"hardPodAffinityWeight": 101})
>>> aggregate(validate_inter_pod_affinity_args(args))
'hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]'

Mirrors ``InterPodAffinityArgs`` in
``kubernetes/kubernetes:pkg/scheduler/apis/config/types_pluginargs.go``,
``SetDefaults_InterPodAffinityArgs`` in ``.../config/v1/defaults.go`` and
``ValidateInterPodAffinityArgs`` in ``.../config/validation/validation_pluginargs.go`` (v1.33).
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
    "DEFAULT_HARD_POD_AFFINITY_WEIGHT",
    "MAX_HARD_POD_AFFINITY_WEIGHT",
    "MIN_HARD_POD_AFFINITY_WEIGHT",
    "InterPodAffinityArgs",
    "InvalidArgsError",
    "aggregate",
    "check_inter_pod_affinity_args",
    "decode_inter_pod_affinity_args",
    "inter_pod_affinity_args_from",
    "validate_inter_pod_affinity_args",
    "validate_inter_pod_affinity_config",
]

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100

Problems = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs(StrictModel):
    """The plugin's args; a field left out takes its default, which is what ``SetDefaults`` would set."""

    hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT
    ignore_preferred_terms_of_existing_pods: bool = False

    _INT32: ClassVar[frozenset[str]] = frozenset({"hardPodAffinityWeight"})


def decode_inter_pod_affinity_args(
    data: Mapping[str, Any] | None, path: str = ""
) -> InterPodAffinityArgs:
    """Decode (and so default) ``args``; raise :class:`~framework.objects.ObjectInvalid` listing bad fields."""
    body = {k: v for k, v in (data or {}).items() if k not in ("apiVersion", "kind")}
    return InterPodAffinityArgs.from_dict(body, path)


def validate_inter_pod_affinity_args(
    args: InterPodAffinityArgs, path: str = ""
) -> list[FieldCause]:
    """The weight must lie in [0, 100] (``ValidateInterPodAffinityArgs``)."""
    weight = args.hard_pod_affinity_weight
    if not MIN_HARD_POD_AFFINITY_WEIGHT <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT:
        where = f"{path}.hardPodAffinityWeight" if path else "hardPodAffinityWeight"
        detail = (
            f"not in valid range [{MIN_HARD_POD_AFFINITY_WEIGHT}, {MAX_HARD_POD_AFFINITY_WEIGHT}]"
        )
        return [FieldCause.invalid(where, weight, detail)]
    return []


def check_inter_pod_affinity_args(data: Mapping[str, Any], path: str) -> Problems:
    """The strict-decoding problems of a ``pluginConfig`` entry's args, as ``(field path, message)``."""
    try:
        decode_inter_pod_affinity_args(data, path)
    except ObjectInvalid as error:
        return [(e.path, e.message) for e in error.errors]
    return []


def validate_inter_pod_affinity_config(data: Mapping[str, Any], path: str) -> Problems:
    """Validation of a defaulted ``pluginConfig`` args dict, as ``(field path, message)``."""
    try:
        args = decode_inter_pod_affinity_args(data, path)
    except ObjectInvalid as error:
        return [(e.path, e.message) for e in error.errors]
    return [(c.field, c.body()) for c in validate_inter_pod_affinity_args(args, path)]


def inter_pod_affinity_args_from(args: Any) -> InterPodAffinityArgs:
    """The typed args a factory gets: ``None`` means the defaults; a dict is decoded strictly."""
    if isinstance(args, InterPodAffinityArgs):
        return args
    if args is None or isinstance(args, Mapping):
        try:
            return decode_inter_pod_affinity_args(args)
        except ObjectInvalid as error:
            raise InvalidArgsError(f"decoding InterPodAffinityArgs: {error}") from None
    raise InvalidArgsError(
        f"want args to be of type InterPodAffinityArgs, got {type(args).__name__}"
    )
