"""Choosing the node to preempt on, among the candidates the dry run found.

Every candidate node would make room for the preemptor; they differ in what
it costs. :func:`pick_one_node_for_preemption` compares them on six
criteria, in order, and stops as soon as one criterion leaves a single
node:

1. the fewest PodDisruptionBudget violations;
2. the lowest priority of the most important victim (victims are listed
   most important first, so that is the first victim);
3. the smallest sum of victim priorities, each raised by ``2**31`` so that
   every term is positive (otherwise two victims of priority -100 would
   look cheaper than one of priority -100);
4. the fewest victims;
5. the latest start among the highest-priority victims (evict work that
   has run the shortest), in nanoseconds, as Go's ``UnixNano`` compares it;
6. the first of the nodes still tied.

Each criterion is a *score function* of a node name, higher being better;
a preemption plugin may supply its own list instead
(``OrderedScoreFuncs``).

>>> from framework.objects import Pod
>>> def victim(name, priority):
...     return Pod.from_dict({"metadata": {"name": name}, "spec": {"priority": priority},
...                           "status": {"startTime": "1970-01-01T00:00:00Z"}})
>>> pick_one_node_for_preemption({
...     "n1": Victims((victim("a", 100),)),
...     "n2": Victims((victim("b", 10), victim("c", 10))),
... }, now=0.0)
'n2'

Mirrors ``pickOneNodeForPreemption`` in
``kubernetes/kubernetes:pkg/scheduler/framework/preemption/preemption.go``
(v1.33). Difference: Go ranges over a map, so its "first node" (criterion
6) is in random order; here it is the first in the mapping's order, which
the evaluator makes the order the dry run found the candidates in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from framework.extender.types import Victims
from framework.objects import pod_priority
from framework.util import get_earliest_pod_start_time

__all__ = ["PRIORITY_SHIFT", "ScoreFunc", "default_score_funcs", "pick_one_node_for_preemption"]

ScoreFunc = Callable[[str], float]
"""A node name to a score; the higher, the better the node for preemption (an int compares exactly)."""

PRIORITY_SHIFT = 2**31
"""``math.MaxInt32 + 1``: added to each victim's priority before summing."""


def default_score_funcs(nodes_to_victims: Mapping[str, Victims], now: float) -> list[ScoreFunc]:
    """Criteria 1-5 of the module docstring, as score functions."""

    def fewest_pdb_violations(node: str) -> float:
        return -nodes_to_victims[node].num_pdb_violations

    def lowest_highest_priority(node: str) -> float:
        return -pod_priority(nodes_to_victims[node].pods[0])

    def smallest_priority_sum(node: str) -> float:
        return -sum(pod_priority(p) + PRIORITY_SHIFT for p in nodes_to_victims[node].pods)

    def fewest_victims(node: str) -> float:
        return -len(nodes_to_victims[node].pods)

    def latest_start_time(node: str) -> float:
        earliest = get_earliest_pod_start_time(nodes_to_victims[node].pods, now)
        # Kept an int: as a float, nanoseconds since the epoch lose their last digits.
        return float("-inf") if earliest is None else earliest

    return [
        fewest_pdb_violations,
        lowest_highest_priority,
        smallest_priority_sum,
        fewest_victims,
        latest_start_time,
    ]


def pick_one_node_for_preemption(
    nodes_to_victims: Mapping[str, Victims],
    now: float,
    score_funcs: Sequence[ScoreFunc] | None = None,
) -> str:
    """The node to preempt on; ``""`` when there is none.

    ``score_funcs`` replaces the default criteria when given and non-empty.
    ``now`` is the start time of victims that have none.
    """
    if not nodes_to_victims:
        return ""
    candidates = list(nodes_to_victims)
    funcs = score_funcs or default_score_funcs(nodes_to_victims, now)
    for score in funcs:
        best = max(score(node) for node in candidates)
        selected = [node for node in candidates if score(node) == best]
        if len(selected) == 1:
            return selected[0]
        candidates = selected
    return candidates[0]
