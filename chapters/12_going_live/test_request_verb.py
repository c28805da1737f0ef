"""Chapter 12: the RBAC verb of a request, from its method, its path's object name and its query.

Every expectation comes from kube-apiserver's request info
(kubernetes/kubernetes, v1.33,
``staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go``,
``RequestInfoFactory.NewRequestInfo``): the method gives the verb; with no
object name, ``get`` becomes ``list`` or, with a ``watch`` parameter that is
not ``false`` or ``0``, ``watch``, and ``delete`` becomes
``deletecollection``. The requests are those kubectl and the scheduler send
(``kubectl get pods -w``, the reflector's list and watch, ``pods/binding``).

Run them against your code with ``python -m pytest chapters/12_going_live --exercise``.
"""

from __future__ import annotations

from types import ModuleType

import pytest

pytestmark = pytest.mark.exercise(
    reference="framework.apiserver.http.requestinfo", skeleton="exercise.py", asks=["request_verb"]
)


@pytest.mark.parametrize(
    ("method", "name", "query", "verb"),
    [
        pytest.param("GET", "web", {}, "get", id="GET of one pod is get"),
        pytest.param("HEAD", "web", {}, "get", id="HEAD is get too"),
        pytest.param("GET", "", {}, "list", id="GET of the collection is list"),
        pytest.param("GET", "", {"limit": "500"}, "list", id="a page of a list is list"),
        pytest.param("GET", "", {"watch": "true"}, "watch", id="watch=true is watch"),
        pytest.param("GET", "", {"watch": "1"}, "watch", id="watch=1 is watch"),
        pytest.param("GET", "", {"watch": ""}, "watch", id="a bare watch parameter is watch"),
        pytest.param("GET", "", {"watch": "false"}, "list", id="watch=false is list"),
        pytest.param("GET", "", {"watch": "FALSE"}, "list", id="watch=FALSE is list"),
        pytest.param("GET", "", {"watch": "0"}, "list", id="watch=0 is list"),
        pytest.param("GET", "web", {"watch": "true"}, "get",
                     id="watch on a named object stays get"),
        pytest.param("POST", "", {}, "create", id="POST to the collection is create"),
        pytest.param("POST", "web", {}, "create", id="POST pods/web/binding is create"),
        pytest.param("PUT", "web", {}, "update", id="PUT pods/web/status is update"),
        pytest.param("PATCH", "web", {}, "patch", id="PATCH is patch"),
        pytest.param("DELETE", "web", {}, "delete", id="DELETE of one pod is delete"),
        pytest.param("DELETE", "", {}, "deletecollection",
                     id="DELETE of the collection is deletecollection"),
        pytest.param("OPTIONS", "web", {}, "", id="a method with no verb"),
        pytest.param("get", "web", {}, "", id="methods are case-sensitive"),
    ],
)  # fmt: skip
def test_request_verb(
    impl: ModuleType, method: str, name: str, query: dict[str, str], verb: str
) -> None:
    assert impl.request_verb(method, name, query) == verb


def test_the_requests_of_a_reflector_and_a_binder(impl: ModuleType) -> None:
    """What the scheduler's informers and DefaultBinder send, in order, as an authorizer reads them."""
    requests = [
        ("GET", "", {"limit": "500"}),  # the informer lists...
        ("GET", "", {"watch": "true", "resourceVersion": "42", "timeoutSeconds": "412"}),
        ("POST", "web", {}),  # POST .../pods/web/binding
        ("PUT", "web", {}),  # PUT .../pods/web/status
    ]
    verbs = [impl.request_verb(*request) for request in requests]
    assert verbs == ["list", "watch", "create", "update"]
