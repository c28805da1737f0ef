"""One pod step of a cluster that changes between cycles, for the tests of PodTopologySpread's kept counts.

Kubernetes has no such function: this is the scaffolding that
``test_counts.py`` and ``test_node_counts.py`` share. Both drive a long-lived
plugin through hypothesis steps (a pod comes, goes, is relabelled or starts
terminating) and compare it, after each step, with what Kubernetes counts
afresh every cycle (``calPreFilterState`` and ``PreScore``,
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/podtopologyspread/``
``filtering.go`` and ``scoring.go``, v1.33).
"""

from __future__ import annotations

from framework.cache.cache import Cache
from framework.objects import Pod
from tests.plugins.podtopologyspread.helpers import pod


def apply_pod_step(
    cache: Cache, placed: dict[int, Pod], kind: str, index: int, node_name: str, app: str
) -> None:
    """Add, remove, relabel or terminate pod ``p{index}`` in ``cache``; a step that does not apply is a no-op."""
    existing = placed.get(index)
    if kind == "add" and existing is None:
        placed[index] = pod(f"p{index}", node_name, labels={"app": app})
        cache.add_pod(placed[index])
    elif kind == "remove" and existing is not None:
        cache.remove_pod(placed.pop(index))
    elif kind in ("relabel", "terminate") and existing is not None:
        if kind == "relabel":
            changed = existing.with_metadata(labels={"app": app})
        else:
            # The cache keeps a terminating pod on its node; the counts skip it
            # (countPodsMatchSelector, podtopologyspread/common.go).
            changed = existing.with_metadata(deletion_timestamp="2026-01-01T00:00:00Z")
        cache.update_pod(existing, changed)
        placed[index] = changed
