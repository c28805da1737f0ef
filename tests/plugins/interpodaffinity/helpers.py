"""Builders for the InterPodAffinity tests: pods with (anti-)affinity terms, labelled nodes, a framework.

The Kubernetes tests build the same objects with ``st.MakePod()`` and
``st.MakeNode()``; these are their short Python equivalents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from framework.apiserver import APIServer
from framework.cache import new_snapshot
from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.interface import NodeScore
from framework.objects import Namespace, Node, ObjectMeta, Pod
from framework.plugins.interpodaffinity import InterPodAffinity, InterPodAffinityArgs
from framework.runtime.framework import Framework
from framework.status import Status


def term(
    labels: Mapping[str, str] | None = None,
    topology_key: str = "region",
    *,
    expressions: Sequence[Mapping[str, Any]] = (),
    namespaces: Sequence[str] = (),
    namespace_selector: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``podAffinityTerm``: pods with these labels (or matching these expressions), per ``topology_key``."""
    selector: dict[str, Any] = {}
    if labels:
        selector["matchLabels"] = dict(labels)
    if expressions:
        selector["matchExpressions"] = [dict(e) for e in expressions]
    result: dict[str, Any] = {"labelSelector": selector, "topologyKey": topology_key}
    if namespaces:
        result["namespaces"] = list(namespaces)
    if namespace_selector is not None:
        result["namespaceSelector"] = dict(namespace_selector)
    return result


def weighted(weight: int, t: dict[str, Any]) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": t}


def pod(
    name: str = "p",
    *,
    namespace: str = "default",
    labels: Mapping[str, str] | None = None,
    node: str = "",
    affinity: Sequence[dict[str, Any]] = (),
    anti_affinity: Sequence[dict[str, Any]] = (),
    preferred_affinity: Sequence[dict[str, Any]] = (),
    preferred_anti_affinity: Sequence[dict[str, Any]] = (),
) -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "pause"}]}
    if node:
        spec["nodeName"] = node
    aff: dict[str, Any] = {}
    if affinity or preferred_affinity:
        aff["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(affinity),
            "preferredDuringSchedulingIgnoredDuringExecution": list(preferred_affinity),
        }
    if anti_affinity or preferred_anti_affinity:
        aff["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(anti_affinity),
            "preferredDuringSchedulingIgnoredDuringExecution": list(preferred_anti_affinity),
        }
    if aff:
        spec["affinity"] = aff
    return Pod.from_dict(
        {
            "metadata": {"name": name, "namespace": namespace, "labels": dict(labels or {})},
            "spec": spec,
        }
    )


def node(name: str, **labels: str) -> Node:
    return Node.from_dict({"metadata": {"name": name, "labels": labels}})


def framework(
    pods: Sequence[Pod],
    nodes: Sequence[Node],
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
) -> Framework:
    """A framework handle whose snapshot holds ``pods`` on ``nodes``, and a client that knows ``namespaces``."""
    api = APIServer(FakeClock())
    for name, labels in (namespaces or {}).items():
        if name in ("default", "kube-system", "kube-public"):
            stored = api.get(Namespace, name)
            api.update(stored.with_metadata(labels={**stored.metadata.labels, **labels}))
        else:
            api.create(Namespace(metadata=ObjectMeta(name=name, labels=dict(labels))))
    fwk = Framework("default-scheduler", client=api)
    fwk.snapshot = new_snapshot(pods, nodes)
    return fwk


def filter_all(
    incoming: Pod,
    pods: Sequence[Pod],
    nodes: Sequence[Node],
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
) -> tuple[Status | None, dict[str, Status | None]]:
    """PreFilter, then Filter on every node: (PreFilter's status, node name → Filter's status)."""
    fwk = framework(pods, nodes, namespaces)
    plugin = InterPodAffinity(fwk)
    state = CycleState()
    _, pre = plugin.pre_filter(state, incoming, list(fwk.snapshot.list()))
    results: dict[str, Status | None] = {}
    if pre is None:
        for info in fwk.snapshot.list():
            results[info.name] = plugin.filter(state, incoming, info)
    return pre, results


def score_all(
    incoming: Pod,
    pods: Sequence[Pod],
    nodes: Sequence[Node],
    args: InterPodAffinityArgs | None = None,
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
) -> tuple[Status | None, list[tuple[str, int]]]:
    """PreScore, Score and NormalizeScore on every node: (PreScore's status, normalized scores)."""
    fwk = framework(pods, nodes, namespaces)
    plugin = InterPodAffinity(fwk, args)
    state = CycleState()
    infos = list(fwk.snapshot.list())
    pre = plugin.pre_score(state, incoming, infos)
    if pre is not None:
        return pre, []
    scores = []
    for info in infos:
        value, status = plugin.score(state, incoming, info)
        assert status is None
        scores.append(NodeScore(info.name, value))
    assert plugin.normalize_score(state, incoming, scores) is None
    return None, [(s.name, s.score) for s in scores]


__all__ = ["filter_all", "framework", "node", "pod", "score_all", "term", "weighted"]
