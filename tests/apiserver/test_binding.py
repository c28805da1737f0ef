"""``pods/binding`` assigns a pod once, as ``pkg/registry/core/pod/storage/storage.go`` does."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from framework.apiserver import APIServer, Conflict, Invalid, NotFound
from framework.apiserver.errors import (
    MSG_CONFLICT,
    MSG_POD_ALREADY_ASSIGNED,
    MSG_POD_BEING_DELETED,
    MSG_POD_SCHEDULING_GATED,
)
from framework.clock import FakeClock, rfc3339
from framework.objects import Binding, ObjectMeta, ObjectReference, Pod, PodCondition
from tests.apiserver.helpers import binding, pod


def test_binding_sets_the_node_and_the_scheduled_condition(api: APIServer, clock: FakeClock):
    created = api.create(pod())
    clock.advance(5)
    bound = api.bind(binding("web", "n1", annotations={"scheduler": "mine"}))
    assert bound.spec.node_name == "n1"
    assert bound.metadata.annotations == {"scheduler": "mine"}
    assert bound.status.conditions == (
        PodCondition(
            type="PodScheduled", status="True", last_transition_time=rfc3339(clock.now())
        ),
    )
    assert bound.metadata.generation == created.metadata.generation  # bindings do not bump it
    assert api.get(Pod, "web") == bound


def test_a_binding_without_annotations_keeps_the_pods_own(api: APIServer):
    # pkg/registry/core/pod/storage/storage.go setPodNodeAndMetadata: annotations are merged in.
    created = api.create(pod().with_metadata(annotations={"team": "blue"}))
    bound = api.bind(binding("web", "n1"))
    assert bound.metadata.annotations == {"team": "blue"}
    assert dataclasses.replace(
        bound.metadata, resource_version=created.metadata.resource_version
    ) == (created.metadata)


def test_binding_replaces_an_unschedulable_condition_whole(api: APIServer):
    created = api.create(pod())
    failed = PodCondition(
        type="PodScheduled", status="False", reason="Unschedulable", message="0/3 nodes"
    )
    api.update_status(
        dataclasses.replace(
            created, status=dataclasses.replace(created.status, conditions=(failed,))
        )
    )
    (condition,) = api.bind(binding("web", "n1")).status.conditions
    assert (condition.status, condition.reason, condition.message) == ("True", "", "")


def test_binding_is_one_modified_event(api: APIServer):
    created = api.create(pod())
    with api.watch(Pod, created.metadata.resource_version) as watch:
        bound = api.bind(binding("web", "n1"))
        assert [(e.type, e.object) for e in watch.drain()] == [("MODIFIED", bound)]


def test_the_node_need_not_exist(api: APIServer):
    api.create(pod())
    assert api.bind(binding("web", "no-such-node")).spec.node_name == "no-such-node"


def test_binding_a_bound_pod_conflicts(api: APIServer):
    api.create(pod())
    api.bind(binding("web", "n1"))
    with pytest.raises(Conflict) as caught:
        api.bind(binding("web", "n2"))
    why = MSG_POD_ALREADY_ASSIGNED.format(pod="web", node="n1")
    assert why == 'pod web is already assigned to node "n1"'
    assert caught.value.message == MSG_CONFLICT.format(
        resource="pods/binding", name="web", reason=why
    )
    assert caught.value.why == why


def test_binding_a_pod_being_deleted_conflicts(api: APIServer):
    api.create(pod())
    api.bind(binding("web", "n1"))
    api.delete(Pod, "web", grace_period_seconds=30)
    with pytest.raises(Conflict) as caught:
        api.bind(binding("web", "n2"))
    assert caught.value.why == MSG_POD_BEING_DELETED.format(pod="web")


def test_binding_a_gated_pod_conflicts(api: APIServer):
    api.create(pod(schedulingGates=[{"name": "wait"}]))
    with pytest.raises(Conflict) as caught:
        api.bind(binding("web", "n1"))
    assert caught.value.why == MSG_POD_SCHEDULING_GATED.format(pod="web")


def test_binding_a_missing_pod_is_not_found(api: APIServer):
    with pytest.raises(NotFound, match='pods "web" not found'):
        api.bind(binding("web", "n1"))


def test_the_bindings_uid_and_version_are_preconditions(api: APIServer):
    created = api.create(pod())
    with pytest.raises(Conflict, match="Precondition failed: UID in precondition: other"):
        api.bind(binding("web", "n1", uid="other"))
    with pytest.raises(Conflict, match="the ResourceVersion in the precondition"):
        api.bind(binding("web", "n1", resource_version="1"))
    meta = created.metadata
    assert (
        api.bind(
            binding("web", "n1", uid=meta.uid, resource_version=meta.resource_version)
        ).spec.node_name
        == "n1"
    )


@pytest.mark.parametrize(
    ("target", "cause"),
    [
        (
            ObjectReference(kind="Pod", name="n1"),
            'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
        ),
        (ObjectReference(kind="Node"), "target.name: Required value"),
    ],
)
def test_a_binding_must_target_a_named_node(api: APIServer, target: ObjectReference, cause: str):
    api.create(pod())
    with pytest.raises(Invalid) as caught:
        api.bind(Binding(metadata=ObjectMeta(name="web"), target=target))
    assert caught.value.message == f'Binding "web" is invalid: {cause}'


def test_a_binding_without_kind_is_taken_as_a_node(api: APIServer):
    api.create(pod())
    assert (
        api.bind(
            Binding(metadata=ObjectMeta(name="web"), target=ObjectReference(name="n1"))
        ).spec.node_name
        == "n1"
    )


def test_of_two_racing_schedulers_exactly_one_binds(api: APIServer):
    api.create(pod())
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def scheduler(node_name: str) -> None:
        start.wait()
        try:
            api.bind(binding("web", node_name))
            outcomes.append(node_name)
        except Conflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=scheduler, args=(f"n{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in outcomes if o != "conflict"]
    assert len(winners) == 1 and outcomes.count("conflict") == 7
    assert api.get(Pod, "web").spec.node_name == winners[0]


def test_the_bound_pod_carries_the_bindings_resource_version(api: APIServer):
    created = api.create(pod().with_metadata(annotations={"team": "blue"}))
    with_note = dataclasses.replace(
        binding("web", "n1"),
        metadata=dataclasses.replace(binding("web", "n1").metadata, annotations={"by": "me"}),
    )
    bound = api.bind(with_note)
    assert bound.metadata.resource_version == api.current_resource_version()
    assert int(bound.metadata.resource_version) == int(created.metadata.resource_version) + 1
    assert bound.metadata.annotations == {"team": "blue", "by": "me"}
    assert api.get(Pod, "web") is bound
