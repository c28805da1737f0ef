"""Chapter 7b done right: FindMatchingVolume. Must pass.

:func:`make` builds ``find_matching_volume``; each wrong variant turns on one mistake.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.exercise_variants import skeleton_namespace

_given = skeleton_namespace("07b_volumes")
check_access_modes: Any = _given["check_access_modes"]
check_node_affinity: Any = _given["check_node_affinity"]
claim_class: Any = _given["claim_class"]
is_volume_bound_to_claim: Any = _given["is_volume_bound_to_claim"]
label_selector_as_selector: Any = _given["label_selector_as_selector"]
requested_storage: Any = _given["requested_storage"]
volume_class: Any = _given["volume_class"]
volume_mode_mismatch: Any = _given["volume_mode_mismatch"]


def make(
    *, prebound_ignores_node: bool = False, first_not_smallest: bool = False
) -> dict[str, Callable[..., Any]]:
    def find_matching_volume(
        claim: Any, volumes: Any, node: Any, excluded: Any, delay_binding: bool
    ) -> Any:
        wanted = requested_storage(claim)
        selector = (
            label_selector_as_selector(claim.spec.selector)
            if claim.spec.selector is not None
            else None
        )
        best, best_size = None, 0
        for volume in volumes:
            if volume.metadata.name in excluded:
                continue
            if volume.spec.claim_ref is not None and not is_volume_bound_to_claim(volume, claim):
                continue
            size = volume.spec.capacity["storage"].units
            if size < wanted or volume_mode_mismatch(claim, volume):
                continue
            if volume.metadata.deletion_timestamp:
                continue
            usable = node is None or check_node_affinity(volume, node.metadata.labels)
            if is_volume_bound_to_claim(volume, claim):
                return volume if usable or prebound_ignores_node else None
            if node is None and delay_binding:
                continue
            if volume.status.phase != "Available":
                continue
            if selector is not None and not selector.matches(volume.metadata.labels):
                continue
            if volume_class(volume) != claim_class(claim) or not usable:
                continue
            if node is not None and not check_access_modes(claim, volume):
                continue
            if best is None or best_size > size:
                best, best_size = volume, size
                if first_not_smallest:
                    return best
        return best

    return {"find_matching_volume": find_matching_volume}


globals().update(make())
