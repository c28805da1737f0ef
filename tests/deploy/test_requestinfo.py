"""From a request line to what an authorizer checks: ``request_info``.

Expectations from ``staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go``
(``RequestInfoFactory.NewRequestInfo``, v1.33): discovery and health paths are
non-resource requests whose verb is the method in lower case; ``/api/v1`` is
the core group ``""``; ``namespaces/<ns>/<resource>`` sets the namespace; the
third part after the resource is the subresource; a list or watch with the
field selector ``metadata.name=<name>`` is for that name. (The verb rules
themselves are chapter 12's exercise, tested in ``chapters/12_going_live``.)
"""

from __future__ import annotations

import pytest

from framework.apiserver.http.requestinfo import RequestInfo, request_info


@pytest.mark.parametrize(
    ("method", "target", "expected"),
    [
        pytest.param("GET", "/api", RequestInfo(False, "/api", "get"), id="discovery"),
        pytest.param("GET", "/apis/policy/v1", RequestInfo(False, "/apis/policy/v1", "get"),
                     id="a group version's discovery"),
        pytest.param("GET", "/healthz", RequestInfo(False, "/healthz", "get"), id="health"),
        pytest.param(
            "GET", "/api/v1/nodes?limit=500",
            RequestInfo(True, "/api/v1/nodes", "list", "", "v1", "", "nodes"),
            id="a cluster-scoped list",
        ),
        pytest.param(
            "GET", "/api/v1/pods?watch=true&resourceVersion=7",
            RequestInfo(True, "/api/v1/pods", "watch", "", "v1", "", "pods"),
            id="a watch across namespaces",
        ),
        pytest.param(
            "POST", "/api/v1/namespaces/default/pods/web/binding",
            RequestInfo(True, "/api/v1/namespaces/default/pods/web/binding", "create", "", "v1",
                        "default", "pods", "binding", "web"),
            id="a binding",
        ),
        pytest.param(
            "PUT", "/api/v1/namespaces/default/pods/web/status",
            RequestInfo(True, "/api/v1/namespaces/default/pods/web/status", "update", "", "v1",
                        "default", "pods", "status", "web"),
            id="a status update",
        ),
        pytest.param(
            "GET", "/apis/policy/v1/poddisruptionbudgets",
            RequestInfo(True, "/apis/policy/v1/poddisruptionbudgets", "list", "policy", "v1", "",
                        "poddisruptionbudgets"),
            id="a named group",
        ),
        pytest.param(
            "GET", "/api/v1/namespaces/default",
            RequestInfo(True, "/api/v1/namespaces/default", "get", "", "v1", "default",
                        "namespaces", "", "default"),
            id="a namespace is itself a resource",
        ),
        pytest.param(
            "GET", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb&watch=1",
            RequestInfo(True, "/api/v1/namespaces/default/pods", "watch", "", "v1", "default",
                        "pods", "", "web"),
            id="kubectl get pod web --watch is for that name",
        ),
        pytest.param(
            "DELETE", "/api/v1/namespaces/default/pods",
            RequestInfo(True, "/api/v1/namespaces/default/pods", "deletecollection", "", "v1",
                        "default", "pods"),
            id="deleting a collection",
        ),
    ],
)  # fmt: skip
def test_request_info(method: str, target: str, expected: RequestInfo) -> None:
    assert request_info(method, target) == expected


def test_the_first_value_of_a_repeated_parameter_counts() -> None:
    """Go's ``url.Values.Get`` and requestinfo.go's ``values[0]``: the first one."""
    assert request_info("GET", "/api/v1/pods?watch=false&watch=true").verb == "list"
