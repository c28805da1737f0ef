"""Listers of plain objects for the volume plugins' tests (Go's ``tf.PersistentVolumeLister``...).

The Go tests give a plugin listers holding objects as written, without the
API server's defaults and validation (a claim without access modes); this
client does the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from framework.apiserver.errors import NotFound, resource_for
from framework.apiserver.store import ListResult
from framework.cache.snapshot import Snapshot, new_snapshot
from framework.clock import Clock, RealClock
from framework.objects import KubeObject, Node, Pod


class FakeClient:
    """``get`` and ``list`` over the objects given, by kind, name and namespace."""

    def __init__(self, objects: Iterable[KubeObject]) -> None:
        self.objects = list(objects)
        self.updates: list[KubeObject] = []

    def _of(self, kind: type[Any], namespace: str | None) -> list[Any]:
        return [
            o
            for o in self.objects
            if isinstance(o, kind)
            and (
                namespace is None
                or not kind.NAMESPACED
                or (o.metadata.namespace or "default") == namespace
            )
        ]

    def list(self, kind: type[Any], namespace: str | None = None) -> ListResult[Any]:
        return ListResult(tuple(self._of(kind, namespace)), "1")

    def get(self, kind: type[Any], name: str, namespace: str | None = None) -> Any:
        for obj in self._of(kind, namespace if kind.NAMESPACED else None):
            if obj.metadata.name == name:
                return obj
        raise NotFound(resource_for(kind), name)

    def update(self, obj: KubeObject) -> KubeObject:
        """Record the write and keep it in place of the object it updates (no controller acts)."""
        self.updates.append(obj)
        self.replace(obj)
        return obj

    def replace(self, obj: KubeObject) -> None:
        """Put ``obj`` where the object of its kind, name and namespace was (or add it)."""
        self.objects = [
            o for o in self.objects if not (type(o) is type(obj) and o.key == obj.key)
        ] + [obj]


@dataclass
class Handle:
    """A plugin handle with a client and, for VolumeRestrictions, a snapshot."""

    fake: FakeClient
    snapshot: Snapshot | None = None
    time: Clock | None = None

    def client(self) -> FakeClient:
        return self.fake

    def clock(self) -> Clock:
        return self.time or RealClock()

    def snapshot_shared_lister(self) -> Snapshot | None:
        return self.snapshot


def handle(*objects: KubeObject, pods: Iterable[Pod] = (), nodes: Iterable[Node] = ()) -> Handle:
    return Handle(FakeClient(objects), new_snapshot(list(pods), list(nodes)))
