"""Pod affinity terms, compiled: which pods a term selects, in which namespaces, across which topology.

A ``podAffinityTerm`` of a manifest says "pods whose labels match this
``labelSelector``, in these ``namespaces`` (or in the namespaces whose
labels match this ``namespaceSelector``), counted per value of this node
label (``topologyKey``)". Before the plugin can count anything it compiles
each term into an :class:`AffinityTerm`: the label selector becomes a
:class:`~framework.objects.labels.Selector`, and the namespaces become a set,
with the pod's own namespace standing in when the term names none.

Which namespaces a term covers (``getNamespacesFromPodAffinityTerm``):

* neither ``namespaces`` nor ``namespaceSelector``: the pod's own namespace;
* ``namespaces`` only: those;
* a ``namespaceSelector``: the namespaces listed *plus* those whose labels
  it matches; an empty selector (``{}``) matches every namespace.

``matchLabelKeys`` and ``mismatchLabelKeys`` are not read here: in v1.33 the
API server merges them into ``labelSelector`` when the pod is created (see
:mod:`framework.apiserver.strategy`), so the scheduler only ever sees the
merged selector.

>>> from framework.objects import Pod
>>> pod = Pod.from_dict({"metadata": {"name": "web", "namespace": "shop"}})
>>> term = new_affinity_term(pod, PodAffinityTerm.from_dict(
...     {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}))
>>> sorted(term.namespaces), str(term.selector), term.topology_key
(['shop'], 'app=db', 'zone')
>>> db = Pod.from_dict({"metadata": {"name": "db", "namespace": "shop", "labels": {"app": "db"}}})
>>> term.matches(db, None)
True

Mirrors ``AffinityTerm``, ``WeightedAffinityTerm``, ``GetAffinityTerms``,
``getWeightedAffinityTerms``, ``newAffinityTerm`` and the term fields of
``PodInfo`` in ``kubernetes/kubernetes:pkg/scheduler/framework/types.go``
(v1.33). Simplified: Go compiles the terms when it builds each ``PodInfo`` of
the cache; here :func:`pod_info_terms` compiles an existing pod's terms the
first time the plugin needs them and keeps them on its ``PodInfo``, so each
pod's selectors are still compiled once, not once per scheduling cycle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from framework.objects import Pod
from framework.objects.labels import Selector, SelectorError, label_selector_as_selector
from framework.objects.pod import PodAffinityTerm, WeightedPodAffinityTerm
from framework.types import PodInfo

__all__ = [
    "AffinityTerm",
    "ParsedPodTerms",
    "PodAffinityTerm",
    "WeightedAffinityTerm",
    "get_affinity_terms",
    "get_pod_affinity_terms",
    "get_pod_anti_affinity_terms",
    "get_weighted_affinity_terms",
    "new_affinity_term",
    "parse_pod_terms",
    "pod_info_terms",
]


@dataclass(slots=True)
class AffinityTerm:
    """A compiled ``podAffinityTerm``: the namespaces and labels of the pods it selects, and its topology.

    Mutable on purpose, as in Go: for the *incoming* pod the plugin unrolls a
    non-empty ``namespace_selector`` into ``namespaces`` and then sets it to
    "nothing" (:meth:`InterPodAffinity.merge_affinity_term_namespaces_if_not_empty
    <framework.plugins.interpodaffinity.plugin.InterPodAffinity.merge_affinity_term_namespaces_if_not_empty>`).
    """

    namespaces: set[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """Whether ``pod`` (whose namespace has labels ``ns_labels``) is one of the pods this term selects."""
        metadata = pod.metadata
        if metadata.namespace in self.namespaces or self.namespace_selector.matches(
            ns_labels or {}
        ):
            return self.selector.matches(metadata.labels)
        return False


@dataclass(slots=True)
class WeightedAffinityTerm:
    """A compiled preferred term: the term and the weight it adds (or, for anti-affinity, takes away)."""

    term: AffinityTerm
    weight: int


def _namespaces_of(pod: Pod, term: PodAffinityTerm) -> set[str]:
    if not term.namespaces and term.namespace_selector is None:
        return {pod.namespace}
    return set(term.namespaces)


def new_affinity_term(pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """Compile one term of ``pod``; raise :class:`~framework.objects.labels.SelectorError` on a bad selector."""
    selector = label_selector_as_selector(term.label_selector)
    namespaces = _namespaces_of(pod, term)
    namespace_selector = label_selector_as_selector(term.namespace_selector)
    return AffinityTerm(namespaces, selector, term.topology_key, namespace_selector)


def get_affinity_terms(pod: Pod, terms: Sequence[PodAffinityTerm]) -> list[AffinityTerm]:
    """Compile required terms; the first bad selector raises :class:`SelectorError`."""
    return [new_affinity_term(pod, term) for term in terms]


def get_weighted_affinity_terms(
    pod: Pod, terms: Sequence[WeightedPodAffinityTerm]
) -> list[WeightedAffinityTerm]:
    """Compile preferred terms with their weights; the first bad selector raises :class:`SelectorError`."""
    return [
        WeightedAffinityTerm(new_affinity_term(pod, t.pod_affinity_term), t.weight) for t in terms
    ]


def get_pod_affinity_terms(pod: Pod) -> tuple[PodAffinityTerm, ...]:
    """The pod's required affinity terms, as written (``GetPodAffinityTerms``)."""
    affinity = pod.spec.affinity
    if affinity is None or affinity.pod_affinity is None:
        return ()
    return affinity.pod_affinity.required_during_scheduling_ignored_during_execution


