"""``python -m framework serve``: the fake API server on HTTP, with the scheduler running on it.

One terminal runs ``python -m framework serve``; another talks to it with
``kubectl`` or any Kubernetes client, through the kubeconfig it writes::

    $ python -m framework serve examples/cluster.yaml
    serving the fake API server on http://127.0.0.1:8080
    kubeconfig: /tmp/ksf-serve-8080/kubeconfig
    $ KUBECONFIG=/tmp/ksf-serve-8080/kubeconfig kubectl get pods -o wide

The scheduler (:class:`~framework.scheduler.scheduler.Scheduler`, on real time) runs
in the same process on the same store, unless ``--no-scheduler``: a pod
created through the API is bound to a node, and its ``Scheduled`` or
``FailedScheduling`` event can be listed. Manifests given on the command
line are created first, read as ``simulate`` reads them
(:func:`~framework.simulator.inputs.load_inputs`: workload controllers
become their pods, a ``KubeSchedulerConfiguration`` among them configures
the scheduler).

It listens on loopback unless ``--host`` says otherwise; with ``--token``
every request must carry ``Authorization: Bearer <token>`` (written into the
kubeconfig). kubectl, as every client-go program, sends a token only over
HTTPS (kubernetes/kubectl#744): give ``--tls-cert-file`` and
``--tls-private-key-file`` too, and the kubeconfig names the certificate as
the authority to trust. As there is no kubelet, a pod deleted with a grace
period (a preemption victim) is removed when the period ends
(:mod:`framework.kubelet`); a pod bound to a node that has no room left for it
is rejected there, ``Failed`` with reason ``OutOfcpu`` and the like, as the
kubelet's admission rejects it. SIGINT or SIGTERM stops it cleanly: the scheduler first (no
cycle left half done), then the HTTP server, every thread joined.

No Kubernetes counterpart: kube-apiserver and kube-scheduler are two
programs; here one process plays both, for a demo and for tests.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_command", "kubeconfig_text", "serve"]

#: The order objects from files are created in: what others refer to, first.
_CREATE_ORDER = ("Namespace", "PriorityClass", "Node", "PodGroup", "PodDisruptionBudget", "Pod")


def kubeconfig_text(
    server_url: str, token: str | None = None, certificate_authority: str | None = None
) -> str:
    """A kubeconfig whose current context points at ``server_url`` (with ``token`` if given).

    ``certificate_authority`` is the PEM file that signed the server's
    certificate (the certificate itself, if self-signed).
    """
    user = f"    token: {json.dumps(token)}\n" if token else "    {}\n"
    authority = (
        f"    certificate-authority: {json.dumps(certificate_authority)}\n"
        if certificate_authority
        else ""
    )
    return (
        "apiVersion: v1\n"
        "kind: Config\n"
        "clusters:\n"
        "- name: kube-scheduling-framework\n"
        "  cluster:\n"
        f"    server: {server_url}\n"
        f"{authority}"
        "users:\n"
        "- name: kube-scheduling-framework\n"
        "  user:\n"
        f"{user}"
        "contexts:\n"
        "- name: kube-scheduling-framework\n"
        "  context:\n"
        "    cluster: kube-scheduling-framework\n"
        "    user: kube-scheduling-framework\n"
        "current-context: kube-scheduling-framework\n"
    )


def _preload(api: Any, files: Sequence[str], config: str | None, registry: Any) -> Any:
    """Create the objects of ``files`` in the store; return the scheduler's configuration.

    The configuration comes from ``config`` or from among the files, and is
    checked against ``registry`` here, so that a plugin it names but nobody
    registered is one clear error before anything listens.
    """
    from framework.apiserver.errors import AlreadyExists
    from framework.simulator.inputs import load_inputs

    inputs = load_inputs(list(files), config, registry)
    for warning in inputs.warnings:
        print(f"warning: {warning}", file=sys.stderr)

    def rank(kind: str) -> int:
        return _CREATE_ORDER.index(kind) if kind in _CREATE_ORDER else len(_CREATE_ORDER)

    for item in sorted(inputs.objects, key=lambda i: rank(i.obj.kind_name())):
        # The built-in namespaces and PriorityClasses are there already.
        with contextlib.suppress(AlreadyExists):
            api.create(item.obj)
    return inputs.config


def serve(
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    token: str | None = None,
    files: Sequence[str] = (),
    config: str | None = None,
    plugins: Sequence[str] = (),
    with_scheduler: bool = True,
    engine: str | None = None,
    kubeconfig: str | None = None,
    tls_cert_file: str | None = None,
    tls_private_key_file: str | None = None,
    stop: threading.Event | None = None,
    on_ready: Callable[[str, Path], None] | None = None,
) -> int:
    """Serve until ``stop`` is set (or the process is told to stop); return an exit code.

    ``on_ready(url, kubeconfig_path)`` is called once the server listens and
    the scheduler runs. ``config`` is a KubeSchedulerConfiguration file and
    ``plugins`` are ``NAME=module:attribute`` specs of out-of-tree plugins,
    as ``simulate`` takes them.
    """
    from framework.apiserver import APIServer
    from framework.apiserver.http import APIHTTPServer
    from framework.clock import RealClock
    from framework.kubelet import NodeAdmission, TerminationLoop
    from framework.scheduler.scheduler import Scheduler
    from framework.simulator.inputs import PluginSpecError, SimulationInputError, plugin_registry

    clock = RealClock()
    api = APIServer(clock)
    try:
        registry = plugin_registry(list(plugins))
        scheduler_config = _preload(api, files, config, registry)
    except (SimulationInputError, PluginSpecError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from framework.scheduler.engine import default_engine

    scheduler = (
        Scheduler(api, scheduler_config, registry, clock=clock, engine=engine or default_engine())
        if with_scheduler
        else None
    )
    try:
        server = APIHTTPServer(
            api,
            host=host,
            port=port,
            token=token,
            clock=clock,
            tls_cert_file=tls_cert_file,
            tls_private_key_file=tls_private_key_file,
        )
    except OSError as error:
        print(f"error: cannot listen on {host}:{port}: {error}", file=sys.stderr)
        return 2
    path = (
        Path(kubeconfig)
        if kubeconfig
        else Path(tempfile.gettempdir()) / f"ksf-serve-{server.port}" / "kubeconfig"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    authority = str(Path(tls_cert_file).resolve()) if tls_cert_file else None
    path.write_text(kubeconfig_text(server.url, token, authority))
    path.chmod(0o600)  # it may hold the token
    stop = stop or threading.Event()
    server.start()
    # No kubelet here: pods deleted with a grace period (preemption's victims) are
    # removed when it ends, or a preemptor would wait for them forever.
    kubelet = TerminationLoop(api, clock)
    kubelet.start()
    # ...and a pod bound to a node without room for it (bound by hand, or by another
    # scheduler) is rejected there, as a kubelet's admission does.
    admission = NodeAdmission(api, clock)
    admission.start()
    if scheduler is not None:
        scheduler.run()
    print(f"serving the fake API server on {server.url}", flush=True)
    print(f"kubeconfig: {path}", flush=True)
    if on_ready is not None:
        on_ready(server.url, path)
    try:
        stop.wait()
    finally:
        if scheduler is not None:
            scheduler.stop()
        kubelet.stop()
        admission.stop()
        server.stop()
    print("stopped", flush=True)
    return 0


def _run(args: argparse.Namespace) -> int:
    from framework.signal_context import setup_signal_event

    stop = setup_signal_event()
    return serve(
        host=args.host,
        port=args.port,
        token=args.token,
        files=args.files,
        config=args.config,
        plugins=args.plugin,
        with_scheduler=args.with_scheduler,
        engine=args.engine,
        kubeconfig=args.kubeconfig,
        tls_cert_file=args.tls_cert_file,
        tls_private_key_file=args.tls_private_key_file,
        stop=stop,
    )


def add_command(commands: Any) -> None:
    """Add ``serve`` to the ``python -m framework`` subparsers."""
    parser = commands.add_parser(
        "serve",
        help="the fake API server over HTTP, with the scheduler: for kubectl and real clients",
        description="Serve the in-memory API server over HTTP (the Kubernetes REST API) and "
        "run the scheduler on it. Stop with Ctrl-C.",
    )
    parser.add_argument("files", nargs="*", help="manifests to create first (YAML or JSON)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any free)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: loopback only)"
    )
    from framework.scheduler.engine import add_engine_argument

    add_engine_argument(parser)
    parser.add_argument("--token", help="require 'Authorization: Bearer TOKEN' on every request")
    parser.add_argument(
        "--config",
        help="the scheduler's KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)",
    )
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="NAME=MODULE:ATTR",
        help="register an out-of-tree plugin factory by import path (repeatable), "
        "e.g. Coscheduling=framework.plugins.coscheduling:new",
    )
    parser.add_argument(
        "--no-scheduler",
        dest="with_scheduler",
        action="store_false",
        help="serve the API only; schedule nothing",
    )
    parser.add_argument(
        "--kubeconfig",
        metavar="PATH",
        help="where to write the kubeconfig (default: a file under the temporary directory)",
    )
    parser.add_argument(
        "--tls-cert-file",
        metavar="PEM",
        help="serve HTTPS with this certificate (kubectl sends a --token only over HTTPS)",
    )
    parser.add_argument(
        "--tls-private-key-file", metavar="PEM", help="the certificate's private key"
    )
    parser.set_defaults(run=_run)
