"""Chapter 10b exercise: the quorum check at the heart of GangScheduling's Permit.

You write :func:`gang_permit`: given a gang's state (its pods, the UIDs of
the members assumed at Reserve) and its ``minCount``, say whether the
quorum is scheduled and, when it is not, which members to bring back to
activeQ. The plugin around it (``framework/plugins/gangscheduling.py``)
turns your answer into ``Wait`` (with the gang's timeout) or lets every
waiting member go.

Then check it::

    python -m pytest chapters/10b_gangs_in_tree --exercise

Stuck? ``python -m framework hint 10b`` shows the hints one at a time.
"""

from __future__ import annotations

from typing import Any

from framework.objects import Pod

__all__ = ["gang_permit"]


def gang_permit(group: Any, min_count: int) -> tuple[bool, list[Pod]]:
    """Is the gang's quorum scheduled? If not, which members to bring back to activeQ.

    ``group`` is the plugin's ``GroupState`` (its fields are all you need):

    * ``group.all_pods`` maps each existing member's UID to the pod; a pod
      with ``spec.node_name`` set is bound.
    * ``group.assumed`` holds the UIDs of the members assumed at Reserve (it
      may name a pod that no longer exists: it does not count).
    * The quorum is met when the members assumed or bound, each counted
      once, are at least ``min_count``: return ``(True, [])``.
    * Otherwise return ``(False, members)``: the members neither assumed nor
      bound, sorted by name.
    """
    # TODO: count the scheduled members (assumed or bound, existing, each once).
    # TODO: compare with min_count; when short, list the unscheduled members by name.
    raise NotImplementedError("gang_permit: count the assumed or bound members")
