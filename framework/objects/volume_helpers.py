"""Matching claims to volumes, as the PV controller and the scheduler both do it.

* :func:`check_node_affinity`: can the volume be used from a node with
  these labels (its ``spec.nodeAffinity.required``)?
* :func:`find_matching_volume`: the volume a claim should bind to, if any:
  the one pre-bound to it, else the smallest available one that is large
  enough, of the claim's class and volume mode, selected by its selector,
  with its access modes, and usable from the node (when a node is given:
  the scheduler's path).
* :func:`match_topology_selector_terms`: does a node satisfy a
  StorageClass's ``allowedTopologies``?

Mirrors ``CheckNodeAffinity``, ``FindMatchingVolume``,
``IsVolumeBoundToClaim``, ``CheckVolumeModeMismatches`` and
``CheckAccessModes`` in ``k8s.io/component-helpers/storage/volume``
(``helpers.go``, ``pv_helpers.go``) and ``MatchTopologySelectorTerms`` in
``pkg/apis/core/v1/helper`` (v1.33). Simplified: VolumeAttributesClass (off
by default in v1.33) is not compared.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from framework.objects import Node, ObjectMeta
from framework.objects.labels import label_selector_as_selector
from framework.objects.nodeaffinity import LazyErrorNodeSelector
from framework.objects.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    TopologySelectorTerm,
    claim_class,
    volume_class,
)

__all__ = [
    "FILESYSTEM",
    "NOT_SUPPORTED_PROVISIONER",
    "check_access_modes",
    "check_node_affinity",
    "find_matching_volume",
    "is_volume_bound_to_claim",
    "match_topology_selector_terms",
    "requested_storage",
    "volume_mode_mismatch",
]

FILESYSTEM = "Filesystem"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
"""A StorageClass with this provisioner provisions nothing (local volumes, made by hand)."""


def check_node_affinity(volume: PersistentVolume, node_labels: Mapping[str, str]) -> bool:
    """True when the volume may be used from a node with ``node_labels`` (``CheckNodeAffinity``).

    The node is known by its labels only, as in kube: a ``matchFields``
    term on ``metadata.name`` matches no node here.
    """
    affinity = volume.spec.node_affinity
    if affinity is None or affinity.required is None:
        return True
    node = Node(metadata=ObjectMeta(labels=node_labels))
    matches, problems = LazyErrorNodeSelector(affinity.required).match(node)
    return matches and not problems


def is_volume_bound_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """The volume's ``claimRef`` names the claim (and its uid, when it has one)."""
    ref = volume.spec.claim_ref
    if ref is None:
        return False
    if ref.name != claim.metadata.name or ref.namespace != claim.metadata.namespace:
        return False
    return not ref.uid or ref.uid == claim.metadata.uid


def volume_mode_mismatch(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """Block against Filesystem (unset means Filesystem) (``CheckVolumeModeMismatches``)."""
    return (claim.spec.volume_mode or FILESYSTEM) != (volume.spec.volume_mode or FILESYSTEM)


def check_access_modes(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """Every access mode the claim asks for is one the volume offers (``CheckAccessModes``)."""
    offered = set(volume.spec.access_modes)
    return all(mode in offered for mode in claim.spec.access_modes)


def requested_storage(claim: PersistentVolumeClaim) -> int:
    """Bytes the claim asks for (``requests.storage``; 0 when it asks for none)."""
    quantity = claim.spec.resources.requests.get("storage")
    return quantity.units if quantity is not None else 0


def _capacity(volume: PersistentVolume) -> int:
    quantity = volume.spec.capacity.get("storage")
    return quantity.units if quantity is not None else 0


def find_matching_volume(
    claim: PersistentVolumeClaim,
    volumes: Iterable[PersistentVolume],
    node: Node | None,
    excluded: Collection[str],
    delay_binding: bool,
) -> PersistentVolume | None:
    """The volume for ``claim`` among ``volumes``, or None (``FindMatchingVolume``).

    A volume pre-bound to the claim wins outright (or, if its node affinity
    rules the node out, nothing matches); else the smallest Available one
    that fits every rule in the module docstring. ``node`` None is the PV
    controller's path, which leaves delay-binding claims to the scheduler.
    Raises :class:`~framework.objects.labels.SelectorError` for a bad selector.
    """
    requested = requested_storage(claim)
    requested_class = claim_class(claim)
    selector = (
        label_selector_as_selector(claim.spec.selector)
        if claim.spec.selector is not None
        else None
    )
    smallest: PersistentVolume | None = None
    smallest_size = 0
    for volume in volumes:
        if volume.metadata.name in excluded:
            continue
        if volume.spec.claim_ref is not None and not is_volume_bound_to_claim(volume, claim):
            continue
        size = _capacity(volume)
        if size < requested:
            continue
        if volume_mode_mismatch(claim, volume):
            continue
        if volume.metadata.deletion_timestamp:
            continue
        affinity_valid = node is None or check_node_affinity(volume, node.metadata.labels)
        if is_volume_bound_to_claim(volume, claim):
            return volume if affinity_valid else None
        if node is None and delay_binding:
            continue  # the scheduler binds these
        if volume.status.phase != "Available":
            continue
        if selector is not None and not selector.matches(volume.metadata.labels):
            continue
        if volume_class(volume) != requested_class:
            continue
        if not affinity_valid:
            continue
        if node is not None and not check_access_modes(claim, volume):
            continue
        if smallest is None or smallest_size > size:
            smallest, smallest_size = volume, size
    return smallest


def match_topology_selector_terms(
    terms: Iterable[TopologySelectorTerm], labels: Mapping[str, str]
) -> bool:
    """No terms match everything; else one term whose every requirement the labels meet."""
    terms = tuple(terms)
    if not terms:
        return True
    for term in terms:
        if all(
            requirement.key in labels and labels[requirement.key] in requirement.values
            for requirement in term.match_label_expressions
        ):
            return True
    return False
