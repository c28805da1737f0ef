"""Chapter 0b done right: the extender's rule as an in-process plugin. Must pass.

:func:`make` builds the module's names; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from typing import Any

from examples.extender.rule import prefers, rejects
from framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE
from framework.status import Status
from tests.exercise_variants import skeleton_namespace


def make(*, reject_as_unschedulable: bool = False, own_scale: bool = False) -> dict[str, Any]:
    given = skeleton_namespace("00b_before_the_framework")
    skeleton: Any = given["NodeLabelRule"]

    class NodeLabelRule(skeleton):  # type: ignore[misc,valid-type]
        def filter(self, state: Any, pod: Any, node_info: Any) -> Any:
            reason = rejects(node_info.node.metadata.labels) if node_info.node else None
            if reason is None:
                return None
            if reject_as_unschedulable:
                return Status.unschedulable(reason)
            return Status.unresolvable(reason)

        def score(self, state: Any, pod: Any, node_info: Any) -> tuple[int, None]:
            preferred = node_info.node is not None and prefers(node_info.node.metadata.labels)
            if own_scale:
                return (1 if preferred else 0), None
            return (MAX_NODE_SCORE if preferred else MIN_NODE_SCORE), None

    def new(args: Any, handle: Any) -> Any:
        return NodeLabelRule()

    return {**given, "NodeLabelRule": NodeLabelRule, "new": new}


globals().update(make())
