"""Chapter 11 done right: one attempt in one line. Must pass.

:func:`make` builds ``diagnose``; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tests.exercise_variants import skeleton_namespace

_given = skeleton_namespace("11_pending")
MAX_NODES_NAMED: int = _given["MAX_NODES_NAMED"]
UNRESOLVABLE: str = _given["UNRESOLVABLE"]


def make(
    *,
    skip_is_a_rejection: bool = False,
    group_by_text_only: bool = False,
    name_every_node: bool = False,
) -> Callable[[Mapping[str, Any]], str]:
    passing = ("Success",) if skip_is_a_rejection else ("Success", "Skip")

    def rejection(row: Mapping[str, Any]) -> tuple[str, str] | None:
        for verdict in row.values():
            if verdict["code"] not in passing:
                return ", ".join(verdict["reasons"]) or verdict["code"], verdict["code"]
        return None

    def named(nodes: list[str]) -> str:
        if name_every_node or len(nodes) <= MAX_NODES_NAMED:
            return ", ".join(nodes)
        return f"{', '.join(nodes[:MAX_NODES_NAMED])} and {len(nodes) - MAX_NODES_NAMED} more"

    def diagnose(attempt: Mapping[str, Any]) -> str:
        if attempt["result"] == "Scheduled":
            return f"Scheduled to {attempt['node']}."
        groups: dict[Any, tuple[str, str, list[str]]] = {}
        for node, row in attempt["filter"].items():
            found = rejection(row)
            if found is None:
                continue
            key = found[0] if group_by_text_only else found
            groups.setdefault(key, (found[0], found[1], []))[2].append(node)
        if not groups:
            return f"{attempt['result']}: {attempt['message']}"
        parts = [
            f"{text} on {named(nodes)}" + (" (unresolvable)" if code == UNRESOLVABLE else "")
            for text, code, nodes in groups.values()
        ]
        if attempt.get("nominatedNode"):
            part = f"nominated to {attempt['nominatedNode']}"
            if attempt.get("victims"):
                part += ", preempting " + ", ".join(attempt["victims"])
            parts.append(part)
        return f"{attempt['result']}: " + "; ".join(parts) + "."

    return diagnose


diagnose = make()
