"""kube-scheduling-framework: the Kubernetes Scheduling Framework, in readable Python.

Import what you need from its modules; importing the package itself is cheap
(it loads no Kubernetes client and no plugin).

* :mod:`framework.objects` — Pods, Nodes and friends, parsed from manifests;
* :mod:`framework.apiserver` — the in-memory fake API server;
* :mod:`framework.clock` — real and fake time;
* :mod:`framework.queue` — the scheduling queue;
* :mod:`framework.cache` — the scheduler cache and its snapshot;
* :mod:`framework.config` and :mod:`framework.registry` — configuration and plugins;
* :mod:`framework.runtime` — the Framework and its extension-point runners;
* :mod:`framework.scheduler` — the scheduling and binding cycles.
"""

__version__ = "0.1.0"
