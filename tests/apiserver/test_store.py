"""Create, read, update and delete behave as the generic registry store does."""

from __future__ import annotations

import dataclasses
import random

import pytest

from framework.apiserver import (
    AlreadyExists,
    APIServer,
    BadRequest,
    Conflict,
    NotFound,
)
from framework.apiserver.errors import MSG_CONFLICT, MSG_OBJECT_MODIFIED
from framework.apiserver.store import BUILTIN_NAMESPACES
from framework.clock import FakeClock, rfc3339
from framework.objects import (
    Binding,
    Event,
    LabelSelector,
    Namespace,
    Node,
    NodeCondition,
    ObjectMeta,
    Pod,
    PriorityClass,
)
from framework.objects.labels import parse_selector
from tests.apiserver.helpers import binding, new_api, node, pod


def test_a_new_server_has_the_namespaces_and_classes_of_a_new_cluster(api: APIServer):
    assert sorted(n.name for n in api.list(Namespace).items) == sorted(BUILTIN_NAMESPACES)
    assert {pc.name for pc in api.list(PriorityClass).items} == {
        "system-cluster-critical",
        "system-node-critical",
    }
    assert api.current_resource_version() == "6"


def test_create_sets_identity_version_and_time(api: APIServer, clock: FakeClock):
    clock.advance(42)
    stored = api.create(pod())
    assert stored.metadata.uid == "uid-7"
    assert stored.metadata.resource_version == "7" == api.current_resource_version()
    assert stored.metadata.creation_timestamp == rfc3339(clock.now())
    assert api.get(Pod, "web") == stored


def test_each_write_gets_a_larger_resource_version(api: APIServer):
    versions = [int(api.create(pod(f"p{i}")).metadata.resource_version) for i in range(5)]
    assert versions == sorted(versions) and len(set(versions)) == 5


def test_creating_a_name_twice_is_already_exists(api: APIServer):
    api.create(pod())
    with pytest.raises(AlreadyExists) as caught:
        api.create(pod())
    assert caught.value.message == 'pods "web" already exists'


def test_the_same_name_may_live_in_two_namespaces(api: APIServer):
    api.create(pod())
    api.create(pod(namespace="kube-system"))
    assert api.get(Pod, "web", namespace="kube-system").namespace == "kube-system"


def test_a_missing_object_is_not_found(api: APIServer):
    with pytest.raises(NotFound) as caught:
        api.get(Pod, "ghost")
    assert caught.value.message == 'pods "ghost" not found'
    assert caught.value.to_status()["details"] == {"name": "ghost", "kind": "pods"}


def test_the_request_namespace_fills_in_and_must_agree(api: APIServer):
    assert api.create(pod("a"), namespace="kube-system").namespace == "kube-system"
    with pytest.raises(BadRequest, match="does not match the namespace sent on the request"):
        api.create(pod("b", namespace="default"), namespace="kube-system")


def test_a_cluster_scoped_object_has_no_namespace(api: APIServer):
    stored = api.create(Node(metadata=ObjectMeta(name="n1", namespace="default")))
    assert stored.namespace == "" and stored.key == "n1"


def test_a_resource_version_on_create_is_refused(api: APIServer):
    with pytest.raises(
        BadRequest, match="resourceVersion should not be set on objects to be created"
    ):
        api.create(pod().with_metadata(resource_version="3"))


def test_generate_name_appends_five_random_characters():
    api = new_api(rng=random.Random(1))
    first = api.create(
        Pod.from_dict({"metadata": {"generateName": "web-"}, "spec": pod().to_dict()["spec"]})
    )
    assert first.name.startswith("web-") and len(first.name) == len("web-") + 5
    assert set(first.name[4:]) <= set("bcdfghjklmnpqrstvwxz2456789")
    again = new_api(rng=random.Random(1)).create(
        first.with_metadata(name="", resource_version="", uid="")
    )
    assert again.name == first.name  # the same seed gives the same name


