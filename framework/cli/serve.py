"""``python -m framework serve``: the fake API server on HTTP, with the scheduler running on it.

One terminal runs ``python -m framework serve``; another talks to it with
``kubectl`` or any Kubernetes client, through the kubeconfig it writes::

    $ python -m framework serve examples/cluster.yaml
    serving the fake API server on http://127.0.0.1:8080
    kubeconfig: /tmp/ksf-serve-1000/kubeconfig-8080
    $ KUBECONFIG=/tmp/ksf-serve-1000/kubeconfig-8080 kubectl get pods -o wide

The kubeconfig goes, unless ``--kubeconfig`` names a file, into a directory
of the temporary directory that only its user may enter
(``ksf-serve-<uid>``, mode 0700); one that exists but is a link, another
user's, or open to others is refused rather than written into, and the file
is created afresh, never through a link, readable by its owner alone. The
store is in memory: ``serve`` says so as it starts, and everything in it is
gone when it stops. A client that resumes a watch from a resourceVersion of
an earlier run (newer than anything this one has written) is answered as the
watch cache answers it, ``504`` *Too large resource version*.

The scheduler (:class:`~framework.scheduler.scheduler.Scheduler`, on real time) runs
in the same process on the same store, unless ``--no-scheduler``: a pod
created through the API is bound to a node, and its ``Scheduled`` or
``FailedScheduling`` event can be listed. Manifests given on the command
line are created first, read as ``simulate`` reads them
(:func:`~framework.simulator.inputs.load_inputs`; a
``KubeSchedulerConfiguration`` among them configures the scheduler). The
workload controllers run too
(:class:`~framework.simulator.controllers.WorkloadControllers`): a
Deployment, ReplicaSet, StatefulSet, DaemonSet or Job, given here or created
later, gets its pods, and ``kubectl scale`` and ``kubectl rollout status``
work on it.

It listens on loopback unless ``--host`` says otherwise (and warns when it
listens elsewhere with neither a token nor TLS); with a token every request
must carry ``Authorization: Bearer <token>`` (written into the kubeconfig).
The token is read from ``--token-file`` or the ``KSF_SERVE_TOKEN``
environment variable, or given as ``--token`` (which ``ps`` shows to every
user of the machine). kubectl, as every client-go program, sends a token only over
HTTPS (kubernetes/kubectl#744): give ``--tls-cert-file`` and
``--tls-private-key-file`` too, and the kubeconfig names the certificate as
the authority to trust. As there is no kubelet, a pod deleted with a grace
period (a preemption victim) is removed when the period ends
(:mod:`framework.simulator.kubelet`); a pod bound to a node that has no room left for it
is rejected there, ``Failed`` with reason ``OutOfcpu`` and the like, as the
kubelet's admission rejects it. SIGINT or SIGTERM stops it cleanly: the scheduler first (no
cycle left half done), then the HTTP server, every thread joined.

No Kubernetes counterpart: kube-apiserver and kube-scheduler are two
programs; here one process plays both, for a demo and for tests.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import os
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "MSG_IN_MEMORY",
    "TOKEN_ENV",
    "KubeconfigError",
    "add_command",
    "kubeconfig_text",
    "serve",
    "write_kubeconfig",
]

TOKEN_ENV = "KSF_SERVE_TOKEN"
"""The environment variable ``serve`` reads its bearer token from (when there is no ``--token``)."""

MSG_IN_MEMORY = (
    "the store is in memory: everything in it is lost when serve stops, and a client resuming "
    "a watch from an earlier run is told its resourceVersion is too large"
)


class KubeconfigError(Exception):
    """The kubeconfig cannot be written safely where it would go."""


def _private_directory() -> Path:
    """``<tmp>/ksf-serve-<uid>``, made (0700) if missing; refused unless it is private and ours."""
    uid = os.getuid()
    directory = Path(tempfile.gettempdir()) / f"ksf-serve-{uid}"
    with contextlib.suppress(FileExistsError):
        directory.mkdir(mode=0o700)
    info = os.lstat(directory)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        problem = "it is not a directory but a link or a file"
    elif info.st_uid != uid:
        problem = f"it belongs to the user with uid {info.st_uid}"
    elif info.st_mode & 0o077:
        problem = f"others may enter it (mode {stat.S_IMODE(info.st_mode):o})"
    else:
        return directory
    raise KubeconfigError(
        f"will not write the kubeconfig into {directory}: {problem}. Remove it, or name a file "
        "with --kubeconfig"
    )


def write_kubeconfig(text: str, path: str | None, port: int) -> Path:
    """Write ``text`` (it may hold the token) readable by its owner only, never through a link.

    With no ``path``, the file is ``kubeconfig-<port>`` in ``<tmp>/ksf-serve-<uid>``
    (made 0700, and refused unless it is a directory of this user's that no one
    else may enter), created afresh (``O_EXCL``). A named file is replaced in place, unless it is a link.
    """
    if path is None:
        target = _private_directory() / f"kubeconfig-{port}"
        with contextlib.suppress(FileNotFoundError):
            target.unlink()  # a stale one of ours, in a directory nobody else may enter
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    else:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    try:
        fd = os.open(target, flags, 0o600)
    except OSError as error:
        raise KubeconfigError(f"cannot write the kubeconfig {target}: {error.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(fd, 0o600)  # a file that existed keeps its mode through O_TRUNC
        file.write(text)
    return target


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


#: The order objects from files are created in: what others refer to, first.
_CREATE_ORDER = (
    "Namespace",
    "PriorityClass",
    "Node",
    "PodGroup",
    "PodDisruptionBudget",
    "Service",
    "ReplicationController",
    "ReplicaSet",
    "StatefulSet",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "CSIStorageCapacity",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "DeviceClass",
    "ResourceSlice",
    "ResourceClaimTemplate",
    "ResourceClaim",
    "Pod",
    "Deployment",
    "DaemonSet",
    "Job",
)


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


def _preload(
    api: Any, files: Sequence[str], config: str | None, registry: Any, gates: Any = None
) -> Any:
    """Create the objects of ``files`` in the store; return the scheduler's configuration.

    The configuration comes from ``config`` or from among the files, and is
    checked against ``registry`` here, so that a plugin it names but nobody
    registered is one clear error before anything listens.
    """
    from framework.apiserver.errors import AlreadyExists
    from framework.apiserver.store import SERVED_KINDS
    from framework.simulator.inputs import load_inputs

    inputs = load_inputs(
        list(files), config, registry, feature_gates=gates, expand_controllers=False
    )
    for warning in inputs.warnings:
        print(f"warning: {warning}", file=sys.stderr)

    def rank(kind: str) -> int:
        return _CREATE_ORDER.index(kind) if kind in _CREATE_ORDER else len(_CREATE_ORDER)

    # The workload controllers are created as they are: serve's controllers make their pods.
    served = {kind.KIND: kind for kind in SERVED_KINDS}
    controllers = [
        served[c.obj.kind_name()].from_dict(c.obj.to_dict()) for c in inputs.controllers
    ]
    for obj in sorted(
        [*(i.obj for i in inputs.objects), *controllers], key=lambda o: rank(o.kind_name())
    ):
        # The built-in namespaces and PriorityClasses are there already.
        with contextlib.suppress(AlreadyExists):
            api.create(obj)
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
    start_pods: bool = True,
    job_seconds: float = 5.0,
    engine: str | None = None,
    kubeconfig: str | None = None,
    tls_cert_file: str | None = None,
    tls_private_key_file: str | None = None,
    stop: threading.Event | None = None,
    on_ready: Callable[[str, Path], None] | None = None,
    emulated_version: str | None = None,
    feature_gates: str | None = None,
) -> int:
    """Serve until ``stop`` is set (or the process is told to stop); return an exit code.

    ``on_ready(url, kubeconfig_path)`` is called once the server listens and
    the scheduler runs. ``config`` is a KubeSchedulerConfiguration file and
    ``plugins`` are ``NAME=module:attribute`` specs of out-of-tree plugins,
    as ``simulate`` takes them; ``emulated_version`` and ``feature_gates``
    pick the scheduler's release and gates, as for ``simulate``. With ``start_pods``, every
    pod the kubelets admit is started at once: ``Running`` and ready
    (:class:`~framework.simulator.kubelet.NodeAdmission`), and a Job's pod succeeds
    ``job_seconds`` after it started. The workload controllers run too
    (:class:`~framework.simulator.controllers.WorkloadControllers`).
    """
    from framework.apiserver import APIServer
    from framework.apiserver.http import APIHTTPServer
    from framework.clock import RealClock
    from framework.scheduler.scheduler import Scheduler
    from framework.simulator.controllers import WorkloadControllers
    from framework.simulator.inputs import PluginSpecError, SimulationInputError, plugin_registry
    from framework.simulator.kubelet import NodeAdmission, TerminationLoop
    from framework.simulator.run import gates_for

    clock = RealClock()
    try:
        gates = gates_for(emulated_version, feature_gates)
    except SimulationInputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    api = APIServer(clock, feature_gates=gates)
    try:
        registry = plugin_registry(list(plugins))
        scheduler_config = _preload(api, files, config, registry, gates)
    except (SimulationInputError, PluginSpecError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for flag, name in (
        ("--tls-cert-file", tls_cert_file),
        ("--tls-private-key-file", tls_private_key_file),
    ):
        if name is not None and not Path(name).is_file():
            print(f"error: {flag} {name}: no such file", file=sys.stderr)
            return 2
    if not _is_loopback(host) and token is None and tls_cert_file is None:
        print(
            f"warning: listening on {host} with neither a token nor TLS: anyone who can reach "
            "it may read and change everything (give --token-file and --tls-cert-file)",
            file=sys.stderr,
        )
    from framework.scheduler.engine import default_engine

    scheduler = (
        Scheduler(
            api,
            scheduler_config,
            registry,
            clock=clock,
            engine=engine or default_engine(),
            feature_gates=gates,
        )
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
    authority = str(Path(tls_cert_file).resolve()) if tls_cert_file else None
    try:
        path = write_kubeconfig(
            kubeconfig_text(server.url, token, authority), kubeconfig, server.port
        )
    except KubeconfigError as error:
        server.stop()
        print(f"error: {error}", file=sys.stderr)
        return 2
    stop = stop or threading.Event()
    server.start()
    # No kubelet here: pods deleted with a grace period (preemption's victims) are
    # removed when it ends, or a preemptor would wait for them forever.
    kubelet = TerminationLoop(api, clock)
    kubelet.start()
    # ...and a pod bound to a node without room for it (bound by hand, or by another
    # scheduler) is rejected there, as a kubelet's admission does.
    admission = NodeAdmission(api, clock, start_pods=start_pods, job_seconds=job_seconds)
    admission.start()
    # kube-controller-manager's workload controllers: Deployments and the rest make their pods.
    controllers = WorkloadControllers(api, clock)
    controllers.sync()
    controllers.start()
    if scheduler is not None:
        scheduler.run()
    print(f"serving the fake API server on {server.url}", flush=True)
    print(f"kubeconfig: {path}", flush=True)
    print(f"note: {MSG_IN_MEMORY}", flush=True)
    if on_ready is not None:
        on_ready(server.url, path)
    try:
        stop.wait()
    finally:
        if scheduler is not None:
            scheduler.stop()
        kubelet.stop()
        controllers.stop()
        admission.stop()
        server.stop()
    print("stopped", flush=True)
    return 0


def _run(args: argparse.Namespace) -> int:
    from framework.cli.signal_context import setup_signal_event

    try:
        token = _token(args.token, args.token_file)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stop = setup_signal_event()
    return serve(
        host=args.host,
        port=args.port,
        token=token,
        files=args.files,
        config=args.config,
        plugins=args.plugin,
        with_scheduler=args.with_scheduler,
        start_pods=args.start_pods,
        job_seconds=args.job_seconds,
        engine=args.engine,
        emulated_version=args.emulated_version,
        feature_gates=args.feature_gates,
        kubeconfig=args.kubeconfig,
        tls_cert_file=args.tls_cert_file,
        tls_private_key_file=args.tls_private_key_file,
        stop=stop,
    )


def _token(given: str | None, token_file: str | None) -> str | None:
    """The bearer token from ``--token``, ``--token-file`` or :data:`TOKEN_ENV`, at most one."""
    from_env = os.environ.get(TOKEN_ENV) or None
    named = [n for n, v in (("--token", given), ("--token-file", token_file)) if v is not None]
    if len(named) > 1:
        raise ValueError("give the token once: --token or --token-file, not both")
    if token_file is not None:
        lines = Path(token_file).read_text(encoding="utf-8").splitlines()
        token = lines[0].strip() if lines else ""
        if not token:
            raise ValueError(f"--token-file {token_file}: the file's first line is empty")
        return token
    if given is not None:
        print(
            f"warning: --token is shown to every user of this machine by ps; prefer "
            f"--token-file or {TOKEN_ENV}",
            file=sys.stderr,
        )
        return given
    return from_env


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
    from framework.cli.simulate import add_version_arguments

    add_version_arguments(parser)
    parser.add_argument(
        "--token",
        help="require 'Authorization: Bearer TOKEN' on every request (ps shows it: prefer "
        f"--token-file or {TOKEN_ENV})",
    )
    parser.add_argument(
        "--token-file", metavar="PATH", help="read the token from the first line of this file"
    )
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
        "e.g. MyPlugin=my_plugins:new; QOSSort and Coscheduling (scheduler-plugins) are "
        "registered under their names already, as in scheduler-plugins' own kube-scheduler",
    )
    parser.add_argument(
        "--no-scheduler",
        dest="with_scheduler",
        action="store_false",
        help="serve the API only; schedule nothing",
    )
    parser.add_argument(
        "--no-start-pods",
        dest="start_pods",
        action="store_false",
        help="leave bound pods Pending: no kubelet makes them Running and Ready "
        "(by default each admitted pod starts at once, as KWOK plays a node)",
    )
    parser.add_argument(
        "--job-seconds",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="how long a started pod of a Job runs before it succeeds (default 5)",
    )
    parser.add_argument(
        "--kubeconfig",
        metavar="PATH",
        help="where to write the kubeconfig (default: kubeconfig-PORT in a private directory "
        "of the temporary directory)",
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
