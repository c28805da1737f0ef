"""Which resource names the scheduler counts, and how: native, extended, hugepages, scalar.

A container may request ``cpu``, ``memory`` and ``ephemeral-storage``, which
every node reports, and *extended* resources that device plugins or
administrators advertise under a domain-prefixed name (``nvidia.com/gpu``,
``example.com/dongle``). The scheduler keeps the first three in their own
fields of a :class:`~framework.node_info.Resource` and everything else that
it can count in ``scalar_resources``: extended resources, ``hugepages-<size>``,
names under ``kubernetes.io/`` and the old ``attachable-volumes-*``. A name
that is none of these (a bare ``foo``) is not counted at all; API validation
would reject it in a pod anyway.

NodeResourcesFit's ``ignoredResources`` and ``ignoredResourceGroups`` apply
to *extended* resources only: an administrator can tell the scheduler to
leave a device to some other component, but not to ignore memory.

>>> is_extended_resource_name("nvidia.com/gpu"), is_extended_resource_name("memory")
(True, False)
>>> is_scalar_resource_name("hugepages-2Mi"), is_scalar_resource_name("kubernetes.io/something")
(True, True)
>>> is_scalar_resource_name("foo")
False

Mirrors ``IsExtendedResourceName``, ``IsNativeResource``,
``IsPrefixedNativeResource``, ``IsHugePageResourceName`` and
``IsAttachableVolumeResourceName`` in
``kubernetes/kubernetes:pkg/apis/core/v1/helper/helpers.go`` and
``IsScalarResourceName`` in ``pkg/scheduler/util/utils.go`` (v1.33).
"""

from __future__ import annotations

from framework.objects.labels import validate_label_key

__all__ = [
    "RESOURCE_DEFAULT_NAMESPACE_PREFIX",
    "is_attachable_volume_resource_name",
    "is_extended_resource_name",
    "is_huge_page_resource_name",
    "is_native_resource",
    "is_prefixed_native_resource",
    "is_scalar_resource_name",
]

RESOURCE_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
"""Names under this domain belong to Kubernetes itself (``v1.ResourceDefaultNamespacePrefix``)."""
_REQUESTS_PREFIX = "requests."  # the prefix ResourceQuota puts before a request's name
_HUGE_PAGES_PREFIX = "hugepages-"
_ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"


def is_prefixed_native_resource(name: str) -> bool:
    """A name in the ``kubernetes.io/`` domain (or a subdomain of it)."""
    return RESOURCE_DEFAULT_NAMESPACE_PREFIX in name


def is_native_resource(name: str) -> bool:
    """A name without a domain (``cpu``, ``memory``...) or in the ``kubernetes.io/`` domain."""
    return "/" not in name or is_prefixed_native_resource(name)


def is_extended_resource_name(name: str) -> bool:
    """A domain-prefixed name outside ``kubernetes.io/`` that quota could also name.

    The last rule is how Kubernetes checks the syntax: ``requests.<name>``
    must be a qualified name, the form a ResourceQuota uses for it.
    """
    if is_native_resource(name) or name.startswith(_REQUESTS_PREFIX):
        return False
    return not validate_label_key(_REQUESTS_PREFIX + name)


def is_huge_page_resource_name(name: str) -> bool:
    """``hugepages-2Mi``, ``hugepages-1Gi``..."""
    return name.startswith(_HUGE_PAGES_PREFIX)


def is_attachable_volume_resource_name(name: str) -> bool:
    """``attachable-volumes-<plugin>``, the pre-CSI volume limits."""
    return name.startswith(_ATTACHABLE_VOLUMES_PREFIX)


def is_scalar_resource_name(name: str) -> bool:
    """A resource the scheduler counts in ``scalar_resources`` (anything countable but the four fields)."""
    return (
        is_extended_resource_name(name)
        or is_huge_page_resource_name(name)
        or is_prefixed_native_resource(name)
        or is_attachable_volume_resource_name(name)
    )
