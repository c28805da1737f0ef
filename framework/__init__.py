"""kube-scheduling-framework: the Kubernetes Scheduling Framework, in readable Python.

Import what you need from its modules; importing the package itself is cheap
(it loads no Kubernetes client and no plugin).

* :mod:`framework.objects` — Pods, Nodes and friends, parsed from manifests;
* :mod:`framework.apiserver` — the in-memory fake API server;
* :mod:`framework.clock` — real and fake time;
* :mod:`framework.queue` — the scheduling queue;
* :mod:`framework.cache` — the scheduler cache and its snapshot;
* :mod:`framework.config` and :mod:`framework.runtime.registry` — configuration and plugins;
* :mod:`framework.runtime` — the Framework and its extension-point runners;
* :mod:`framework.scheduler` — the scheduling and binding cycles;
* :mod:`framework.simulator` — manifests in, placements and their explanation
  out; :func:`framework.simulate` is its entry point, imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from framework.simulator import simulate

__version__ = "0.1.0"
__all__ = ["simulate"]


def __getattr__(name: str) -> Any:
    # Imported on first use, so that ``import framework`` stays light.
    if name == "simulate":
        from framework.simulator import simulate

        return simulate
    raise AttributeError(f"module 'framework' has no attribute {name!r}")
