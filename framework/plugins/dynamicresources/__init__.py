"""DynamicResources: devices from ResourceSlices, allocated to a pod's ResourceClaims.

:mod:`.plugin` is the plugin (kube's ``dynamicresources.go``),
:mod:`.structured` the structured-parameters allocator it runs per node
(``k8s.io/dynamic-resource-allocation/structured``), :mod:`.cel` the subset
of CEL in which device selectors are evaluated.
"""

from __future__ import annotations

from framework.plugins.dynamicresources.plugin import NAME, DynamicResources, new

__all__ = ["NAME", "DynamicResources", "new"]
