"""Helpers for the HTTP tests: the official client on a URL, raw requests, kubectl, waiting on a condition."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from kubernetes import client as k8s

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(
    KUBECTL is None,
    reason="kubectl is not on PATH: install it (.ci/run does) to run the kubectl tests",
)


def official_client(url: str, token: str | None = None) -> k8s.ApiClient:
    """An ApiClient of the official ``kubernetes`` package pointed at ``url``."""
    configuration = k8s.Configuration()
    configuration.host = url
    if token:
        configuration.api_key = {"authorization": token}
        configuration.api_key_prefix = {"authorization": "Bearer"}
    return k8s.ApiClient(configuration)


def request(
    url: str,
    method: str,
    path: str,
    body: bytes | str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One raw HTTP request; the status code and the decoded JSON body (or text)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        data = body.encode() if isinstance(body, str) else body
        conn.request(method, path, body=data, headers=headers or {})
        response = conn.getresponse()
        raw = response.read().decode()
        try:
            return response.status, json.loads(raw)
        except ValueError:
            return response.status, raw
    finally:
        conn.close()


def wait_until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Poll ``condition`` until it holds; fail after ``timeout`` seconds. Asserts no time."""
    pause = threading.Event()
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {timeout}s")
        pause.wait(0.02)


def run(config: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``kubectl ARGS`` with ``config`` as its kubeconfig; the finished process, whatever its code."""
    env = {**os.environ, "KUBECONFIG": str(config)}
    return subprocess.run(
        [str(KUBECTL), *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def kubectl(config: Path, *args: str, stdin: str | None = None) -> str:
    """``kubectl ARGS``'s output; the test fails with kubectl's stderr if it does."""
    done = run(config, *args, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done.stdout


def columns(text: str) -> list[list[str]]:
    """The rows of kubectl's table output, split on runs of two or more spaces."""
    return [re.split(r"\s{2,}", line.strip()) for line in text.splitlines() if line.strip()]
