"""Where the scheduling cycle, the binding cycle and preemption consult the extenders.

An extender is asked at four places, each right after the framework's own
plugins have had their say there:

* **Filter** (:func:`find_nodes_that_pass_extenders`): once the Filter
  plugins have found enough feasible nodes, each interested extender in
  turn narrows the list. The nodes it rejects get its reason as their
  status — ``UnschedulableAndUnresolvable`` for the ones it says preemption
  cannot help, ``Unschedulable`` for the others — and when any node was
  removed, ``Extender`` joins the pod's rejecting plugins, so that any
  cluster event retries it (:func:`filter_with_extenders`).
* **Score** (:func:`add_extender_scores`): after the Score plugins, each
  interested extender scores the feasible nodes from 0 to 10; the score is
  scaled to the plugins' range, ``score × weight × (100 / 10)``, and added
  to the node's total. A failing extender only loses its say here.
* **Bind** (:func:`bind`): an interested extender that binds goes first; if
  it does, the Bind plugins are not called.
* **Preemption** (:meth:`Evaluator.call_extenders
  <framework.preemption.evaluator.Evaluator.call_extenders>`, in the
  preemption package as Go's ``callExtenders`` is): the candidates of the
  dry run go to each interested extender that supports preemption, which
  may drop nodes or change their victims.

Failure: an extender that fails at Filter, Bind or preemption is skipped
when it is *ignorable*; otherwise the attempt fails with its error (an
``Error`` status: the pod backs off and is retried).

:func:`has_extender_filters` and :func:`has_scoring` let the search stop
at the first feasible node when nothing would compare nodes afterwards.

Mirrors ``findNodesThatPassExtenders``, the extender part of
``prioritizeNodes`` and ``findNodesThatFitPod``, ``hasScoring``,
``hasExtenderFilters`` and ``extendersBinding`` in
``kubernetes/kubernetes:pkg/scheduler/schedule_one.go`` (v1.33).
Simplified: prioritize calls run on threads only when two or more
extenders are asked (one is called on the scheduling thread, with the same
result); extender scores are appended in extender order, where Go appends
them as its goroutines finish.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from framework.cycle_state import CycleState
from framework.extender.interface import EXTENDER_NAME, Extender, ExtenderError
from framework.extender.types import MAX_EXTENDER_PRIORITY, ExtenderBindingArgs, HostPriority
from framework.interface import MAX_NODE_SCORE, NodePluginScores, NodeToStatus, PluginScore
from framework.node_info import NodeInfo
from framework.objects import Pod
from framework.runtime.framework import Framework
from framework.status import Status

__all__ = [
    "ExtenderEnqueueExtension",
    "add_extender_scores",
    "attach_extenders",
    "bind",
    "extenders_binding",
    "filter_with_extenders",
    "find_nodes_that_pass_extenders",
    "has_extender_filters",
    "has_scoring",
]

logger = logging.getLogger(__name__)


class ExtenderEnqueueExtension:
    """Stands for the extenders among a profile's rejecting plugins (``defaultEnqueueExtension``).

    It registers no events of its own, so the queue retries a pod an
    extender rejected on every cluster event.
    """

    def name(self) -> str:
        return EXTENDER_NAME


def attach_extenders(profiles: Mapping[str, Framework], extenders: Sequence[Extender]) -> None:
    """Give every profile the scheduler's extenders, before the queue is built from them.

    Each framework answers them from ``extenders()`` (preemption asks), and
    lists :class:`ExtenderEnqueueExtension` among its enqueue plugins, as
    NewFramework does when there are extenders.
    """
    if not extenders:
        return
    for fwk in profiles.values():
        fwk.set_extenders(extenders)
        fwk.enqueue_plugins.insert(0, ExtenderEnqueueExtension())


def has_extender_filters(extenders: Sequence[Extender]) -> bool:
    """Whether any extender filters nodes (``hasExtenderFilters``)."""
    return any(e.is_filter() for e in extenders)


def has_scoring(fwk: Framework, extenders: Sequence[Extender]) -> bool:
    """Whether anything will score the feasible nodes: a Score plugin or a prioritizing extender."""
    return fwk.has_score_plugins() or any(e.is_prioritizer() for e in extenders)


def find_nodes_that_pass_extenders(
    extenders: Sequence[Extender], pod: Pod, feasible: list[NodeInfo], statuses: NodeToStatus
) -> list[NodeInfo]:
    """The feasible nodes every interested extender lets through; rejected nodes get a status.

    Raises :class:`~framework.extender.interface.ExtenderError` when a
    non-ignorable extender fails.
    """
    for extender in extenders:
        if not feasible:
            break
        if not extender.is_interested(pod):
            continue
        try:
            passed, failed, unresolvable = extender.filter(pod, feasible)
        except Exception as error:
            if extender.is_ignorable():
                logger.info(
                    "Skipping extender %s as it returned error and has ignorable flag set: %s",
                    extender.name(),
                    error,
                )
                continue
            if isinstance(error, ExtenderError):
                raise
            raise ExtenderError(str(error)) from error
        for node_name, message in unresolvable.items():
            statuses.set(node_name, Status.unresolvable(message))
        for node_name, message in failed.items():
            if node_name in unresolvable:
                continue  # an unresolvable verdict for the same node wins
            statuses.set(node_name, Status.unschedulable(message))
        feasible = passed
    return feasible


def filter_with_extenders(
    extenders: Sequence[Extender], pod: Pod, feasible: list[NodeInfo], diagnosis: Any
) -> list[NodeInfo]:
    """:func:`find_nodes_that_pass_extenders`, noting ``Extender`` as a rejector if a node went.

    ``diagnosis`` is the attempt's
    :class:`~framework.scheduler.algorithm.Diagnosis`.
    """
    if not extenders:
        return feasible
    passed = find_nodes_that_pass_extenders(extenders, pod, feasible, diagnosis.node_to_status)
    if len(passed) != len(feasible):
        diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
    return passed


def _prioritize(
    extender: Extender, pod: Pod, nodes: Sequence[NodeInfo]
) -> tuple[list[HostPriority], int] | None:
    try:
        return extender.prioritize(pod, nodes)
    except Exception as error:  # a prioritize failure only costs this extender its say
        logger.debug(
            "Failed to run extender's priority function. No score given by this extender: %s: %s",
            extender.name(),
            error,
        )
        return None


def add_extender_scores(
    extenders: Sequence[Extender],
    pod: Pod,
    nodes: Sequence[NodeInfo],
    scores: list[NodePluginScores],
) -> None:
    """Add each interested extender's scaled scores to ``scores`` (one entry per node of ``nodes``)."""
    asked = [e for e in extenders if e.is_interested(pod)]
    if not asked or not nodes:
        return
    if len(asked) == 1:
        answers = [_prioritize(asked[0], pod, nodes)]
    else:
        with ThreadPoolExecutor(max_workers=len(asked)) as pool:
            answers = list(pool.map(lambda e: _prioritize(e, pod, nodes), asked))
    scale = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
    by_node: dict[str, list[PluginScore]] = {}
    for extender, answer in zip(asked, answers, strict=True):
        if answer is None:
            continue
        priorities, weight = answer
        for priority in priorities:
            final = priority.score * weight * scale
            by_node.setdefault(priority.host, []).append(PluginScore(extender.name(), final))
    for node_scores in scores:
        extra = by_node.get(node_scores.name)
        if extra:
            node_scores.scores.extend(extra)
            node_scores.total_score += sum(s.score for s in extra)


def extenders_binding(
    extenders: Sequence[Extender], pod: Pod, node_name: str
) -> tuple[bool, BaseException | None]:
    """Let the binding extender bind: ``(True, None)`` bound, ``(True, error)`` failed, ``(False, None)`` not asked."""
    for extender in extenders:
        if not extender.is_binder() or not extender.is_interested(pod):
            continue
        try:
            extender.bind(
                ExtenderBindingArgs(pod.name, pod.namespace, pod.metadata.uid, node_name)
            )
        except Exception as error:
            if extender.is_ignorable():
                logger.info(
                    "Skipping extender %s in bind as it returned error and has ignorable flag "
                    "set: %s",
                    extender.name(),
                    error,
                )
                continue
            return True, error
        return True, None
    return False, None


def bind(
    extenders: Sequence[Extender], fwk: Framework, state: CycleState, pod: Pod, node_name: str
) -> Status:
    """Bind through an extender that binds, else through the profile's Bind plugins (``bind``)."""
    bound, error = extenders_binding(extenders, pod, node_name)
    if bound:
        return Status.success() if error is None else Status.as_error(error)
    return fwk.run_bind_plugins(state, pod, node_name)
