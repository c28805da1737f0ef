"""Coscheduling (out of tree, from scheduler-plugins): a PodGroup's members start together or not at all.

Thin plugin, thick core, as upstream lays it out:

* :mod:`framework.plugins.coscheduling.coscheduling`: the plugin, its
  extension points and its messages;
* :mod:`framework.plugins.coscheduling.core`: the PodGroupManager, which
  knows each group's assigned members and makes PreFilter's and Permit's
  decisions;
* :mod:`framework.config.args_coscheduling`: ``CoschedulingArgs``, their
  defaults and validation;
* :mod:`framework.plugins.coscheduling.quantity`: Go's
  ``resource.Quantity``, just enough to print a resource gap as upstream
  does.

The PodGroup itself is :class:`framework.objects.PodGroup`. Chapter 10 tells
the story; the plugin is out of tree, so a scheduler that wants it merges
:func:`framework.plugins.registry.out_of_tree_registry` into the in-tree registry.

Mirrors ``kubernetes-sigs/scheduler-plugins:pkg/coscheduling`` at release
v0.33.5.
"""

from framework.config.args_coscheduling import (
    DEFAULT_PERMIT_WAITING_TIME_SECONDS,
    DEFAULT_POD_GROUP_BACKOFF_SECONDS,
    CoschedulingArgs,
    InvalidArgsError,
    coscheduling_args_from,
)
from framework.plugins.coscheduling.core import (
    DEFAULT_WAIT_TIME,
    MSG_FAILED_RECENTLY,
    MSG_NOT_ENOUGH_SIBLINGS,
    MSG_RESOURCE_GAP,
    PERMIT_STATE_KEY,
    PermitState,
    PermitStatus,
    PodGroupManager,
    check_cluster_resource,
    get_wait_time_duration,
)
from framework.plugins.coscheduling.coscheduling import (
    MSG_CANNOT_FIND_POD_GROUP,
    MSG_OPTIMISTIC_REJECTION,
    MSG_POD_GROUP_NOT_FOUND,
    MSG_REJECTED_AFTER_POST_FILTER,
    MSG_REJECTION_IN_UNRESERVE,
    NAME,
    Coscheduling,
    new,
    new_manager,
)

__all__ = [
    "DEFAULT_PERMIT_WAITING_TIME_SECONDS",
    "DEFAULT_POD_GROUP_BACKOFF_SECONDS",
    "DEFAULT_WAIT_TIME",
    "MSG_CANNOT_FIND_POD_GROUP",
    "MSG_FAILED_RECENTLY",
    "MSG_NOT_ENOUGH_SIBLINGS",
    "MSG_OPTIMISTIC_REJECTION",
    "MSG_POD_GROUP_NOT_FOUND",
    "MSG_REJECTED_AFTER_POST_FILTER",
    "MSG_REJECTION_IN_UNRESERVE",
    "MSG_RESOURCE_GAP",
    "NAME",
    "PERMIT_STATE_KEY",
    "Coscheduling",
    "CoschedulingArgs",
    "InvalidArgsError",
    "PermitState",
    "PermitStatus",
    "PodGroupManager",
    "check_cluster_resource",
    "coscheduling_args_from",
    "get_wait_time_duration",
    "new",
    "new_manager",
]
