"""The arguments of the resource plugins: ``NodeResourcesFitArgs`` and ``NodeResourcesBalancedAllocationArgs``.

A profile's ``pluginConfig`` tunes the two plugins that look at CPU and
memory. NodeResourcesFit takes

* ``ignoredResources``: extended resources its Filter must not check
  (``example.com/dongle``: some other component hands those out);
* ``ignoredResourceGroups``: the same for every extended resource of a
  domain (``example.com`` ignores ``example.com/*``);
* ``scoringStrategy``: how Score ranks the nodes that fit: ``type`` is
  ``LeastAllocated`` (spread, the default), ``MostAllocated`` (pack) or
  ``RequestedToCapacityRatio`` (a custom curve, ``requestedToCapacityRatio.shape``);
  ``resources`` lists the resources that count and their weights.

NodeResourcesBalancedAllocation takes ``resources``, whose weights must all be 1.

An ``args`` object goes through three steps, in kube-scheduler's order:

1. **strict decoding** (:func:`decode_node_resources_fit_args`): an unknown
   key or a value of the wrong type is an error, with its path;
2. **defaulting** (:func:`set_defaults_node_resources_fit_args`): no
   strategy means ``LeastAllocated`` on cpu and memory; no resources means
   cpu and memory; a weight of 0 means 1;
3. **validation** (:func:`validate_node_resources_fit_args`): every problem
   at once, as ``field.Error`` prints it.

>>> args = set_defaults_node_resources_fit_args(
...     decode_node_resources_fit_args({"scoringStrategy": {"type": "MostAllocated"}}))
>>> args.scoring_strategy.type, [(r.name, r.weight) for r in args.scoring_strategy.resources]
('MostAllocated', [('cpu', 1), ('memory', 1)])
>>> bad = decode_node_resources_fit_args({"scoringStrategy": {"type": "Most",
...                                       "resources": [{"name": "cpu", "weight": 101}]}})
>>> [cause.field for cause in validate_node_resources_fit_args(bad)]
['scoringStrategy.type', 'scoringStrategy.resources[0].weight']
>>> print(validate_node_resources_fit_args(bad)[1])
scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]

The configuration loader calls the same functions through
:mod:`framework.config.args` (``check_*`` for step 1, ``validate_*`` for
step 3), so a bad ``pluginConfig`` is reported with its full path, together
with the configuration's other problems.

Mirrors ``NodeResourcesFitArgs``, ``ScoringStrategy``, ``ResourceSpec``,
``RequestedToCapacityRatioParam`` and ``UtilizationShapePoint`` in
``kubernetes/kubernetes:staging/src/k8s.io/kube-scheduler/config/v1/types_pluginargs.go``,
``SetDefaults_NodeResourcesFitArgs`` and
``SetDefaults_NodeResourcesBalancedAllocationArgs`` in
``pkg/scheduler/apis/config/v1/defaults.go``, and
``ValidateNodeResourcesFitArgs``, ``ValidateNodeResourcesBalancedAllocationArgs``
and ``validateFunctionShape`` in
``pkg/scheduler/apis/config/validation/validation_pluginargs.go`` (v1.33).
Simplified: one type per args kind (Go has a versioned and an internal one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, TypeVar

from framework.apiserver.errors import FieldCause
from framework.config.strict import StrictModel
from framework.objects.errors import aggregate as aggregate_errors
from framework.objects.labels import validate_label_key
from framework.objects.schema import ObjectInvalid

__all__ = [
    "DEFAULT_RESOURCES",
    "LEAST_ALLOCATED",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MAX_RESOURCE_WEIGHT",
    "MOST_ALLOCATED",
    "REQUESTED_TO_CAPACITY_RATIO",
    "SUPPORTED_SCORING_STRATEGY_TYPES",
    "InvalidArgsError",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
    "aggregate",
    "check_node_resources_balanced_allocation_args",
    "check_node_resources_fit_args",
    "decode_node_resources_balanced_allocation_args",
    "decode_node_resources_fit_args",
    "set_defaults_node_resources_balanced_allocation_args",
    "set_defaults_node_resources_fit_args",
    "validate_function_shape",
    "validate_node_resources_balanced_allocation_args",
    "validate_node_resources_balanced_allocation_config",
    "validate_node_resources_fit_args",
    "validate_node_resources_fit_config",
]

LEAST_ALLOCATED = "LeastAllocated"
"""Prefer the node with the most room left, which spreads pods (the default strategy)."""
MOST_ALLOCATED = "MostAllocated"
"""Prefer the fullest node, which packs pods so that empty nodes can be scaled away."""
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
"""Score utilization along a user-drawn curve (``requestedToCapacityRatio.shape``)."""
SUPPORTED_SCORING_STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
"""Sorted, as ``sets.List`` sorts them in the "supported values" of the error."""

MAX_CUSTOM_PRIORITY_SCORE = 10
"""The top of a shape point's score scale (``config.MaxCustomPriorityScore``); Score multiplies by 10."""
MAX_RESOURCE_WEIGHT = 100
"""A strategy resource's weight must be in (0, 100]."""
_MAX_UTILIZATION = 100

