"""Faults injected on purpose, to show that one failure costs one pod's attempt and nothing more.

A reference scheduler that loses a pod, binds one twice or over-commits a
node when a plugin misbehaves or the API server stumbles teaches the wrong
thing. This package is the switch tests turn on to prove it does not:

* :mod:`~framework.testing.faults.plan` -- the :class:`FaultPlan`: which fault, at
  which site (an extension point or an API verb), for whom, how often; a
  deterministic draw per call, and the count of what was injected;
* :mod:`~framework.testing.faults.plugins` -- :class:`FaultyPlugin`, a wrapper that
  makes any plugin raise, return Error, hang, or return what Go's types
  would forbid, and :func:`faulty_registry`, which wraps a whole registry;
* :mod:`~framework.testing.faults.apiserver` -- :class:`FaultyAPIServer`, a door onto
  the in-memory API server whose binds fail, whose watches drop and expire,
  and which a crashed scheduler can be cut off behind.

It lives in ``framework/`` rather than in the tests because it is a tool a
reader can turn on too (``faulty_registry(in_tree_registry(), plan)``, then a
:class:`~framework.scheduler.scheduler.Scheduler` as usual), because the
docs describe it, and because mypy checks it with the rest. Nothing in the
scheduler imports it: with no plan, nothing is wrapped and nothing costs.

>>> from framework.testing.faults import Fault, FaultPlan, Rule
>>> plan = FaultPlan([Rule("bind", Fault.UNAVAILABLE, probability=0.5)], seed=7)
>>> [plan.decide("bind", "pods", f"default/p{i}") is not None for i in range(6)]
[False, True, False, False, True, True]
>>> plan.counts()
{'bind: 503 ServiceUnavailable': 3}

The rules the scheduler keeps for each fault, and the tests that prove
them, are listed in the documentation's *Reliability* page.
"""

from framework.testing.faults.apiserver import FaultyAPIServer
from framework.testing.faults.plan import (
    API_SITES,
    PLUGIN_SITES,
    Fault,
    FaultPlan,
    Hang,
    InjectedFault,
    Injection,
    Rule,
    applicable_faults,
)
from framework.testing.faults.plugins import FaultyPlugin, faulty_registry, wrap_factory

__all__ = [
    "API_SITES",
    "PLUGIN_SITES",
    "Fault",
    "FaultPlan",
    "FaultyAPIServer",
    "FaultyPlugin",
    "Hang",
    "InjectedFault",
    "Injection",
    "Rule",
    "applicable_faults",
    "faulty_registry",
    "wrap_factory",
]
