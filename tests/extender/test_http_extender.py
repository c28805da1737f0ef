"""HTTPExtender against a real extender on loopback: what it sends, what it makes of the answers.

Expectations come from ``HTTPExtender`` in
``kubernetes/kubernetes:pkg/scheduler/extender.go`` (v1.33): ``Filter``,
``Prioritize``, ``Bind``, ``send``, ``IsInterested`` and the 5-second
``DefaultExtenderTimeout``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from framework.config.types import Extender as ExtenderConfig
from framework.config.types import ExtenderManagedResource
from framework.extender import DEFAULT_EXTENDER_TIMEOUT, ExtenderError, HTTPExtender
from framework.extender.types import ExtenderBindingArgs, HostPriority
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from tests.extender.fake_extender import FakeExtender, closed_port_url


def _node(name: str, **labels: str) -> NodeInfo:
    info = NodeInfo()
    info.set_node(Node.from_dict({"metadata": {"name": name, "labels": labels}}))
    return info


def _pod(name: str = "p", requests: dict[str, str] | None = None, init: bool = False) -> Pod:
    container = {"name": "c", "resources": {"requests": requests or {}}}
    key = "initContainers" if init else "containers"
    return Pod.from_dict(
        {"metadata": {"name": name, "uid": f"uid-{name}"}, "spec": {key: [container]}}
    )


def _names(nodes: list[NodeInfo]) -> list[str]:
    return [n.name for n in nodes]


def _keep_a(args: dict[str, Any]) -> dict[str, Any]:
    items = args["Nodes"]["items"]
    return {
        "Nodes": {"items": [n for n in items if n["metadata"]["name"] == "a"]},
        "FailedNodes": {"b": "b is out"},
        "FailedAndUnresolvableNodes": {"c": "c is gone"},
    }


def test_filter_sends_whole_nodes_and_keeps_the_ones_returned(fake_extender: FakeExtender) -> None:
    fake_extender.verbs["filter"] = _keep_a
    extender = HTTPExtender(ExtenderConfig(url_prefix=fake_extender.url, filter_verb="filter"))
    nodes = [_node("a"), _node("b"), _node("c")]
    passed, failed, unresolvable = extender.filter(_pod(), nodes)
    assert passed == [nodes[0]]  # the scheduler's own NodeInfo, not a copy from the wire
    assert failed == {"b": "b is out"}
    assert unresolvable == {"c": "c is gone"}
    (sent,) = fake_extender.calls("filter")
    assert [n["metadata"]["name"] for n in sent["Nodes"]["items"]] == ["a", "b", "c"]
    assert sent["NodeNames"] is None
    assert sent["Pod"]["metadata"]["name"] == "p"


def test_a_node_cache_capable_extender_is_sent_names_only(fake_extender: FakeExtender) -> None:
    fake_extender.verbs["filter"] = lambda args: {"NodeNames": args["NodeNames"][1:]}
    fake_extender.verbs["prioritize"] = lambda args: [
        {"Host": name, "Score": 3} for name in args["NodeNames"]
    ]
    extender = HTTPExtender(
        ExtenderConfig(
            url_prefix=fake_extender.url,
            filter_verb="filter",
            prioritize_verb="prioritize",
            weight=2,
            node_cache_capable=True,
        )
    )
    nodes = [_node("a"), _node("b")]
    passed, _, _ = extender.filter(_pod(), nodes)
    assert _names(passed) == ["b"]
    assert extender.prioritize(_pod(), nodes) == ([HostPriority("a", 3), HostPriority("b", 3)], 2)
    for verb in ("filter", "prioritize"):
        (sent,) = fake_extender.calls(verb)
        assert sent["Nodes"] is None
        assert sent["NodeNames"] == ["a", "b"]


def test_a_verb_left_empty_passes_every_node_and_scores_zero_without_a_call(
    fake_extender: FakeExtender,
) -> None:
    extender = HTTPExtender(ExtenderConfig(url_prefix=fake_extender.url))
    nodes = [_node("a"), _node("b")]
    assert extender.filter(_pod(), nodes) == (nodes, {}, {})
    assert extender.prioritize(_pod(), nodes) == ([HostPriority("a", 0), HostPriority("b", 0)], 0)
    assert fake_extender.requests == []
    assert not extender.is_filter() and not extender.is_prioritizer() and not extender.is_binder()


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        ({"Error": "no GPUs left"}, 200, "no GPUs left"),
        ({}, 500, "failed filter with extender at URL {url}/filter, code 500"),
        (
            {"NodeNames": ["zzz"]},
            200,
            'extender "{url}" claims a filtered node "zzz" which is not found in the input node list',
        ),
    ],
    ids=["an Error in the answer", "a status other than 200", "a node that was not sent"],
)
def test_filter_failures_raise_kubes_messages(
    fake_extender: FakeExtender, answer: dict[str, Any], status: int, message: str
) -> None:
    fake_extender.verbs["filter"] = lambda args: answer
    fake_extender.statuses["filter"] = status
    extender = HTTPExtender(
        ExtenderConfig(url_prefix=fake_extender.url, filter_verb="filter", node_cache_capable=True)
    )
    with pytest.raises(ExtenderError) as raised:
        extender.filter(_pod(), [_node("a")])
    assert str(raised.value) == message.format(url=fake_extender.url)


def test_an_extender_that_is_down_raises_naming_the_url() -> None:
    url = closed_port_url()
    extender = HTTPExtender(ExtenderConfig(url_prefix=url, filter_verb="filter"))
    with pytest.raises(ExtenderError, match=f'Post "{url}/filter"'):
        extender.filter(_pod(), [_node("a")])


def test_http_timeout_bounds_a_call_to_a_stuck_extender(fake_extender: FakeExtender) -> None:
    fake_extender.verbs["filter"] = lambda args: {"NodeNames": []}
    fake_extender.hold.add("filter")  # answers only once released; never, here
    extender = HTTPExtender(
        ExtenderConfig(url_prefix=fake_extender.url, filter_verb="filter", http_timeout="200ms")
    )
    assert extender.timeout == 0.2
    with pytest.raises(ExtenderError, match=r"timed out after 0\.2s \(httpTimeout\)"):
        extender.filter(_pod(), [_node("a")])


def test_http_timeout_defaults_to_five_seconds() -> None:
    extender = HTTPExtender(ExtenderConfig(url_prefix="http://127.0.0.1:1"))
    assert extender.timeout == DEFAULT_EXTENDER_TIMEOUT == 5.0


def test_bind_posts_the_binding_and_raises_its_error(fake_extender: FakeExtender) -> None:
    answers = iter([{"Error": ""}, {"Error": "node is full"}])
    fake_extender.verbs["bind"] = lambda args: next(answers)
    extender = HTTPExtender(ExtenderConfig(url_prefix=fake_extender.url, bind_verb="bind"))
    binding = ExtenderBindingArgs("p", "default", "uid-p", "a")
    extender.bind(binding)
    with pytest.raises(ExtenderError, match="node is full"):
        extender.bind(binding)
    assert fake_extender.calls("bind")[0] == {
        "PodName": "p",
        "PodNamespace": "default",
        "PodUID": "uid-p",
        "Node": "a",
    }


def test_calls_reuse_one_keep_alive_connection(fake_extender: FakeExtender) -> None:
    fake_extender.verbs["prioritize"] = lambda args: []
    extender = HTTPExtender(
        ExtenderConfig(url_prefix=fake_extender.url, prioritize_verb="prioritize", weight=1)
    )
    for _ in range(3):
        extender.prioritize(_pod(), [_node("a")])
    assert len(fake_extender.calls("prioritize")) == 3
    assert extender._connection().sock is not None  # still open for the next call


@pytest.mark.parametrize(
    ("managed", "pod", "interested"),
    [
        ((), _pod(), True),
        (("example.com/gpu",), _pod(requests={"example.com/gpu": "1"}), True),
        (("example.com/gpu",), _pod(requests={"example.com/gpu": "1"}, init=True), True),
        (("example.com/gpu",), _pod(requests={"cpu": "1"}), False),
    ],
    ids=[
        "no managed resources: every pod",
        "a container requests a managed resource",
        "an init container requests it",
        "the pod asks for none of them",
    ],
)
def test_interest_follows_managed_resources(
    managed: tuple[str, ...], pod: Pod, interested: bool
) -> None:
    config = ExtenderConfig(
        url_prefix="http://127.0.0.1:1",
        managed_resources=tuple(ExtenderManagedResource(name) for name in managed),
    )
    assert HTTPExtender(config).is_interested(pod) is interested


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A self-signed certificate for ``localhost`` and its key (made with the openssl command)."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    folder: Path = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost"),
            *("-addext", "subjectAltName=DNS:localhost"),
        ],
        check=True,
        capture_output=True,
    )
    return str(cert), str(key)


@pytest.mark.parametrize(
    "tls",
    [None, "ca"],
    ids=["enableHTTPS without a CA: not verified", "caFile and serverName: verified"],
)
def test_an_https_extender_is_reached_as_make_transport_configures_it(
    certificate: tuple[str, str], tls: str | None
) -> None:
    fake = FakeExtender(tls=certificate, prioritize=lambda args: [{"Host": "a", "Score": 4}])
    try:
        tls_config = {"caFile": certificate[0], "serverName": "localhost"} if tls else None
        extender = HTTPExtender(
            ExtenderConfig(
                url_prefix=fake.url,
                prioritize_verb="prioritize",
                weight=1,
                enable_https=True,
                tls_config=tls_config,
            )
        )
        assert extender.prioritize(_pod(), [_node("a")]) == ([HostPriority("a", 4)], 1)
    finally:
        fake.close()


def test_a_certificate_for_another_name_is_refused(certificate: tuple[str, str]) -> None:
    fake = FakeExtender(tls=certificate, prioritize=lambda args: [])
    try:
        extender = HTTPExtender(
            ExtenderConfig(
                url_prefix=fake.url,
                prioritize_verb="prioritize",
                weight=1,
                tls_config={"caFile": certificate[0], "serverName": "elsewhere"},
            )
        )
        with pytest.raises(ExtenderError, match="certificate"):
            extender.prioritize(_pod(), [_node("a")])
    finally:
        fake.close()
