"""``kubectl`` — a client nobody here wrote — against ``python -m framework serve``.

``apply -f`` (client-side apply: GET, then POST or a strategic merge PATCH
carrying the last-applied annotation), ``get pods -o wide`` (a Table from
the server, ``pkg/printers/internalversion/printers.go``), ``get events``,
``label`` and ``delete``, with the scheduler binding the pods as
kube-scheduler would (``pkg/scheduler/schedule_one.go``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from framework.cli.serve import serve
from tests.serve.helpers import KUBECTL, kubectl, needs_kubectl, wait_until

pytestmark = needs_kubectl

MANIFEST = """\
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {zone: a}}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, labels: {app: web}}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 500m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, labels: {app: web}}
spec:
  containers: [{name: app, image: nginx, resources: {requests: {cpu: 500m}}}]
"""


def test_apply_get_wide_events_label_and_delete(kubeconfig: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "cluster.yaml"
    manifest.write_text(MANIFEST)
    applied = kubectl(kubeconfig, "apply", "-f", str(manifest))
    assert "node/node-a created" in applied and "pod/web-1 created" in applied

    def both_on_node_a() -> bool:
        rows = kubectl(kubeconfig, "get", "pods", "-o", "wide", "--no-headers").splitlines()
        return len(rows) == 2 and all(" node-a " in row for row in rows)

    wait_until(both_on_node_a)
    header = kubectl(kubeconfig, "get", "pods", "-o", "wide").splitlines()[0].split()
    assert header[:5] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"] and "NODE" in header

    events = kubectl(kubeconfig, "get", "events")
    assert "Scheduled" in events and "Successfully assigned default/web-1 to node-a" in events

    assert "unchanged" in kubectl(kubeconfig, "apply", "-f", str(manifest))
    changed = MANIFEST.replace(
        "metadata: {name: web-1, labels: {app: web}}",
        "metadata: {name: web-1, labels: {app: web, v: '2'}}",
    )
    manifest.write_text(changed)
    assert "pod/web-1 configured" in kubectl(kubeconfig, "apply", "-f", str(manifest))

    assert "pod/web-2 labeled" in kubectl(kubeconfig, "label", "pod", "web-2", "tier=front")
    shown = kubectl(kubeconfig, "get", "pods", "-l", "tier=front", "-o", "name")
    assert shown.split() == ["pod/web-2"]
    assert "v=2" in kubectl(kubeconfig, "get", "pod", "web-1", "--show-labels")

    assert 'pod "web-2" deleted' in kubectl(kubeconfig, "delete", "pod", "web-2")
    assert kubectl(kubeconfig, "get", "pods", "-o", "name").split() == ["pod/web-1"]
    assert "node-a" in kubectl(kubeconfig, "get", "nodes")


def test_serve_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    config = tmp_path / "kubeconfig"
    process = subprocess.Popen(
        [sys.executable, "-m", "framework", "serve", "--port", "0", "--kubeconfig", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline(), process.stdout.readline()]
        assert lines[0].startswith("serving the fake API server on http://127.0.0.1:")
        assert lines[1].strip() == f"kubeconfig: {config}"
        assert "NAME" in kubectl(config, "get", "namespaces")
        process.terminate()
        out, _ = process.communicate(timeout=30)
        assert process.returncode == 0
        assert out.strip().endswith("stopped")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made with the ``openssl`` command."""
    cert, key = directory / "server.crt", directory / "server.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not on PATH")
def test_kubectl_sends_the_token_over_https_and_is_refused_without_it(tmp_path: Path) -> None:
    cert, key = self_signed_certificate(tmp_path)
    stop, ready = threading.Event(), threading.Event()
    config = tmp_path / "kubeconfig"
    thread = threading.Thread(
        target=serve,
        kwargs={
            "port": 0,
            "token": "s3cret",
            "with_scheduler": False,
            "kubeconfig": str(config),
            "tls_cert_file": str(cert),
            "tls_private_key_file": str(key),
            "stop": stop,
            "on_ready": lambda url, p: ready.set(),
        },
    )
    thread.start()
    try:
        assert ready.wait(30)
        assert "https://127.0.0.1:" in config.read_text()
        assert "default" in kubectl(config, "get", "namespaces")
        env = {**os.environ, "KUBECONFIG": str(config)}
        refused = subprocess.run(
            [str(KUBECTL), "get", "nodes", "--token", "wrong"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert refused.returncode != 0
        assert "(Unauthorized)" in refused.stderr  # the Status message, as kubectl prints it
    finally:
        stop.set()
        thread.join(30)
