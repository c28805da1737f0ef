"""Validation refuses what ``pkg/apis/core/validation`` refuses, with every cause at once."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from framework.apiserver import APIServer, Invalid
from framework.apiserver.pod_update import MSG_POD_SPEC_IMMUTABLE
from framework.clock import FakeClock
from framework.objects import Event, Namespace, Node, ObjectMeta, ObjectReference, Pod
from tests.apiserver.helpers import pod


def manifest_pod(**spec: Any) -> Pod:
    return Pod.from_dict({"metadata": {"name": "web"}, "spec": spec})


def container(name: str = "app", **fields: Any) -> dict[str, Any]:
    return {"name": name, "image": "nginx", **fields}


@pytest.mark.parametrize(
    ("spec", "cause"),
    [
        pytest.param({}, "spec.containers: Required value", id="no containers"),
        pytest.param(
            {"containers": [{"image": "x"}]},
            "spec.containers[0].name: Required value",
            id="no name",
        ),
        pytest.param(
            {"containers": [{"name": "a"}]},
            "spec.containers[0].image: Required value",
            id="no image",
        ),
        pytest.param(
            {"containers": [container("a"), container("a")]},
            'spec.containers[1].name: Duplicate value: "a"',
            id="duplicate names",
        ),
        pytest.param(
            {"initContainers": [container("a")], "containers": [container("a")]},
            'spec.containers[0].name: Duplicate value: "a"',
            id="names are shared with init containers",
        ),
        pytest.param(
            {"containers": [container("App")]},
            'spec.containers[0].name: Invalid value: "App": a lowercase RFC 1123 label',
            id="container name not a DNS label",
        ),
        pytest.param(
            {"containers": [container(resources={"requests": {"cpu": "-1"}})]},
            'requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
            id="negative request",
        ),
        pytest.param(
            {
                "containers": [
                    container(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})
                ]
            },
            'requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
            id="request above limit",
        ),
        pytest.param(
            {
                "containers": [
                    container(
                        resources={
                            "requests": {"nvidia.com/gpu": "1"},
                            "limits": {"nvidia.com/gpu": "2"},
                        }
                    )
                ]
            },
            'requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2',
            id="extended resources are not overcommitted",
        ),
        pytest.param(
            {"containers": [container(resources={"requests": {"example.com/dongle": "1"}})]},
            "limits: Required value: Limit must be set for non overcommitable resources",
            id="extended resources need a limit",
        ),
        pytest.param(
            {
                "containers": [container()],
                "tolerations": [{"key": "k", "operator": "Exists", "value": "v"}],
            },
            "operator: Invalid value: \"Exists\": value must be empty when `operator` is 'Exists'",
            id="exists with a value",
        ),
        pytest.param(
            {"containers": [container()], "tolerations": [{"operator": "Equal", "value": "v"}]},
            "operator must be Exists when `key` is empty",
            id="empty key needs exists",
        ),
        pytest.param(
            {
                "containers": [container()],
                "tolerations": [{"key": "k", "effect": "NoSchedule", "tolerationSeconds": 5}],
            },
            "effect must be 'NoExecute' when `tolerationSeconds` is set",
            id="toleration seconds need NoExecute",
        ),
        pytest.param(
            {"containers": [container()], "tolerations": [{"key": "k", "effect": "Sometimes"}]},
            'spec.tolerations[0].effect: Unsupported value: "Sometimes": '
            'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
            id="unknown effect",
        ),
        pytest.param(
            {"containers": [container()], "restartPolicy": "Sometimes"},
            'spec.restartPolicy: Unsupported value: "Sometimes"',
            id="unknown restart policy",
        ),
    ],
)
def test_invalid_pods_are_refused(api: APIServer, spec: dict[str, Any], cause: str):
    with pytest.raises(Invalid) as caught:
        api.create(manifest_pod(**spec))
    assert caught.value.message.startswith('Pod "web" is invalid: ')
    assert cause in caught.value.message
    assert caught.value.kind == "Pod"


def test_every_problem_is_reported_together(api: APIServer):
    bad = Pod.from_dict({"metadata": {"name": "Web"}, "spec": {"containers": [{"name": "a"}]}})
    with pytest.raises(Invalid) as caught:
        api.create(bad)
    assert [c.field for c in caught.value.causes] == ["metadata.name", "spec.containers[0].image"]
    assert caught.value.message.startswith(
        'Pod "Web" is invalid: [metadata.name: Invalid value: "Web"'
    )


@pytest.mark.parametrize(
    ("obj", "cause"),
    [
        (Pod(), "metadata.name: Required value: name or generateName is required"),
        (Node(metadata=ObjectMeta(name="N_1")), 'metadata.name: Invalid value: "N_1"'),
        (Namespace(metadata=ObjectMeta(name="team.a")), "a lowercase RFC 1123 label must consist"),
        (
            Node(metadata=ObjectMeta(name="n1", labels={"-bad": "x"})),
            'metadata.labels: Invalid value: "-bad"',
        ),
        (
            Node(metadata=ObjectMeta(name="n1", labels={"ok": "-bad"})),
            'metadata.labels: Invalid value: "-bad"',
        ),
        (
            Node.from_dict(
                {"metadata": {"name": "n1"}, "spec": {"taints": [{"key": "k", "effect": "Never"}]}}
            ),
            'spec.taints[0].effect: Unsupported value: "Never"',
        ),
        (
            Event(
                metadata=ObjectMeta(name="e"), involved_object=ObjectReference(namespace="other")
            ),
            'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
        ),
    ],
)
def test_invalid_metadata_and_other_kinds_are_refused(api: APIServer, obj, cause: str):
    with pytest.raises(Invalid) as caught:
        api.create(obj)
    assert cause in caught.value.message


# --- updates ------------------------------------------------------------------------------


@pytest.fixture
def stored(api: APIServer) -> Pod:
    return api.create(pod(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoExecute"}]))


def replace_spec(p: Pod, **changes: Any) -> Pod:
    return dataclasses.replace(p, spec=dataclasses.replace(p.spec, **changes))


def test_a_pods_image_may_change_and_bumps_its_generation(api: APIServer, stored: Pod):
    new = replace_spec(
        stored, containers=(dataclasses.replace(stored.spec.containers[0], image="nginx:2"),)
    )
    updated = api.update(new)
    assert updated.spec.containers[0].image == "nginx:2"
    assert updated.metadata.generation == 2


def test_labels_may_change_without_bumping_the_generation(api: APIServer, stored: Pod):
    updated = api.update(stored.with_metadata(labels={"app": "web"}))
    assert updated.metadata.generation == 1


def test_tolerations_may_be_added_and_their_seconds_changed(api: APIServer, stored: Pod):
    first, *rest = stored.spec.tolerations
    extra = dataclasses.replace(first, key="other")
    updated = api.update(replace_spec(stored, tolerations=(first, *rest, extra)))
    assert len(updated.spec.tolerations) == len(stored.spec.tolerations) + 1


def test_tolerations_may_not_be_removed(api: APIServer, stored: Pod):
    with pytest.raises(
        Invalid, match="existing toleration can not be modified except its tolerationSeconds"
    ):
        api.update(replace_spec(stored, tolerations=stored.spec.tolerations[1:]))


def test_any_other_spec_change_is_forbidden_with_the_real_message(api: APIServer, stored: Pod):
    with pytest.raises(Invalid) as caught:
        api.update(replace_spec(stored, node_name="n1"))
    (cause,) = caught.value.causes
    assert cause.field == "spec"
    assert cause.detail.startswith(MSG_POD_SPEC_IMMUTABLE)
    assert "nodeName" in cause.detail
    assert caught.value.message.startswith(
        'Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than '
        "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"
    )


def test_containers_may_not_be_added(api: APIServer, stored: Pod):
    more = replace_spec(
        stored,
        containers=(
            *stored.spec.containers,
            dataclasses.replace(stored.spec.containers[0], name="b"),
        ),
    )
    with pytest.raises(
        Invalid, match=r"spec\.containers: Forbidden: pod updates may not add or remove containers"
    ):
        api.update(more)


def test_scheduling_gates_may_only_be_removed(api: APIServer):
    gated = api.create(pod("gated", schedulingGates=[{"name": "a"}, {"name": "b"}]))
    fewer = api.update(replace_spec(gated, scheduling_gates=gated.spec.scheduling_gates[1:]))
    assert [g.name for g in fewer.spec.scheduling_gates] == ["b"]
    more = replace_spec(
        fewer,
        scheduling_gates=(
            *fewer.spec.scheduling_gates,
            dataclasses.replace(fewer.spec.scheduling_gates[0], name="c"),
        ),
    )
    with pytest.raises(
        Invalid, match="only deletion is allowed, but found new scheduling gate 'c'"
    ):
        api.update(more)


def test_a_gated_pods_node_selector_may_grow_but_not_change(api: APIServer):
    gated = api.create(pod("gated", schedulingGates=[{"name": "a"}], nodeSelector={"zone": "a"}))
    grown = api.update(replace_spec(gated, node_selector={"zone": "a", "disk": "ssd"}))
    assert grown.spec.node_selector == {"zone": "a", "disk": "ssd"}
    with pytest.raises(Invalid, match=r"spec.nodeSelector\[zone\]: Forbidden"):
        api.update(replace_spec(grown, node_selector={"zone": "b"}))


def test_an_ungated_pods_node_selector_is_frozen(api: APIServer, stored: Pod):
    with pytest.raises(Invalid, match="pod updates may not change fields"):
        api.update(replace_spec(stored, node_selector={"zone": "a"}))


def test_active_deadline_seconds_may_change(api: APIServer, stored: Pod):
    spec = dataclasses.replace(stored.spec, extra={"activeDeadlineSeconds": 60})
    assert (
        api.update(dataclasses.replace(stored, spec=spec)).spec.extra["activeDeadlineSeconds"]
        == 60
    )


def test_the_uid_is_immutable(api: APIServer, stored: Pod):
    immutable = r'metadata\.uid: Invalid value: "other": field is immutable'
    with pytest.raises(Invalid, match=immutable):
        api.update(stored.with_metadata(uid="other"))


def test_the_creation_timestamp_cannot_be_rewritten(api: APIServer, stored: Pod):
    updated = api.update(
        stored.with_metadata(creation_timestamp="2000-01-01T00:00:00Z", labels={"a": "b"})
    )
    assert updated.metadata.creation_timestamp == stored.metadata.creation_timestamp
    assert updated.metadata.uid == stored.metadata.uid


# --- round two of hostile input: negative node resources, a generateName too long ---


@pytest.mark.parametrize("part", ["capacity", "allocatable"])
def test_a_node_with_negative_resources_is_invalid_on_create_and_status_update(part: str) -> None:
    """``ValidateNode``/``ValidateNodeUpdate``: ``ValidateResourceQuantityValue`` on each quantity."""
    api = APIServer(FakeClock())
    bad = Node.from_dict({"metadata": {"name": "n1"}, "status": {part: {"cpu": "-1"}}})
    with pytest.raises(Invalid) as caught:
        api.create(bad)
    assert str(caught.value.causes[0]) == (
        f'status.{part}[cpu]: Invalid value: "-1": must be greater than or equal to 0'
    )
    good = api.create(Node.from_dict({"metadata": {"name": "n1"}}))
    with pytest.raises(Invalid):
        api.update_status(bad.with_metadata(resource_version=good.metadata.resource_version))


def test_a_generate_name_longer_than_a_name_may_be_is_invalid() -> None:
    """``ValidateObjectMetaAccessor`` validates generateName as a name prefix."""
    api = APIServer(FakeClock())
    manifest = {"spec": {"containers": [{"name": "c", "image": "i"}]}}
    long = Pod.from_dict({"metadata": {"generateName": "a" * 300}, **manifest})
    with pytest.raises(Invalid) as caught:
        api.create(long)
    assert any(c.field == "metadata.generateName" for c in caught.value.causes)
    ok = long.with_metadata(generate_name="web-")
    assert api.create(ok).metadata.name.startswith("web-")
