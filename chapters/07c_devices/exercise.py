"""Chapter 7c exercise: which pools of devices a node sees.

Before the allocator looks for devices on a node, it gathers the *pools*
the node can reach: the ResourceSlices for this node (``nodeName``), for
all nodes (``allNodes``), or for nodes its ``nodeSelector`` matches, grouped
by driver and pool name. Fill in :func:`gather_pools`, then check it::

    python -m pytest chapters/07c_devices --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/dynamicresources/structured.py``. Stuck?
``python -m framework hint 7c`` shows the hints one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from framework.objects import Node
from framework.objects.nodeaffinity import LazyErrorNodeSelector
from framework.objects.resource import ResourceSlice

__all__ = ["AllocationError", "Pool", "gather_pools", "slice_reaches"]


# What you are given.


class AllocationError(ValueError):
    """Something wrong with the slices: an error, not "does not fit"."""


@dataclass(slots=True)
class Pool:
    """One pool's slices of its newest generation, and whether some are still missing."""

    driver: str
    name: str
    generation: int
    slices: list[ResourceSlice] = field(default_factory=list)
    incomplete: bool = False


def slice_reaches(resource_slice: ResourceSlice, node: Node) -> bool:
    """Whether the slice's devices can be used from ``node``."""
    spec = resource_slice.spec
    if spec.node_name:
        return spec.node_name == node.metadata.name
    if spec.all_nodes:
        return True
    if spec.node_selector is not None:
        return LazyErrorNodeSelector(spec.node_selector).matches(node)
    return False


# What you write.


def gather_pools(slices: Iterable[ResourceSlice], node: Node) -> list[Pool]:
    """The pools whose devices ``node`` sees (kube's ``GatherPools``).

    - Only slices that reach the node count.
    - A pool is identified by ``(spec.driver, spec.pool.name)``; of its
      slices, only those of the newest ``spec.pool.generation`` are kept
      (older ones are being replaced by the driver).
    - A pool with fewer slices of that generation than
      ``spec.pool.resourceSliceCount`` says is ``incomplete``.
    - A pool that lists the same device name twice (in its kept slices) is
      invalid: raise :class:`AllocationError` with a message containing
      ``invalid resource pools were encountered``.
    - Return the pools sorted by driver, then pool name; each pool's slices
      in the order they were given.
    """
    raise NotImplementedError("TODO: gather the pools the node sees")
