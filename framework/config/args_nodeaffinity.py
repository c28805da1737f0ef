"""NodeAffinity's arguments: ``NodeAffinityArgs``, an ``addedAffinity`` every pod of a profile must also satisfy.

Decoded from a profile's ``pluginConfig`` (:meth:`NodeAffinityArgs.from_args`)
and validated by compiling its terms (:func:`validate_node_affinity_args`),
so that a bad term is reported with its path when the configuration loads.

Mirrors ``NodeAffinityArgs`` in
``kubernetes/kubernetes:pkg/scheduler/apis/config/types_pluginargs.go`` and
``ValidateNodeAffinityArgs`` in
``pkg/scheduler/apis/config/validation/validation_pluginargs.go`` (v1.33).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from framework.objects import pod as v1
from framework.objects.nodeaffinity import (
    NodeSelectorParseError,
    new_node_selector,
    new_preferred_scheduling_terms,
)
from framework.objects.schema import ObjectInvalid

__all__ = [
    "ADDED_PREFERRED",
    "ADDED_REQUIRED",
    "NodeAffinityArgs",
    "validate_args",
    "validate_node_affinity_args",
]

ADDED_REQUIRED = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
ADDED_PREFERRED = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"


@dataclass(frozen=True, slots=True)
class NodeAffinityArgs:
    """The plugin's args: an ``addedAffinity`` that every pod of the profile must also satisfy.

    A scheduler profile can use it to keep its pods on a node pool
    (required terms) or to lean them toward one (preferred terms), whatever
    the pods themselves say. ``pluginConfig`` gives it as JSON::

        - name: NodeAffinity
          args:
            addedAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
                nodeSelectorTerms:
                - matchExpressions: [{key: pool, operator: In, values: [batch]}]
    """

    added_affinity: v1.NodeAffinity | None = None

    @classmethod
    def from_args(cls, args: Any, path: str = "args") -> NodeAffinityArgs:
        """Decode ``args`` (None, a dict from ``pluginConfig``, or NodeAffinityArgs); raise ValueError."""
        if args is None or isinstance(args, NodeAffinityArgs):
            return args or cls()
        if not isinstance(args, Mapping):
            raise ValueError(
                f"args are not of type NodeAffinityArgs, got {type(args).__name__} "
                '(give a mapping such as {"addedAffinity": {...}})'
            )
        added = args.get("addedAffinity")
        if added is None:
            return cls()
        try:
            return cls(v1.NodeAffinity.from_dict(added, f"{path}.addedAffinity"))
        except ObjectInvalid as error:
            raise ValueError(str(error)) from None


def validate_node_affinity_args(path: str, args: NodeAffinityArgs) -> list[tuple[str, str]]:
    """Every term of ``addedAffinity`` that does not compile, as ``(field path, message)``."""
    affinity = args.added_affinity
    if affinity is None:
        return []
    problems: list[tuple[str, str]] = []
    prefix = f"{path}." if path else ""
    required = affinity.required_during_scheduling_ignored_during_execution
    if required is not None:
        try:
            new_node_selector(required, prefix + ADDED_REQUIRED)
        except NodeSelectorParseError as error:
            problems += error.problems
    if affinity.preferred_during_scheduling_ignored_during_execution:
        try:
            new_preferred_scheduling_terms(
                affinity.preferred_during_scheduling_ignored_during_execution,
                prefix + ADDED_PREFERRED,
            )
        except NodeSelectorParseError as error:
            problems += error.problems
    return problems


def validate_args(args: Mapping[str, Any], path: str) -> list[tuple[str, str]]:
    """The configuration's hook (``ArgsSpec.validate``): decode, then validate, the defaulted args."""
    try:
        decoded = NodeAffinityArgs.from_args(args, path)
    except ValueError as error:
        return [(f"{path}.addedAffinity", str(error))]
    return validate_node_affinity_args(path, decoded)
