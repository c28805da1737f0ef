"""Namespace listers: how plugins read Namespaces, from the scheduler's informer or the API.

kube-scheduler's plugins read namespaces through the shared informer
factory's lister (``fh.SharedInformerFactory().Core().V1().Namespaces().Lister()``):
InterPodAffinity takes the incoming pod's namespace labels (``Get``) and
unrolls a term's ``namespaceSelector`` (``List``) from the informer's local
store, never with a request per pod. Its ClusterRole therefore needs
``list`` and ``watch`` on namespaces, not ``get``.

:class:`InformerNamespaceLister` is that lister, over the scheduler's
namespace informer. :class:`ClientNamespaceLister` reads the API server
instead; it is what a Framework built without a scheduler (a test, the
book's examples) gives its plugins, so they work the same there.

Mirrors ``k8s.io/client-go/listers/core/v1`` (``NamespaceLister``).
Simplified: ``List`` takes our compiled label
:class:`~framework.objects.labels.Selector`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from framework.apiserver.errors import GroupResource, NotFound
from framework.objects import Namespace
from framework.objects.labels import Selector

__all__ = ["ClientNamespaceLister", "InformerNamespaceLister", "NamespaceLister"]


class NamespaceLister(Protocol):
    def get(self, name: str) -> Namespace:
        """The namespace; :class:`~framework.apiserver.errors.NotFound` if there is none."""
        ...

    def list(self, selector: Selector) -> list[Namespace]:
        """The namespaces whose labels ``selector`` matches."""
        ...


class InformerNamespaceLister:
    """Reads the namespaces an informer keeps (its store, by name)."""

    def __init__(self, get: Callable[[str], Namespace | None], values: Callable[[], list[Any]]):
        self._get = get
        self._values = values

    def get(self, name: str) -> Namespace:
        found = self._get(name)
        if found is None:
            raise NotFound(GroupResource("namespaces"), name)
        return found

    def list(self, selector: Selector) -> list[Namespace]:
        return [ns for ns in self._values() if selector.matches(ns.metadata.labels)]


class ClientNamespaceLister:
    """Reads namespaces from the API server, one request per read (no informer to ask)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def get(self, name: str) -> Namespace:
        found: Namespace = self._client.get(Namespace, name)
        return found

    def list(self, selector: Selector) -> list[Namespace]:
        return list(self._client.list(Namespace, label_selector=selector).items)
