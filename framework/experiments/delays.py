"""The delays of a real cluster, in simulated time: a binding in flight, a watch running late.

On the in-memory API server a binding is committed the moment it is posted,
and every watcher hears of it in the same instant. A real cluster is slower
in both places, and that gap is where two schedulers race: the request
carrying a binding takes a while to be committed (*bind latency*), and the
change then takes a while to reach each watcher (*watch delay*). During that
time, another scheduler still sees the node's room as free.

:class:`Network` puts both delays between the one :class:`APIServer` and
each of its clients. A client is an :class:`APIServer` look-alike
(:meth:`Network.client`) that passes every call through, except:

* ``bind`` is answered at once, and committed ``bind_latency`` seconds
  later, when the driver moves time on (:meth:`Network.deliver`);
* a watch hands over each event ``watch_delay`` seconds after its commit.

(The scheduler's own pod informer leaves out finished pods, as
kube-scheduler's does: a pod the kubelet rejected leaves the scheduler's
cache, and its room is free again.)

Nothing here moves the clock by itself. The driver asks
:meth:`Network.next_due` when something is next due, sets the
:class:`~framework.clock.FakeClock` there and calls :meth:`Network.deliver`,
so a run is the same on every machine. Bindings due at the same instant are
committed in the order (client, pod namespace/name), never in the order the
binding threads happened to post them.

No Kubernetes counterpart: this models the network and etcd, which the fake
API server leaves out. Simplified: constant delays; a binding the server
refuses when it is finally committed (the pod was deleted meanwhile) is
only counted in :attr:`Network.bind_errors`, where a real scheduler would
have heard of the failure and forgotten the pod.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
import threading
from collections import deque
from typing import Any, cast

from framework.apiserver import APIError, APIServer, Watch, WatchEvent
from framework.clock import FakeClock
from framework.objects import Binding, KubeObject, Pod

__all__ = ["DelayedWatch", "Network"]


class DelayedWatch:
    """A :class:`~framework.apiserver.Watch` whose events arrive ``delay`` seconds late.

    Only what the scheduler's informers use: :meth:`drain`, :attr:`stopped`,
    :meth:`stop` and :meth:`next` (which never waits, since only the driver
    moves time).
    """

    def __init__(self, watch: Watch, clock: FakeClock, delay: float) -> None:
        self._watch = watch
        self._clock = clock
        self._delay = delay
        self._buffer: deque[tuple[float, WatchEvent]] = deque()
        self._lock = threading.Lock()

    def pump(self) -> None:
        """Stamp every event committed so far with the time it will arrive."""
        arrival = self._clock.now() + self._delay
        with self._lock:
            self._buffer.extend((arrival, event) for event in self._watch.drain())

    def next_due(self) -> float | None:
        with self._lock:
            return self._buffer[0][0] if self._buffer else None

    def drain(self) -> list[WatchEvent]:
        """The events whose time has come, in commit order."""
        self.pump()
        now = self._clock.now()
        ready = []
        with self._lock:
            while self._buffer and self._buffer[0][0] <= now:
                ready.append(self._buffer.popleft()[1])
        return ready

    def next(self, timeout: float | None = None) -> WatchEvent | None:
        ready = self.drain()
        if ready:
            with self._lock:
                self._buffer.extendleft((self._clock.now(), e) for e in reversed(ready[1:]))
            return ready[0]
        return None

    @property
    def stopped(self) -> bool:
        return self._watch.stopped

    def stop(self) -> None:
        self._watch.stop()

    @property
    def initial_resource_version(self) -> str:
        return self._watch.initial_resource_version


class _Client:
    """One client's view of the API server through the :class:`Network`."""

    def __init__(self, network: Network, index: int) -> None:
        self._network = network
        self._index = index

    def __getattr__(self, name: str) -> Any:
        return getattr(self._network.api, name)

    def watch(self, kind: type[KubeObject], *args: Any, **kwargs: Any) -> DelayedWatch:
        return self._network.delayed(self._network.api.watch(kind, *args, **kwargs))

    def bind(self, binding: Binding) -> Pod:
        return self._network.post_binding(self._index, binding)


class Network:
    """The API server as its clients see it across a network with ``bind_latency`` and
    ``watch_delay`` (seconds of simulated time on ``clock``)."""

    def __init__(
        self,
        api: APIServer,
        clock: FakeClock,
        *,
        bind_latency: float = 0.0,
        watch_delay: float = 0.0,
    ) -> None:
        if bind_latency < 0 or watch_delay < 0:
            raise ValueError(
                f"delays cannot be negative (bind_latency={bind_latency}, "
                f"watch_delay={watch_delay})"
            )
        self.api = api
        self.clock = clock
        self.bind_latency = bind_latency
        self.watch_delay = watch_delay
        #: Bindings the server refused when they were finally committed.
        self.bind_errors: list[tuple[Binding, APIError]] = []
        self._clients = itertools.count()
        self._watches: list[DelayedWatch] = []
        # (due, client, pod key, binding): the order bindings are committed in.
        self._bindings: list[tuple[float, int, str, Binding]] = []
        self._lock = threading.Lock()

    def client(self) -> APIServer:
        """A new client: give it to a Scheduler in place of the API server.

        The cast is honest about behaviour, not type: the client forwards
        every method of :class:`APIServer` and delays two of them.
        """
        return cast(APIServer, _Client(self, next(self._clients)))

    def delayed(self, watch: Watch) -> DelayedWatch:
        delayed = DelayedWatch(watch, self.clock, self.watch_delay)
        with self._lock:
            self._watches.append(delayed)
        return delayed

    def post_binding(self, client: int, binding: Binding) -> Pod:
        """Accept a binding now, to commit it ``bind_latency`` from now; return the pod bound."""
        if self.bind_latency == 0:
            return self.api.bind(binding)
        meta = binding.metadata
        key = f"{meta.namespace or 'default'}/{meta.name}"
        with self._lock:
            heapq.heappush(
                self._bindings, (self.clock.now() + self.bind_latency, client, key, binding)
            )
        pod = self.api.get(Pod, meta.name, meta.namespace or "default")
        return dataclasses.replace(
            pod, spec=dataclasses.replace(pod.spec, node_name=binding.target.name)
        )

    def next_due(self) -> float | None:
        """When the next binding is committed or the next event delivered; None if nothing is."""
        with self._lock:
            due = [self._bindings[0][0]] if self._bindings else []
            watches = list(self._watches)
        for watch in watches:
            watch.pump()
            arrival = watch.next_due()
            if arrival is not None:
                due.append(arrival)
        return min(due) if due else None

    def deliver(self) -> int:
        """Commit every binding due by now (stamping the events it causes); return how many."""
        committed = 0
        while True:
            with self._lock:
                if not self._bindings or self._bindings[0][0] > self.clock.now():
                    break
                _, _, _, binding = heapq.heappop(self._bindings)
            try:
                self.api.bind(binding)
                committed += 1
            except APIError as error:
                self.bind_errors.append((binding, error))
        self.pump()
        return committed

    def pump(self) -> None:
        """Stamp what every watch has been sent so far (call it before moving the clock)."""
        with self._lock:
            watches = list(self._watches)
        for watch in watches:
            watch.pump()

    def advance_to(self, timestamp: float) -> None:
        """Move the clock to ``timestamp`` and commit the bindings due by then."""
        self.pump()  # what was sent before now arrives relative to now
        if timestamp > self.clock.now():
            self.clock.set(timestamp)
        self.deliver()

    def in_flight(self) -> bool:
        """Whether a binding or a watch event is still on its way."""
        return self.next_due() is not None
