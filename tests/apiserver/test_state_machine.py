"""The API server against a trivially correct model: a dict of pods and a list of versions.

Hypothesis drives random programs of creates, updates, stale updates,
deletes, binds and filtered lists against both, and checks after every step
that they agree, that resourceVersions only grow, that a watch opened at the
start has mirrored every change, and that a watch replayed from any retained
resourceVersion rebuilds exactly the model's state (or is refused with
Expired when that version has left the window).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from framework.apiserver import DELETED, AlreadyExists, Conflict, Expired, NotFound, WatchEvent
from framework.objects import Pod
from framework.objects.labels import parse_selector
from tests.apiserver.helpers import binding, new_api, pod

NAMES = st.sampled_from(["a", "b", "c", "d"])
LABELS = st.fixed_dictionaries(
    {}, optional={"app": st.sampled_from(["web", "db"]), "tier": st.just("x")}
)
NODES = st.sampled_from(["n1", "n2"])
LABEL_SELECTORS = st.sampled_from(["", "app=web", "app!=web", "tier", "!tier", "app in (web,db)"])
FIELD_SELECTORS = st.sampled_from(["", "spec.nodeName=", "spec.nodeName!=", "spec.nodeName=n1"])
WINDOW = 4


@dataclass(frozen=True)
class ModelPod:
    """All the model knows of a pod."""

    labels: tuple[tuple[str, str], ...]
    node: str = ""
    old_versions: tuple[str, ...] = field(default=(), compare=False)


State = dict[str, ModelPod]


def as_model(p: Pod) -> ModelPod:
    return ModelPod(tuple(sorted(p.metadata.labels.items())), p.spec.node_name)


def apply(state: State, events: list[WatchEvent]) -> State:
    state = dict(state)
    for event in events:
        if event.type == DELETED:
            del state[event.object.metadata.name]
        else:
            state[event.object.metadata.name] = as_model(event.object)
    return state


class APIServerMachine(RuleBasedStateMachine):
    @initialize()
    def start(self) -> None:
        self.api = new_api(watch_window=WINDOW)
        self.model: State = {}
        self.last_version = int(self.api.current_resource_version())
        # (resourceVersion, model state after it), one entry per pod write, plus the start.
        self.history: list[tuple[int, State]] = [(self.last_version, {})]
        self.mirror_watch = self.api.watch(Pod)
        self.mirror: State = {}

    def committed(self, stored: Pod) -> None:
        version = int(stored.metadata.resource_version)
        assert version > self.last_version, "resourceVersions must strictly increase"
        self.last_version = version
        self.history.append((version, dict(self.model)))

    # --- writes -------------------------------------------------------------------------

    @rule(name=NAMES, labels=LABELS)
    def create(self, name: str, labels: dict[str, str]) -> None:
        if name in self.model:
            with pytest.raises(AlreadyExists):
                self.api.create(pod(name).with_metadata(labels=labels))
            return
        stored = self.api.create(pod(name).with_metadata(labels=labels))
        self.model[name] = ModelPod(tuple(sorted(labels.items())))
        self.committed(stored)

    @rule(name=NAMES, labels=LABELS)
    def update(self, name: str, labels: dict[str, str]) -> None:
        if name not in self.model:
            with pytest.raises(NotFound):
                self.api.update(pod(name).with_metadata(labels=labels))
            return
        current = self.api.get(Pod, name)
        updated = self.api.update(current.with_metadata(labels=labels))
        old = self.model[name]
        new_labels = tuple(sorted(labels.items()))
        if new_labels == old.labels:
            assert updated == current  # nothing changed, nothing written
            return
        stale = (*old.old_versions, current.metadata.resource_version)
        self.model[name] = ModelPod(new_labels, old.node, stale)
        self.committed(updated)

    @precondition(lambda self: any(p.old_versions for p in self.model.values()))
    @rule(data=st.data())
    def stale_update(self, data: st.DataObject) -> None:
        name = data.draw(
            st.sampled_from(sorted(n for n, p in self.model.items() if p.old_versions))
        )
        stale = self.api.get(Pod, name).with_metadata(
            resource_version=self.model[name].old_versions[0], labels={"stale": "yes"}
        )
        with pytest.raises(Conflict):
            self.api.update(stale)

    @rule(name=NAMES)
    def delete(self, name: str) -> None:
        if name not in self.model:
            with pytest.raises(NotFound):
                self.api.delete(Pod, name)
            return
        deleted = self.api.delete(Pod, name)
        del self.model[name]
        self.committed(deleted)

    @rule(name=NAMES, node=NODES)
    def bind(self, name: str, node: str) -> None:
        if name not in self.model:
            with pytest.raises(NotFound):
                self.api.bind(binding(name, node))
            return
        if self.model[name].node:
            with pytest.raises(Conflict):
                self.api.bind(binding(name, node))
            return
        before = self.api.get(Pod, name).metadata.resource_version
        bound = self.api.bind(binding(name, node))
        old = self.model[name]
        self.model[name] = ModelPod(old.labels, node, (*old.old_versions, before))
        self.committed(bound)

    # --- reads --------------------------------------------------------------------------

    @rule(labels=LABEL_SELECTORS, fields=FIELD_SELECTORS)
    def list_with_selectors(self, labels: str, fields: str) -> None:
        selector = parse_selector(labels)
        want_node = fields.partition("=")[2]

        def field_ok(p: ModelPod) -> bool:
            if not fields:
                return True
            if fields.startswith("spec.nodeName!="):
                return p.node != want_node
            return p.node == want_node

        expected = sorted(
            n for n, p in self.model.items() if selector.matches(dict(p.labels)) and field_ok(p)
        )
        got = self.api.list(Pod, label_selector=labels, field_selector=fields).items
        assert [p.metadata.name for p in got] == expected

    @rule(data=st.data())
    def replay_watch_from_a_past_version(self, data: st.DataObject) -> None:
        version, state_then = data.draw(st.sampled_from(self.history))
        pod_writes = [v for v, _ in self.history[1:]]
        floor = pod_writes[-WINDOW] - 1 if len(pod_writes) > WINDOW else 0
        if version < floor:
            with pytest.raises(Expired):
                self.api.watch(Pod, version)
            return
        with self.api.watch(Pod, version) as replay:
            assert apply(state_then, replay.drain()) == self.model

    # --- invariants -----------------------------------------------------------------------

    @invariant()
    def server_agrees_with_the_model(self) -> None:
        if not hasattr(self, "api"):
            return
        stored = {p.metadata.name: as_model(p) for p in self.api.list(Pod).items}
        assert stored == self.model

    @invariant()
    def the_opening_watch_mirrors_every_change(self) -> None:
        if not hasattr(self, "api"):
            return
        self.mirror = apply(self.mirror, self.mirror_watch.drain())
        assert self.mirror == self.model

    def teardown(self) -> None:
        if hasattr(self, "mirror_watch"):
            self.mirror_watch.stop()


APIServerMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=40, deadline=None
)
TestAPIServerAgainstModel = APIServerMachine.TestCase
