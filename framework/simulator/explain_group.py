"""``explain podgroup/NAMESPACE/NAME``: a gang's state after a run, and the timeline of its attempts.

For an in-tree gang (a v1.36+ PodGroup, or a v1.35 Workload group named
``workload/NAMESPACE/WORKLOAD/GROUP``) it says how many members are bound,
how many were still assumed and waiting at Permit when the run ended, what
the gang lacks (``3 of 8 pods assumed; minCount 8``), each member's last
word, and every attempt of every member in the order they happened.

A reading of the simulator's trace and the input manifests; nothing here
mirrors Go. The members are the pods whose ``spec.schedulingGroup`` or
``spec.workloadRef`` names the group.
"""

from __future__ import annotations

from collections.abc import Iterable

from framework.objects import KubeObject, Pod
from framework.objects.workload import SchedulingPodGroup, Workload, pod_group_key
from framework.simulator.explain import ExplainError
from framework.simulator.result import SimulationResult

__all__ = ["MSG_ENDED", "explain_group", "is_group_ref"]

MSG_ENDED = "the simulation ended"
"""How the simulator words the rejection of a pod still waiting at Permit when the run stops."""


def is_group_ref(name: str) -> bool:
    """Whether ``explain`` was given a group (``podgroup/...`` or ``workload/...``), not a pod."""
    return name.startswith(("podgroup/", "workload/"))


def _group(objects: Iterable[KubeObject], ref: str) -> tuple[tuple[str, ...], int | None, str]:
    """The group's key (as :func:`pod_group_key` makes it), its ``minCount``, and its name."""
    kind, _, rest = ref.partition("/")
    parts = rest.split("/")
    if kind == "podgroup" and len(parts) == 2:
        namespace, name = parts
        for obj in objects:
            if isinstance(obj, SchedulingPodGroup) and (obj.namespace or "default", obj.name) == (
                namespace,
                name,
            ):
                gang = obj.spec.scheduling_policy.gang
                return ("podgroup", namespace, name), gang.min_count if gang else 1, ref
        return ("podgroup", namespace, name), None, ref
    if kind == "workload" and len(parts) in (3, 4):
        namespace, workload, group = parts[:3]
        replica = parts[3] if len(parts) == 4 else ""
        for obj in objects:
            if isinstance(obj, Workload) and (obj.namespace or "default", obj.name) == (
                namespace,
                workload,
            ):
                policy = obj.policy_for(group)
                gang = policy.gang if policy else None
                min_count = gang.min_count if gang else (1 if policy else None)
                return ("workload", namespace, workload, group, replica), min_count, ref
        return ("workload", namespace, workload, group, replica), None, ref
    raise ExplainError(
        f"{ref!r}: name a group as podgroup/NAMESPACE/NAME (v1.36+) or "
        "workload/NAMESPACE/WORKLOAD/GROUP[/REPLICA] (v1.35)"
    )


def explain_group(result: SimulationResult, objects: Iterable[KubeObject], ref: str) -> str:
    """The explanation of one gang after ``result``, whose inputs were ``objects``."""
    objects = list(objects)
    key, min_count, name = _group(objects, ref)
    members = sorted(
        (p for p in objects if isinstance(p, Pod) and _key(p) == key),
        key=lambda p: p.name,
    )
    if not members:
        raise ExplainError(f"{name}: no pod of the input names this group")
    keys = [f"{p.namespace or 'default'}/{p.name}" for p in members]
    bound = [k for k in keys if result.placements.get(k)]
    waiting = []
    for k in keys:
        attempts = result.attempts_of(k)
        if (
            attempts
            and attempts[-1].result == "PermitRejected"
            and MSG_ENDED in attempts[-1].message
        ):
            waiting.append(k)
    quorum = (
        "unknown (the group's object is not in the input)" if min_count is None else str(min_count)
    )
    lines = [
        f"{name}: {len(bound)} of {len(keys)} pods bound; "
        f"{len(waiting)} of {len(keys)} pods assumed (waiting at Permit when the run ended); "
        f"minCount {quorum}.",
    ]
    if min_count is not None:
        if len(bound) >= min_count:
            lines.append("The gang runs: its quorum is bound.")
        elif len(keys) < min_count:
            lines.append(
                f"The gang lacks pods: {len(keys)} exist, {min_count} are needed before any is "
                "queued (PreEnqueue)."
            )
        else:
            lines.append(
                f"The gang lacks room: {min_count - len(bound) - len(waiting)} more member(s) "
                "would need a node at the same time."
            )
    lines += ["", "Members (last attempt):"]
    for k in keys:
        attempts = result.attempts_of(k)
        if not attempts:
            lines.append(f"  {k}: never attempted (held at PreEnqueue, or gated)")
            continue
        last = attempts[-1]
        where = f" on {last.node}" if last.node else ""
        lines.append(f"  {k}: {last.result}{where} ({len(attempts)} attempts): {last.message}")
    lines += ["", "Timeline (every attempt of the group's pods, in order):"]
    for attempt in result.attempts:
        if attempt.pod in keys:
            where = f" {attempt.node}" if attempt.node else ""
            lines.append(
                f"  {attempt.pod} #{attempt.attempt}: {attempt.result}{where}: {attempt.message}"
            )
    return "\n".join(lines) + "\n"


def _key(pod: Pod) -> tuple[str, ...] | None:
    key = pod_group_key(pod)
    if key is not None and pod.namespace == "" and key[1] == "":
        return (key[0], "default", *key[2:])
    return key
