"""LeastAllocated and MostAllocated side by side: the two straight-line scoring strategies.

NodeResourcesFit scores a node with one of three strategies; the two simple
ones live in their own modules, as in Kubernetes
(:mod:`~framework.plugins.noderesources.least_allocated` and
:mod:`~framework.plugins.noderesources.most_allocated`). This module only
gathers their public functions in one place, for chapter 8's exercise, whose
tests import a single reference module. It defines nothing of its own.

>>> from framework.config.args_noderesources import DEFAULT_RESOURCES
>>> least_resource_scorer(DEFAULT_RESOURCES)([3000, 5000], [4000, 10000])
37
>>> most_resource_scorer(DEFAULT_RESOURCES)([3000, 5000], [4000, 10000])
62

Kubernetes has no such module: ``least_allocated.go`` and
``most_allocated.go`` sit side by side in
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/`` (v1.33).
"""

from __future__ import annotations

from framework.plugins.noderesources.least_allocated import (
    least_requested_score,
    least_resource_scorer,
)
from framework.plugins.noderesources.most_allocated import (
    most_requested_score,
    most_resource_scorer,
)

__all__ = [
    "least_requested_score",
    "least_resource_scorer",
    "most_requested_score",
    "most_resource_scorer",
]
