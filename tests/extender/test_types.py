"""The extender wire documents: Go's field names, Go's nulls, Go's case-insensitive decoding.

Expectations come from ``TestCompatibility`` in
``kubernetes/kubernetes:staging/src/k8s.io/kube-scheduler/extender/v1/types_test.go``:
the JSON literals below are its ``expectJSON`` strings (the pod and node
bodies inside are API objects, compared field by field rather than byte
by byte, because Go writes its empty defaults such as
``"creationTimestamp": null``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from framework.extender.types import (
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    ExtenderPreemptionArgs,
    ExtenderPreemptionResult,
    HostPriority,
    MetaPod,
    MetaVictims,
    WireFormatError,
    decode_host_priority_list,
)
from framework.objects import Node, Pod

KUBE_PREEMPTION_RESULT = (
    '{"NodeNameToMetaVictims":{"foo":{"Pods":[{"UID":"myuid"}],"NumPDBViolations":1}}}'
)
KUBE_BINDING_ARGS = (
    '{"PodName":"mypodname","PodNamespace":"mypodnamespace","PodUID":"mypoduid","Node":"mynode"}'
)
KUBE_BINDING_RESULT = '{"Error":"myerror"}'
KUBE_HOST_PRIORITY = '{"Host":"myhost","Score":1}'
KUBE_EXTENDER_ARGS = (
    '{"Pod":{"metadata":{"name":"podname","creationTimestamp":null},"spec":{"containers":null},'
    '"status":{}},"Nodes":{"metadata":{},"items":[{"metadata":{"name":"nodename",'
    '"creationTimestamp":null},"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":'
    '{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"",'
    '"osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"",'
    '"operatingSystem":"","architecture":""}}}]},"NodeNames":["node1"]}'
)
KUBE_FILTER_RESULT = (
    '{"Nodes":{"metadata":{},"items":[{"metadata":{"name":"nodename","creationTimestamp":null},'
    '"spec":{},"status":{}}]},"NodeNames":["node1"],"FailedNodes":{"foo":"bar"},'
    '"Error":"myerror"}'
)


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


@pytest.mark.parametrize(
    ("obj", "kube_json"),
    [
        (
            ExtenderPreemptionResult({"foo": MetaVictims((MetaPod("myuid"),), 1)}),
            KUBE_PREEMPTION_RESULT,
        ),
        (
            ExtenderBindingArgs("mypodname", "mypodnamespace", "mypoduid", "mynode"),
            KUBE_BINDING_ARGS,
        ),
        (ExtenderBindingResult("myerror"), KUBE_BINDING_RESULT),
        (HostPriority("myhost", 1), KUBE_HOST_PRIORITY),
    ],
    ids=[
        "ExtenderPreemptionResult",
        "ExtenderBindingArgs",
        "ExtenderBindingResult",
        "HostPriority",
    ],
)
def test_documents_without_objects_are_written_byte_for_byte_as_go_writes_them(
    obj: Any, kube_json: str
) -> None:
    assert _compact(obj.to_json()) == kube_json
    assert type(obj).from_json(json.loads(kube_json)) == obj
    # TestCompatibility decodes the lowercased JSON too: Go matches keys without case.
    assert type(obj).from_json(json.loads(kube_json.lower())) == obj


@pytest.mark.parametrize("lower", [False, True], ids=["as written", "lowercased"])
def test_extender_args_from_kube_carry_the_pod_the_nodes_and_the_names(lower: bool) -> None:
    text = KUBE_EXTENDER_ARGS.lower() if lower else KUBE_EXTENDER_ARGS
    args = ExtenderArgs.from_json(json.loads(text))
    assert args.pod.name == "podname"
    assert [n.name for n in args.nodes or ()] == ["nodename"]
    assert args.node_names == ("node1",)


def test_filter_result_from_kube_keeps_nodes_names_failures_and_error() -> None:
    result = ExtenderFilterResult.from_json(json.loads(KUBE_FILTER_RESULT))
    assert [n.name for n in result.nodes or ()] == ["nodename"]
    assert result.node_names == ("node1",)
    assert result.failed_nodes == {"foo": "bar"}
    assert result.failed_and_unresolvable_nodes == {}
    assert result.error == "myerror"


def test_unset_pointers_and_maps_are_written_as_null_as_go_writes_nil() -> None:
    # types.go has no json tags and no omitempty: every field is written, nil as null.
    written = ExtenderFilterResult(node_names=("n1",)).to_json()
    assert written == {
        "Nodes": None,
        "NodeNames": ["n1"],
        "FailedNodes": None,
        "FailedAndUnresolvableNodes": None,
        "Error": "",
    }


def test_args_with_node_names_send_no_node_objects() -> None:
    pod = Pod.from_dict({"metadata": {"name": "p"}})
    written = ExtenderArgs(pod, node_names=("a", "b")).to_json()
    assert written["Nodes"] is None
    assert written["NodeNames"] == ["a", "b"]
    assert "apiVersion" not in written["Pod"]  # Go's TypeMeta is empty, so omitted


@pytest.mark.parametrize(
    "document",
    [
        ExtenderArgs(
            Pod.from_dict({"metadata": {"name": "p", "uid": "u"}}),
            nodes=(Node.from_dict({"metadata": {"name": "n", "labels": {"disktype": "ssd"}}}),),
        ),
        ExtenderFilterResult(
            node_names=("a",), failed_nodes={"b": "no"}, failed_and_unresolvable_nodes={"c": "x"}
        ),
        ExtenderPreemptionArgs(
            Pod.from_dict({"metadata": {"name": "p"}}),
            node_name_to_meta_victims={"n": MetaVictims((MetaPod("u1"), MetaPod("u2")), 0)},
        ),
    ],
    ids=["args with nodes", "filter result", "preemption args with meta victims"],
)
def test_documents_round_trip_through_json(document: Any) -> None:
    text = json.dumps(document.to_json())
    assert type(document).from_json(json.loads(text)) == document


def test_a_null_priority_list_is_empty_and_a_bad_score_names_its_field() -> None:
    assert decode_host_priority_list(None) == []
    with pytest.raises(WireFormatError, match=r"HostPriorityList\[0\]\.Score"):
        decode_host_priority_list([{"Host": "a", "Score": "high"}])
