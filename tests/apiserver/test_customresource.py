"""The PodGroup custom resource on the fake API server: served as its CRD declares it.

Expectations from the PodGroup CRD of
``kubernetes-sigs/scheduler-plugins:manifests/coscheduling/crd.yaml``
(v0.33.5: ``minMember`` ``minimum: 1``, ``scheduleStartTime`` ``format:
date-time``, a status subresource, namespaced) and from how
kube-apiserver serves any custom resource
(``k8s.io/apiextensions-apiserver/pkg/registry/customresource``: status
dropped on create, kept by updates; generation 1, bumped by spec changes;
unknown fields pruned; schema errors as ``<path> in body should ...``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from framework.apiserver import APIServer, Invalid, NotFound
from framework.apiserver.customresource import event_resource_name, kind_for_event_resource
from framework.clock import FakeClock
from framework.objects import PodGroup
from framework.objects.manifest import ManifestError, loads

MANIFEST = """
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: nginx
spec:
  scheduleTimeoutSeconds: 10
  minMember: 3
  minResources: {cpu: "3", memory: 1500Mi}
"""


def create(api: APIServer, **spec: object) -> PodGroup:
    return api.create(PodGroup.from_dict({"metadata": {"name": "pg"}, "spec": dict(spec)}))


def test_the_readme_manifest_loads_and_is_stored() -> None:
    (pg,) = loads(MANIFEST)
    assert isinstance(pg, PodGroup)
    stored = APIServer(FakeClock()).create(pg)
    assert stored.key == "default/nginx"
    assert stored.metadata.generation == 1
    assert stored.spec.quorum == 3
    assert stored.spec.schedule_timeout_seconds == 10
    assert {k: str(v) for k, v in stored.spec.min_resources.items()} == {
        "cpu": "3",
        "memory": "1500Mi",
    }


def test_a_manifest_with_another_api_version_is_refused() -> None:
    with pytest.raises(ManifestError) as raised:
        loads(MANIFEST.replace("v1alpha1", "v1"))
    assert str(raised.value) == (
        "<string>: PodGroup default/nginx: apiVersion: 'scheduling.x-k8s.io/v1' does not serve "
        "kind PodGroup (use scheduling.x-k8s.io/v1alpha1)"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"minMember": 0},
            'PodGroup.scheduling.x-k8s.io "pg" is invalid: spec.minMember: Invalid value: 0: '
            "spec.minMember in body should be greater than or equal to 1",
        ),
        (
            {"minMember": -2},
            'PodGroup.scheduling.x-k8s.io "pg" is invalid: spec.minMember: Invalid value: -2: '
            "spec.minMember in body should be greater than or equal to 1",
        ),
    ],
    ids=["a zero minMember", "a negative minMember"],
)
def test_the_schema_refuses_a_min_member_below_one(spec: dict[str, object], message: str) -> None:
    with pytest.raises(Invalid) as raised:
        create(APIServer(FakeClock()), **spec)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    "spec",
    [{}, {"minMember": 1}, {"scheduleTimeoutSeconds": -5}, {"scheduleTimeoutSeconds": 0}],
    ids=[
        "no minMember at all (Go reads 0)",
        "minMember 1",
        "a negative timeout (the CRD sets no bound)",
        "a zero timeout",
    ],
)
def test_the_schema_allows_what_it_does_not_forbid(spec: dict[str, object]) -> None:
    assert create(APIServer(FakeClock()), **spec).metadata.name == "pg"


def test_status_is_dropped_on_create_and_written_only_through_the_status_subresource() -> None:
    api = APIServer(FakeClock())
    pg = PodGroup.from_dict(
        {"metadata": {"name": "pg"}, "spec": {"minMember": 2}, "status": {"phase": "Running"}}
    )
    stored = api.create(pg)
    assert stored.status.phase == ""

    labelled = stored.with_metadata(labels={"team": "ml"})
    running = api.update_status(replace(labelled, status=replace(stored.status, phase="Running")))
    assert running.status.phase == "Running"
    assert running.metadata.labels == {}  # /status takes nothing but the status
    assert running.metadata.generation == 1

    bigger = api.update(
        replace(running, spec=replace(running.spec, min_member=3), status=stored.status)
    )
    assert (bigger.spec.quorum, bigger.status.phase, bigger.metadata.generation) == (
        3,
        "Running",
        2,
    )
    relabelled = api.update(bigger.with_metadata(labels={"team": "ml"}))
    assert relabelled.metadata.generation == 2  # metadata changes do not count


def test_a_bad_schedule_start_time_is_refused_on_the_status_subresource() -> None:
    api = APIServer(FakeClock())
    stored = create(api, minMember=1)
    with pytest.raises(Invalid) as raised:
        api.update_status(
            replace(stored, status=replace(stored.status, schedule_start_time="soon"))
        )
    assert str(raised.value) == (
        'PodGroup.scheduling.x-k8s.io "pg" is invalid: status.scheduleStartTime: Invalid value: '
        '"soon": status.scheduleStartTime in body must be of type date-time: "soon"'
    )
    ok = api.update_status(
        replace(stored, status=replace(stored.status, schedule_start_time="2025-01-01T00:00:00Z"))
    )
    assert ok.status.schedule_start_time == "2025-01-01T00:00:00Z"


def test_fields_the_crd_does_not_declare_are_pruned() -> None:
    (pg,) = loads(
        MANIFEST + "  priorityClassName: high\nstatus:\n  scheduled: 3\nextraTopLevel: true\n"
    )
    assert pg.spec.extra == {"priorityClassName": "high"}  # kept by the decoder ...
    stored = APIServer(FakeClock()).create(pg)
    assert "priorityClassName" not in stored.to_dict()["spec"]  # ... pruned by the server
    assert "extraTopLevel" not in stored.to_dict()
    assert "status" not in stored.to_dict()


def test_podgroups_are_namespaced_and_not_found_names_the_resource() -> None:
    api = APIServer(FakeClock())
    with pytest.raises(NotFound) as raised:
        api.get(PodGroup, "pg", namespace="default")
    assert str(raised.value) == 'podgroups.scheduling.x-k8s.io "pg" not found'
    with pytest.raises(NotFound) as missing_namespace:
        api.create(PodGroup.from_dict({"metadata": {"name": "pg", "namespace": "nowhere"}}))
    assert str(missing_namespace.value) == 'namespaces "nowhere" not found'


def test_podgroup_events_are_named_as_kube_scheduler_names_a_custom_resource() -> None:
    assert event_resource_name(PodGroup) == "podgroups.v1alpha1.scheduling.x-k8s.io"
    assert kind_for_event_resource("podgroups.v1alpha1.scheduling.x-k8s.io") is PodGroup
    assert kind_for_event_resource("Pod") is None
