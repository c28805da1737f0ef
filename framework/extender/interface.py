"""What the scheduler asks of an extender, whatever carries the questions.

Before the Scheduling Framework, the way to add a rule to kube-scheduler
without forking it was an *extender*: a separate process that the
scheduler consults over HTTP at four moments of a pod's attempt. The
:class:`Extender` protocol is those four questions, and the facts the
scheduler needs to know before asking them:

* ``filter`` — after the Filter plugins, of the nodes that passed them:
  which can run the pod? Extenders are asked one after another, each of the
  nodes the previous one left.
* ``prioritize`` — after the Score plugins: a score from 0 to 10 per node,
  scaled by the extender's ``weight`` and added to the plugins' total.
* ``bind`` — instead of the Bind plugins: the extender binds the pod itself.
* ``process_preemption`` — after preemption's dry run: which candidate
  nodes, with which victims, are still acceptable.

``is_interested`` is asked first at every point: an extender that manages
extended resources is consulted only about pods that request one.
``is_ignorable`` says what an extender's failure means: an ignorable
extender that cannot be reached is skipped, any other fails the attempt.

:class:`~framework.extender.http_extender.HTTPExtender` is the only
implementation Kubernetes ships, and the only one configuration can name;
tests may hand the scheduler any object with these methods.

Contract: ``filter``, ``bind`` and ``process_preemption`` raise
:class:`ExtenderError` (or any exception) on failure; what the scheduler
does with it depends on ``is_ignorable``. ``prioritize`` failures are
always ignored.

Mirrors the ``Extender`` interface in
``kubernetes/kubernetes:pkg/scheduler/framework/extender.go`` and
``ExtenderName`` in ``pkg/scheduler/framework/types.go`` (v1.33).
Simplified: ``bind`` takes the binding's fields (:class:`~framework.extender.types.ExtenderBindingArgs`)
rather than a ``v1.Binding``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from framework.extender.types import ExtenderBindingArgs, HostPriority, Victims
from framework.node_info import NodeInfo
from framework.objects import Pod

__all__ = ["EXTENDER_NAME", "Extender", "ExtenderError", "FilterOutcome"]

EXTENDER_NAME = "Extender"
"""The name put among a pod's rejecting plugins when an extender filtered out a node.

Extenders register no cluster events, so a pod they rejected is retried on
any event (``framework.ExtenderName``, kubernetes/kubernetes#122019).
"""

FilterOutcome = tuple[list[NodeInfo], Mapping[str, str], Mapping[str, str]]
"""What ``filter`` returns: the nodes that pass, failed nodes, failed-and-unresolvable nodes."""


class ExtenderError(Exception):
    """An extender could not answer, or answered with an error; the text is kube-scheduler's."""


@runtime_checkable
class Extender(Protocol):
    """An external process that takes part in scheduling decisions (``framework.Extender``)."""

    def name(self) -> str:
        """A name unique among the extenders (an HTTP extender's is its URL prefix)."""
        ...

    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]) -> FilterOutcome:
        """The nodes that can run ``pod``, a subset of ``nodes``; and why the others cannot."""
        ...

    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[HostPriority], int]:
        """A score from 0 to 10 per node, and this extender's weight."""
        ...

    def bind(self, binding: ExtenderBindingArgs) -> None:
        """Bind the pod to the node; raise if it could not."""
        ...

    def is_binder(self) -> bool:
        """Whether this extender binds pods (it has a ``bindVerb``)."""
        ...

    def is_interested(self, pod: Pod) -> bool:
        """Whether to consult this extender about ``pod`` at all."""
        ...

    def process_preemption(
        self, pod: Pod, victims: Mapping[str, Victims], node_infos: Any
    ) -> dict[str, Victims]:
        """The candidates this extender accepts, each with the victims it wants evicted.

        ``node_infos`` is the snapshot's NodeInfo lister, to turn victims
        named by UID back into pods.
        """
        ...

    def supports_preemption(self) -> bool:
        """Whether this extender takes part in preemption (it has a ``preemptVerb``)."""
        ...

    def is_ignorable(self) -> bool:
        """Whether scheduling goes on when this extender fails or cannot be reached."""
        ...

    def is_prioritizer(self) -> bool:
        """Whether this extender scores nodes (it has a ``prioritizeVerb``)."""
        ...

    def is_filter(self) -> bool:
        """Whether this extender filters nodes (it has a ``filterVerb``)."""
        ...
