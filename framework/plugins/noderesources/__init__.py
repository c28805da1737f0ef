"""The resource plugins: NodeResourcesFit and NodeResourcesBalancedAllocation.

Both look at the same numbers, a node's allocatable CPU, memory, storage and
devices and what its pods request, and ask different questions of them:

* :mod:`~framework.plugins.noderesources.fit` (``NodeResourcesFit``): does
  the pod fit at all (Filter), and how full or empty would the node be
  (Score, by one of three strategies);
* :mod:`~framework.plugins.noderesources.balanced_allocation`
  (``NodeResourcesBalancedAllocation``): would the node's resources stay
  evenly used (Score).

The package follows kube-scheduler's ``noderesources`` folder, one module per
concept: :mod:`~framework.config.args_noderesources` (the two ``*Args``
types, their defaults and validation),
:mod:`~framework.objects.resource_names` (which resource names
count), :mod:`~framework.plugins.noderesources.fits` (does a pod fit: the
Filter's arithmetic), :mod:`~framework.plugins.noderesources.resource_allocation` (the
``(requested, allocatable)`` lists every score starts from), and one module
per scoring strategy:
:mod:`~framework.plugins.noderesources.least_allocated`,
:mod:`~framework.plugins.noderesources.most_allocated`,
:mod:`~framework.plugins.noderesources.requested_to_capacity_ratio`.

The registry loads the two plugin modules by name (each has ``NAME`` and
``new``), so importing this package imports nothing else.

Mirrors ``kubernetes/kubernetes:pkg/scheduler/framework/plugins/noderesources/`` (v1.33).
"""
