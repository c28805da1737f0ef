"""Scheduler extenders: kube-scheduler's webhooks from before the Scheduling Framework.

* :mod:`~framework.extender.types` — the JSON documents of the wire protocol;
* :mod:`~framework.extender.interface` — the :class:`Extender` protocol the scheduler calls;
* :mod:`~framework.extender.http_extender` — :class:`HTTPExtender`, the one kube ships;
* :mod:`~framework.extender.build` — the configuration's ``extenders`` to HTTPExtenders.

Where the scheduler consults them is in :mod:`framework.scheduler.extenders`.
"""

from framework.extender.build import build_extenders, with_ignored_extended_resources
from framework.extender.http_extender import DEFAULT_EXTENDER_TIMEOUT, HTTPExtender
from framework.extender.interface import EXTENDER_NAME, Extender, ExtenderError
from framework.extender.types import (
    MAX_EXTENDER_PRIORITY,
    MIN_EXTENDER_PRIORITY,
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    ExtenderPreemptionArgs,
    ExtenderPreemptionResult,
    HostPriority,
    MetaPod,
    MetaVictims,
    WireFormatError,
    WireVictims,
)

__all__ = [
    "DEFAULT_EXTENDER_TIMEOUT",
    "EXTENDER_NAME",
    "MAX_EXTENDER_PRIORITY",
    "MIN_EXTENDER_PRIORITY",
    "Extender",
    "ExtenderArgs",
    "ExtenderBindingArgs",
    "ExtenderBindingResult",
    "ExtenderError",
    "ExtenderFilterResult",
    "ExtenderPreemptionArgs",
    "ExtenderPreemptionResult",
    "HTTPExtender",
    "HostPriority",
    "MetaPod",
    "MetaVictims",
    "WireFormatError",
    "WireVictims",
    "build_extenders",
    "with_ignored_extended_resources",
]
