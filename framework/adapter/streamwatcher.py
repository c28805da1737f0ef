"""A watch over HTTP, with the interface of the in-memory server's :class:`~framework.apiserver.Watch`.

The informers (:class:`~framework.scheduler.eventhandlers.Informer`) read a
watch with ``next(timeout)``, ``drain()``, ``stopped`` and ``stop()``. This
class gives them that over a real API server's watch stream: a reader thread
decodes the stream's JSON lines into :class:`~framework.apiserver.WatchEvent`
objects and queues them. When the server ends the stream (its
``timeoutSeconds``, a dropped connection) the watch is stopped, and the
informer opens another from the last resourceVersion it applied. An
``ERROR`` event is the server's way to refuse a watch after answering
``200``; its Status is kept in :attr:`RemoteWatch.error` (``410 Expired``
means: list again).

Mirrors ``k8s.io/apimachinery/pkg/watch/streamwatcher.go`` (``StreamWatcher``:
the decoding loop and ``Stop``) and client-go's ``watchHandler``, which turns
an ``ERROR`` event into an error. Simplified: ``BOOKMARK`` events are not
asked for, so they are not decoded.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from framework.adapter.errors import error_from_status
from framework.apiserver import ADDED, DELETED, MODIFIED, APIError, WatchEvent
from framework.objects import KubeObject

__all__ = ["RemoteWatch"]

logger = logging.getLogger(__name__)

_TYPES = (ADDED, MODIFIED, DELETED)


class RemoteWatch:
    """The events of one watch request, read on a thread of their own.

    ``lines`` yields the stream's lines; ``close`` ends the connection (and so
    the iteration) from another thread; ``on_end`` is told once the watch
    has stopped, for whatever reason (read :attr:`error` to know which).
    """

    def __init__(
        self,
        kind: type[KubeObject],
        lines: Iterable[str],
        close: Any,
        resource_version: str = "",
        *,
        on_end: Callable[[RemoteWatch], None] | None = None,
    ) -> None:
        self.kind = kind
        self.initial_resource_version = resource_version
        #: The Status of an ``ERROR`` event the server ended the watch with, if any.
        self.error: APIError | None = None
        self._lines = lines
        self._close = close
        self._on_end = on_end
        self._cond = threading.Condition()
        self._events: deque[WatchEvent] = deque()
        self._stopped = False
        self._ending = False
        self._reader = threading.Thread(target=self._read, name=f"watch-{kind.KIND}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for line in self._lines:
                if not line.strip():
                    continue
                if not self._accept(json.loads(line)):
                    break
        except Exception as error:  # a dropped connection ends the watch; the informer resumes
            if not self.stopped:
                logger.info("watch of %s ended: %s", self.kind.KIND, error)
        self.stop()

    def _accept(self, event: dict[str, Any]) -> bool:
        """Queue one decoded event; False when the stream must end."""
        kind, body = event.get("type"), event.get("object") or {}
        if kind == "ERROR":
            self.error = error_from_status(body)
            return False
        if kind not in _TYPES:
            return True  # BOOKMARK, or a type this client does not know: nothing to apply
        data = dict(body)
        data.setdefault("apiVersion", self.kind.API_VERSION)
        data.setdefault("kind", self.kind.KIND)
        obj = self.kind.from_dict(data)
        with self._cond:
            if self._stopped:
                return False
            self._events.append(WatchEvent(kind, obj, obj.metadata.resource_version))
            self._cond.notify_all()
        return True

    def next(self, timeout: float | None = None) -> WatchEvent | None:
        """The next event; None once stopped, or after ``timeout`` seconds with nothing to read."""
        with self._cond:
            if not self._events and not self._stopped:
                self._cond.wait(timeout)
            return self._events.popleft() if self._events else None

    def drain(self) -> list[WatchEvent]:
        """Every event ready now, without waiting."""
        with self._cond:
            ready = list(self._events)
            self._events.clear()
            return ready

    def stop(self) -> None:
        """End the watch and close its connection; events not yet read are dropped. Idempotent.

        The informer reads a stopped watch no further and opens the next one
        from the last resourceVersion it applied, so a dropped event is read
        again there: nothing is lost, nothing applied twice.
        """
        with self._cond:
            if self._ending:
                return
            self._ending = True
        # Told before ``stopped`` turns true: whoever sees the watch stopped sees its end handled.
        if self._on_end is not None:
            self._on_end(self)
        with self._cond:
            self._stopped = True
            self._events.clear()
            self._cond.notify_all()
        try:
            self._close()
        except Exception:  # closing a connection the server already closed
            logger.debug("closing the watch of %s", self.kind.KIND, exc_info=True)

    @property
    def stopped(self) -> bool:
        with self._cond:
            return self._stopped
