"""``PodTopologySpreadArgs``: the constraints a pod gets when it declares none.

A pod without ``topologySpreadConstraints`` may still be spread: the
plugin then applies *default* constraints, chosen by ``defaultingType``:

* ``System`` (the default): kube-scheduler's built-in pair,
  :data:`SYSTEM_DEFAULT_CONSTRAINTS` (spread over hostnames with maxSkew 3
  and over zones with maxSkew 5, both ``ScheduleAnyway``, so they only
  affect scoring); ``defaultConstraints`` must then be empty;
* ``List``: the ``defaultConstraints`` given, possibly none.

Default constraints carry no ``labelSelector``: the plugin deduces one per
pod from the workload that owns it (see :mod:`~framework.plugins.podtopologyspread.plugin`).

>>> args = pod_topology_spread_args_from({"defaultingType": "List", "defaultConstraints": [
...     {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]})
>>> args.defaulting_type, args.default_constraints[0].topology_key
('List', 'zone')
>>> print(aggregate(validate_pod_topology_spread_args(PodTopologySpreadArgs(
...     defaulting_type="System", default_constraints=args.default_constraints))))
defaultingType: Invalid value: "System": when .defaultConstraints are not empty

Mirrors ``PodTopologySpreadArgs`` in
``kubernetes/kubernetes:staging/src/k8s.io/kube-scheduler/config/v1/types_pluginargs.go``,
``SetDefaults_PodTopologySpreadArgs`` in ``pkg/scheduler/apis/config/v1/defaults.go``
and ``ValidatePodTopologySpreadArgs`` in
``pkg/scheduler/apis/config/validation/validation_pluginargs.go`` (v1.33).
Simplified: a constraint's unknown keys are reported by the strict check,
but its nested fields are decoded as a pod's are (leniently typed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.apiserver.errors import FieldCause
from framework.config.args_noderesources import InvalidArgsError, aggregate
from framework.objects import TopologySpreadConstraint
from framework.objects.labels import validate_label_key
from framework.objects.node import LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE
from framework.objects.pod import DO_NOT_SCHEDULE, SCHEDULE_ANYWAY
from framework.objects.schema import FieldError, ObjectInvalid

__all__ = [
    "LIST_DEFAULTING",
    "SYSTEM_DEFAULTING",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "PodTopologySpreadArgs",
    "aggregate",
    "check_pod_topology_spread_args",
    "decode_pod_topology_spread_args",
    "pod_topology_spread_args_from",
    "set_defaults_pod_topology_spread_args",
    "validate_pod_topology_spread_args",
    "validate_pod_topology_spread_config",
]

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(
        max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY
    ),
    TopologySpreadConstraint(
        max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY
    ),
)
"""``systemDefaultConstraints``, in kube's order: hostname first, then zone."""

_FIELDS = ("defaultConstraints", "defaultingType")
_ENVELOPE = ("apiVersion", "kind")

Problems = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class PodTopologySpreadArgs:
    """The decoded args; ``defaulting_type`` is ``""`` until defaulted."""

    default_constraints: tuple[TopologySpreadConstraint, ...] = ()
    defaulting_type: str = ""


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def decode_pod_topology_spread_args(
    data: Mapping[str, Any] | None, path: str = ""
) -> PodTopologySpreadArgs:
    """Decode ``args`` as written; raise :class:`ObjectInvalid` on unknown keys or wrong types."""
    errors: list[FieldError] = []
    body = {k: v for k, v in (data or {}).items() if k not in _ENVELOPE}
    for key in body:
        if key not in _FIELDS:
            errors.append(FieldError(_child(path, key), f'unknown field "{key}"'))
    defaulting_type = body.get("defaultingType") or ""
    if not isinstance(defaulting_type, str):
        errors.append(FieldError(_child(path, "defaultingType"), "expected a string"))
        defaulting_type = ""
    raw = body.get("defaultConstraints") or []
    constraints: list[TopologySpreadConstraint] = []
    where = _child(path, "defaultConstraints")
    if not isinstance(raw, list):
        errors.append(FieldError(where, "expected a list"))
        raw = []
    for i, item in enumerate(raw):
        try:
            constraint = TopologySpreadConstraint.from_dict(item, f"{where}[{i}]")
        except ObjectInvalid as error:
            errors.extend(error.errors)
            continue
        for key in constraint.extra:
            errors.append(FieldError(f"{where}[{i}].{key}", f'unknown field "{key}"'))
        constraints.append(constraint)
    if errors:
        raise ObjectInvalid(errors)
    return PodTopologySpreadArgs(tuple(constraints), defaulting_type)


