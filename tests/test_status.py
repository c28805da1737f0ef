"""Status: Kubernetes' codes, names and message rules (pkg/scheduler/framework/interface.go)."""

from __future__ import annotations

import pytest

from framework.status import Code, Status, as_status, code_of, is_rejected, is_success


def test_codes_keep_go_numbering_and_names() -> None:
    assert [(int(c), str(c)) for c in Code] == [
        (0, "Success"),
        (1, "Error"),
        (2, "Unschedulable"),
        (3, "UnschedulableAndUnresolvable"),
        (4, "Wait"),
        (5, "Skip"),
        (6, "Pending"),
    ]


def test_none_is_success_as_a_nil_status_is_in_go() -> None:
    assert is_success(None) and not is_rejected(None)
    assert as_status(None).is_success() and code_of(None) is Code.SUCCESS


@pytest.mark.parametrize(
    ("status", "rejected"),
    [
        (Status.unschedulable("x"), True),
        (Status.unresolvable("x"), True),
        (Status.pending("x"), True),
        (Status.wait(), False),
        (Status.skip(), False),
        (Status.as_error(RuntimeError("boom")), False),
        (Status.success(), False),
    ],
    ids=lambda v: str(v) if isinstance(v, Status) else None,
)
def test_rejected_means_unschedulable_unresolvable_or_pending(
    status: Status, rejected: bool
) -> None:
    assert status.is_rejected() is rejected
    assert is_rejected(status) is rejected


def test_message_joins_reasons_with_the_error_first() -> None:
    status = Status(Code.ERROR, ("second",), RuntimeError("first"))
    assert status.message() == "first, second"
    assert Status.unschedulable("a", "b").message() == "a, b"


def test_with_plugin_stamps_a_copy() -> None:
    original = Status.unschedulable("Insufficient cpu")
    stamped = original.with_plugin("NodeResourcesFit")
    assert (original.plugin, stamped.plugin) == ("", "NodeResourcesFit")
    assert str(stamped) == "Unschedulable from NodeResourcesFit: Insufficient cpu"
