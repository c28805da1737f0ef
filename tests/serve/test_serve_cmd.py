"""``python -m framework serve`` as a function: preloaded manifests, the kubeconfig, the scheduler.

The official client loads the kubeconfig ``serve`` writes
(``kubernetes.config.load_kube_config``, the counterpart of client-go's
``clientcmd``) and finds the preloaded pod bound by the in-process scheduler
(``pkg/scheduler/schedule_one.go``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kubernetes import client as k8s
from kubernetes import config as k8s_config

from framework.cli.serve import kubeconfig_text, serve
from tests.serve.helpers import wait_until

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: node-a}
status:
  capacity: {cpu: "2", memory: 4Gi, pods: "10"}
  allocatable: {cpu: "2", memory: 4Gi, pods: "10"}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 500m}}}]
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
"""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Path]:
    manifest = tmp_path / "cluster.yaml"
    manifest.write_text(CLUSTER)
    stop, ready = threading.Event(), threading.Event()
    config = tmp_path / "kubeconfig"
    thread = threading.Thread(
        target=serve,
        kwargs={
            "port": 0,
            "files": [str(manifest)],
            "kubeconfig": str(config),
            "stop": stop,
            "on_ready": lambda url, path: ready.set(),
        },
    )
    thread.start()
    assert ready.wait(30), "serve did not start"
    try:
        yield config
    finally:
        stop.set()
        thread.join(30)
        assert not thread.is_alive()


def test_preloaded_pods_are_scheduled_and_read_through_the_kubeconfig(served: Path) -> None:
    with k8s_config.new_client_from_config(str(served)) as api_client:
        core = k8s.CoreV1Api(api_client)
        # The namespace came after the pod in the file; serve creates what others need first.
        wait_until(lambda: bool(core.read_namespaced_pod("web", "shop").spec.node_name))
        assert core.read_namespaced_pod("web", "shop").spec.node_name == "node-a"


def test_bad_manifests_stop_serve_before_it_listens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: 3}\n")
    assert serve(port=0, files=[str(bad)], kubeconfig=str(tmp_path / "k")) == 2
    assert "bad.yaml: Pod default/x" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("token", "authority", "user"),
    [
        pytest.param(None, None, {}, id="no token"),
        pytest.param("s3cret", "/ca.crt", {"token": "s3cret"}, id="token and certificate"),
    ],
)
def test_the_kubeconfig_points_at_the_server(
    token: str | None, authority: str | None, user: dict[str, str]
) -> None:
    config = yaml.safe_load(kubeconfig_text("http://127.0.0.1:1234", token, authority))
    cluster = config["clusters"][0]["cluster"]
    assert cluster["server"] == "http://127.0.0.1:1234"
    assert cluster.get("certificate-authority") == authority
    assert config["users"][0]["user"] == user
    assert config["current-context"] == config["contexts"][0]["name"]


GANG_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    permit: {enabled: [{name: Coscheduling}]}
"""


def test_a_config_naming_an_out_of_tree_plugin_needs_plugin_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "sched.yaml").write_text(GANG_CONFIG.replace("Coscheduling", "GangOfMine"))
    common = {
        "port": 0,
        "files": [str(tmp_path / "cluster.yaml")],
        "config": str(tmp_path / "sched.yaml"),
        "kubeconfig": str(tmp_path / "k"),
    }
    assert serve(**common) == 2  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert 'plugin "GangOfMine" does not exist' in err
    assert "--plugin GangOfMine=module:factory" in err
    assert "Traceback" not in err
    stop = threading.Event()
    stop.set()  # listen, then stop at once: the plugin was found this time
    plugin = ["GangOfMine=framework.plugins.coscheduling:new"]
    assert serve(**common, plugins=plugin, stop=stop) == 0  # type: ignore[arg-type]


def test_bundled_scheduler_plugins_need_no_plugin_flag(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "sched.yaml").write_text(GANG_CONFIG)
    stop = threading.Event()
    stop.set()
    assert (
        serve(
            port=0,
            files=[str(tmp_path / "cluster.yaml")],
            config=str(tmp_path / "sched.yaml"),
            kubeconfig=str(tmp_path / "k"),
            stop=stop,
        )
        == 0
    )


PREEMPTION = """\
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "1", memory: 4Gi, pods: "10"}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Pod
metadata: {name: batch}
spec:
  nodeName: node-a
  terminationGracePeriodSeconds: 1
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: vip}
spec:
  priorityClassName: high
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


def test_a_preemption_completes_because_serve_ends_graceful_deletions(tmp_path: Path) -> None:
    # The victim is deleted with its grace period (1 s); with no kubelet to end it,
    # the preemptor would wait forever for the room (framework/simulator/kubelet.py).
    (tmp_path / "cluster.yaml").write_text(PREEMPTION)
    stop, ready = threading.Event(), threading.Event()
    kubeconfig = tmp_path / "kubeconfig"
    thread = threading.Thread(
        target=serve,
        kwargs={
            "port": 0,
            "files": [str(tmp_path / "cluster.yaml")],
            "kubeconfig": str(kubeconfig),
            "stop": stop,
            "on_ready": lambda url, path: ready.set(),
        },
    )
    thread.start()
    try:
        assert ready.wait(30), "serve did not start"
        with k8s_config.new_client_from_config(str(kubeconfig)) as api_client:
            core = k8s.CoreV1Api(api_client)
            wait_until(lambda: bool(core.read_namespaced_pod("vip", "default").spec.node_name))
            names = [p.metadata.name for p in core.list_namespaced_pod("default").items]
        assert names == ["vip"]
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()
