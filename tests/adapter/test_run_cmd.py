"""``python -m framework run`` against ``serve --no-scheduler``: the adapter's scheduler binds the pods.

Expectations from kube-scheduler: it takes the unbound pods whose
``schedulerName`` names one of its profiles (``pkg/scheduler/eventhandlers.go``,
``responsibleForPod``), binds them through ``pods/binding`` and records
``Scheduled`` (``pkg/scheduler/schedule_one.go``); its informers survive a
broken watch (``client-go/tools/cache/reflector.go``); a bind that loses the
race to another binder fails that attempt, the assumed pod is forgotten and
no ``Scheduled`` event is written (``schedule_one.go``, ``handleBindingCycleError``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from framework.adapter import KubeClient
from framework.apiserver import APIServer
from framework.apiserver.http import APIHTTPServer
from framework.cli.run import run
from framework.cli.serve import kubeconfig_text
from framework.clock import RealClock
from framework.config import loads_config
from framework.cycle_state import CycleState
from framework.objects import Event, Node, Pod
from framework.objects.manifest import loads
from framework.scheduler.scheduler import Scheduler
from framework.simulator.inputs import plugin_registry
from framework.status import Status
from framework.testing.steps import StepLog
from tests.adapter.conftest import WatchedAPIServer
from tests.adapter.test_client import NODE, binding, pod
from tests.serve.helpers import official_client, wait_until

ROOT = Path(__file__).resolve().parents[2]


def node_name(api: APIServer, name: str) -> str:
    return api.get(Pod, name, namespace="default").spec.node_name


def scheduled_events(api: APIServer) -> list[str]:
    return [e.involved_object.name for e in api.list(Event).items if e.reason == "Scheduled"]


@pytest.fixture
def running(api: WatchedAPIServer, server: APIHTTPServer) -> Iterator[Scheduler]:
    """``run`` on a thread against the server, until the test ends."""
    (node,) = loads(NODE)
    api.create(node)
    stop = threading.Event()
    ready: list[Scheduler] = []
    codes: list[int] = []
    with official_client(server.url) as api_client:
        thread = threading.Thread(
            target=lambda: codes.append(
                run(api_client=api_client, stop=stop, on_ready=ready.append)
            )
        )
        thread.start()
        try:
            wait_until(lambda: bool(ready) or bool(codes))
            assert ready, f"run exited with {codes}"
            yield ready[0]
        finally:
            stop.set()
            thread.join(timeout=30)
    assert codes == [0]


def test_pods_created_through_the_api_are_bound_by_the_adapter(
    api: WatchedAPIServer, running: Scheduler
) -> None:
    api.create(pod("a"))
    api.create(pod("b"))
    wait_until(lambda: node_name(api, "a") == "n1" and node_name(api, "b") == "n1")
    wait_until(lambda: sorted(scheduled_events(api)) == ["a", "b"])


def test_a_pod_for_another_scheduler_is_left_alone(
    api: WatchedAPIServer, running: Scheduler
) -> None:
    api.create(pod("theirs", scheduler="other-scheduler"))
    api.create(pod("ours"))
    wait_until(lambda: node_name(api, "ours") == "n1")
    assert node_name(api, "theirs") == ""
    assert "theirs" not in scheduled_events(api)


def test_a_watch_broken_mid_stream_loses_nothing(
    api: WatchedAPIServer, running: Scheduler
) -> None:
    api.create(pod("before"))
    wait_until(lambda: node_name(api, "before") == "n1")
    rewatches = running.pod_informer.rewatches + running.node_informer.rewatches
    assert api.drop_watches() >= 2  # the pod and node watches, at least
    (second,) = loads(NODE.replace("n1", "n2"))
    api.create(second)
    api.create(pod("after"))
    wait_until(lambda: node_name(api, "after") in ("n1", "n2"))
    wait_until(lambda: running.cache.node_count() == 2)  # the node added meanwhile arrived too
    assert running.pod_informer.rewatches + running.node_informer.rewatches > rewatches


class _Racer:
    """A PreBind plugin that binds the pod to ``n2`` first, as a second scheduler could."""

    def __init__(self, api: APIServer) -> None:
        self.api = api

    def name(self) -> str:
        return "Racer"

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.api.bind(binding(pod.name, "n2"))
        return None


RACER_CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    preBind:
      enabled:
      - name: Racer
"""


def test_a_bind_conflict_forgets_the_pod_and_is_not_reported_as_success(
    api: WatchedAPIServer, client: KubeClient
) -> None:
    for text in (NODE, NODE.replace("n1", "n2").replace('cpu: "4"', 'cpu: "1"')):
        (node,) = loads(text)
        api.create(node)
    registry = plugin_registry({"Racer": lambda args, handle: _Racer(api)})
    scheduler = Scheduler(
        client,  # type: ignore[arg-type]
        loads_config(RACER_CONFIG),
        registry,
        clock=RealClock(),
    )
    steps: list[tuple[str, str]] = []
    scheduler.add_tracer(StepLog(lambda step, p, detail: steps.append((step, p.name))))
    scheduler.run()
    try:
        api.create(pod("raced"))
        wait_until(lambda: node_name(api, "raced") == "n2")  # the racer won
        wait_until(lambda: scheduler.cache.pod_count() == 1)
        cached = scheduler.cache.get_pod(api.get(Pod, "raced", namespace="default"))
        wait_until(
            lambda: not scheduler.cache.is_assumed_pod(cached)
        )  # forgotten, then seen bound
        assert cached is not None
        wait_until(lambda: scheduler.cache.get_pod(cached).spec.node_name == "n2")  # type: ignore[union-attr]
    finally:
        scheduler.stop()
    assert ("SchedulingFailed", "raced") in steps, steps  # the binding cycle failed
    assert ("Bound", "raced") not in steps, steps
    assert "raced" not in scheduled_events(api)


def test_a_kubeconfig_that_cannot_be_read_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(kubeconfig=str(tmp_path / "missing")) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_the_command_schedules_and_stops_cleanly_on_sigterm(
    api: WatchedAPIServer, server: APIHTTPServer, tmp_path: Path
) -> None:
    """``python -m framework run --kubeconfig``: SIGTERM ends it with code 0, nothing half done."""
    (node,) = loads(NODE)
    api.create(node)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(kubeconfig_text(server.url))
    env: dict[str, Any] = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "framework", "run", "--kubeconfig", str(kubeconfig)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("scheduling pods with schedulerName default-scheduler on ")
        api.create(pod("cli"))
        wait_until(lambda: node_name(api, "cli") == "n1")
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert out.strip().endswith("stopped")
    assert api.list(Node).items
