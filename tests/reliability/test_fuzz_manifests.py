"""Hostile manifests: near-valid and invalid documents give loaded objects or one clear ManifestError.

Whatever the input, :func:`framework.objects.manifest.loads` and
:func:`~framework.objects.manifest.load_manifests` either return every
object or raise :class:`~framework.objects.manifest.ManifestError`, never
another exception and never some of the objects; each problem names the
file, and, when it comes from decoding an object, the object and the field.

The references are kubectl's and the API server's decoding
(``k8s.io/apimachinery/pkg/runtime/serializer/json``, ``sigs.k8s.io/yaml``,
``k8s.io/apimachinery/pkg/api/resource/quantity.go``): a key the type does
not model is kept here (kubectl's non-strict decoding keeps going too); a
wrong type or a bad quantity is an error naming the field; YAML that
aliases its way to a huge document is refused (go-yaml: ``document contains
excessive aliasing``).
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.objects import KubeObject
from framework.objects.manifest import MSG_TOO_DEEP, ManifestError, load_manifests, loads
from tests.reliability.conftest import report

SOURCE = "fuzz.yaml"

VALID: list[dict[str, Any]] = [
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
        "spec": {
            "priorityClassName": "high",
            "nodeSelector": {"disk": "ssd"},
            "tolerations": [
                {"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}
            ],
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "zone", "operator": "In", "values": ["a"]}
                                ]
                            }
                        ]
                    }
                }
            },
            "containers": [
                {
                    "name": "app",
                    "image": "nginx",
                    "ports": [{"containerPort": 80, "hostPort": 8080}],
                    "resources": {
                        "requests": {"cpu": "500m", "memory": "256Mi"},
                        "limits": {"cpu": "1", "memory": "512Mi"},
                    },
                }
            ],
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-a", "labels": {"zone": "a"}},
        "spec": {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    },
    {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
        "preemptionPolicy": "PreemptLowerPriority",
    },
    {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "gang"},
        "spec": {"minMember": 3, "scheduleTimeoutSeconds": 60},
    },
    {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "budget"},
        "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}},
    },
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"replicas": 2},
    },
]

# Values that are wrong almost anywhere, and some that are wrong in subtle ways.
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63, max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        ["1 core", "1e99999999", "1E9999999999", "-1", "Infinity", "0x10", "1.5.5", "5%", "In", ""]
    ),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value in ``doc`` (keys and list indexes), at most 12 levels down."""
    yield prefix
    if len(prefix) >= 12:
        return
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from paths(value, (*prefix, i))


