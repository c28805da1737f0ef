"""Chapter 11 exercise: one attempt of the trace, in one line.

``FailedScheduling`` counts reasons; the trace says which node each came
from. Write :func:`diagnose`, which turns one attempt of the v1 trace (a dict,
as in the JSON) into one line naming the nodes behind each reason, then check
it::

    python -m pytest chapters/11_pending --exercise

The rules are in the chapter's "Exercise" section. The tests are the same
ones that run against the reference code in
``framework/simulator/diagnose.py``. Stuck? ``python -m framework hint 11``
shows the hints one at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_NODES_NAMED", "UNRESOLVABLE", "diagnose"]

MAX_NODES_NAMED = 3
"""How many nodes a group names before it says ``and <k> more``. (Given.)"""

UNRESOLVABLE = "UnschedulableAndUnresolvable"
"""The code of a rejection that no preemption can resolve. (Given.)"""


def diagnose(attempt: Mapping[str, Any]) -> str:
    """One attempt of the v1 trace (a dict) as one line: each reason and the nodes behind it.

    You have: ``attempt["result"]``, ``attempt["node"]``, ``attempt["message"]``,
    ``attempt["filter"]`` (node -> plugin -> ``{"code": ..., "reasons": [...]}``,
    nodes and plugins in the order they ran), ``attempt["nominatedNode"]`` and
    ``attempt["victims"]``.
    """
    # TODO 1: a Scheduled attempt is "Scheduled to <node>."
    # TODO 2: for each node, its rejection: the first verdict whose code is neither
    #         "Success" nor "Skip"; its text is the reasons joined by ", " (the code
    #         if there are none). Group the nodes by (text, code), in the order the
    #         groups' first nodes were evaluated.
    # TODO 3: no group at all: "<result>: <message>".
    # TODO 4: each group is "<text> on <nodes>" (at most MAX_NODES_NAMED names, then
    #         " and <k> more"), plus " (unresolvable)" for UNRESOLVABLE; a nomination
    #         adds "nominated to <node>" and ", preempting <victims>" if there are any.
    #         The line: "<result>: " + the parts joined by "; " + ".".
    raise NotImplementedError(
        "chapter 11 exercise: write diagnose in chapters/11_pending/exercise.py "
        "(hints: python -m framework hint 11)"
    )