_ENVELOPE = ("apiVersion", "kind")  # the keys a RawExtension may carry around the fields

Problems = list[tuple[str, str]]


class InvalidArgsError(ValueError):
    """A plugin was given args that kube-scheduler would refuse; the message lists every problem."""


# --- the types ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResourceSpec(StrictModel):
    """A resource a strategy looks at, and its weight in the node's score."""

    name: str = ""
    weight: int = 0

    _INT64: ClassVar[frozenset[str]] = frozenset({"weight"})


@dataclass(frozen=True, slots=True)
class UtilizationShapePoint(StrictModel):
    """One point of the RequestedToCapacityRatio curve: at this utilization (0-100), this score (0-10)."""

    utilization: int = 0
    score: int = 0

    _INT32: ClassVar[frozenset[str]] = frozenset({"utilization", "score"})


@dataclass(frozen=True, slots=True)
class RequestedToCapacityRatioParam(StrictModel):
    """The curve of the RequestedToCapacityRatio strategy: points by increasing utilization."""

    shape: tuple[UtilizationShapePoint, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoringStrategy(StrictModel):
    """How NodeResourcesFit scores: the strategy ``type``, its ``resources`` and, for RTCR, its curve."""

    type: str = ""
    resources: tuple[ResourceSpec, ...] = ()
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


@dataclass(frozen=True, slots=True)
class NodeResourcesFitArgs(StrictModel):
    """``NodeResourcesFitArgs``: what Filter ignores and how Score ranks."""

    ignored_resources: tuple[str, ...] = ()
    ignored_resource_groups: tuple[str, ...] = ()
    scoring_strategy: ScoringStrategy | None = None


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs(StrictModel):
    """``NodeResourcesBalancedAllocationArgs``: the resources whose usage should stay even."""

    resources: tuple[ResourceSpec, ...] = ()


DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))
"""The resources both plugins use when none are configured (cpu and memory, weight 1 each)."""


# --- 1. strict decoding ------------------------------------------------------------------------


def _body(data: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (data or {}).items() if k not in _ENVELOPE}


def decode_node_resources_fit_args(
    data: Mapping[str, Any] | None, path: str = ""
) -> NodeResourcesFitArgs:
    """Decode ``args`` as written, without defaults.

    Raises :class:`~framework.objects.ObjectInvalid` listing every bad field.
    """
    return NodeResourcesFitArgs.from_dict(_body(data), path)


def decode_node_resources_balanced_allocation_args(
    data: Mapping[str, Any] | None, path: str = ""
) -> NodeResourcesBalancedAllocationArgs:
    """Decode ``args`` as written, without defaults.

    Raises :class:`~framework.objects.ObjectInvalid` listing every bad field.
    """
    return NodeResourcesBalancedAllocationArgs.from_dict(_body(data), path)


def _decoding_problems(error: ObjectInvalid) -> Problems:
    return [(e.path, e.message) for e in error.errors]


def check_node_resources_fit_args(data: Mapping[str, Any], path: str) -> Problems:
    """The strict-decoding problems of a ``pluginConfig`` entry's args, as ``(field path, message)``."""
    try:
        decode_node_resources_fit_args(data, path)
    except ObjectInvalid as error:
        return _decoding_problems(error)
    return []


def check_node_resources_balanced_allocation_args(data: Mapping[str, Any], path: str) -> Problems:
    """The strict-decoding problems of a ``pluginConfig`` entry's args, as ``(field path, message)``."""
    try:
        decode_node_resources_balanced_allocation_args(data, path)
    except ObjectInvalid as error:
        return _decoding_problems(error)
    return []


# --- 2. defaults ---------------------------------------------------------------------------------


def _weights_at_least_one(resources: Iterable[ResourceSpec]) -> tuple[ResourceSpec, ...]:
    # A weight left out, or written as 0, means 1.
    return tuple(r if r.weight != 0 else replace(r, weight=1) for r in resources)


def set_defaults_node_resources_fit_args(args: NodeResourcesFitArgs) -> NodeResourcesFitArgs:
    """The args with kube-scheduler's defaults filled in (``SetDefaults_NodeResourcesFitArgs``).

    >>> set_defaults_node_resources_fit_args(NodeResourcesFitArgs()).scoring_strategy.type
    'LeastAllocated'
    """
    strategy = args.scoring_strategy
    if strategy is None:
        strategy = ScoringStrategy(type=LEAST_ALLOCATED, resources=DEFAULT_RESOURCES)
    if not strategy.resources:
        strategy = replace(strategy, resources=DEFAULT_RESOURCES)
    strategy = replace(strategy, resources=_weights_at_least_one(strategy.resources))
    return replace(args, scoring_strategy=strategy)


def set_defaults_node_resources_balanced_allocation_args(
    args: NodeResourcesBalancedAllocationArgs,
) -> NodeResourcesBalancedAllocationArgs:
    """The args with cpu and memory as the default resources, and weights of 0 made 1."""
    if not args.resources:
        return replace(args, resources=DEFAULT_RESOURCES)
    return replace(args, resources=_weights_at_least_one(args.resources))


