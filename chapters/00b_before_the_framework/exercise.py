"""Chapter "Before the framework" exercise: the example extender, turned into a plugin.

``examples/extender/server.py`` applies one rule over HTTP: ``/filter``
drops the nodes being drained (labelled ``example.com/draining: "true"``),
``/prioritize`` gives 10 to nodes with SSDs (``disktype: ssd``) and 0 to
the others. Write the same rule as a Filter and Score plugin:

* :meth:`NodeLabelRule.filter`: ``None`` (success) for a node the rule
  accepts; for a draining node a Status that preemption cannot change, with
  the rule's reason (``examples.extender.rule.rejects`` gives it);
* :meth:`NodeLabelRule.score`: on the plugins' scale, 0 to 100
  (``framework.interface.MAX_NODE_SCORE``), what the extender's 0 to 10
  becomes once kube-scheduler has scaled it.

Then check it::

    python -m pytest chapters/00b_before_the_framework --exercise

The tests are the ones that run against ``examples/extender/plugin.py``.
"""

from __future__ import annotations

from typing import Any

from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.status import Status

NAME = "NodeLabelRule"


class NodeLabelRule:
    """Filter out draining nodes; score nodes with SSDs highest."""

    def name(self) -> str:
        return NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        # TODO: read the node's labels (node_info.node.metadata.labels) and ask the rule.
        raise NotImplementedError("NodeLabelRule.filter: reject a draining node")

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, None]:
        # TODO: MAX_NODE_SCORE for a preferred node, MIN_NODE_SCORE for the others.
        raise NotImplementedError("NodeLabelRule.score: prefer a node with SSDs")

    def score_extensions(self) -> None:
        return None


def new(args: Any, handle: Any) -> NodeLabelRule:
    return NodeLabelRule()
