"""The rule both the example extender and the example plugin apply, on a node's labels alone.

Two parts, the usual pair of a scheduling rule:

* **never** a node that is being drained: one labelled
  ``example.com/draining: "true"`` is rejected with :data:`REASON_DRAINING`;
* **rather** a node with fast local disks: one labelled ``disktype: ssd``
  is preferred over the others.

Labels only, so that an extender can apply it from the Node objects the
scheduler sends, without watching the cluster itself.

Not a Kubernetes rule: an example for the chapter "Before the framework".
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["DISK_LABEL", "DRAINING_LABEL", "REASON_DRAINING", "prefers", "rejects"]

DRAINING_LABEL = "example.com/draining"
DISK_LABEL = "disktype"
REASON_DRAINING = "node(s) were being drained"


def rejects(labels: Mapping[str, str]) -> str | None:
    """Why a node with these labels cannot take the pod, or None if it can."""
    return REASON_DRAINING if labels.get(DRAINING_LABEL) == "true" else None


def prefers(labels: Mapping[str, str]) -> bool:
    """Whether a node with these labels is the better place."""
    return labels.get(DISK_LABEL) == "ssd"