def test_a_long_generate_name_is_cut_to_fit(api: APIServer):
    stored = api.create(Node(metadata=ObjectMeta(generate_name="n" * 70)))
    assert len(stored.name) == 63


def test_serving_an_unknown_kind_is_a_bad_request(api: APIServer):
    with pytest.raises(BadRequest, match="bind a pod with bind"):
        api.create(binding("web", "n1"))
    with pytest.raises(BadRequest, match="does not store Binding"):
        api.list(Binding)


# --- list ---------------------------------------------------------------------------


def test_list_is_in_etcd_key_order(api: APIServer):
    api.create(Namespace(metadata=ObjectMeta(name="a")))
    api.create(Namespace(metadata=ObjectMeta(name="a-b")))
    for ns, name in [("a", "y"), ("a-b", "x"), ("a", "x"), ("default", "b")]:
        api.create(pod(name, namespace=ns))
    keys = [p.key for p in api.list(Pod).items]
    assert keys == ["a-b/x", "a/x", "a/y", "default/b"]  # "-" sorts before "/" in etcd
    assert [p.key for p in api.list(Pod, namespace="a").items] == ["a/x", "a/y"]


@pytest.mark.parametrize(
    "selector",
    [
        "app=web",
        parse_selector("app=web"),
        LabelSelector(match_labels={"app": "web"}),
    ],
    ids=["text", "compiled", "LabelSelector"],
)
def test_list_filters_by_label_selector_in_any_form(api: APIServer, selector):
    api.create(pod("a").with_metadata(labels={"app": "web"}))
    api.create(pod("b").with_metadata(labels={"app": "db"}))
    api.create(pod("c"))
    assert [p.name for p in api.list(Pod, label_selector=selector).items] == ["a"]


def test_list_reports_the_version_it_was_read_at(api: APIServer):
    api.create(pod())
    assert api.list(Pod).resource_version == api.current_resource_version()


def test_a_bad_label_selector_is_a_bad_request(api: APIServer):
    with pytest.raises(BadRequest, match="invalid label selector 'app in web'"):
        api.list(Pod, label_selector="app in web")


# --- update --------------------------------------------------------------------------------


def test_update_with_stale_resource_version_conflicts(api: APIServer):
    stale = api.create(pod())
    api.update(stale.with_metadata(labels={"v": "1"}))
    with pytest.raises(Conflict) as caught:
        api.update(stale.with_metadata(labels={"v": "2"}))
    assert caught.value.message == MSG_CONFLICT.format(
        resource="pods", name="web", reason=MSG_OBJECT_MODIFIED
    )
    assert caught.value.code == 409


def test_update_without_resource_version_is_unconditional(api: APIServer):
    stale = api.create(pod())
    api.update(stale.with_metadata(labels={"v": "1"}))
    updated = api.update(stale.with_metadata(labels={"v": "2"}, resource_version=""))
    assert updated.metadata.labels == {"v": "2"}


def test_update_keeps_the_stored_status(api: APIServer):
    stored = api.create(pod())
    sent = dataclasses.replace(stored, status=dataclasses.replace(stored.status, phase="Running"))
    assert api.update(sent.with_metadata(labels={"a": "b"})).status.phase == "Pending"


def test_an_update_that_changes_nothing_writes_nothing(api: APIServer):
    stored = api.create(pod())
    with api.watch(Pod, stored.metadata.resource_version) as watch:
        assert api.update(stored) == stored
        assert api.current_resource_version() == stored.metadata.resource_version
        assert watch.drain() == []


def test_updating_a_missing_object_is_not_found(api: APIServer):
    with pytest.raises(NotFound):
        api.update(pod())


