"""Invariants of ``FindMatchingVolume`` over random volumes: what it returns satisfies every
rule, and no eligible volume is smaller (``pv_helpers.go``, v1.33)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from framework.objects import Node
from framework.objects.storage import PersistentVolume, PersistentVolumeClaim
from framework.objects.volume_helpers import check_node_affinity, find_matching_volume

NODE = Node.from_dict({"metadata": {"name": "n1", "labels": {"zone": "a"}}})
CLAIM = PersistentVolumeClaim.from_dict(
    {
        "metadata": {"name": "data", "namespace": "default", "uid": "u"},
        "spec": {
            "storageClassName": "gold",
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "5Gi"}},
        },
    }
)

volumes = st.lists(
    st.builds(
        lambda i, size, cls, phase, zone, modes: PersistentVolume.from_dict(
            {
                "metadata": {"name": f"pv-{i}"},
                "spec": {
                    "capacity": {"storage": f"{size}Gi"},
                    "storageClassName": cls,
                    "accessModes": modes,
                    "nodeAffinity": {
                        "required": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "zone", "operator": "In", "values": [zone]}
                                    ]
                                }
                            ]
                        }
                    },
                },
                "status": {"phase": phase},
            }
        ),
        st.integers(0, 10_000),
        st.integers(1, 20),
        st.sampled_from(["gold", "silver"]),
        st.sampled_from(["Available", "Bound", "Released"]),
        st.sampled_from(["a", "b"]),
        st.sampled_from([["ReadWriteOnce"], ["ReadOnlyMany"], ["ReadWriteOnce", "ReadWriteMany"]]),
    ),
    max_size=12,
    unique_by=lambda v: v.metadata.name,
)


def eligible(volume: PersistentVolume) -> bool:
    return (
        volume.spec.capacity["storage"].units >= 5 * 1024**3
        and volume.spec.storage_class_name == "gold"
        and volume.status.phase == "Available"
        and check_node_affinity(volume, NODE.metadata.labels)
        and "ReadWriteOnce" in volume.spec.access_modes
    )


@given(volumes)
def test_the_match_is_eligible_and_the_smallest(candidates: list[PersistentVolume]) -> None:
    found = find_matching_volume(CLAIM, candidates, NODE, (), delay_binding=True)
    ok = [v for v in candidates if eligible(v)]
    if not ok:
        assert found is None
        return
    assert found is not None and eligible(found)
    smallest = min(v.spec.capacity["storage"].units for v in ok)
    assert found.spec.capacity["storage"].units == smallest
