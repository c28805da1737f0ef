"""Fuzzing the HTTP decoders: whatever the body, never a 500, the server stays up, and a
refused write stores nothing.

Bodies are drawn for every decoder a write goes through (JSON and YAML
creates, JSON merge, strategic merge and JSON patches): arbitrary JSON
values, a valid pod with arbitrary values grafted in, YAML text built from
its hostile pieces (anchors, aliases, tags, flow collections), and
arbitrary operation lists. kube-apiserver answers any of them with a 4xx
``metav1.Status`` or a success (``k8s.io/apiserver/pkg/endpoints/handlers``);
a 5xx would be a bug here, and a write refused yet committed a worse one.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.clock import RealClock
from tests.reliability.conftest import report
from tests.serve.helpers import request
from tests.serve.test_hostile import PODS, pod_body

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = st.sampled_from(
    [
        "metadata",
        "spec",
        "status",
        "metadata.annotations",
        "metadata.labels",
        "spec.containers",
        "spec.priority",
        "spec.terminationGracePeriodSeconds",
        "spec.nodeName",
        "extra",
    ]
)
YAML_PIECES = st.sampled_from(
    [
        "a",
        ": ",
        "\n",
        "  ",
        "- ",
        "&x ",
        "*x",
        "!!int ",
        "!!float ",
        "!!binary ",
        "!!set ",
        "[",
        "]",
        "{",
        "}",
        ", ",
        "'",
        '"',
        "9" * 30,
        ".nan",
        "~",
        "? ",
        "---\n",
        "#",
    ]
)


def graft(base: dict[str, Any], where: str, value: Any) -> dict[str, Any]:
    node = base
    *parents, last = where.split(".")
    for part in parents:
        node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
    node[last] = value
    return base


@st.composite
def writes(draw: st.DrawFn) -> tuple[str, str, str, bytes]:
    """(method, path, content type, body)."""
    how = draw(st.sampled_from(["json", "graft", "yaml", "merge", "strategic", "jsonpatch"]))
    if how == "json":
        return "POST", PODS, "application/json", json.dumps(draw(JSON_VALUES)).encode()
    if how == "graft":
        body = graft(json.loads(pod_body("fuzz")), draw(FIELDS), draw(JSON_VALUES))
        return "POST", PODS, "application/json", json.dumps(body).encode()
    if how == "yaml":
        text = pod_body("fuzz") if draw(st.booleans()) else "apiVersion: v1\nkind: Pod\n"
        tail = "".join(draw(st.lists(YAML_PIECES, max_size=30)))
        return "POST", PODS, "application/yaml", (text + "\n" + tail).encode()
    if how in ("merge", "strategic"):
        patch = graft({}, draw(FIELDS), draw(JSON_VALUES))
        media = f"application/{'merge' if how == 'merge' else 'strategic-merge'}-patch+json"
        return "PATCH", f"{PODS}/web", media, json.dumps(patch).encode()
    ops = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "op": st.sampled_from(
                        ["add", "remove", "replace", "move", "copy", "test", "x"]
                    ),
                    "path": st.sampled_from(
                        [
                            "",
                            "/",
                            "/metadata/labels/a",
                            "/spec",
                            "/status/x",
                            "/metadata",
                            "/spec/containers/0",
                            "/x/-",
                        ]
                    ),
                },
                optional={
                    "from": st.sampled_from(["", "/metadata", "/status", "/spec/containers"]),
                    "value": JSON_VALUES,
                },
            ),
            max_size=6,
        )
    )
    return "PATCH", f"{PODS}/web", "application/json-patch+json", json.dumps(ops).encode()


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[APIServer, APIHTTPServer]]:
    api = APIServer(RealClock())
    with APIHTTPServer(api, port=0) as server:
        assert (
            request(
                server.url, "POST", PODS, pod_body("web"), {"Content-Type": "application/json"}
            )[0]
            == 201
        )
        yield api, server


@pytest.fixture(scope="module")
def answers() -> Iterator[Counter[int]]:
    counted: Counter[int] = Counter()
    yield counted
    report("HTTP decoder fuzzing", {f"answered {code}": n for code, n in sorted(counted.items())})


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(write=writes())
def test_a_fuzzed_write_is_never_a_500_and_a_refused_one_stores_nothing(
    served: tuple[APIServer, APIHTTPServer],
    answers: Counter[int],
    write: tuple[str, str, str, bytes],
) -> None:
    api, server = served
    method, path, media, body = write
    before = api.current_resource_version()
    code, answer = request(server.url, method, path, body, {"Content-Type": media})
    answers[code] += 1
    assert code < 500, answer
    if code >= 400:
        assert answer["kind"] == "Status" and answer["code"] == code, answer
        assert api.current_resource_version() == before
    assert request(server.url, "GET", "/healthz") == (200, "ok")
    listed, pods = request(server.url, "GET", PODS)
    assert listed == 200 and pods["kind"] == "PodList"
