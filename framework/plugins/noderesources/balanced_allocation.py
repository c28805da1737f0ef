"""NodeResourcesBalancedAllocation: prefer the node whose resources would be used most evenly.

A node with 90% of its CPU requested but 10% of its memory is a poor home
for the next pod: its spare memory is stranded, because no CPU is left to
use it with. This Score plugin prefers nodes where, with the pod placed, the
configured resources (CPU and memory by default) are requested in similar
*fractions*. Per resource the node has (allocatable > 0)::

    fraction = min(requested / allocatable, 1.0)        (float, as in Go)

then the spread of the fractions is measured by their standard deviation:
``|f1 - f2| / 2`` for exactly two, the population standard deviation for
more, 0 for fewer; and the score is ``int((1 - std) * 100)``, truncated. With
two resources it lies between 50 (one full, one empty) and 100 (equal).

Unlike NodeResourcesFit's Score, it counts **real** requests (a request-less
container adds nothing), and since v1.33 its PreScore returns ``Skip`` for a
pod that requests none of the configured resources: such a "best-effort" pod
does not change any node's balance, and scoring it only herded many of them
onto the same node (kubernetes/kubernetes#129138, fixed by #130260). A
skipped plugin gives no score at all rather than a score of 0.

Worked example (``balanced_allocation_test.go``, "nothing scheduled,
resources requested, differently sized nodes"): a pod of 3000m CPU and 5000
bytes on a node of 4000m and 10000 gives fractions 0.75 and 0.5, a standard
deviation of 0.125 and a score of ``int(0.875 * 100) = 87``.

>>> balanced_resource_scorer([3000, 5000], [4000, 10000])
87

**Since v1.36 the change counts** (kubernetes/kubernetes#135573, no gate:
the emulated release decides). The plugin's documentation always said it
favours nodes that would obtain a *more* balanced usage, but the score only
looked at the node with the pod on it, so a node already perfectly balanced
beat a lopsided node the pod would even out. Now both are scored, with and
without the pod, and the difference (in -50..50) is folded back onto 50..100::

    score = 50 + (50 + score_with_pod - score_without_pod) // 2

75 means the pod leaves the balance as it is; above 75 it improves it. In
the example above the empty node was balanced (100) and the pod makes it 87:
``50 + (50 + 87 - 100) // 2 = 68``.

>>> balanced_change_scorer([3000, 5000], [4000, 10000], (3000, 5000))
68

Mirrors ``BalancedAllocation`` and ``balancedResourceScorer`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go``
(v1.33, and the v1.36 change as kubernetes#135573's diff shows it; the
"without" lists are the "with" lists less the pod's requests).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.config.args_noderesources import (
    InvalidArgsError,
    NodeResourcesBalancedAllocationArgs,
    aggregate,
    decode_node_resources_balanced_allocation_args,
    set_defaults_node_resources_balanced_allocation_args,
    validate_node_resources_balanced_allocation_args,
)
from framework.cycle_state import CycleState, NotFound
from framework.featuregate import features_of
from framework.interface import MAX_NODE_SCORE, SignFragment
from framework.node_info import NodeInfo
from framework.objects import ObjectInvalid, Pod
from framework.plugins import names
from framework.plugins.noderesources.resource_allocation import (
    NodeScorer,
    ResourceAllocationScorer,
    is_best_effort_pod,
    score_node_for,
)
from framework.plugins.pernode import PerNodeCache
from framework.runtime import signature as sig
from framework.status import Status

__all__ = [
    "NAME",
    "PRE_SCORE_STATE_KEY",
    "BalancedAllocation",
    "BalancedAllocationPreScoreState",
    "balanced_allocation_args_from",
    "balanced_change_scorer",
    "balanced_resource_scorer",
    "new",
]

NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME
"""Where PreScore leaves the pod's requests for Score (``balancedAllocationPreScoreStateKey``)."""


