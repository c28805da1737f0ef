"""Chapter 3 done right: a toleration's match, and NodeUnschedulable's Filter. Must pass.

:func:`make` builds both on a fresh copy of the skeleton (whose given
``tolerations_tolerate_taint`` and queueing hint then call this toleration
check); each wrong variant turns on one mistake.
"""

from __future__ import annotations

from typing import Any

from tests.exercise_variants import skeleton_namespace


def make(
    *,
    operator_any_case: bool = False,
    empty_operator_matches_nothing: bool = False,
    cordon_is_resolvable: bool = False,
) -> dict[str, Any]:
    names = skeleton_namespace("03_plugins")
    skeleton_globals = names["tolerations_tolerate_taint"].__globals__
    Status = names["Status"]

    def toleration_tolerates_taint(toleration: Any, taint: Any) -> bool:
        if toleration.effect and toleration.effect != taint.effect:
            return False
        if toleration.key and toleration.key != taint.key:
            return False
        operator = toleration.operator.capitalize() if operator_any_case else toleration.operator
        if operator == "Exists":
            return True
        if operator == "Equal" or (operator == "" and not empty_operator_matches_nothing):
            return bool(toleration.value == taint.value)
        return False

    class NodeUnschedulable(names["NodeUnschedulable"]):  # type: ignore[misc]
        def filter(self, state: Any, pod: Any, node_info: Any) -> Any:
            node = node_info.node
            if node is None:
                return Status.as_error(ValueError("node not found"))
            if not node.spec.unschedulable:
                return None
            if names["tolerations_tolerate_taint"](
                pod.spec.tolerations, names["UNSCHEDULABLE_TAINT"]
            ):
                return None
            if cordon_is_resolvable:
                return Status.unschedulable(names["ERR_REASON_UNSCHEDULABLE"])
            return Status.unresolvable(names["ERR_REASON_UNSCHEDULABLE"])

    skeleton_globals["toleration_tolerates_taint"] = toleration_tolerates_taint
    skeleton_globals["NodeUnschedulable"] = NodeUnschedulable
    return {
        **names,
        "toleration_tolerates_taint": toleration_tolerates_taint,
        "NodeUnschedulable": NodeUnschedulable,
        "new": lambda args, handle: NodeUnschedulable(),
    }


globals().update(make())
