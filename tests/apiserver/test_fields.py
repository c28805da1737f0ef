"""Field selectors parse and match as ``k8s.io/apimachinery/pkg/fields`` and the registries do."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer, BadRequest
from framework.apiserver.errors import MSG_FIELD_LABEL_NOT_SUPPORTED
from framework.apiserver.fields import parse_field_selector, selectable_fields
from framework.apiserver.selection import SelectionPredicate
from framework.objects import Event, EventSource, Node, ObjectMeta, ObjectReference, Pod
from tests.apiserver.helpers import binding, node, pod


@pytest.mark.parametrize(
    ("text", "fields", "matches"),
    [
        ("", {}, True),
        ("spec.nodeName=", {"spec.nodeName": ""}, True),
        ("spec.nodeName=", {"spec.nodeName": "n1"}, False),
        ("spec.nodeName!=", {"spec.nodeName": "n1"}, True),
        ("spec.nodeName==n1", {"spec.nodeName": "n1"}, True),
        (
            "spec.nodeName=n1,status.phase!=Failed",
            {"spec.nodeName": "n1", "status.phase": "Running"},
            True,
        ),
        (
            "spec.nodeName=n1,status.phase!=Failed",
            {"spec.nodeName": "n1", "status.phase": "Failed"},
            False,
        ),
        ("metadata.name=a\\,b", {"metadata.name": "a,b"}, True),
        ("metadata.name=a\\=b", {"metadata.name": "a=b"}, True),
        ("reason=x", {}, False),  # an absent field reads as ""
    ],
)
def test_field_selector_matches(text: str, fields: dict[str, str], matches: bool):
    assert parse_field_selector(text).matches_fields(fields) is matches


@pytest.mark.parametrize("text", ["spec.nodeName", "a=b=c", "a=b\\", "a=\\x"])
def test_malformed_field_selectors_are_bad_requests(text: str):
    with pytest.raises(BadRequest, match="invalid field selector"):
        parse_field_selector(text)


def test_field_selector_prints_what_it_parsed():
    assert str(parse_field_selector("a==x,b!=y\\,z")) == "a=x,b!=y\\,z"


@pytest.mark.parametrize(
    ("kind", "field"),
    [
        (Pod, "spec.containers"),
        (Pod, "metadata.labels"),
        (Node, "metadata.namespace"),
        (Node, "status.phase"),
        (Event, "message"),
    ],
)
def test_unsupported_fields_are_refused_as_the_real_server_refuses_them(
    api: APIServer, kind, field
):
    with pytest.raises(BadRequest) as caught:
        api.list(kind, field_selector=f"{field}=x")
    assert caught.value.message == MSG_FIELD_LABEL_NOT_SUPPORTED.format(field=field)
    assert caught.value.message == f"field label not supported: {field}"


def test_pod_fields_are_read_from_the_pod():
    fields = selectable_fields(
        Pod.from_dict(
            {
                "metadata": {"name": "web", "namespace": "ns"},
                "spec": {
                    "nodeName": "n1",
                    "schedulerName": "s",
                    "restartPolicy": "Never",
                    "hostNetwork": True,
                    "serviceAccountName": "sa",
                },
                "status": {
                    "phase": "Running",
                    "nominatedNodeName": "n2",
                    "podIPs": [{"ip": "10.0.0.1"}],
                },
            }
        )
    )
    assert fields == {
        "metadata.name": "web",
        "metadata.namespace": "ns",
        "spec.nodeName": "n1",
        "spec.restartPolicy": "Never",
        "spec.schedulerName": "s",
        "spec.serviceAccountName": "sa",
        "spec.hostNetwork": "true",
        "status.phase": "Running",
        "status.podIP": "10.0.0.1",
        "status.nominatedNodeName": "n2",
    }


def test_event_source_falls_back_to_the_reporting_component():
    event = Event(metadata=ObjectMeta(name="e"), reporting_component="sched")
    assert selectable_fields(event)["source"] == "sched"
    event = Event(metadata=ObjectMeta(name="e"), source=EventSource(component="kubelet"))
    assert selectable_fields(event)["source"] == "kubelet"


def test_scheduler_style_watches_split_pods_by_node_name(api: APIServer):
    api.create(pod("a"))
    api.create(pod("b"))
    api.bind(binding("b", "n1"))
    unscheduled = api.list(Pod, field_selector="spec.nodeName=").items
    scheduled = api.list(Pod, field_selector="spec.nodeName!=").items
    assert [p.name for p in unscheduled] == ["a"]
    assert [p.name for p in scheduled] == ["b"]
    assert [p.name for p in api.list(Pod, field_selector="spec.host=n1").items] == ["b"]


def test_cordoned_nodes_can_be_selected(api: APIServer):
    api.create(node("n1"))
    api.create(Node.from_dict({"metadata": {"name": "n2"}, "spec": {"unschedulable": True}}))
    cordoned = api.list(Node, field_selector="spec.unschedulable=true").items
    assert [n.name for n in cordoned] == ["n2"]


def test_events_can_be_selected_by_involved_object(api: APIServer):
    ref = ObjectReference(kind="Pod", namespace="default", name="web")
    api.create(Event(metadata=ObjectMeta(name="web.1"), involved_object=ref, reason="Scheduled"))
    api.create(
        Event(
            metadata=ObjectMeta(name="db.1"),
            involved_object=ObjectReference(kind="Pod", name="db"),
        )
    )
    found = api.list(Event, field_selector="involvedObject.name=web,reason=Scheduled").items
    assert [e.name for e in found] == ["web.1"]


# --- compiled for a kind: the same answers, reading only the named fields ----------------------

_POD_VALUES = {
    "metadata.name": ["a", "b"],
    "metadata.namespace": ["default", "other"],
    "spec.nodeName": ["", "n1"],
    "spec.schedulerName": ["default-scheduler", "other"],
    "spec.hostNetwork": ["true", "false"],
    "status.phase": ["Pending", "Running", "Failed", ""],
    "status.nominatedNodeName": ["", "n2"],
}


@given(
    phase=st.sampled_from(["Pending", "Running", "Succeeded", "Failed"]),
    node_name=st.sampled_from(["", "n1"]),
    host_network=st.booleans(),
    terms=st.lists(
        st.tuples(
            st.sampled_from(sorted(_POD_VALUES)), st.sampled_from(["=", "!="]), st.integers(0, 3)
        ),
        max_size=3,
    ),
)
@settings(max_examples=200, deadline=None)
def test_a_compiled_selector_answers_as_the_selectable_fields_do(
    phase: str, node_name: str, host_network: bool, terms: list[tuple[str, str, int]]
) -> None:
    """``FieldSelector.compiled`` (what a watch calls per change) agrees with ``GetAttrs``' map."""
    subject = Pod.from_dict(
        {
            "metadata": {"name": "a", "namespace": "default"},
            "spec": {"nodeName": node_name, "hostNetwork": host_network, "containers": []},
            "status": {"phase": phase},
        }
    )
    text = ",".join(
        f"{field}{op}{_POD_VALUES[field][i % len(_POD_VALUES[field])]}" for field, op, i in terms
    )
    selector = parse_field_selector(text).for_kind("Pod")
    assert selector.compiled(Pod)(subject) is selector.matches_fields(selectable_fields(subject))
    predicate = SelectionPredicate.compile(Pod, "default", "", text)
    assert predicate(subject) is selector.matches(subject)