def set_at(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return doc


def delete_at(doc: Any, path: tuple[Any, ...]) -> Any:
    if not path:
        return doc
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    del parent[path[-1]]
    return doc


@st.composite
def mutated_documents(draw: st.DrawFn) -> Any:
    """A valid document with one to three mutations: a hostile value, a deletion, an unknown key, deep nesting."""
    doc = copy.deepcopy(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        if not isinstance(doc, dict | list):
            break
        path = draw(st.sampled_from(list(paths(doc))))
        action = draw(st.sampled_from(["value", "value", "delete", "unknown", "deep"]))
        if action == "value":
            doc = set_at(doc, path, draw(HOSTILE))
        elif action == "delete" and path:
            doc = delete_at(doc, path)
        elif action == "unknown":
            target: Any = doc
            for part in path:
                target = target[part]
            if isinstance(target, dict):
                target[draw(st.text(min_size=1, max_size=6))] = draw(HOSTILE)
        elif action == "deep":
            nested: Any = draw(HOSTILE)
            for _ in range(draw(st.sampled_from([10, 200, 5000]))):
                nested = [nested]
            doc = set_at(doc, path, nested)
    return doc


def render(documents: list[Any], how: str) -> str:
    if how == "json" and len(documents) == 1:
        return json.dumps(documents[0])
    return yaml.safe_dump_all(documents, sort_keys=False)


def bomb(width: int, depth: int) -> str:
    """A "billion laughs" document: each level aliases the one before ``width`` times."""
    lines = ["kind: Pod", "metadata: {name: laughs}", 'a0: &a0 ["lol"]']
    for level in range(1, depth + 1):
        refs = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def tried() -> Iterator[Counter[str]]:
    counts: Counter[str] = Counter()
    yield counts
    report("manifest fuzzing", counts)


# Problems with the text itself, before there is any object to name.
TEXT_PROBLEMS = ("invalid YAML", "invalid JSON", "cannot read file", MSG_TOO_DEEP)


def check(text: str, tried: Counter[str]) -> list[KubeObject] | None:
    """Load ``text``; only a ManifestError may come out, every problem naming the file."""
    tried["inputs"] += 1
    try:
        loaded = loads(text, SOURCE)
    except ManifestError as error:
        assert error.problems, "a ManifestError with no problem in it"
        for problem in error.problems:
            assert problem.source == SOURCE, problem
            assert problem.message, problem
            if not problem.message.startswith(TEXT_PROBLEMS):
                assert problem.obj, f"a problem of decoding that names no object: {problem}"
        tried["refused with ManifestError"] += 1
        return None
    assert all(isinstance(obj, KubeObject) for obj in loaded)
    tried["loaded"] += 1
    return loaded


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    documents=st.lists(mutated_documents(), min_size=1, max_size=3),
    how=st.sampled_from(["yaml", "json"]),
)
def test_a_mutated_manifest_loads_whole_or_fails_with_one_manifest_error(
    tried: Counter[str], documents: list[Any], how: str
) -> None:
    try:
        text = render(documents, how)
    except (RecursionError, ValueError):
        return  # the writer cannot write it (nesting too deep, NaN in strict JSON): no input
    loaded = check(text, tried)
    if loaded is not None and all(isinstance(d, dict) for d in documents):
        # Nothing partial: one object per document. (A root that became a list is a JSON
        # array of documents, or a YAML document that is not an object, which is refused.)
        assert len(loaded) == len(documents)


@settings(max_examples=300)
@given(
    text=st.text(
        alphabet=st.sampled_from([*"kind: Pod\n{}[]&*!-'\",#|>%@`\t ", "\x00", "\ufffe"]),
        max_size=80,
    )
)
def test_garbage_text_is_refused_with_one_manifest_error(tried: Counter[str], text: str) -> None:
    check(text, tried)


@settings(max_examples=100)
@given(document=mutated_documents(), cut=st.integers(0, 400), junk=st.text(max_size=5))
def test_a_truncated_or_spliced_manifest_is_refused_cleanly(
    tried: Counter[str], document: Any, cut: int, junk: str
) -> None:
    try:
        text = yaml.safe_dump(document)
    except RecursionError:
        return
    check(text[:cut] + junk + text[cut:], tried)


@pytest.mark.parametrize(
    ("width", "depth", "refused"),
    [(2, 3, False), (3, 5, False), (9, 6, True), (10, 9, True), (100, 4, True)],
    ids=[
        "8 leaves",
        "243 leaves",
        "half a million leaves",
        "a billion laughs",
        "a hundred million",
    ],
)
def test_alias_bombs_are_refused_as_go_yaml_refuses_them(
    tried: Counter[str], width: int, depth: int, refused: bool
) -> None:
    loaded = check(bomb(width, depth), tried)
    assert (loaded is None) == refused
    if refused:
        with pytest.raises(ManifestError, match="document contains excessive aliasing"):
            loads(bomb(width, depth), SOURCE)


def test_deep_nesting_is_one_clear_problem(tried: Counter[str]) -> None:
    for text in ("[" * 100_000, "x: " + "[" * 5000 + "]" * 5000, '{"a":' * 50_000):
        with pytest.raises(ManifestError) as caught:
            loads(text, SOURCE)
        tried["inputs"] += 1
        tried["refused with ManifestError"] += 1
        assert any(
            MSG_TOO_DEEP in p.message or "invalid" in p.message for p in caught.value.problems
        )


NEAR_VALID = [
    (("spec", "containers", 0, "resources", "requests", "cpu"), "1 core",
     "spec.containers[0].resources.requests.cpu", "is not a valid quantity"),
    (("spec", "containers", 0, "resources", "requests", "memory"), "1E9999999999",
     "spec.containers[0].resources.requests.memory", "is too large a quantity"),
    (("spec", "containers", 0, "ports", 0, "hostPort"), "8080",
     "spec.containers[0].ports[0].hostPort", "expected an integer"),
    (("spec", "containers"), {"name": "app"}, "spec.containers", "expected a list"),
    (("spec", "nodeSelector", "disk"), 1.5, "spec.nodeSelector.disk", "expected a string"),
    (("metadata", "labels"), ["app"], "metadata.labels", "expected an object"),
    (("spec", "tolerations", 0, "tolerationSeconds"), "forever",
     "spec.tolerations[0].tolerationSeconds", "expected an integer"),
    (("kind",), ["Pod"], "kind", "expected a string"),
    (("apiVersion",), "v2", "apiVersion", "does not serve kind Pod"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "value", "field", "says"), NEAR_VALID, ids=[f for _, _, f, _ in NEAR_VALID]
)
def test_a_near_valid_pod_names_the_file_the_object_and_the_field(
    path: tuple[Any, ...], value: Any, field: str, says: str
) -> None:
    doc = set_at(copy.deepcopy(VALID[0]), path, value)
    with pytest.raises(ManifestError) as caught:
        loads(yaml.safe_dump(doc), SOURCE)
    (problem,) = caught.value.problems
    assert (problem.source, problem.field) == (SOURCE, field)
    assert problem.obj in ("Pod shop/web", "document 1")
    assert says in problem.message


def test_a_missing_kind_is_named() -> None:
    doc = delete_at(copy.deepcopy(VALID[1]), ("kind",))
    with pytest.raises(ManifestError) as caught:
        loads(yaml.safe_dump(doc), SOURCE)
    (problem,) = caught.value.problems
    assert (problem.source, problem.obj, problem.field) == (SOURCE, "object node-a", "kind")


def test_one_bad_file_among_good_ones_loads_nothing(tmp_path: Path) -> None:
    good = tmp_path / "a-good.yaml"
    good.write_text(yaml.safe_dump(VALID[1]))
    binary = tmp_path / "b-binary.yaml"
    binary.write_bytes(b"kind: Pod\nmetadata: {name: \xff\xfe}\n")
    bad = tmp_path / "c-bad.yaml"
    bad.write_text(yaml.safe_dump(set_at(copy.deepcopy(VALID[0]), ("spec", "priority"), "high")))
    with pytest.raises(ManifestError) as caught:
        load_manifests(tmp_path)
    sources = [p.source for p in caught.value.problems]
    assert sources == [str(binary), str(bad)]
    assert "cannot read file" in caught.value.problems[0].message
    assert caught.value.problems[1].field == "spec.priority"
