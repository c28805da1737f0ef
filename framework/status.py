"""What a plugin answers: a :class:`Status` with a :class:`Code`, reasons and the plugin's name.

Every extension point returns a status, and the framework decides what
happens next from its code alone: ``Success`` goes on, ``Unschedulable``
rejects the node (or the pod) and lets preemption try,
``UnschedulableAndUnresolvable`` rejects it and tells preemption not to
bother, ``Error`` aborts the attempt, ``Wait`` (Permit only) parks the pod,
``Skip`` says "not relevant to this pod" (PreFilter, PreScore, Bind), and
``Pending`` says "stop here, an external actor must act first".

As in Go, where a nil ``*Status`` means success, a plugin may return
``None`` instead of a success status; the helpers here accept either.
The framework, not the plugin, stamps the rejecting plugin's name on a
status (:meth:`Status.with_plugin`), because those names decide which
cluster events can requeue the pod.

Mirrors ``Code`` and ``Status`` in
``kubernetes/kubernetes:pkg/scheduler/framework/interface.go`` (v1.33).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum

__all__ = [
    "ERR_NODE_NOT_FOUND",
    "Code",
    "Status",
    "as_status",
    "code_of",
    "is_rejected",
    "is_success",
    "node_not_found",
]


class Code(IntEnum):
    """The status codes, with Go's numbering (``iota``) and Go's names when printed."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    def __str__(self) -> str:
        return _CODE_NAMES[self]


_CODE_NAMES = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}

_REJECTED = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})


@dataclass(frozen=True, slots=True)
class Status:
    """A plugin's answer. Immutable: ``with_plugin`` and ``with_reasons`` return copies.

    >>> s = Status.unschedulable("Insufficient cpu").with_plugin("NodeResourcesFit")
    >>> s.code, s.message(), s.plugin, s.is_rejected()
    (<Code.UNSCHEDULABLE: 2>, 'Insufficient cpu', 'NodeResourcesFit', True)
    """

    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    error: BaseException | None = None
    plugin: str = ""

    # --- constructors, named after the codes -----------------------------------------------

    @classmethod
    def success(cls) -> Status:
        return _SUCCESS

    @classmethod
    def unschedulable(cls, *reasons: str) -> Status:
        return cls(Code.UNSCHEDULABLE, reasons)

    @classmethod
    def unresolvable(cls, *reasons: str) -> Status:
        """``UnschedulableAndUnresolvable``: preemption cannot help."""
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)

    @classmethod
    def as_error(cls, error: BaseException) -> Status:
        """An ``Error`` status wrapping an exception (Go's ``AsStatus``)."""
        return cls(Code.ERROR, (), error)

    @classmethod
    def skip(cls) -> Status:
        return _SKIP

    @classmethod
    def wait(cls, *reasons: str) -> Status:
        return cls(Code.WAIT, reasons)

    @classmethod
    def pending(cls, *reasons: str) -> Status:
        return cls(Code.PENDING, reasons)

    # --- questions -------------------------------------------------------------------------

    def is_success(self) -> bool:
        return self.code is Code.SUCCESS

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending: the pod cannot go on now."""
        return self.code in _REJECTED

    def is_wait(self) -> bool:
        return self.code is Code.WAIT

    def is_skip(self) -> bool:
        return self.code is Code.SKIP

    def all_reasons(self) -> tuple[str, ...]:
        """The reasons, with the wrapped error's text first when there is one."""
        if self.error is not None:
            return (str(self.error), *self.reasons)
        return self.reasons

    def message(self) -> str:
        """The reasons joined with ``", "``, as ``Status.Message`` does."""
        return ", ".join(self.all_reasons())

    # --- copies ------------------------------------------------------------------------------

    def with_plugin(self, plugin: str) -> Status:
        return replace(self, plugin=plugin)

    def with_reasons(self, *reasons: str) -> Status:
        return replace(self, reasons=reasons)

    def __str__(self) -> str:
        text = f"{self.code}"
        if self.plugin:
            text += f" from {self.plugin}"
        message = self.message()
        return f"{text}: {message}" if message else text


_SUCCESS = Status()
_SKIP = Status(Code.SKIP)


def as_status(status: Status | None) -> Status:
    """A plugin's return value as a Status (``None`` is success, as a nil ``*Status`` is in Go)."""
    return _SUCCESS if status is None else status


def code_of(status: Status | None) -> Code:
    return Code.SUCCESS if status is None else status.code


def is_success(status: Status | None) -> bool:
    return status is None or status.code is Code.SUCCESS


def is_rejected(status: Status | None) -> bool:
    return status is not None and status.code in _REJECTED


ERR_NODE_NOT_FOUND = (
    "node not found: the NodeInfo has no Node (a snapshot only holds "
    "NodeInfos whose node is set; call set_node first)"
)
"""Go's ``"node not found"``, with what to do about it."""


def node_not_found() -> Status:
    """The Error a plugin returns for a NodeInfo without its Node (Go: ``errors.New("node not found")``)."""
    return Status.as_error(ValueError(ERR_NODE_NOT_FOUND))
