"""Helpers the default plugins share: score normalising and taint matching.

Several Score plugins produce raw numbers with no natural upper bound: a
count of taints, a sum of affinity weights. Before the framework weights and
adds the plugins' scores, each must lie in ``[0, 100]``, so those plugins
rescale their raw scores in NormalizeScore with :func:`default_normalize_score`:
the highest raw score becomes 100 and the rest scale in proportion, with
*integer* arithmetic, as Go computes it. ``reverse=True`` turns "more is
worse" into "more is better": TaintToleration counts taints the pod does
*not* tolerate, and the node with the fewest must get the most points.

>>> from framework.interface import NodeScore
>>> scores = [NodeScore("a", 2), NodeScore("b", 1), NodeScore("c", 0)]
>>> default_normalize_score(100, True, scores)
>>> [(s.name, s.score) for s in scores]
[('a', 0), ('b', 50), ('c', 100)]

The taint side: :func:`find_matching_untolerated_taint` walks a node's
taints in order and returns the first one, among those the filter selects,
that none of the pod's tolerations matches; with
:func:`do_not_schedule_taints_filter_func` that is the taint TaintToleration
names when it rejects a node. Whether one toleration matches one taint is
:func:`~framework.plugins.nodeunschedulable.toleration_tolerates_taint`,
which NodeUnschedulable needed first; it is reused here, not copied.

Mirrors ``DefaultNormalizeScore`` in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/helper/normalize_score.go``,
``DoNotScheduleTaintsFilterFunc`` in ``.../plugins/helper/taint.go`` and
``FindMatchingUntoleratedTaint`` in
``staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go``
(v1.33). Simplified: the Go finder returns ``(taint, found)``; here the
taint or ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from framework.interface import NodeScore
from framework.objects import Taint, Toleration
from framework.plugins.nodeunschedulable import tolerations_tolerate_taint
from framework.status import Status

__all__ = [
    "TaintFilter",
    "default_normalize_score",
    "do_not_schedule_taints_filter_func",
    "find_matching_untolerated_taint",
    "go_div",
]

TaintFilter = Callable[[Taint], bool]
"""Selects the taints a check cares about (``taintsFilterFunc``)."""


def go_div(numerator: int, denominator: int) -> int:
    """Integer division truncated toward zero, as Go's ``/`` on integers (Python's ``//`` floors).

    >>> go_div(-7, 2), -7 // 2
    (-3, -4)
    """
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator < 0) == (denominator < 0) else -quotient


def default_normalize_score(
    max_priority: int, reverse: bool, scores: list[NodeScore]
) -> Status | None:
    """Rescale ``scores`` in place so the highest becomes ``max_priority``; always succeeds.

    Each score becomes ``max_priority * score / highest`` (integer division),
    then, if ``reverse``, ``max_priority`` minus that. When the highest score
    is 0 (or below: the search for it starts at 0), every score is left
    alone, or with ``reverse`` set to ``max_priority``: nobody was worse
    than anybody, so everybody gets full marks.
    """
    highest = 0
    for node_score in scores:
        # A comparison, as Go writes it: max() would be one more call per node.
        if node_score.score > highest:
            highest = node_score.score
    if highest == 0:
        if reverse:
            for node_score in scores:
                node_score.score = max_priority
        return None
    for node_score in scores:
        scaled = max_priority * node_score.score
        # Go's "/" truncates toward zero, which for a score of 0 or more (the usual
        # case, checked without a call) is Python's "//".
        score = scaled // highest if scaled >= 0 else go_div(scaled, highest)
        node_score.score = max_priority - score if reverse else score
    return None


def do_not_schedule_taints_filter_func() -> TaintFilter:
    """The filter of the taints that keep pods off a node: effect ``NoSchedule`` or ``NoExecute``.

    ``PreferNoSchedule`` taints are left to scoring.
    """

    def do_not_schedule(taint: Taint) -> bool:
        return taint.effect in ("NoSchedule", "NoExecute")

    return do_not_schedule


def find_matching_untolerated_taint(
    taints: Iterable[Taint],
    tolerations: Iterable[Toleration],
    inclusion_filter: TaintFilter | None = None,
    comparison_operators: bool = False,
) -> Taint | None:
    """The first taint, among those ``inclusion_filter`` keeps, that no toleration matches; else None.

    >>> gpu = Taint(key="dedicated", value="gpu", effect="NoSchedule")
    >>> soft = Taint(key="spot", effect="PreferNoSchedule")
    >>> find_matching_untolerated_taint([soft, gpu], [], do_not_schedule_taints_filter_func())
    Taint(key='dedicated', value='gpu', effect='NoSchedule', time_added=None)
    >>> find_matching_untolerated_taint([gpu], [Toleration(key="dedicated", operator="Exists")]) is None
    True
    """
    tolerations = tuple(tolerations)
    for taint in taints:
        if inclusion_filter is not None and not inclusion_filter(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint, comparison_operators):
            return taint
    return None
