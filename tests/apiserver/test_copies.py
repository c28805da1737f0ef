"""A write copies each part of an object once, however many steps change it.

kube-apiserver decodes a request into a fresh object and lets defaulting,
admission and the strategy change its fields in place
(``staging/src/k8s.io/apiserver/pkg/registry/rest/create.go``,
``BeforeCreate``; v1.33). Our objects are frozen dataclasses, so every
change is a copy (``dataclasses.replace``); these tests count the copies a
create makes of each part, so that the steps share one copy per part
instead of making their own (issue 16, the path around the cycle). What is
stored is checked by the other tests of this directory.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator

import pytest

from framework.apiserver import APIServer, EventRecorder
from framework.objects import Pod

BENCH_POD = {
    "metadata": {"name": "p", "namespace": "default"},
    "spec": {
        "containers": [
            {
                "name": "pause",
                "image": "registry.k8s.io/pause:3.10",
                "ports": [{"containerPort": 80}],
                "resources": {
                    "limits": {"cpu": "100m", "memory": "500Mi"},
                    "requests": {"cpu": "100m", "memory": "500Mi"},
                },
            }
        ]
    },
}


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How many times each type went through ``dataclasses.replace`` while the test ran."""
    counted: Counter[str] = Counter()
    replace = dataclasses.replace

    def counting(obj, /, **changes):  # type: ignore[no-untyped-def]
        counted[type(obj).__name__] += 1
        return replace(obj, **changes)

    monkeypatch.setattr(dataclasses, "replace", counting)
    yield counted


def test_creating_a_pod_copies_the_pod_once_per_step_and_its_parts_once_per_owner(
    api: APIServer, copies: Counter[str]
) -> None:
    sent = Pod.from_dict(BENCH_POD)
    stored = api.create(sent)
    # Steps that change the pod: defaulting, admission (both plugins at once), the
    # strategy's PrepareForCreate, and the server's own fields (resourceVersion with them).
    assert copies["Pod"] <= 4, copies
    assert copies["PodSpec"] <= 2, copies  # defaulting, then admission's tolerations and priority
    assert copies["ObjectMeta"] <= 2, copies  # generation, then uid, time and resourceVersion
    assert copies["Container"] <= 1, copies
    assert stored.metadata.resource_version and stored.metadata.uid
    assert stored.spec.priority == 0 and len(stored.spec.tolerations) == 2


def test_recording_an_event_copies_it_once(api: APIServer, copies: Counter[str]) -> None:
    regarding = api.create(Pod.from_dict(BENCH_POD))
    copies.clear()
    event = EventRecorder(api, "default-scheduler").event(
        regarding, "Normal", "Scheduled", "Binding", "Successfully assigned default/p to n1"
    )
    assert copies["Event"] <= 1, copies
    assert copies["ObjectMeta"] <= 1, copies
    assert (
        event.metadata.resource_version
        and event.metadata.uid
        and event.metadata.creation_timestamp
    )
