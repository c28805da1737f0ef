"""The cluster objects a plugin reads besides the snapshot: Services, controllers, volumes.

kube-scheduler's plugins read such objects from the informer caches of the
``SharedInformerFactory`` their handle gives them (``fh.SharedInformerFactory().
Core().V1().Services().Lister()``...). This project's handle has no informer
factory; :class:`ClientListers` reads the same objects through the handle's
client instead, so a plugin sees what the API server holds now (an informer
may lag behind by a watch event), and with no client (a unit test without an
API server) it sees none at all.

Mirrors the ``Lister`` interfaces of ``k8s.io/client-go/listers`` (``List``,
``Get`` that fails when absent). Simplified: every read goes to the client,
so against a live cluster (``framework.adapter``) each one is a request.
"""

from __future__ import annotations

from typing import Any, TypeVar

from framework.apiserver.errors import NotFound
from framework.objects import KubeObject

__all__ = ["ClientListers", "listers_of"]

T = TypeVar("T", bound=KubeObject)


class ClientListers:
    """``list`` and ``get`` of any served kind through ``client`` (None: an empty cluster)."""

    __slots__ = ("_client",)

    def __init__(self, client: Any) -> None:
        self._client = client

    def list(self, kind: type[T], namespace: str | None = None) -> tuple[T, ...]:
        """Every object of ``kind`` (in ``namespace``, or all when None), in key order."""
        if self._client is None:
            return ()
        items: tuple[T, ...] = self._client.list(kind, namespace).items
        return items

    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T | None:
        """The object, or None when it does not exist (the lister's ``NotFound``)."""
        if self._client is None:
            return None
        try:
            found: T = self._client.get(kind, name, namespace)
        except NotFound:
            return None
        return found


def listers_of(handle: Any) -> ClientListers:
    """The listers of a plugin's ``handle`` (its client's), or empty ones without a handle."""
    client = handle.client() if handle is not None and hasattr(handle, "client") else None
    return ClientListers(client)
