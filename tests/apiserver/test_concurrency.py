"""Under concurrent writers, watches deliver every change once and in order, and no update is lost.

Each test runs real threads released together by a barrier; nothing sleeps.
The writers log what they did (resourceVersion, event type, the object as
stored), and the log, sorted by resourceVersion, is the truth each watcher's
stream is checked against.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from framework.apiserver import ADDED, DELETED, MODIFIED, APIServer, Conflict, WatchEvent
from framework.objects import KubeObject, Pod
from framework.objects.labels import parse_selector
from tests.apiserver.helpers import binding, new_api, pod

ACTIONS = st.sampled_from(["create", "relabel", "bind", "delete"])
PLANS = st.lists(
    st.lists(st.tuples(ACTIONS, st.integers(0, 2)), max_size=12), min_size=2, max_size=4
)


@dataclass(frozen=True)
class Logged:
    """One successful write as its writer saw it."""

    resource_version: int
    type: str
    object: KubeObject


def run_threads(targets: list[Callable[[], None]]) -> None:
    """Run ``targets`` on threads and wait for all; switch threads often to mix their steps."""
    threads = [threading.Thread(target=t) for t in targets]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
            assert not t.is_alive(), "a thread did not finish"
    finally:
        sys.setswitchinterval(interval)


def writer(
    api: APIServer,
    me: int,
    plan: list[tuple[str, int]],
    start: threading.Barrier,
    log: list[Logged],
) -> Callable[[], None]:
    """A thread body that works through ``plan`` on pods only it touches."""

    def run() -> None:
        start.wait()
        live: dict[str, Pod] = {}
        for step, (action, slot) in enumerate(plan):
            name = f"w{me}-p{slot}"
            current = live.get(name)
            if action == "create" and current is None:
                stored = api.create(pod(name).with_metadata(labels={"color": "red"}))
                log.append(Logged(int(stored.metadata.resource_version), ADDED, stored))
            elif current is None:
                continue
            elif action == "relabel":
                color = "red" if step % 2 else "blue"
                stored = api.update(
                    current.with_metadata(labels={"color": color, "step": str(step)})
                )
                log.append(Logged(int(stored.metadata.resource_version), MODIFIED, stored))
            elif action == "bind" and not current.spec.node_name:
                stored = api.bind(binding(name, f"node-{me}"))
                log.append(Logged(int(stored.metadata.resource_version), MODIFIED, stored))
            elif action == "delete":
                deleted = api.delete(Pod, name)
                log.append(Logged(int(deleted.metadata.resource_version), DELETED, deleted))
                live.pop(name)
                continue
            else:
                continue
            live[name] = stored

    return run


def expected_stream(
    log: list[Logged], after: int, matches: Callable[[KubeObject], bool]
) -> list[tuple[str, str, str]]:
    """What a watcher from ``after`` with this predicate must see: a model of the watch cache."""
    last: dict[str, KubeObject] = {}
    stream = []
    for entry in sorted(log, key=lambda e: e.resource_version):
        key = entry.object.key
        before = last.get(key)
        now = None if entry.type == DELETED else entry.object
        if now is None:
            del last[key]
        else:
            last[key] = now
        if entry.resource_version <= after:
            continue
        was, is_ = before is not None and matches(before), now is not None and matches(now)
        kind = {(False, True): ADDED, (True, True): MODIFIED, (True, False): DELETED}.get(
            (was, is_)
        )
        if kind:
            stream.append((kind, key, str(entry.resource_version)))
    return stream


def seen(events: list[WatchEvent]) -> list[tuple[str, str, str]]:
    return [(e.type, e.object.key, e.resource_version) for e in events]


@settings(max_examples=25, deadline=None)
@given(plans=PLANS, replay_points=st.lists(st.floats(0, 1), max_size=3))
def test_watch_delivers_every_change_exactly_once_in_order(plans, replay_points):
    api = new_api()
    start = threading.Barrier(len(plans) + 1)
    log: list[Logged] = []  # list.append is atomic; each writer only appends
    origin = int(api.current_resource_version())
    everything = api.watch(Pod, origin)
    red = api.watch(Pod, origin, label_selector="color=red")
    unscheduled = api.watch(Pod, origin, field_selector="spec.nodeName=")
    joined: list = []

    def late_watcher() -> None:
        start.wait()
        joined.append(api.watch(Pod))  # from "now", while the writers write

    run_threads(
        [writer(api, i, plan, start, log) for i, plan in enumerate(plans)] + [late_watcher]
    )

    def always(obj: KubeObject) -> bool:
        return True

    def is_red(obj: KubeObject) -> bool:
        return parse_selector("color=red").matches(obj.metadata.labels)

    def is_unscheduled(obj: KubeObject) -> bool:
        return not obj.spec.node_name  # type: ignore[attr-defined]

    assert seen(everything.drain()) == expected_stream(log, origin, always)
    assert seen(red.drain()) == expected_stream(log, origin, is_red)
    assert seen(unscheduled.drain()) == expected_stream(log, origin, is_unscheduled)

    (late,) = joined
    snapshot_at = int(late.initial_resource_version)
    events = late.drain()
    state_then = replay_state(log, snapshot_at)
    initial, live = events[: len(state_then)], events[len(state_then) :]
    assert [(e.type, e.object) for e in initial] == [
        (ADDED, state_then[k]) for k in sorted(state_then)
    ]
    assert seen(live) == expected_stream(log, snapshot_at, always)

    versions = sorted(e.resource_version for e in log)
    for point in replay_points:
        if versions:
            after = versions[int(point * (len(versions) - 1))]
            with api.watch(Pod, after) as replay:
                assert seen(replay.drain()) == expected_stream(log, after, always)


def replay_state(log: list[Logged], upto: int) -> dict[str, KubeObject]:
    state: dict[str, KubeObject] = {}
    for entry in sorted(log, key=lambda e: e.resource_version):
        if entry.resource_version > upto:
            break
        if entry.type == DELETED:
            state.pop(entry.object.key)
        else:
            state[entry.object.key] = entry.object
    return state


@settings(max_examples=20, deadline=None)
@given(threads=st.integers(2, 6), increments=st.integers(1, 5))
def test_read_modify_update_with_retry_on_conflict_loses_no_update(threads, increments):
    api = new_api()
    api.create(pod("shared").with_metadata(annotations={"count": "0"}))
    start = threading.Barrier(threads)

    def update_until_it_sticks(change: Callable[[Pod], Pod]) -> None:
        while True:
            current = api.get(Pod, "shared")
            try:
                api.update(change(current))
                return
            except Conflict:
                continue  # someone else wrote first: read again and redo the change

    def bump(p: Pod) -> Pod:
        count = int(p.metadata.annotations["count"]) + 1
        return p.with_metadata(annotations={**p.metadata.annotations, "count": str(count)})

    def worker(me: int) -> Callable[[], None]:
        def run() -> None:
            start.wait()
            update_until_it_sticks(
                lambda p: p.with_metadata(labels={**p.metadata.labels, f"t{me}": "yes"})
            )
            for _ in range(increments):
                update_until_it_sticks(bump)

        return run

    before = int(api.current_resource_version())
    run_threads([worker(i) for i in range(threads)])
    final = api.get(Pod, "shared")
    assert final.metadata.labels == {f"t{i}": "yes" for i in range(threads)}
    assert final.metadata.annotations["count"] == str(threads * increments)
    # Every successful update was exactly one write; conflicts wrote nothing.
    assert int(final.metadata.resource_version) == before + threads * (1 + increments)
