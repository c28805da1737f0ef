"""The simulator: Kubernetes YAML in; where each pod goes, and why, out.

"Given these nodes, these pods and this scheduler configuration, where does
each pod go, and why?" :func:`simulate` answers it with the framework of
the previous chapters, on the fake API server and a fake clock:

>>> import framework
>>> result = framework.simulate('''
... kind: Node
... metadata: {name: node-1}
... status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}
... ---
... kind: Pod
... metadata: {name: web}
... spec: {containers: [{name: app, image: nginx, resources: {requests: {cpu: "1"}}}]}
... ''')
>>> result.placements
{'default/web': 'node-1'}
>>> result.attempts[0].result, result.attempts[0].message
('Scheduled', 'Successfully assigned default/web to node-1')

One concept per module, in the order of a run:

* :mod:`~framework.simulator.inputs` — reading manifests and the configuration;
* :mod:`~framework.simulator.controllers` — the workload controllers:
  Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs made into pods
  (their first wave here; for good in ``serve``);
* :mod:`~framework.simulator.run` — building the cluster in order and
  driving the scheduler on simulated time (the semantics);
* :mod:`~framework.simulator.recorder` — recording each attempt's evidence;
* :mod:`~framework.simulator.result` — the result and its JSON trace (v1),
  with its JSON Schema in ``trace-v1.schema.json``;
* :mod:`~framework.simulator.report` and :mod:`~framework.simulator.explain`
  — the table of placements and the explanation of one pod;
  :mod:`~framework.simulator.diagnose` — one attempt in one line;
* :mod:`~framework.simulator.compare` — the same manifests under two
  configurations, side by side;
* :mod:`~framework.simulator.report_html` and
  :mod:`~framework.simulator.utilisation` — the HTML report, with each
  node's requested / allocatable before and after;
* :mod:`~framework.simulator.progress` — the progress bar of a long run;
  :mod:`~framework.simulator.generate` — a cluster of any size to run;
* :mod:`~framework.cli.simulate` — ``python -m framework simulate``,
  ``explain`` and ``compare``.

The package is named ``simulator`` so that ``framework.simulate`` can be the
function: a package of that name would shadow it once imported.
"""

from framework.simulator.inputs import PluginSpecError, SimulationInputError
from framework.simulator.result import (
    Attempt,
    EventRecord,
    FilterVerdict,
    SimulationResult,
    trace_schema,
)
from framework.simulator.run import simulate

__all__ = [
    "Attempt",
    "EventRecord",
    "FilterVerdict",
    "PluginSpecError",
    "SimulationInputError",
    "SimulationResult",
    "simulate",
    "trace_schema",
]