def test_update_status_takes_the_status_and_keeps_the_spec(api: APIServer):
    stored = api.create(pod())
    sent = dataclasses.replace(
        stored,
        spec=dataclasses.replace(stored.spec, node_name="sneaky"),
        status=dataclasses.replace(stored.status, phase="Running", nominated_node_name="n2"),
    ).with_metadata(labels={"seen": "yes"})
    updated = api.update_status(sent)
    assert (updated.status.phase, updated.status.nominated_node_name) == ("Running", "n2")
    assert updated.spec == stored.spec
    assert updated.metadata.labels == {"seen": "yes"}  # as the real pods/status takes them
    assert updated.metadata.generation == stored.metadata.generation


def test_update_status_keeps_the_qos_class_when_sent_empty(api: APIServer):
    stored = api.create(pod())
    sent = dataclasses.replace(stored, status=dataclasses.replace(stored.status, qos_class=""))
    assert api.update_status(sent).status.qos_class == "BestEffort"


def test_node_status_goes_through_the_status_subresource_only(api: APIServer):
    stored = api.create(node("n1", capacity={"cpu": "4"}))
    ready = (NodeCondition(type="Ready", status="True"),)
    sent = dataclasses.replace(stored, status=dataclasses.replace(stored.status, conditions=ready))
    assert api.update(sent).status == stored.status
    assert api.update_status(sent).status.conditions == ready


def test_kinds_without_status_refuse_status_updates(api: APIServer):
    with pytest.raises(BadRequest, match="PriorityClass has no status subresource"):
        api.update_status(api.get(PriorityClass, "system-node-critical"))


# --- delete -----------------------------------------------------------------------------------


def test_delete_returns_the_final_state_with_a_new_version(api: APIServer):
    stored = api.create(pod())
    deleted = api.delete(Pod, "web")
    assert int(deleted.metadata.resource_version) > int(stored.metadata.resource_version)
    assert deleted.with_metadata(resource_version="") == stored.with_metadata(resource_version="")
    with pytest.raises(NotFound):
        api.get(Pod, "web")


def test_delete_preconditions_must_hold(api: APIServer):
    stored = api.create(pod())
    with pytest.raises(
        Conflict, match=r"the ResourceVersion in the precondition \(1\) does not match"
    ):
        api.delete(Pod, "web", resource_version="1")
    with pytest.raises(
        Conflict,
        match="Precondition failed: UID in precondition: other, UID in object meta: uid-7",
    ):
        api.delete(Pod, "web", uid="other")
    api.delete(
        Pod, "web", uid=stored.metadata.uid, resource_version=stored.metadata.resource_version
    )


def test_a_bound_pod_deleted_with_a_grace_period_is_only_marked(api: APIServer, clock: FakeClock):
    api.create(pod())
    bound = api.bind(binding("web", "n1"))
    marked = api.delete(Pod, "web", grace_period_seconds=None)
    assert marked.metadata.deletion_timestamp == rfc3339(clock.now() + 30)
    assert marked.metadata.deletion_grace_period_seconds == 30
    assert marked.metadata.generation == bound.metadata.generation + 1
    assert api.get(Pod, "web") == marked
    assert api.delete(Pod, "web", grace_period_seconds=60) == marked  # never extended
    api.delete(Pod, "web")
    with pytest.raises(NotFound):
        api.get(Pod, "web")


def test_an_unscheduled_pod_is_deleted_at_once_whatever_the_grace_period(api: APIServer):
    api.create(pod())
    api.delete(Pod, "web", grace_period_seconds=30)
    assert api.list(Pod).items == ()


def test_deleting_a_namespace_deletes_its_contents(api: APIServer):
    api.create(Namespace(metadata=ObjectMeta(name="team")))
    api.create(pod("a", namespace="team"))
    api.create(Event(metadata=ObjectMeta(name="e", namespace="team")))
    api.create(pod("b"))
    api.delete(Namespace, "team")
    assert [p.key for p in api.list(Pod).items] == ["default/b"]
    assert api.list(Event, namespace="team").items == ()