def set_defaults_pod_topology_spread_args(args: PodTopologySpreadArgs) -> PodTopologySpreadArgs:
    """No ``defaultingType`` means ``System`` (``SetDefaults_PodTopologySpreadArgs``)."""
    if args.defaulting_type:
        return args
    return PodTopologySpreadArgs(args.default_constraints, SYSTEM_DEFAULTING)


def validate_pod_topology_spread_args(
    args: PodTopologySpreadArgs, path: str = ""
) -> list[FieldCause]:
    """Every problem of defaulted args, in kube's order (``ValidatePodTopologySpreadArgs``)."""
    causes: list[FieldCause] = []
    where = _child(path, "defaultingType")
    if args.defaulting_type not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        causes.append(
            FieldCause.not_supported(
                where, args.defaulting_type, [SYSTEM_DEFAULTING, LIST_DEFAULTING]
            )
        )
    elif args.defaulting_type == SYSTEM_DEFAULTING and args.default_constraints:
        causes.append(
            FieldCause.invalid(
                where, args.defaulting_type, "when .defaultConstraints are not empty"
            )
        )
    constraints_path = _child(path, "defaultConstraints")
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(args.default_constraints):
        p = f"{constraints_path}[{i}]"
        if c.max_skew <= 0:
            causes.append(
                FieldCause.invalid(f"{p}.maxSkew", c.max_skew, "not in valid range (0, inf)")
            )
        if not c.topology_key:
            causes.append(FieldCause.required(f"{p}.topologyKey", "can not be empty"))
        else:
            for message in validate_label_key(c.topology_key):
                causes.append(FieldCause.invalid(f"{p}.topologyKey", c.topology_key, message))
        if c.when_unsatisfiable not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            causes.append(
                FieldCause.not_supported(
                    f"{p}.whenUnsatisfiable",
                    c.when_unsatisfiable,
                    [DO_NOT_SCHEDULE, SCHEDULE_ANYWAY],
                )
            )
        if c.label_selector is not None:
            causes.append(
                FieldCause.forbidden(
                    f"{p}.labelSelector",
                    "constraint must not define a selector, as they deduced for each pod",
                )
            )
        pair = (c.topology_key, c.when_unsatisfiable)
        if pair in seen:
            causes.append(FieldCause.duplicate(p, f"{{{c.topology_key}, {c.when_unsatisfiable}}}"))
        seen.add(pair)
    return causes


def check_pod_topology_spread_args(data: Mapping[str, Any], path: str) -> Problems:
    """The strict-decoding problems of a ``pluginConfig`` entry's args, as ``(field path, message)``."""
    try:
        decode_pod_topology_spread_args(data, path)
    except ObjectInvalid as error:
        return [(e.path, e.message) for e in error.errors]
    return []


def validate_pod_topology_spread_config(data: Mapping[str, Any], path: str) -> Problems:
    """Validation of a defaulted ``pluginConfig`` args dict, as ``(field path, message)``."""
    try:
        args = decode_pod_topology_spread_args(data, path)
    except ObjectInvalid as error:
        return [(e.path, e.message) for e in error.errors]
    return [(cause.field, cause.body()) for cause in validate_pod_topology_spread_args(args, path)]


def pod_topology_spread_args_from(args: Any) -> PodTopologySpreadArgs:
    """The typed, defaulted and validated args a factory gets (``None`` means all defaults).

    Raises :class:`~framework.config.args_noderesources.InvalidArgsError`
    for args kube-scheduler would refuse.
    """
    if isinstance(args, PodTopologySpreadArgs):
        typed = args
    elif args is None or isinstance(args, Mapping):
        try:
            typed = decode_pod_topology_spread_args(args)
        except ObjectInvalid as error:
            raise InvalidArgsError(f"decoding PodTopologySpreadArgs: {error}") from None
    else:
        raise InvalidArgsError(
            f"want args to be of type PodTopologySpreadArgs, got {type(args).__name__}"
        )
    typed = set_defaults_pod_topology_spread_args(typed)
    causes = validate_pod_topology_spread_args(typed)
    if causes:
        raise InvalidArgsError(aggregate(causes))
    return typed