def get_pod_anti_affinity_terms(pod: Pod) -> tuple[PodAffinityTerm, ...]:
    """The pod's required anti-affinity terms, as written (``GetPodAntiAffinityTerms``)."""
    affinity = pod.spec.affinity
    if affinity is None or affinity.pod_anti_affinity is None:
        return ()
    return affinity.pod_anti_affinity.required_during_scheduling_ignored_during_execution


@dataclass(slots=True)
class ParsedPodTerms:
    """A pod with its four lists of compiled terms (the term fields of Go's ``PodInfo``)."""

    pod: Pod
    required_affinity_terms: list[AffinityTerm] = field(default_factory=list)
    required_anti_affinity_terms: list[AffinityTerm] = field(default_factory=list)
    preferred_affinity_terms: list[WeightedAffinityTerm] = field(default_factory=list)
    preferred_anti_affinity_terms: list[WeightedAffinityTerm] = field(default_factory=list)


def parse_pod_terms(pod: Pod) -> tuple[ParsedPodTerms, list[str]]:
    """Compile all of a pod's inter-pod terms, and list what failed (``NewPodInfo``).

    A kind of term whose selector does not compile is left empty and its
    error listed, prefixed by the kind, as Go aggregates them. The scheduler
    refuses an incoming pod with errors; an existing pod just counts without
    the broken kind.
    """
    parsed = ParsedPodTerms(pod)
    errors: list[str] = []
    affinity = pod.spec.affinity
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    preferred_anti: tuple[WeightedPodAffinityTerm, ...] = ()
    if affinity is not None and affinity.pod_affinity is not None:
        preferred = affinity.pod_affinity.preferred_during_scheduling_ignored_during_execution
    if affinity is not None and affinity.pod_anti_affinity is not None:
        preferred_anti = (
            affinity.pod_anti_affinity.preferred_during_scheduling_ignored_during_execution
        )
    try:
        parsed.required_affinity_terms = get_affinity_terms(pod, get_pod_affinity_terms(pod))
    except SelectorError as error:
        errors.append(f"requiredAffinityTerms: {error}")
    try:
        parsed.required_anti_affinity_terms = get_affinity_terms(
            pod, get_pod_anti_affinity_terms(pod)
        )
    except SelectorError as error:
        errors.append(f"requiredAntiAffinityTerms: {error}")
    try:
        parsed.preferred_affinity_terms = get_weighted_affinity_terms(pod, preferred)
    except SelectorError as error:
        errors.append(f"preferredAffinityTerms: {error}")
    try:
        parsed.preferred_anti_affinity_terms = get_weighted_affinity_terms(pod, preferred_anti)
    except SelectorError as error:
        errors.append(f"preferredAntiAffinityTerms: {error}")
    return parsed, errors


# [start-pod-info-terms]
def pod_info_terms(pod_info: PodInfo) -> ParsedPodTerms:
    """An existing pod's compiled terms, compiled once and kept on its :class:`~framework.types.PodInfo`.

    The cache builds one PodInfo per pod and every snapshot shares it, so
    the selectors of a pod already running are compiled on the first cycle
    that looks at it and reused by all later ones. A kind of term that does
    not compile counts as absent, as in Go's cache. The ``is`` check
    catches a PodInfo whose pod was replaced without :meth:`~framework.types.PodInfo.update`.
    """
    parsed: ParsedPodTerms | None = pod_info.parsed_affinity_terms
    if parsed is None or parsed.pod is not pod_info.pod:
        parsed = parse_pod_terms(pod_info.pod)[0]
        pod_info.parsed_affinity_terms = parsed
    return parsed


# [end-pod-info-terms]
