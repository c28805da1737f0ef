"""ImageStates: which nodes hold each container image, so a snapshot can say how widespread it is.

The ImageLocality plugin favours nodes that already hold a pod's images, but
scales the bonus by how many nodes hold the image: an image present
everywhere says nothing about where to go. So the cache keeps, for every
image name, its size and the set of nodes reporting it in
``status.images``, and each NodeInfo summarises its own images as
:class:`~framework.node_info.ImageStateSummary` (size, number of nodes).

The number of nodes is counted when a NodeInfo is copied into a snapshot
(:meth:`ImageStates.recount`), not kept live in every NodeInfo; a node that
has not changed since an image spread to more nodes keeps its older count
until its next change, exactly as in Kubernetes.

Contract: not thread-safe; the cache calls it under its own lock. An image
listed under several names counts under each.

Mirrors the ``imageStates`` map, ``addNodeImageStates`` and
``removeNodeImageStates`` of
``kubernetes/kubernetes:pkg/scheduler/backend/cache/cache.go`` and
``ImageStateSummary.Snapshot`` of ``pkg/scheduler/framework/types.go``
(v1.33). Simplified: the node set lives here rather than inside a summary
shared by pointer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from framework.node_info import ImageStateSummary
from framework.objects import Node

__all__ = ["ImageStates"]


@dataclass(slots=True)
class _ImageState:
    size: int
    nodes: set[str]


class ImageStates:
    """Image name -> (size, nodes holding it), across the cluster."""

    __slots__ = ("_states",)

    def __init__(self) -> None:
        self._states: dict[str, _ImageState] = {}

    def add_node(self, node: Node) -> dict[str, ImageStateSummary]:
        """Record the node's images; return its summaries (for ``NodeInfo.image_states``)."""
        summaries: dict[str, ImageStateSummary] = {}
        for image in node.status.images:
            for name in image.names:
                state = self._states.get(name)
                if state is None:
                    state = self._states[name] = _ImageState(image.size_bytes, set())
                state.nodes.add(node.name)
                summaries.setdefault(name, ImageStateSummary(state.size, len(state.nodes)))
        return summaries

    def remove_node(self, node: Node | None) -> None:
        """Forget the node's images; an image no node holds any more is dropped."""
        if node is None:
            return
        for image in node.status.images:
            for name in image.names:
                state = self._states.get(name)
                if state is not None:
                    state.nodes.discard(node.name)
                    if not state.nodes:
                        del self._states[name]

    def recount(self, summaries: Mapping[str, ImageStateSummary]) -> dict[str, ImageStateSummary]:
        """The same images with the number of nodes holding each counted now."""
        return {
            name: ImageStateSummary(state.size, len(state.nodes))
            if (state := self._states.get(name)) is not None
            else summary
            for name, summary in summaries.items()
        }

    def __len__(self) -> int:
        """How many distinct image names the cluster holds."""
        return len(self._states)
