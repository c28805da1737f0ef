"""Loading manifests: typed objects out, or one clear error per problem and nothing loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from framework.objects import Node, Pod, Unstructured
from framework.objects.manifest import ManifestError, dump_manifests, load_manifests, loads

MIXED = """\
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {topology.kubernetes.io/zone: zone-1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  creationTimestamp: 2025-04-23T12:00:00Z
spec:
  containers:
  - name: app
    image: nginx
    resources:
      requests: {cpu: 500m, memory: 256Mi}
---
# an empty document is skipped
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: 3}
"""


def test_a_multi_document_file_loads_in_order_with_unknown_kinds_kept_whole() -> None:
    node, pod, deployment = loads(MIXED, "cluster.yaml")
    assert isinstance(node, Node) and node.name == "node-a"
    assert node.status.allocatable["memory"].units == 8 * 1024**3
    assert isinstance(pod, Pod) and pod.spec.containers[0].resources.requests["cpu"].milli == 500
    assert isinstance(deployment, Unstructured)
    assert deployment.to_dict()["spec"] == {"replicas": 3}


def test_timestamps_stay_text_as_kubernetes_reads_them() -> None:
    pod = loads(MIXED)[1]
    assert pod.metadata.creation_timestamp == "2025-04-23T12:00:00Z"


def test_json_and_list_kinds_are_understood() -> None:
    text = '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n1"}}]}'
    (node,) = loads(text)
    assert isinstance(node, Node)


def test_a_bad_quantity_names_file_object_and_field() -> None:
    text = MIXED.replace("cpu: 500m", 'cpu: "1 core"')
    with pytest.raises(ManifestError) as caught:
        loads(text, "pods.yaml")
    assert str(caught.value) == (
        'pods.yaml: Pod default/web: spec.containers[0].resources.requests.cpu: "1 core" is not a valid '
        "quantity (expected a number with an optional suffix such as 500m, 2, 1.5Gi or 1e3)"
    )


def test_every_problem_is_reported_together_and_nothing_is_loaded(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(MIXED.replace("cpu: 500m", "cpu: lots"))
    (tmp_path / "b.yaml").write_text("kind: Node\nmetadata: {name: n2, labels: {tier: 1}}\n")
    with pytest.raises(ManifestError) as caught:
        load_manifests(tmp_path)
    messages = [str(p) for p in caught.value.problems]
    assert len(messages) == 2
    assert messages[0].startswith(f"{tmp_path / 'a.yaml'}: Pod default/web: spec.containers[0]")
    assert messages[1] == (
        f"{tmp_path / 'b.yaml'}: Node n2: metadata.labels.tier: expected a string, got an integer (1) "
        '(quote it: "1")'
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "kind: Pod\nmetadata: {name: a}\nspec: [1]\n",
            "x.yaml: Pod default/a: spec: expected an object, got a list",
        ),
        ("metadata: {name: a}\n", "x.yaml: object a: kind: is required"),
        ("- 1\n- 2\n", "x.yaml: document 1: expected an object, got list"),
        (
            "kind: Pod\nmetadata: {name: a, name: b}\n",
            "x.yaml: invalid YAML at line 2, column 21: mapping key 'name' already defined",
        ),
        (
            "kind: Pod\n  bad: indent\n",
            "x.yaml: invalid YAML at line 2, column 6: mapping values are not allowed",
        ),
        ('{"kind": "Pod",}', "x.yaml: invalid JSON at line 1"),
        (
            "apiVersion: apps/v1\nkind: Pod\nmetadata: {name: a}\n",
            "x.yaml: Pod default/a: apiVersion: 'apps/v1' does not serve kind Pod (use v1)",
        ),
        (
            "kind: Pod\nmetadata: {name: a}\nspec: {priority: high}\n",
            "x.yaml: Pod default/a: spec.priority: expected an integer, got a string ('high')",
        ),
        (
            "kind: Node\nmetadata: {name: a}\nspec: {unschedulable: 'yes'}\n",
            "x.yaml: Node a: spec.unschedulable: expected true or false, got a string ('yes')",
        ),
    ],
    ids=[
        "spec not an object",
        "kind missing",
        "document not an object",
        "duplicate key",
        "broken yaml",
        "broken json",
        "wrong apiVersion",
        "priority not an integer",
        "bool as text",
    ],
)
def test_bad_manifests_get_one_clear_line(text: str, expected: str) -> None:
    with pytest.raises(ManifestError) as caught:
        loads(text, "x.yaml")
    assert str(caught.value).startswith(expected)


def test_unreadable_file_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="cannot read file"):
        load_manifests(tmp_path / "missing.yaml")


def test_directories_are_read_recursively_in_sorted_order(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "2.yml").write_text("kind: Node\nmetadata: {name: second}\n")
    (tmp_path / "1.yaml").write_text("kind: Node\nmetadata: {name: first}\n")
    (tmp_path / "notes.txt").write_text("not a manifest")
    assert [o.name for o in load_manifests(tmp_path)] == ["first", "second"]


def test_dump_writes_what_load_reads() -> None:
    objects = loads(MIXED)
    assert [o.to_dict() for o in loads(dump_manifests(objects))] == [o.to_dict() for o in objects]
