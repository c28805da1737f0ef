"""The example rule as a plugin: the same Filter and Score, inside the scheduler.

Load it as any out-of-tree plugin and enable it in a profile::

    python -m framework simulate cluster.yaml --config sched.yaml \\
        --plugin NodeLabelRule=examples.extender.plugin:new

    profiles:
    - schedulerName: default-scheduler
      plugins:
        multiPoint:
          enabled:
          - name: NodeLabelRule

Compared with :mod:`examples.extender.server`, nothing is encoded, sent or
decoded: Filter sees one NodeInfo at a time, in the same loop as the other
Filter plugins, and Score gives 0 or 100 (a plugin's range), which with
weight 1 adds what the extender's 0 or 10 adds once scaled by 10.

Not a Kubernetes plugin: an example for the chapter "Before the framework".
"""

from __future__ import annotations

from typing import Any

from examples.extender.rule import prefers, rejects
from framework.cycle_state import CycleState
from framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.status import Status

__all__ = ["NAME", "NodeLabelRule", "new"]

NAME = "NodeLabelRule"


# [start-plugin]
class NodeLabelRule:
    """Filter out draining nodes; score nodes with SSDs highest."""

    def name(self) -> str:
        return NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        reason = rejects(node_info.node.metadata.labels) if node_info.node else None
        return None if reason is None else Status.unresolvable(reason)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, None]:
        preferred = node_info.node is not None and prefers(node_info.node.metadata.labels)
        return (MAX_NODE_SCORE if preferred else MIN_NODE_SCORE), None

    def score_extensions(self) -> None:
        return None


def new(args: Any, handle: Any) -> NodeLabelRule:
    """The factory ``--plugin NodeLabelRule=examples.extender.plugin:new`` names."""
    return NodeLabelRule()


# [end-plugin]