# --- 3. validation -------------------------------------------------------------------------------


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def validate_function_shape(
    shape: tuple[UtilizationShapePoint, ...], path: str
) -> list[FieldCause]:
    """A RequestedToCapacityRatio curve: at least one point, utilizations increasing, all in range."""
    if not shape:
        return [FieldCause.required(path, "at least one point must be specified")]
    causes: list[FieldCause] = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            causes.append(
                FieldCause.invalid(
                    f"{path}[{i}].utilization",
                    shape[i].utilization,
                    "values must be sorted in increasing order",
                )
            )
            break  # one complaint about the order is enough
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= _MAX_UTILIZATION:
            causes.append(
                FieldCause.invalid(
                    f"{path}[{i}].utilization",
                    point.utilization,
                    f"not in valid range [0, {_MAX_UTILIZATION}]",
                )
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            causes.append(
                FieldCause.invalid(
                    f"{path}[{i}].score",
                    point.score,
                    f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                )
            )
    return causes


def _validate_resources(resources: tuple[ResourceSpec, ...], path: str) -> list[FieldCause]:
    return [
        FieldCause.invalid(
            f"{path}[{i}].weight",
            resource.weight,
            f"resource weight of {resource.name} not in valid range (0, {MAX_RESOURCE_WEIGHT}]",
        )
        for i, resource in enumerate(resources)
        if not 0 < resource.weight <= MAX_RESOURCE_WEIGHT
    ]


def validate_node_resources_fit_args(
    args: NodeResourcesFitArgs, path: str = ""
) -> list[FieldCause]:
    """Every problem of (defaulted) args, in Go's order; ``path`` prefixes the field paths."""
    causes: list[FieldCause] = []
    for i, name in enumerate(args.ignored_resources):
        where = f"{_child(path, 'ignoredResources')}[{i}]"
        causes += [FieldCause.invalid(where, name, m) for m in validate_label_key(name)]
    for i, group in enumerate(args.ignored_resource_groups):
        where = f"{_child(path, 'ignoredResourceGroups')}[{i}]"
        if "/" in group:
            causes.append(
                FieldCause.invalid(where, group, "resource group name can't contain '/'")
            )
        causes += [FieldCause.invalid(where, group, m) for m in validate_label_key(group)]
    strategy = args.scoring_strategy
    if strategy is not None:
        where = _child(path, "scoringStrategy")
        if strategy.type not in SUPPORTED_SCORING_STRATEGY_TYPES:
            causes.append(
                FieldCause.not_supported(
                    f"{where}.type", strategy.type, list(SUPPORTED_SCORING_STRATEGY_TYPES)
                )
            )
        causes += _validate_resources(strategy.resources, f"{where}.resources")
        if strategy.requested_to_capacity_ratio is not None:
            # Kubernetes reports the curve's problems under "scoringStrategy.shape",
            # not "scoringStrategy.requestedToCapacityRatio.shape"; so do we.
            causes += validate_function_shape(
                strategy.requested_to_capacity_ratio.shape, f"{where}.shape"
            )
    return causes


def validate_node_resources_balanced_allocation_args(
    args: NodeResourcesBalancedAllocationArgs, path: str = ""
) -> list[FieldCause]:
    """Every problem of (defaulted) args: a resource listed twice, a weight other than 1."""
    causes: list[FieldCause] = []
    seen: set[str] = set()
    for i, resource in enumerate(args.resources):
        where = f"{_child(path, 'resources')}[{i}]"
        if resource.name in seen:
            causes.append(FieldCause.duplicate(f"{where}.name", resource.name))
        seen.add(resource.name)
        if resource.weight != 1:
            causes.append(FieldCause.invalid(f"{where}.weight", resource.weight, "must be 1"))
    return causes


def aggregate(causes: Iterable[FieldCause]) -> str:
    """The causes as one message, as ``field.ErrorList.ToAggregate().Error()`` prints them.

    One cause prints alone; several print as ``[a, b]``; repeats print once.
    """
    return aggregate_errors(causes)


_Args = TypeVar("_Args", NodeResourcesFitArgs, NodeResourcesBalancedAllocationArgs)


def _config_problems(
    decode: Callable[[Mapping[str, Any], str], _Args],
    validate: Callable[[_Args, str], list[FieldCause]],
    data: Mapping[str, Any],
    path: str,
) -> Problems:
    try:
        args = decode(data, path)
    except ObjectInvalid as error:
        return _decoding_problems(error)
    return [(cause.field, cause.body()) for cause in validate(args, path)]


def validate_node_resources_fit_config(data: Mapping[str, Any], path: str) -> Problems:
    """Validation of a defaulted ``pluginConfig`` args dict, as ``(field path, message)``."""
    return _config_problems(
        decode_node_resources_fit_args, validate_node_resources_fit_args, data, path
    )


def validate_node_resources_balanced_allocation_config(
    data: Mapping[str, Any], path: str
) -> Problems:
    """Validation of a defaulted ``pluginConfig`` args dict, as ``(field path, message)``."""
    return _config_problems(
        decode_node_resources_balanced_allocation_args,
        validate_node_resources_balanced_allocation_args,
        data,
        path,
    )
