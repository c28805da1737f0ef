"""Chapter 7b exercise: which PersistentVolume a claim binds to.

Both the PV controller (for ``Immediate`` claims, with no node) and the
scheduler's VolumeBinding plugin (for ``WaitForFirstConsumer`` claims, one
node at a time) ask the same question: of these volumes, which one should
this claim get? Fill in :func:`find_matching_volume`, then check it::

    python -m pytest chapters/07b_volumes --exercise

The tests are the same ones that run against the reference code in
``framework/objects/volume_helpers.py``. Stuck? ``python -m framework hint 7b``
shows the hints one at a time.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from framework.objects import Node, ObjectMeta
from framework.objects.labels import label_selector_as_selector
from framework.objects.nodeaffinity import LazyErrorNodeSelector
from framework.objects.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    claim_class,
    volume_class,
)

__all__ = [
    "check_access_modes",
    "check_node_affinity",
    "claim_class",
    "find_matching_volume",
    "is_volume_bound_to_claim",
    "label_selector_as_selector",
    "requested_storage",
    "volume_class",
    "volume_mode_mismatch",
]


# What you are given: the small checks of k8s.io/component-helpers/storage/volume,
# written out here (the reference keeps them in framework/objects/volume_helpers.py).

FILESYSTEM = "Filesystem"


def check_node_affinity(volume: PersistentVolume, node_labels: Mapping[str, str]) -> bool:
    """True when the volume may be used from a node with ``node_labels`` (``CheckNodeAffinity``)."""
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


def find_matching_volume(
    claim: PersistentVolumeClaim,
    volumes: Iterable[PersistentVolume],
    node: Node | None,
    excluded: Collection[str],
    delay_binding: bool,
) -> PersistentVolume | None:
    """The volume ``claim`` should bind to among ``volumes``, or None.

    You have: :func:`requested_storage` (the claim's bytes), a volume's
    size in ``volume.spec.capacity["storage"].units``, :func:`claim_class`
    and :func:`volume_class`, :func:`is_volume_bound_to_claim`,
    :func:`volume_mode_mismatch`, :func:`check_access_modes`,
    :func:`check_node_affinity` (with ``node.metadata.labels``) and
    :func:`label_selector_as_selector` for ``claim.spec.selector``.
    ``excluded`` holds names of volumes already chosen for other claims of
    the same pod; ``node`` is None on the PV controller's path, which leaves
    ``delay_binding`` claims alone.
    """
    # TODO 1: skip excluded volumes, volumes bound to another claim, volumes too
    #         small, volumes of the other volume mode, volumes being deleted.
    # TODO 2: a volume pre-bound to this claim wins at once, unless the node
    #         cannot use it: then nothing matches.
    # TODO 3: the rest must be Available, selected by the claim's selector, of
    #         the claim's class, usable from the node, with every access mode
    #         asked for (on the scheduler's path); keep the smallest.
    raise NotImplementedError("find_matching_volume: see the TODOs above")
