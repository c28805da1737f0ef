"""Opportunistic batching: reuse the last pod's sorted node list for the next pod like it.

When pod after pod of one Job asks for the same thing, kube-scheduler
v1.35+ (gate ``OpportunisticBatching``, KEP-5598) filters and scores the
first one in full, keeps the other scored nodes in score order, and offers
the next pod **with the same signature** (:mod:`framework.runtime.signature`)
the best remaining node as a *hint*. The hint is tried like a nominated node:
if it passes Filter, the pod goes there without a full search or any
scoring.

That reuse is only sound in a "one pod per node" pattern, so the list is
used only when all of these hold (:meth:`OpportunisticBatch.get_node_hint`),
and thrown away otherwise, counting why under
``scheduler_batch_cache_flushed_total{reason}``:

* the previous scheduling cycle was this profile's and came just before
  (``pod_skipped`` otherwise: another pod, or a failure, came between);
* the previous pod got a node (``pod_failed``);
* the new pod's signature equals the list's (``pod_incompatible``);
* the list is younger than :data:`MAX_BATCH_AGE` (``expired``);
* the node the previous pod took still exists (``node_missing``) and is now
  **rejected** by Filter for the new pod (``node_not_full``): if the pod
  could still go there, that node might still be the best and the list says
  nothing about its new score.

After the cycle, :meth:`~OpportunisticBatch.store_schedule_results` keeps the
new list, unless the hint was used (the list, one node shorter, stays), or
the pod has no signature (``pod_not_batchable``), or no other node was
scored (``empty_list``). ``scheduler_batch_attempts_total{result}`` counts
``no_hint``, ``hint_used`` and ``hint_not_used``.

Mirrors ``OpportunisticBatch`` in
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/batch.go`` and the
metric names in ``pkg/scheduler/metrics/metrics.go``, read at v1.35. Later
releases add rescoring of the used node (``batch_rescore_attempts_total``);
not modelled. The age is read from the framework's clock, so tests use a
fake one. Metrics are plain counters on the object, by label.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from framework.cycle_state import CycleState
from framework.objects import Pod

__all__ = [
    "BATCH_ATTEMPT_HINT_NOT_USED",
    "BATCH_ATTEMPT_HINT_USED",
    "BATCH_ATTEMPT_NO_HINT",
    "BATCH_FLUSH_EMPTY_LIST",
    "BATCH_FLUSH_EXPIRED",
    "BATCH_FLUSH_NODE_MISSING",
    "BATCH_FLUSH_NODE_NOT_FULL",
    "BATCH_FLUSH_POD_FAILED",
    "BATCH_FLUSH_POD_INCOMPATIBLE",
    "BATCH_FLUSH_POD_NOT_BATCHABLE",
    "BATCH_FLUSH_POD_SKIPPED",
    "MAX_BATCH_AGE",
    "BatchState",
    "OpportunisticBatch",
    "SchedulingCycle",
]

logger = logging.getLogger(__name__)

MAX_BATCH_AGE = 0.5
"""Seconds a stored list may be reused (``maxBatchAge``, 500 ms): bounds long runs and long waits."""

# The ``result`` label of scheduler_batch_attempts_total.
BATCH_ATTEMPT_NO_HINT = "no_hint"
BATCH_ATTEMPT_HINT_USED = "hint_used"
BATCH_ATTEMPT_HINT_NOT_USED = "hint_not_used"

# The ``reason`` label of scheduler_batch_cache_flushed_total.
BATCH_FLUSH_POD_FAILED = "pod_failed"
BATCH_FLUSH_POD_SKIPPED = "pod_skipped"
BATCH_FLUSH_NODE_MISSING = "node_missing"
BATCH_FLUSH_NODE_NOT_FULL = "node_not_full"
BATCH_FLUSH_EMPTY_LIST = "empty_list"
BATCH_FLUSH_EXPIRED = "expired"
BATCH_FLUSH_POD_INCOMPATIBLE = "pod_incompatible"
BATCH_FLUSH_POD_NOT_BATCHABLE = "pod_not_batchable"


@dataclass(slots=True)
class BatchState:
    """The kept list: the signature it is for, the nodes best first, and when it was made."""

    signature: str
    sorted_nodes: list[str]  # best first; the hint is popped from the front
    creation_time: float


@dataclass(slots=True)
class SchedulingCycle:
    """The last cycle this profile ran: its number, the node chosen, and whether it got one."""

    cycle_count: int = -2  # never "the cycle just before" the first one
    chosen_node: str = ""
    succeeded: bool = False


class OpportunisticBatch:
    """One profile's stored node list and the bookkeeping of the last cycle; see the module docstring.

    ``handle`` is the profile's :class:`~framework.runtime.framework.Framework`:
    it signs pods, runs Filter on the last chosen node, and tells the time.
    """

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.state: BatchState | None = None
        self.last_cycle = SchedulingCycle()
        #: How many pods were placed on a hint; Go keeps this count for its tests
        #: (``TotalBatchedPods``).
        self.batched_pods = 0
        #: scheduler_batch_attempts_total, by result.
        self.attempts: Counter[str] = Counter()
        #: scheduler_batch_cache_flushed_total, by reason.
        self.flushes: Counter[str] = Counter()

    def get_node_hint(
        self, state: CycleState, pod: Pod, cycle_count: int
    ) -> tuple[str, str | None]:
        """The node to try first for ``pod`` ("" for none), and the pod's signature (None: unsignable).

        Called after PreFilter: the check that the last chosen node is full
        runs Filter with this cycle's state.
        """
        signature: str | None = self.handle.sign_pod(pod)
        if not self._state_compatible(state, pod, signature, cycle_count):
            self.attempts[BATCH_ATTEMPT_NO_HINT] += 1
            return "", signature
        assert self.state is not None
        hint = self.state.sorted_nodes.pop(0)
        logger.debug(
            "OpportunisticBatch provided node hint: pod %s cycle %d hint %s remaining %d",
            pod.key,
            cycle_count,
            hint,
            len(self.state.sorted_nodes),
        )
        return hint, signature

    def store_schedule_results(
        self,
        signature: str | None,
        hinted_node: str,
        chosen_node: str,
        other_nodes: Sequence[str] | None,
        cycle_count: int,
    ) -> None:
        """Remember this cycle, and keep ``other_nodes`` (best first) for the next pod like this one."""
        self.last_cycle = SchedulingCycle(cycle_count, chosen_node, succeeded=True)
        if hinted_node and hinted_node == chosen_node:
            # The list the hint came from stays, one node shorter (and as old as it was).
            self.attempts[BATCH_ATTEMPT_HINT_USED] += 1
            self.batched_pods += 1
            return
        if hinted_node:
            self.attempts[BATCH_ATTEMPT_HINT_NOT_USED] += 1
        if signature is not None and other_nodes:
            self.state = BatchState(signature, list(other_nodes), self.handle.clock().now())
            return
        reason = BATCH_FLUSH_POD_NOT_BATCHABLE if other_nodes else BATCH_FLUSH_EMPTY_LIST
        self._flush(cycle_count, reason)
        self.state = None

    def _flush(self, cycle_count: int, reason: str) -> None:
        self.flushes[reason] += 1
        logger.debug(
            "OpportunisticBatch found unusable state: cycle %d reason %s", cycle_count, reason
        )

    def _state_compatible(
        self, state: CycleState, pod: Pod, signature: str | None, cycle_count: int
    ) -> bool:
        batch = self.state
        if batch is None or not batch.sorted_nodes:
            return False
        if cycle_count != self.last_cycle.cycle_count + 1:
            self._flush(cycle_count, BATCH_FLUSH_POD_SKIPPED)
            return False
        if not self.last_cycle.succeeded:
            self._flush(cycle_count, BATCH_FLUSH_POD_FAILED)
            return False
        if signature is None or signature != batch.signature:
            self._flush(cycle_count, BATCH_FLUSH_POD_INCOMPATIBLE)
            return False
        if self.handle.clock().now() > batch.creation_time + MAX_BATCH_AGE:
            self._flush(cycle_count, BATCH_FLUSH_EXPIRED)
            return False
        try:
            last_chosen = self.handle.snapshot_shared_lister().get(self.last_cycle.chosen_node)
        except LookupError:
            last_chosen = None
        if last_chosen is None:
            self._flush(cycle_count, BATCH_FLUSH_NODE_MISSING)
            return False
        # Only if the last pod filled its node is the next-best node the best one now.
        if not self.handle.run_filter_plugins(state, pod, last_chosen).is_rejected():
            self._flush(cycle_count, BATCH_FLUSH_NODE_NOT_FULL)
            return False
        return True
