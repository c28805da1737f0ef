"""ImageLocality: prefer nodes that already hold the pod's container images.

A node that has the image starts the pod sooner: nothing to pull. Each
node reports its images in ``status.images`` (names and size), and the
scheduler cache summarises them per node as
:class:`~framework.node_info.ImageStateSummary`: the image's size and the
number of nodes holding it.

**Score**, for every container and init container whose image the node
holds, adds the image's size scaled by how widespread it is,
``int(size * nodes_with_image / all_nodes)``. The scaling guards against
"node heating": an image on one node out of a hundred would otherwise pull
every pod that uses it onto that one node, while an image every node holds
says nothing about where to go. The sum is clamped into
``[23 MiB, 1000 MiB × number of containers]`` and mapped linearly onto
``[0, 100]`` with integer arithmetic. The score needs no NormalizeScore.

Image names are compared as the kubelet reports them, so a name without a
tag gets ``:latest`` first (:func:`normalized_image_name`): ``nginx`` in a
pod is ``nginx:latest`` on the node. A name that is only a registry with
a port (``localhost:5000/app``) still gets one, because the rule looks for
a ``:`` after the last ``/``.

>>> normalized_image_name("registry.k8s.io:5000/pause"), normalized_image_name("nginx:1.27")
('registry.k8s.io:5000/pause:latest', 'nginx:1.27')
>>> calculate_priority(250 * MB // 2, 2)  # one of two containers' images, on half the nodes
5

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/imagelocality/image_locality.go``
(v1.33). The spread factor is computed in floating point, as Go does, so
scores agree to the byte.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from framework.cycle_state import CycleState
from framework.interface import MAX_NODE_SCORE, SignFragment
from framework.node_info import ImageStateSummary, NodeInfo
from framework.objects import Pod
from framework.plugins import names
from framework.runtime import signature as sig
from framework.status import Status

__all__ = [
    "MAX_CONTAINER_THRESHOLD",
    "MB",
    "MIN_THRESHOLD",
    "NAME",
    "ImageLocality",
    "calculate_priority",
    "new",
    "normalized_image_name",
    "scaled_image_score",
    "sum_image_scores",
]

NAME = names.IMAGE_LOCALITY

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
"""Below this many (scaled) bytes of images already present, the score is 0."""
MAX_CONTAINER_THRESHOLD = 1000 * MB
"""At this many (scaled) bytes of images already present, per container, the score is 100."""


# Remembered: Score asks for every container of the pod on every node scored,
# and a pod's few image names are the same each time (chapter 13).
@functools.lru_cache(maxsize=4096)
def normalized_image_name(name: str) -> str:
    """The name with ``:latest`` appended when it has no tag (no ``:`` after the last ``/``)."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(image_state: ImageStateSummary, total_num_nodes: int) -> int:
    """The image's size, scaled by the fraction of the nodes that hold it (Go's float arithmetic)."""
    spread = image_state.num_nodes / total_num_nodes
    return int(float(image_state.size) * spread)


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_num_nodes: int) -> int:
    """The scaled sizes of the pod's images (init containers and containers) that the node holds."""
    total = 0
    image_states = node_info.image_states
    for containers in (pod.spec.init_containers, pod.spec.containers):
        for container in containers:
            state = image_states.get(normalized_image_name(container.image))
            if state is not None:
                total += scaled_image_score(state, total_num_nodes)
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """Map the clamped sum linearly onto ``[0, 100]`` (integer division)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    # Both differences are >= 0 whenever the pod has a container, so // is Go's /.
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality:
    """Score: how much of the pod's images the node already holds; see the module docstring."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def name(self) -> str:
        return NAME

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment], None]:
        """The score depends on the images, canonicalised, and how many containers there are.

        Go's ``ImageLocality.SignPod`` (v1.35) signs the canonical image names.
        """
        images = sorted(
            normalized_image_name(c.image)
            for c in (*pod.spec.init_containers, *pod.spec.containers)
        )
        return [SignFragment(sig.IMAGE_NAMES_SIGNER_NAME, images)], None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """0..100; needs the snapshot, for the number of nodes in the cluster."""
        lister = self._handle.snapshot_shared_lister() if self._handle is not None else None
        if lister is None:
            return 0, Status.as_error(
                ValueError(
                    "ImageLocality needs the cycle's snapshot to count the nodes, and the "
                    "framework handle has none (the scheduler sets it before each cycle)"
                )
            )
        total_num_nodes = len(lister.node_infos().list())
        image_scores = sum_image_scores(node_info, pod, total_num_nodes)
        num_containers = len(pod.spec.init_containers) + len(pod.spec.containers)
        return calculate_priority(image_scores, num_containers), None

    def score_extensions(self) -> None:
        """None: the scores are already within [0, 100]."""
        return None


def new(args: Any, handle: Any) -> ImageLocality:
    """The factory the registry calls; ImageLocality takes no args."""
    return ImageLocality(handle)


if TYPE_CHECKING:  # the points it implements, as Go's "var _ framework.FilterPlugin = &X{}"
    from framework import interface

    _score: type[interface.ScorePlugin] = ImageLocality