def balanced_resource_scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``int((1 - std) * 100)`` of the requested fractions of the resources the node has."""
    # This runs once per node scored, so it is written as Go writes it, with
    # an `if` where min() would be one more call per resource (chapter 13).
    fractions: list[float] = []
    total = 0.0
    for i, alloc in enumerate(allocatable):
        if alloc == 0:
            continue
        # float64(req) / float64(alloc): dividing a float by an int converts the int the same way.
        fraction = float(requested[i]) / alloc
        if fraction > 1.0:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        # The common case, cpu and memory: the standard deviation of two values.
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        variance = 0.0
        for fraction in fractions:
            variance = variance + (fraction - mean) * (fraction - mean)
        std = math.sqrt(variance / len(fractions))
    # A float times the int 100 is float64 arithmetic, as Go's float64(MaxNodeScore).
    return int((1 - std) * MAX_NODE_SCORE)


def balanced_change_scorer(
    requested: Sequence[int], allocatable: Sequence[int], pod_requests: Sequence[int]
) -> int:
    """v1.36's score: how much the pod improves the node's balance, on 50..100 (75: no change)."""
    with_pod = balanced_resource_scorer(requested, allocatable)
    # A resource the node has none of is skipped by the scorer whatever its request.
    without = [
        req - pod if alloc else 0
        for req, alloc, pod in zip(requested, allocatable, pod_requests, strict=True)
    ]
    without_pod = balanced_resource_scorer(without, allocatable)
    # Both lie in 50..100, so the sum is never negative: // truncates as Go's / does.
    return MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + with_pod - without_pod) // 2


@dataclass(frozen=True, slots=True)
class BalancedAllocationPreScoreState:
    """The pod's real requests of the configured resources, in order; immutable, shared by clones.

    ``score_node`` scores a node for exactly these requests, reusing the
    node's last score while the node has not changed (chapter 13).
    """

    pod_requests: tuple[int, ...]
    score_node: NodeScorer = field(compare=False, repr=False)

    def clone(self) -> BalancedAllocationPreScoreState:
        return self


class BalancedAllocation:
    """PreScore and Score: favour nodes whose configured resources stay evenly used.

    Built from validated args; raises :class:`~framework.config.args_noderesources.InvalidArgsError`
    with every problem otherwise.
    """

    def __init__(
        self, args: NodeResourcesBalancedAllocationArgs | None = None, handle: Any = None
    ) -> None:
        if args is None:
            args = set_defaults_node_resources_balanced_allocation_args(
                NodeResourcesBalancedAllocationArgs()
            )
        causes = validate_node_resources_balanced_allocation_args(args)
        if causes:
            raise InvalidArgsError(aggregate(causes))
        self.args = args
        gates = features_of(handle)
        self.scorer = ResourceAllocationScorer(
            NAME,
            balanced_resource_scorer,
            args.resources,
            use_requested=True,
            enable_in_place_pod_vertical_scaling=gates.enabled("InPlacePodVerticalScaling"),
            enable_pod_level_resources=gates.enabled("PodLevelResources"),
        )
        # Each node's score, per pod requests, until the node changes (chapter 13).
        self._node_scores: PerNodeCache[tuple[int, Status | None]] = PerNodeCache()
        self._handle = handle
        # kubernetes#135573 shipped in v1.36 without a gate: the emulated release decides.
        self.score_change = gates.at_least("1.36")
        self.enable_dra_extended_resource = gates.enabled("DRAExtendedResource")

    def _scorer_for(self, requests: Sequence[int]) -> ResourceAllocationScorer:
        if not self.score_change:
            return self.scorer
        change = functools.partial(balanced_change_scorer, pod_requests=tuple(requests))
        return dataclasses.replace(self.scorer, scorer=change)

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """The score reads the pod's requests, as Fit does (Go's ``BalancedAllocation.SignPod``, v1.35).

        None is signable with ``DRAExtendedResource`` on, as for Fit.
        """
        if self.enable_dra_extended_resource:
            return None, Status.unschedulable(
                "signature disabled when dra extended resources enabled"
            )
        signed = sig.resources_signer(
            pod, pod_level_resources=self.scorer.enable_pod_level_resources
        )
        return [SignFragment(sig.RESOURCES_SIGNER_NAME, signed)], None

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        """``Skip`` for a pod that requests none of the resources; else store its requests for Score."""
        requests = tuple(self.scorer.calculate_pod_resource_request_list(pod))
        if is_best_effort_pod(requests):
            return Status.skip()
        score_node = score_node_for(self._scorer_for(requests), self._node_scores, pod, requests)
        state.write(PRE_SCORE_STATE_KEY, BalancedAllocationPreScoreState(requests, score_node))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The balance score of the node with the pod on it (0-100; from v1.36 its change, 50-100).

        Without PreScore's state it computes the requests itself, and gives a
        best-effort pod 0 (the runner would have skipped the plugin).
        """
        try:
            s = state.read_as(PRE_SCORE_STATE_KEY, BalancedAllocationPreScoreState)
        except (NotFound, TypeError):
            requests = self.scorer.calculate_pod_resource_request_list(pod)
            if is_best_effort_pod(requests):
                return 0, None
            return self._scorer_for(requests).score(pod, node_info, requests)
        return s.score_node(node_info)

    def score_extensions(self) -> None:
        """None: the scores are already on 0-100."""
        return None


def balanced_allocation_args_from(args: Any) -> NodeResourcesBalancedAllocationArgs:
    """The typed args a factory gets: ``None`` means the defaults; a dict is decoded strictly, then defaulted."""
    if isinstance(args, NodeResourcesBalancedAllocationArgs):
        return args
    if args is None or isinstance(args, Mapping):
        try:
            decoded = decode_node_resources_balanced_allocation_args(args)
        except ObjectInvalid as error:
            raise InvalidArgsError(
                f"decoding NodeResourcesBalancedAllocationArgs: {error}"
            ) from None
        return set_defaults_node_resources_balanced_allocation_args(decoded)
    raise InvalidArgsError(
        f"want args to be of type NodeResourcesBalancedAllocationArgs, got {type(args).__name__}"
    )


def new(args: Any, handle: Any) -> BalancedAllocation:
    """The factory the registry calls, with the profile's ``pluginConfig`` args for this plugin."""
    return BalancedAllocation(balanced_allocation_args_from(args), handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _pre_score: type[interface.PreScorePlugin] = BalancedAllocation
    _score: type[interface.ScorePlugin] = BalancedAllocation
