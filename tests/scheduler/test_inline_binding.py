"""Binding inline: a binding cycle that cannot block runs on the scheduling thread, and binds the same.

kube-scheduler starts a goroutine per binding cycle (``bindingCycle`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one.go``, v1.33). A binding
that can never wait (no Permit wait, no PreBind, DefaultBinder against the
in-memory API server) finishes before the next cycle reads the cluster, so
running it inline gives one of the interleavings Go's could give; a profile
with a PreBind keeps its threads.
"""

from __future__ import annotations

from typing import Any

from framework.apiserver import APIServer
from framework.clock import FakeClock
from framework.objects import Pod
from framework.scheduler.scheduler import Scheduler
from framework.status import Status
from tests.scheduler.helpers import config_with, node, pod, registry_with


class _NoOpPreBind:
    def name(self) -> str:
        return "NoOpPreBind"

    def pre_bind(self, state: Any, pod: Pod, node_name: str) -> Status | None:
        return None


def _schedule(scheduler: Scheduler, api: APIServer, pods: int) -> dict[str, str]:
    for i in range(2):
        api.create(node(f"n{i}", cpu="4"))
    for i in range(pods):
        api.create(pod(f"p{i}", cpu="1"))
    scheduler.sync()
    scheduler.schedule_pending()
    scheduler.scheduling.wait_for_bindings()
    scheduler.sync()
    return {p.name: p.spec.node_name for p in api.list(Pod).items}


def test_the_default_profile_binds_inline_and_places_as_with_threads() -> None:
    inline_api, threaded_api = APIServer(FakeClock()), APIServer(FakeClock())
    inline = Scheduler(inline_api, clock=FakeClock(), seed=3, inline_binding=True)
    threaded = Scheduler(threaded_api, clock=FakeClock(), seed=3)
    fwk = next(iter(inline.profiles.values()))
    assert inline.scheduling.binds_inline(fwk, pod("x"))
    assert not threaded.scheduling.binds_inline(fwk, pod("x"))
    # VolumeBinding's PreBind writes for a pod with a claim: that one binds on a thread.
    with_claim = Pod.from_dict(
        {
            **pod("y").to_dict(),
            "spec": {
                **pod("y").to_dict()["spec"],
                "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "d"}}],
            },
        }
    )
    assert not inline.scheduling.binds_inline(fwk, with_claim)
    assert _schedule(inline, inline_api, 6) == _schedule(threaded, threaded_api, 6)
    assert all(p.spec.node_name for p in inline_api.list(Pod).items)


def test_a_profile_with_a_prebind_keeps_its_binding_threads() -> None:
    api = APIServer(FakeClock())
    scheduler = Scheduler(
        api,
        config_with("NoOpPreBind"),
        registry_with(NoOpPreBind=lambda args, handle: _NoOpPreBind()),
        clock=FakeClock(),
        inline_binding=True,
    )
    fwk = next(iter(scheduler.profiles.values()))
    assert not scheduler.scheduling.binds_inline(fwk, pod("x"))
