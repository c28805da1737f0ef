"""One attempt of the trace in one line: which reason kept the pod off which nodes.

kube-scheduler's ``FailedScheduling`` message *counts* reasons —
``0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu},
3 Insufficient cpu.`` — and says nothing of which nodes they came from, nor
which of them preemption could do something about. The trace knows both: per
evaluated node, the Filter plugin that rejected it, its reasons and its status
code. :func:`diagnose` turns one attempt of the trace (a dict of the v1 JSON,
as :meth:`Attempt.to_dict <framework.simulator.result.Attempt.to_dict>` or
``json.load`` gives it) back into one line that names the nodes behind each
reason:

>>> diagnose({"result": "Unschedulable", "node": None, "message": "...",
...     "filter": {"a": {"NodeResourcesFit": {"code": "Unschedulable",
...                                           "reasons": ["Insufficient cpu"]}},
...                "gpu": {"TaintToleration": {"code": "UnschedulableAndUnresolvable",
...                        "reasons": ["node(s) had untolerated taint {dedicated: gpu}"]}}},
...     "nominatedNode": None, "victims": []})
'Unschedulable: Insufficient cpu on a; node(s) had untolerated taint {dedicated: gpu} on gpu (unresolvable).'

The rules, in order:

1. A ``Scheduled`` attempt is ``Scheduled to <node>.``
2. Each evaluated node's rejection is the first verdict of its row whose code
   is neither ``Success`` nor ``Skip`` (a row ends at its first failure, as a
   node's evaluation does); its text is the verdict's reasons joined by
   ``", "`` (the status code when there are none). Nodes without a rejection
   passed every Filter plugin and are not named.
3. Nodes with the same rejection (text and code) are grouped, the groups in
   the order their first node was evaluated: ``<text> on <nodes>``, naming at
   most :data:`MAX_NODES_NAMED` nodes and then ``and <k> more``; a group whose
   code is ``UnschedulableAndUnresolvable`` ends with ``(unresolvable)``: no
   eviction can make that node fit.
4. A nomination adds ``nominated to <node>, preempting <victims>`` (or just
   ``nominated to <node>`` when the trace names no victim).
5. The line is ``<result>: `` and the parts joined by ``"; "``, ending with a
   full stop. An attempt that rejected no node (a Permit rejection, a failed
   binding, an error) is ``<result>: <message>`` instead.

No Kubernetes counterpart: it reverses the histogram ``FitError.Error``
builds (``pkg/scheduler/framework/types.go``, v1.33), from the evidence the
simulator keeps. It is chapter 11's exercise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_NODES_NAMED", "UNRESOLVABLE", "diagnose"]

MAX_NODES_NAMED = 3
"""How many nodes a group names before it says ``and <k> more``."""

UNRESOLVABLE = "UnschedulableAndUnresolvable"
_PASSED = ("Success", "Skip")


def diagnose(attempt: Mapping[str, Any]) -> str:
    """One attempt of the v1 trace (a dict) as one line: each reason and the nodes behind it."""
    result = attempt["result"]
    if result == "Scheduled":
        return f"Scheduled to {attempt['node']}."
    groups: dict[tuple[str, str], list[str]] = {}
    for node, row in attempt["filter"].items():
        for verdict in row.values():
            if verdict["code"] in _PASSED:
                continue
            text = ", ".join(verdict["reasons"]) or verdict["code"]
            groups.setdefault((text, verdict["code"]), []).append(node)
            break
    if not groups:
        return f"{result}: {attempt['message']}"
    parts = []
    for (text, code), nodes in groups.items():
        named = ", ".join(nodes[:MAX_NODES_NAMED])
        if len(nodes) > MAX_NODES_NAMED:
            named += f" and {len(nodes) - MAX_NODES_NAMED} more"
        parts.append(f"{text} on {named}" + (" (unresolvable)" if code == UNRESOLVABLE else ""))
    if attempt.get("nominatedNode"):
        nominated = f"nominated to {attempt['nominatedNode']}"
        if attempt.get("victims"):
            nominated += f", preempting {', '.join(attempt['victims'])}"
        parts.append(nominated)
    return f"{result}: {'; '.join(parts)}."
