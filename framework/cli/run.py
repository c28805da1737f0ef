"""``python -m framework run``: this scheduler on a real cluster, next to (or instead of) kube-scheduler.

::

    $ python -m framework run --kubeconfig ~/.kube/config
    scheduling pods with schedulerName default-scheduler on https://127.0.0.1:6443

It builds a :class:`~framework.scheduler.scheduler.Scheduler` exactly as the
simulator does, but on a :class:`~framework.adapter.client.KubeClient`
instead of the in-memory server: informers list and watch the cluster's
Nodes and Pods over HTTP, binding posts ``pods/binding``, events and pod
conditions are written to the cluster. The scheduler takes the pods whose
``spec.schedulerName`` names one of its profiles and that have no node yet;
every other pod only counts as load on its node, as in kube-scheduler.
Give a ``--config`` with another ``schedulerName`` to run beside the
cluster's own kube-scheduler without the two racing for the same pods.

The cluster comes from ``--kubeconfig``; without it, from the in-cluster
service account when running in a pod, else from ``$KUBECONFIG`` or
``~/.kube/config``. SIGINT or SIGTERM stops it cleanly: the scheduling loop
finishes the cycle it is in, binding cycles under way complete, then the
watches close.

Mirrors ``cmd/kube-scheduler/app/server.go`` (``Run``: build the scheduler
from the configuration and the out-of-tree registry, start the informers,
run until the context is cancelled). Simplified: no leader election, no
health or metrics endpoints. As kube-scheduler's, the pod informer leaves
out finished pods (``status.phase!=Succeeded,status.phase!=Failed``).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["add_command", "api_client_for", "run"]


def api_client_for(kubeconfig: str | None = None) -> Any:
    """An official ``kubernetes.client.ApiClient`` for ``kubeconfig``, or in-cluster, or the default.

    Raises ``kubernetes.config.ConfigException`` when none can be loaded.
    """
    from kubernetes import client as k8s
    from kubernetes import config as k8s_config

    if kubeconfig is None and os.environ.get("KUBERNETES_SERVICE_HOST"):
        configuration = k8s.Configuration()
        k8s_config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
        return k8s.ApiClient(configuration)
    return k8s_config.new_client_from_config(config_file=kubeconfig)  # type: ignore[no-untyped-call]


def run(
    *,
    kubeconfig: str | None = None,
    config: str | None = None,
    plugins: Sequence[str] = (),
    api_client: Any = None,
    engine: str | None = None,
    stop: threading.Event | None = None,
    on_ready: Callable[[Any], None] | None = None,
    emulated_version: str | None = None,
    feature_gates: str | None = None,
) -> int:
    """Schedule the cluster's pending pods until ``stop`` is set; return an exit code.

    ``api_client`` overrides ``kubeconfig`` (tests hand one in).
    ``on_ready(scheduler)`` is called once the informers have listed the
    cluster and the scheduling loop runs. ``emulated_version`` and
    ``feature_gates`` pick the release and gates, as for ``simulate``.
    """
    from kubernetes.config import ConfigException

    from framework.adapter import KubeClient
    from framework.apiserver import APIError
    from framework.clock import RealClock
    from framework.config import load_config
    from framework.config.errors import ConfigError
    from framework.scheduler.scheduler import Scheduler
    from framework.simulator.inputs import PluginSpecError, SimulationInputError, plugin_registry
    from framework.simulator.run import gates_for

    try:
        gates = gates_for(emulated_version, feature_gates)
        registry = plugin_registry(list(plugins))
        scheduler_config = load_config(config, feature_gates=gates) if config else None
        client = KubeClient(api_client or api_client_for(kubeconfig))
        from framework.scheduler.engine import default_engine

        scheduler = Scheduler(
            client,
            scheduler_config,
            registry,
            clock=RealClock(),
            engine=engine or default_engine(),
            feature_gates=gates,
        )
    except SimulationInputError as error:
        print(f"error: {'; '.join(error.problems)}", file=sys.stderr)
        return 2
    except (PluginSpecError, ConfigError, ConfigException, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        scheduler.run()  # the first list happens here: an unreachable cluster fails now
    except APIError as error:
        scheduler.stop()
        print(f"error: cannot list the cluster: {error}", file=sys.stderr)
        return 1
    names = ", ".join(sorted(scheduler.profiles))
    print(
        f"scheduling pods with schedulerName {names} on {client.api_client.configuration.host}",
        flush=True,
    )
    if on_ready is not None:
        on_ready(scheduler)
    stop = stop or threading.Event()
    try:
        stop.wait()
    finally:
        scheduler.stop()
    print("stopped", flush=True)
    return 0


def _run(args: argparse.Namespace) -> int:
    from framework.cli.signal_context import setup_signal_event

    stop = setup_signal_event()
    return run(
        kubeconfig=args.kubeconfig,
        config=args.config,
        plugins=args.plugin,
        stop=stop,
        engine=args.engine,
        emulated_version=args.emulated_version,
        feature_gates=args.feature_gates,
    )


def add_command(commands: Any) -> None:
    """Add ``run`` to the ``python -m framework`` subparsers."""
    parser = commands.add_parser(
        "run",
        help="schedule the pending pods of a real cluster (kubeconfig or in-cluster)",
        description="Run the scheduler against a Kubernetes API server through the official "
        "client: it binds the unbound pods whose spec.schedulerName names one of its "
        "profiles. Stop with Ctrl-C.",
    )
    parser.add_argument(
        "--kubeconfig",
        metavar="PATH",
        help="the cluster to talk to (default: in-cluster, else $KUBECONFIG or ~/.kube/config)",
    )
    from framework.scheduler.engine import add_engine_argument

    add_engine_argument(parser)
    from framework.cli.simulate import add_version_arguments

    add_version_arguments(parser)
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
    parser.set_defaults(run=_run)
