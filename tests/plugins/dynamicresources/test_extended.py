"""Extended resources backed by DRA: the class resolver and the special claim's requests.

Transcribed from kube's unit tests, read in the index's newest copies (no tag
attached; v1.36/v1.37-era master):

* ``Test_createRequestsAndMappings_requests`` and
  ``Test_createRequestsAndMappings_mappings`` of
  ``pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources_test.go``
  (index id 3888108915): same pods (``st.MakePod().Res`` names its containers
  ``con<N>``, ``InitReq`` ``init-con<N>``, ``SidecarReq`` ``sidecar-con<N>``,
  N counting the list it adds to), same class mappings, same results;
* ``TestDeviceClassMapping`` and ``TestNoDeviceClassMapping`` of
  ``.../dynamicresources/extended/deviceclassresolver_test.go`` (index id
  51881093867), and the arbitration ``betterDeviceClass`` documents in
  ``dynamic-resource-allocation/deviceclass/extendedresourcecache`` (index id
  57560242437): the newest class wins a shared name, the lower name a tie.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.objects import Pod
from framework.objects.resource import DeviceClass
from framework.plugins.dynamicresources.extended import (
    RESOURCE_DEVICE_CLASS_PREFIX,
    ContainerExtendedResourceRequest,
    DeviceClassResolver,
    create_requests_and_mappings,
    is_dra_extended_resource_name,
)

EXT = "example.com/gpu"  # extendedResourceName of the Go test
IMPLICIT = RESOURCE_DEVICE_CLASS_PREFIX + "classInit"


class Builder:
    """``st.MakePod()``: ``res`` a regular container, ``init`` / ``sidecar`` an init container."""

    def __init__(self) -> None:
        self.containers: list[dict[str, Any]] = []
        self.init_containers: list[dict[str, Any]] = []

    def res(self, requests: dict[str, str]) -> Builder:
        self.containers.append(
            {"name": f"con{len(self.containers)}", "resources": {"requests": requests}}
        )
        return self

    def init(self, requests: dict[str, str], prefix: str = "init-con") -> Builder:
        container: dict[str, Any] = {
            "name": f"{prefix}{len(self.init_containers)}",
            "resources": {"requests": requests},
        }
        if prefix == "sidecar-con":
            container["restartPolicy"] = "Always"
        self.init_containers.append(container)
        return self

    def sidecar(self, requests: dict[str, str]) -> Builder:
        return self.init(requests, "sidecar-con")

    def obj(self) -> Pod:
        return Pod.from_dict(
            {
                "metadata": {"name": "my-pod", "namespace": "default", "uid": "1234"},
                "spec": {"containers": self.containers, "initContainers": self.init_containers},
            }
        )


def classes(**mapping: str) -> Any:
    """``mockDeviceClassResolver{mapping}``: resource name to a class of that name."""

    class Mock:
        def get_device_class(self, name: str) -> DeviceClass | None:
            wanted = mapping.get(name)
            return DeviceClass.from_dict({"metadata": {"name": wanted}}) if wanted else None

    return Mock()


POD1 = Builder().res({EXT: "1", EXT + "1": "2"}).obj()
POD2 = Builder().res({EXT: "1"}).res({EXT + "1": "2"}).obj()
POD_INIT = Builder().res({EXT: "1"}).init({EXT + "init": "2"}).obj()
POD_INIT2 = Builder().res({EXT: "1"}).init({EXT + "init": "1"}).init({EXT + "init": "2"}).obj()
POD_INIT3 = (
    Builder()
    .res({EXT: "1"})
    .init({EXT + "init": "1"})
    .sidecar({EXT + "init": "1"})
    .init({EXT + "init": "2"})
    .obj()
)
POD1_INIT_IMPLICIT = Builder().init({EXT + "init": "1", IMPLICIT: "2"}).obj()
POD_INIT_IMPLICIT = Builder().res({EXT: "1"}).init({EXT + "init": "1"}).init({IMPLICIT: "2"}).obj()

RES = {EXT: 1}
RES2 = {EXT: 1, EXT + "1": 2}
RES_INIT = {EXT: 1, EXT + "init": 2}
RES_INIT_IMPLICIT = {EXT: 1, EXT + "init": 2, IMPLICIT: 2}
DEV_MAP = {EXT: "class"}
DEV_MAP2 = {EXT: "class", EXT + "1": "class1"}
DEV_MAP_INIT = {EXT: "class", EXT + "init": "classInit", IMPLICIT: "classInit"}


@pytest.mark.parametrize(
    ("pod", "resources", "mapping", "want"),
    [
        (POD1, {}, {}, []),
        (POD1, RES, DEV_MAP, [("container-0-request-0", "class", 1)]),
        (POD1, RES2, DEV_MAP, [("container-0-request-0", "class", 1)]),
        (
            POD1,
            RES2,
            DEV_MAP2,
            [("container-0-request-0", "class", 1), ("container-0-request-1", "class1", 2)],
        ),
        (
            POD2,
            RES2,
            DEV_MAP2,
            [("container-0-request-0", "class", 1), ("container-1-request-0", "class1", 2)],
        ),
        (
            POD_INIT,
            RES_INIT,
            DEV_MAP_INIT,
            [("container-0-request-0", "classInit", 2), ("container-1-request-0", "class", 1)],
        ),
        (
            POD_INIT2,
            RES_INIT,
            DEV_MAP_INIT,
            [("container-1-request-0", "classInit", 2), ("container-2-request-0", "class", 1)],
        ),
        (
            POD_INIT3,
            RES_INIT,
            DEV_MAP_INIT,
            [
                ("container-1-request-0", "classInit", 1),
                ("container-2-request-0", "classInit", 2),
                ("container-3-request-0", "class", 1),
            ],
        ),
    ],
    ids=[
        "nil",
        "one resource match",
        "one resource match, one resource not match",
        "two resources match",
        "two containers match",
        "one init container, one regular container",
        "two init containers, one regular container",
        "three init containers, one sidecar, one regular container",
    ],
)
def test_create_requests(
    pod: Pod, resources: dict[str, int], mapping: dict[str, str], want: list[tuple[str, str, int]]
) -> None:
    requests, _ = create_requests_and_mappings(pod, resources, classes(**mapping))
    got = []
    for r in requests:
        assert r.exactly is not None
        assert r.exactly.allocation_mode == "ExactCount"
        got.append((r.name, r.exactly.device_class_name, r.exactly.count))
    assert got == want


def cer(container: str, resource: str, request: str) -> ContainerExtendedResourceRequest:
    return ContainerExtendedResourceRequest(container, resource, request)


@pytest.mark.parametrize(
    ("pod", "resources", "mapping", "want"),
    [
        (
            POD1,
            RES2,
            DEV_MAP2,
            [
                cer("con0", EXT, "container-0-request-0"),
                cer("con0", EXT + "1", "container-0-request-1"),
            ],
        ),
        (
            POD1_INIT_IMPLICIT,
            RES_INIT_IMPLICIT,
            DEV_MAP_INIT,
            [
                cer("init-con0", IMPLICIT, "container-0-request-0"),
                cer("init-con0", EXT + "init", "container-0-request-1"),
            ],
        ),
        (
            POD2,
            RES2,
            DEV_MAP2,
            [
                cer("con0", EXT, "container-0-request-0"),
                cer("con1", EXT + "1", "container-1-request-0"),
            ],
        ),
        (
            POD_INIT,
            RES_INIT,
            DEV_MAP_INIT,
            [
                cer("init-con0", EXT + "init", "container-0-request-0"),
                cer("con0", EXT, "container-1-request-0"),
            ],
        ),
        (
            POD_INIT2,
            RES_INIT,
            DEV_MAP_INIT,
            [
                cer("init-con0", EXT + "init", "container-1-request-0"),
                cer("init-con1", EXT + "init", "container-1-request-0"),
                cer("con0", EXT, "container-2-request-0"),
            ],
        ),
        (
            POD_INIT_IMPLICIT,
            RES_INIT_IMPLICIT,
            DEV_MAP_INIT,
            [
                cer("init-con0", EXT + "init", "container-0-request-0"),
                cer("init-con1", IMPLICIT, "container-1-request-0"),
                cer("con0", EXT, "container-2-request-0"),
            ],
        ),
        (
            POD_INIT3,
            RES_INIT,
            DEV_MAP_INIT,
            [
                cer("init-con0", EXT + "init", "container-1-request-0"),
                cer("sidecar-con1", EXT + "init", "container-1-request-0"),
                cer("init-con2", EXT + "init", "container-2-request-0"),
                cer("con0", EXT, "container-3-request-0"),
            ],
        ),
    ],
    ids=[
        "one container, two requests",
        "one container, one explicit and one implicit request",
        "two containers, two requests",
        "one init container, one regular container, one request",
        "three containers (two are init container), two requests",
        "three containers (two are init container), both explicit and implicit resources",
        "four containers (two are init container, one sidecar), three requests",
    ],
)
def test_create_mappings(
    pod: Pod,
    resources: dict[str, int],
    mapping: dict[str, str],
    want: list[ContainerExtendedResourceRequest],
) -> None:
    _, mappings = create_requests_and_mappings(pod, resources, classes(**mapping))
    # The Go test sorts by request name, then container name, before comparing.
    assert sorted(mappings, key=lambda m: (m.request_name, m.container_name)) == want


def device_class(
    name: str, extended: str | None = None, created: str | None = None
) -> DeviceClass:
    metadata: dict[str, Any] = {"name": name}
    if created:
        metadata["creationTimestamp"] = created
    spec = {"extendedResourceName": extended} if extended else {}
    return DeviceClass.from_dict({"metadata": metadata, "spec": spec})


def name_of(resolver: DeviceClassResolver, resource: str) -> str | None:
    found = resolver.get_device_class(resource)
    return found.metadata.name if found is not None else None


def test_device_class_mapping() -> None:
    resolver = DeviceClassResolver(
        [
            device_class("class1", "example.com/gpu1"),
            device_class("class2", "example.com/gpu2"),
            device_class("class3"),
        ]
    )
    assert name_of(resolver, "example.com/gpu1") == "class1"
    assert name_of(resolver, "example.com/gpu2") == "class2"
    for name in ("class1", "class2", "class3"):
        assert name_of(resolver, f"deviceclass.resource.kubernetes.io/{name}") == name


def test_no_device_class_mapping() -> None:
    assert name_of(DeviceClassResolver(), "example.com/gpu") is None


def test_the_newest_class_wins_a_shared_name_and_the_lower_name_a_tie() -> None:
    old = device_class("b-old", EXT, "2026-01-01T00:00:00Z")
    new = device_class("c-new", EXT, "2026-06-01T00:00:00Z")
    assert name_of(DeviceClassResolver([old, new]), EXT) == "c-new"
    assert name_of(DeviceClassResolver([new, old]), EXT) == "c-new"
    twin = device_class("a-twin", EXT, "2026-06-01T00:00:00Z")
    assert name_of(DeviceClassResolver([new, twin]), EXT) == "a-twin"
    # Each class keeps its implicit name, whoever wins the explicit one.
    assert name_of(DeviceClassResolver([old, new]), RESOURCE_DEVICE_CLASS_PREFIX + "b-old") == (
        "b-old"
    )


def test_dra_extended_resource_names() -> None:
    # IsDRAExtendedResourceName: extended names, and the implicit ones, which are
    # in the kubernetes.io domain and so not extended resource names themselves.
    assert is_dra_extended_resource_name(EXT)
    assert is_dra_extended_resource_name(IMPLICIT)
    assert not is_dra_extended_resource_name("cpu")
    assert not is_dra_extended_resource_name("hugepages-2Mi")
