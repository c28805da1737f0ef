"""Chapter 9 exercise: DefaultPreemption's dry run on one node, ``SelectVictimsOnNode``.

Preemption asks of each candidate node: which of its pods, at the least,
would have to go for the preemptor to fit? The rest of the plugin and the
whole procedure around it are given (eligibility, the candidate nodes,
the random offset, picking one node, evicting): this file's
``DefaultPreemption`` holds the reference plugin for them, with its answer
for one node masked. You write the answer for
one node, :meth:`DefaultPreemption.select_victims_on_node`:

1. remove from the (copied) node every pod the preemptor may preempt
   (strictly lower priority); if there is none, the node is no candidate;
2. check that the preemptor fits now; if it does not, even with all of them
   gone, the node is no candidate either;
3. put the pods back one at a time (*reprieve* them), those whose eviction
   would break a PodDisruptionBudget first, the most important first within
   each group; a pod the preemptor no longer fits with is taken off again
   and becomes a victim;
4. return the victims, most important first, and how many of them break a
   budget.

Then check it::

    python -m pytest chapters/09_preemption --exercise

The tests are the same ones that run against the reference code in
``framework/plugins/defaultpreemption/plugin.py``. Stuck?
``python -m framework hint 9`` shows the hints one at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from framework.config.args_defaultpreemption import default_preemption_args_from
from framework.cycle_state import CycleState
from framework.node_info import NodeInfo
from framework.objects import Pod, PodDisruptionBudget
from framework.plugins.defaultpreemption import plugin as reference
from framework.plugins.defaultpreemption.pdb import filter_pods_with_pdb_violation
from framework.plugins.defaultpreemption.plugin import MSG_NO_VICTIMS, NAME
from framework.preemption.evaluator import PreemptionError
from framework.status import Status, as_status
from framework.types import PodInfo

__all__ = [
    "MSG_NO_VICTIMS",
    "NAME",
    "DefaultPreemption",
    "filter_pods_with_pdb_violation",
    "new",
]


class DefaultPreemption:
    """DefaultPreemption with ``select_victims_on_node`` yours, the rest of the plugin given.

    The given part is the reference plugin, kept in ``self.given`` and reached
    through attribute lookup (``post_filter``, ``is_preemption_allowed``, the
    arguments, the hooks). Its own ``select_victims_on_node`` is masked: the
    preemption Evaluator asks *this* object for the victims, so until you
    write the method below no victim is found, and ``self.given`` will not
    answer for you.
    """

    def __init__(self, handle: Any, args: Any = None, **options: Any) -> None:
        given = reference.DefaultPreemption(handle, args, **options)
        object.__setattr__(self, "given", given)
        given.evaluator.interface = self
        given.select_victims_on_node = _not_given

    def __getattr__(self, name: str) -> Any:
        return getattr(self.given, name)

    def __setattr__(self, name: str, value: Any) -> None:
        # A hook set on the plugin (is_eligible_pod, more_important_pod) must
        # reach the code that calls it, which is the given plugin's.
        setattr(self.given, name, value)

    # --- given: the three moves of the dry run on one node ---------------------------------------

    def remove_from_node(
        self, state: CycleState, pod: Pod, victim: PodInfo, node_info: NodeInfo
    ) -> Status:
        """Take ``victim`` off the copied node and tell the PreFilter extensions (``removePod``).

        The extensions keep the cycle state in step with the node: InterPodAffinity,
        for instance, forgets the victim's anti-affinity terms. Anything but
        success is an error to return as it is.
        """
        if not node_info.remove_pod(victim.pod):
            return Status.as_error(
                PreemptionError(
                    f"no corresponding pod {victim.pod.name} in pods of node {node_info.name}"
                )
            )
        return as_status(
            self._handle.run_pre_filter_extension_remove_pod(state, pod, victim, node_info)
        )

    def add_to_node(
        self, state: CycleState, pod: Pod, victim: PodInfo, node_info: NodeInfo
    ) -> Status:
        """Put ``victim`` back on the copied node and tell the PreFilter extensions (``addPod``)."""
        node_info.add_pod(victim)
        return as_status(
            self._handle.run_pre_filter_extension_add_pod(state, pod, victim, node_info)
        )

    def fits(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """Filter ``pod`` on the node as it is now, with the pods nominated to it.

        ``RunFilterPluginsWithNominatedPods``: success, or the status of the
        Filter plugin that rejected the pod.
        """
        return as_status(
            self._handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        )

    def importance(self) -> Callable[[PodInfo], Any]:
        """A sort key that puts the more important pods first (``self.more_important_pod``)."""
        return self._order()

    # --- yours ------------------------------------------------------------------------------------

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status]:
        """The fewest pods to evict from ``node_info`` for ``pod`` to fit, and how many break a PDB.

        ``node_info`` and ``state`` are copies: change them freely. Return
        ``(victims, number of PDB-violating victims, status)``:

        * ``([], 0, Status.unresolvable(MSG_NO_VICTIMS))`` when no pod here may be preempted;
        * ``([], 0, status)`` with the Filter status when even removing all of them
          is not enough, or with the Error a helper returned;
        * ``(victims most important first, violations, Status.success())`` otherwise.

        You have: ``node_info.pods`` (the node's PodInfos), ``self.is_preemption_allowed(
        node_info, pod_info, pod)``, the helpers above, ``filter_pods_with_pdb_violation(
        pod_infos, pdbs)`` (returns ``(violating, non_violating)``, each in the order given)
        and ``sorted(..., key=self.importance())``.
        """
        # TODO 1: collect the pod infos the preemptor may preempt; remove each from the node
        #         (an error status from a helper is the answer, with no victims). None at
        #         all: ([], 0, Status.unresolvable(MSG_NO_VICTIMS)).
        # TODO 2: does the preemptor fit now? If not, this node is no candidate: return the
        #         status self.fits gave.
        # TODO 3: sort the potential victims most important first and split them by PDB
        #         violation.
        # TODO 4: reprieve: add each back (violating ones first) and check the fit; if the pod
        #         no longer fits, remove it again and make it a victim. Count the victims of
        #         the violating group.
        # TODO 5: victims most important first (when both groups gave some, sort again), as
        #         Pods, not PodInfos.
        raise NotImplementedError(
            "chapter 9 exercise: write DefaultPreemption.select_victims_on_node in "
            "chapters/09_preemption/exercise.py (hints: python -m framework hint 9)"
        )


def _not_given(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError(
        "the given plugin does not choose victims: write DefaultPreemption.select_victims_on_node "
        "in chapters/09_preemption/exercise.py"
    )


def new(args: Any, handle: Any) -> DefaultPreemption:
    """The factory the registry calls: your plugin, under the name DefaultPreemption. (Given.)"""
    return DefaultPreemption(handle, default_preemption_args_from(args))
