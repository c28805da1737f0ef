"""The runners of each extension point apply Kubernetes' rules (runtime/framework.go, v1.33).

Each test builds a Framework from small recording plugins and checks one
rule: what stops a run, what is remembered, what becomes an error, in which
order plugins are called.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from framework.clock import FakeClock
from framework.cycle_state import CycleState
from framework.interface import NodeScore, NodeToStatus, PostFilterResult, PreFilterResult
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.runtime.framework import Framework
from framework.status import Code, Status
from framework.types import NominatingInfo, NominatingMode

POD = Pod.from_dict(
    {
        "metadata": {"name": "p", "namespace": "default", "uid": "uid-p"},
        "spec": {"containers": [{"name": "c"}]},
    }
)


def node_info(name: str) -> NodeInfo:
    info = NodeInfo()
    info.set_node(Node.from_dict({"metadata": {"name": name}}))
    return info


NODES = [node_info("a"), node_info("b"), node_info("c")]


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []


class Fake:
    """A plugin whose behaviour at each point is a function given at construction."""

    def __init__(self, name: str, log: Recorder, **behaviour: Callable[..., Any]) -> None:
        self._name = name
        self._log = log
        self._behaviour = behaviour

    def name(self) -> str:
        return self._name

    def _run(self, point: str, *args: Any) -> Any:
        self._log.calls.append(f"{point}:{self._name}")
        return self._behaviour[point](*args)


def plugin(name: str, log: Recorder, **behaviour: Callable[..., Any]) -> Any:
    """Build a Fake with exactly the extension-point methods named in ``behaviour``."""
    methods: dict[str, Any] = {}
    for point in behaviour:
        methods[point] = (lambda p: lambda self, *a: self._run(p, *a))(point)
    if "pre_filter" in behaviour:
        methods["pre_filter_extensions"] = lambda self: None
    if "score" in behaviour:
        normalize = behaviour.get("normalize")
        methods["score_extensions"] = (lambda self: self) if normalize else (lambda self: None)
        if normalize:
            methods["normalize_score"] = lambda self, *a: self._run("normalize", *a)
    cls = type(f"Fake{name}", (Fake,), methods)
    return cls(name, log, **behaviour)


def ok(*_: Any) -> None:
    return None


# --- PreFilter ---------------------------------------------------------------------------------


def test_pre_filter_skip_skips_that_plugins_filter() -> None:
    log = Recorder()
    a = plugin("A", log, pre_filter=lambda *_: (None, Status.skip()), filter=ok)
    b = plugin("B", log, pre_filter=lambda *_: (None, None), filter=ok)
    fwk = Framework.from_plugins("p", {"preFilter": [a, b], "filter": [a, b]})
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, POD, NODES)
    assert status.is_success() and state.skip_filter_plugins == {"A"}
    fwk.run_filter_plugins(state, POD, NODES[0])
    assert log.calls == ["pre_filter:A", "pre_filter:B", "filter:B"]


def test_pre_filter_unschedulable_is_remembered_while_the_rest_still_run() -> None:
    log = Recorder()
    a = plugin("A", log, pre_filter=lambda *_: (None, Status.unschedulable("no")))
    b = plugin("B", log, pre_filter=lambda *_: (None, None))
    _, status, _ = Framework.from_plugins("p", {"preFilter": [a, b]}).run_pre_filter_plugins(
        CycleState(), POD, NODES
    )
    assert (status.code, status.plugin, status.message()) == (Code.UNSCHEDULABLE, "A", "no")
    assert log.calls == ["pre_filter:A", "pre_filter:B"]


def test_pre_filter_unresolvable_stops_at_once() -> None:
    log = Recorder()
    a = plugin("A", log, pre_filter=lambda *_: (None, Status.unresolvable("never")))
    b = plugin("B", log, pre_filter=lambda *_: (None, None))
    _, status, _ = Framework.from_plugins("p", {"preFilter": [a, b]}).run_pre_filter_plugins(
        CycleState(), POD, NODES
    )
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE and status.plugin == "A"
    assert log.calls == ["pre_filter:A"]


def test_pre_filter_other_codes_become_errors_naming_the_plugin() -> None:
    log = Recorder()
    a = plugin("A", log, pre_filter=lambda *_: (None, Status.wait("odd")))
    _, status, _ = Framework.from_plugins("p", {"preFilter": [a]}).run_pre_filter_plugins(
        CycleState(), POD, NODES
    )
    assert status.code is Code.ERROR
    assert status.message() == 'running PreFilter plugin "A": odd'


def test_pre_filter_results_intersect_and_an_empty_intersection_is_unresolvable() -> None:
    log = Recorder()
    a = plugin("A", log, pre_filter=lambda *_: (PreFilterResult(frozenset({"a", "b"})), None))
    b = plugin("B", log, pre_filter=lambda *_: (PreFilterResult(frozenset({"b", "c"})), None))
    c = plugin("C", log, pre_filter=lambda *_: (PreFilterResult(frozenset({"c"})), None))
    fwk = Framework.from_plugins("p", {"preFilter": [a, b]})
    result, status, narrowing = fwk.run_pre_filter_plugins(CycleState(), POD, NODES)
    assert result == PreFilterResult(frozenset({"b"})) and status.is_success()
    assert narrowing == {"A", "B"}
    fwk = Framework.from_plugins("p", {"preFilter": [a, b, c]})
    _, status, _ = fwk.run_pre_filter_plugins(CycleState(), POD, NODES)
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message() == "node(s) didn't satisfy plugin(s) [A B C] simultaneously"
    fwk = Framework.from_plugins(
        "p",
        {
            "preFilter": [
                plugin("N", log, pre_filter=lambda *_: (PreFilterResult(frozenset()), None))
            ]
        },
    )
    assert (
        fwk.run_pre_filter_plugins(CycleState(), POD, NODES)[1].message()
        == "node(s) didn't satisfy plugin N"
    )


# --- Filter ---------------------------------------------------------------------------------------


def test_filter_stops_at_a_nodes_first_failure() -> None:
    log = Recorder()
    a = plugin("A", log, filter=lambda *_: Status.unschedulable("Insufficient cpu"))
    b = plugin("B", log, filter=ok)
    status = Framework.from_plugins("p", {"filter": [a, b]}).run_filter_plugins(
        CycleState(), POD, NODES[0]
    )
    assert (status.code, status.plugin, status.message()) == (
        Code.UNSCHEDULABLE,
        "A",
        "Insufficient cpu",
    )
    assert log.calls == ["filter:A"]


def test_a_filter_that_raises_fails_the_attempt_with_an_error_not_the_scheduler() -> None:
    def boom(*_: Any) -> None:
        raise ZeroDivisionError("division by zero")

    status = Framework.from_plugins(
        "p", {"filter": [plugin("A", Recorder(), filter=boom)]}
    ).run_filter_plugins(CycleState(), POD, NODES[0])
    assert status.code is Code.ERROR and status.plugin == "A"
    assert (
        status.message()
        == 'running "A" filter plugin: plugin "A" raised ZeroDivisionError: division by zero'
    )


# --- PostFilter -----------------------------------------------------------------------------------


def test_post_filter_returns_the_first_success() -> None:
    log = Recorder()
    nominate = PostFilterResult(NominatingInfo("b", NominatingMode.OVERRIDE))
    a = plugin("A", log, post_filter=lambda *_: (None, Status.unschedulable("nothing to preempt")))
    b = plugin("B", log, post_filter=lambda *_: (nominate, None))
    c = plugin("C", log, post_filter=lambda *_: (None, None))
    result, status = Framework.from_plugins(
        "p", {"postFilter": [a, b, c]}
    ).run_post_filter_plugins(CycleState(), POD, NodeToStatus())
    assert status.is_success() and result is nominate
    assert log.calls == ["post_filter:A", "post_filter:B"]


def test_post_filter_without_success_is_unschedulable_from_the_first_rejector_with_all_reasons() -> (
    None
):
    log = Recorder()
    a = plugin("A", log, post_filter=lambda *_: (None, Status.unschedulable("x")))
    b = plugin("B", log, post_filter=lambda *_: (None, Status.unschedulable("y")))
    _, status = Framework.from_plugins("p", {"postFilter": [a, b]}).run_post_filter_plugins(
        CycleState(), POD, NodeToStatus()
    )
    assert (status.code, status.plugin, status.reasons) == (Code.UNSCHEDULABLE, "A", ("x", "y"))


# --- PreScore, Score -------------------------------------------------------------------------------


def test_scores_are_normalised_then_weighted_then_summed() -> None:
    log = Recorder()

    def double_normalize(_state: Any, _pod: Any, scores: list[NodeScore]) -> None:
        highest = max(s.score for s in scores)
        for s in scores:
            s.score = s.score * 100 // highest

    raw = {"a": 1, "b": 2, "c": 4}
    a = plugin(
        "A", log, score=lambda _s, _p, info: (raw[info.name], None), normalize=double_normalize
    )
    b = plugin("B", log, score=lambda _s, _p, info: (10, None))
    fwk = Framework.from_plugins("p", {"score": [a, b]}, {"A": 2, "B": 3})
    totals, status = fwk.run_score_plugins(CycleState(), POD, NODES)
    assert status.is_success()
    assert [(t.name, t.total_score) for t in totals] == [
        ("a", 25 * 2 + 30),
        ("b", 50 * 2 + 30),
        ("c", 200 + 30),
    ]


def test_a_score_outside_0_100_after_normalising_is_an_error() -> None:
    a = plugin("A", Recorder(), score=lambda *_: (101, None))
    _, status = Framework.from_plugins("p", {"score": [a]}).run_score_plugins(
        CycleState(), POD, NODES
    )
    assert status.code is Code.ERROR
    assert (
        'plugin "A" returns an invalid score 101, it should in the range of [0, 100] after normalizing'
        in status.message()
    )


def test_pre_score_skip_skips_that_plugins_score() -> None:
    log = Recorder()
    a = plugin("A", log, pre_score=lambda *_: Status.skip(), score=lambda *_: (50, None))
    fwk = Framework.from_plugins("p", {"preScore": [a], "score": [a]})
    state = CycleState()
    assert fwk.run_pre_score_plugins(state, POD, NODES).is_success()
    totals, _ = fwk.run_score_plugins(state, POD, NODES)
    assert [t.total_score for t in totals] == [0, 0, 0] and log.calls == ["pre_score:A"]


# --- Reserve, Permit --------------------------------------------------------------------------------


def test_unreserve_runs_every_reserve_plugin_in_reverse_order() -> None:
    log = Recorder()
    a = plugin("A", log, reserve=ok, unreserve=ok)
    b = plugin("B", log, reserve=lambda *_: Status.unschedulable("full"), unreserve=ok)
    c = plugin("C", log, reserve=ok, unreserve=ok)
    fwk = Framework.from_plugins("p", {"reserve": [a, b, c]})
    status = fwk.run_reserve_plugins_reserve(CycleState(), POD, "a")
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "B")
    fwk.run_reserve_plugins_unreserve(CycleState(), POD, "a")
    assert log.calls == ["reserve:A", "reserve:B", "unreserve:C", "unreserve:B", "unreserve:A"]


def test_permit_wait_parks_the_pod_until_every_waiting_plugin_allows_it() -> None:
    log = Recorder()
    a = plugin("A", log, permit=lambda *_: (Status.wait(), 30))
    b = plugin("B", log, permit=lambda *_: (Status.wait(), 60))
    fwk = Framework.from_plugins("p", {"permit": [a, b]}, clock=FakeClock(start=0))
    status = fwk.run_permit_plugins(CycleState(), POD, "a")
    assert status.is_wait()
    assert status.message() == 'one or more plugins asked to wait and no plugin rejected pod "p"'
    waiting = fwk.get_waiting_pod("uid-p")
    assert waiting is not None and waiting.get_pending_plugins() == ["A", "B"]
    waiting.allow("A")
    waiting.allow("B")
    assert fwk.wait_on_permit(POD).is_success()
    assert fwk.get_waiting_pod("uid-p") is None


def test_permit_timeout_rejects_with_kubernetes_message() -> None:
    clock = FakeClock(start=0)
    a = plugin("A", Recorder(), permit=lambda *_: (Status.wait(), 10))
    fwk = Framework.from_plugins("p", {"permit": [a]}, clock=clock)
    fwk.run_permit_plugins(CycleState(), POD, "a")
    result: list[Status] = []
    waiter = threading.Thread(target=lambda: result.append(fwk.wait_on_permit(POD)))
    waiter.start()
    clock.block_until_waiters(1)
    clock.advance(10)
    waiter.join(timeout=10)
    (status,) = result
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "A")
    assert status.message() == "rejected due to timeout after waiting 10s at plugin A"


def test_permit_timeouts_are_capped_at_15_minutes() -> None:
    clock = FakeClock(start=0)
    a = plugin("A", Recorder(), permit=lambda *_: (Status.wait(), 3600))
    fwk = Framework.from_plugins("p", {"permit": [a]}, clock=clock)
    fwk.run_permit_plugins(CycleState(), POD, "a")
    result: list[Status] = []
    waiter = threading.Thread(target=lambda: result.append(fwk.wait_on_permit(POD)))
    waiter.start()
    clock.block_until_waiters(1)
    clock.advance(15 * 60)
    waiter.join(timeout=10)
    assert result[0].message() == "rejected due to timeout after waiting 15m0s at plugin A"


def test_a_rejection_of_a_waiting_pod_wins_over_later_allows() -> None:
    a = plugin("A", Recorder(), permit=lambda *_: (Status.wait(), 30))
    fwk = Framework.from_plugins("p", {"permit": [a]}, clock=FakeClock(start=0))
    fwk.run_permit_plugins(CycleState(), POD, "a")
    assert fwk.reject_waiting_pod("uid-p") is True
    waiting = fwk.get_waiting_pod("uid-p")
    assert waiting is not None
    waiting.allow("A")
    status = fwk.wait_on_permit(POD)
    assert status.code is Code.UNSCHEDULABLE and status.message() == "removed"


# --- Bind ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answers", "expected_calls", "expected_code"),
    [
        ((Status.skip(), None, None), ["bind:B0", "bind:B1"], Code.SUCCESS),
        ((Status.skip(), Status.skip()), ["bind:B0", "bind:B1"], Code.SKIP),
        ((Status.as_error(RuntimeError("api down")), None), ["bind:B0"], Code.ERROR),
    ],
    ids=["the first binder that does not skip owns the pod", "all skip", "an error stops"],
)
def test_bind_plugins_run_until_one_does_not_skip(
    answers: tuple[Status | None, ...], expected_calls: list[str], expected_code: Code
) -> None:
    log = Recorder()

    def answering(answer: Status | None) -> Callable[..., Status | None]:
        return lambda *_: answer

    binders = [plugin(f"B{i}", log, bind=answering(s)) for i, s in enumerate(answers)]
    status = Framework.from_plugins("p", {"bind": binders}).run_bind_plugins(
        CycleState(), POD, "a"
    )
    assert log.calls == expected_calls and status.code is expected_code


def test_enabling_a_plugin_at_a_point_it_does_not_implement_is_refused() -> None:
    with pytest.raises(TypeError, match='plugin "A" does not extend filter plugin'):
        Framework.from_plugins(
            "p", {"filter": [plugin("A", Recorder(), reserve=ok, unreserve=ok)]}
        )


# --- what a per-node answer means ---------------------------------------------------------------
# Whatever a Filter or Score plugin returns must mean what it means in Go (runtime/framework.go,
# RunFilterPlugins and RunScorePlugins, v1.33); Go's types rule out the odd answers, our guard
# turns them into Errors. The batch engine (tests/batch) is held to the same answers.


@pytest.mark.parametrize(
    ("answer", "want_code", "want_plugin"),
    [
        pytest.param(None, Code.SUCCESS, "", id="None is success"),
        pytest.param(Status.success(), Code.SUCCESS, "", id="a success Status is success"),
        pytest.param(Status(code=0), Code.SUCCESS, "", id="an int code 0 is success"),  # type: ignore[arg-type]
        pytest.param(
            Status(code=2, reasons=("r",)), Code.UNSCHEDULABLE, "A", id="an int code 2 rejects"
        ),  # type: ignore[arg-type]
        pytest.param(
            Status.unresolvable("r"), Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "A", id="unresolvable"
        ),
        pytest.param(Status.skip(), Code.ERROR, "A", id="Skip at Filter is an error"),
        pytest.param("yes", Code.ERROR, "A", id="a string is an error"),
        pytest.param(Status(code=42), Code.ERROR, "A", id="an unknown code is an error"),  # type: ignore[arg-type]
    ],
)
def test_a_filter_answer_means_what_it_means_in_go(
    answer: Any, want_code: Code, want_plugin: str
) -> None:
    a = plugin("A", Recorder(), filter=lambda *_: answer)
    status = Framework.from_plugins("p", {"filter": [a]}).run_filter_plugins(
        CycleState(), POD, NODES[0]
    )
    assert (status.code, status.plugin) == (want_code, want_plugin)


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        pytest.param((7, None), True, id="(int, None)"),
        pytest.param((7, Status.success()), True, id="(int, success)"),
        pytest.param((1.5, None), False, id="a float score"),
        pytest.param((True, None), False, id="a bool score"),
        pytest.param((7, Status.unschedulable("no")), False, id="a rejection"),
        pytest.param((7,), False, id="a 1-tuple"),
        pytest.param(7, False, id="a bare int"),
        pytest.param(Status.success(), False, id="a bare Status"),
    ],
)
def test_a_score_answer_means_what_it_means_in_go(answer: Any, ok: bool) -> None:
    a = plugin("A", Recorder(), score=lambda *_: answer)
    totals, status = Framework.from_plugins("p", {"score": [a]}).run_score_plugins(
        CycleState(), POD, NODES
    )
    assert status.is_success() is ok
    if ok:
        assert [t.total_score for t in totals] == [7, 7, 7]
    else:
        assert status.code is Code.ERROR
        assert status.message().startswith('running Score plugins: plugin "A" failed with')


def test_a_node_with_no_nominated_pods_is_filtered_once() -> None:
    log = Recorder()
    a = plugin("A", log, filter=ok)

    class NoNominations:
        def has_nominated_pods(self, node_name: str) -> bool:
            return False

        def nominated_pods_for_node(self, node_name: str) -> list[Any]:
            raise AssertionError("not asked when there are none")

    fwk = Framework.from_plugins("p", {"filter": [a]}, nominator=NoNominations())
    assert fwk.run_filter_plugins_with_nominated_pods(CycleState(), POD, NODES[0]).is_success()
    assert log.calls == ["filter:A"]
