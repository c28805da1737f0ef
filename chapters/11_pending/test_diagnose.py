"""Chapter 11: one attempt of the trace in one line, each reason with the nodes behind it.

The attempts below are v1 trace attempts written by hand, shaped as
kube-scheduler leaves its evidence (kubernetes/kubernetes, v1.33):

* ``pkg/scheduler/framework/runtime/framework.go`` (``RunFilterPlugins``): a
  node's Filter plugins run in order and the first that does not succeed is
  the node's status, so a row's rejection is its first verdict that is
  neither Success nor Skip (``RunPreFilterPlugins`` marks the plugins whose
  PreFilter skipped: their Filter never runs);
* ``pkg/scheduler/framework/interface.go``: ``UnschedulableAndUnresolvable``
  marks a node no preemption can help;
* ``pkg/scheduler/schedule_one.go`` (``findNodesThatFitPod``): a PreFilter
  rejection is every node's status;
* ``pkg/scheduler/framework/types.go`` (``FitError.Error``): the message
  counts each reason, and says nothing of which node it came from;
* the reasons' words are the plugins' own (``nodeunschedulable``,
  ``tainttoleration``, ``nodeaffinity``, ``noderesources/fit.go``).

The last tests run a whole simulation of the chapter's cluster. Run them
against your code with ``python -m pytest chapters/11_pending --exercise``.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import framework

pytestmark = pytest.mark.exercise(
    reference="framework.simulator.diagnose", skeleton="exercise.py", asks=["diagnose"]
)

OK = {"code": "Success", "reasons": []}
SKIP = {"code": "Skip", "reasons": []}
SHORT_CPU = {"code": "Unschedulable", "reasons": ["Insufficient cpu"]}
CORDONED = {"code": "UnschedulableAndUnresolvable", "reasons": ["node(s) were unschedulable"]}
TAINTED = {
    "code": "UnschedulableAndUnresolvable",
    "reasons": ["node(s) had untolerated taint {dedicated: gpu}"],
}


def attempt(
    filter: dict[str, dict[str, Any]],
    result: str = "Unschedulable",
    node: str | None = None,
    message: str = "0/N nodes are available: ...",
    nominated: str | None = None,
    victims: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
        "pod": "default/web",
        "attempt": 1,
        "profile": "default-scheduler",
        "result": result,
        "node": node,
        "message": message,
        "filter": filter,
        "score": {},
        "finalScore": {},
        "nominatedNode": nominated,
        "victims": list(victims),
    }


def fit(verdict: dict[str, Any]) -> dict[str, Any]:
    """A row that reached NodeResourcesFit: the cheap filters passed, NodePorts skipped."""
    return {
        "NodeUnschedulable": OK,
        "TaintToleration": OK,
        "NodePorts": SKIP,
        "NodeResourcesFit": verdict,
    }


CASES = [
    pytest.param(
        attempt(
            {"a": fit(OK), "b": fit(OK)},
            result="Scheduled",
            node="b",
            message="Successfully assigned default/web to b",
        ),
        "Scheduled to b.",
        id="a Scheduled attempt names its node",
    ),
    pytest.param(
        attempt({"a": fit(SHORT_CPU), "b": fit(SHORT_CPU)}),
        "Unschedulable: Insufficient cpu on a, b.",
        id="one reason on every node",
    ),
    pytest.param(
        attempt(
            {"gpu": {"NodeUnschedulable": OK, "TaintToleration": TAINTED}, "a": fit(SHORT_CPU)}
        ),
        "Unschedulable: node(s) had untolerated taint {dedicated: gpu} on gpu (unresolvable); "
        "Insufficient cpu on a.",
        id="an UnschedulableAndUnresolvable rejection is marked",
    ),
    pytest.param(
        attempt(
            {
                "a": fit(SHORT_CPU),
                "c1": {"NodeUnschedulable": CORDONED},
                "b": fit(SHORT_CPU),
                "c2": {"NodeUnschedulable": CORDONED},
            }
        ),
        "Unschedulable: Insufficient cpu on a, b; node(s) were unschedulable on c1, c2 "
        "(unresolvable).",
        id="groups come in the order of their first node",
    ),
    pytest.param(
        attempt({f"n{i}": fit(SHORT_CPU) for i in range(1, 6)}),
        "Unschedulable: Insufficient cpu on n1, n2, n3 and 2 more.",
        id="at most three nodes are named",
    ),
    pytest.param(
        attempt({f"n{i}": fit(SHORT_CPU) for i in range(1, 4)}),
        "Unschedulable: Insufficient cpu on n1, n2, n3.",
        id="exactly three nodes are all named",
    ),
    pytest.param(
        attempt(
            {
                "a": fit(
                    {
                        "code": "Unschedulable",
                        "reasons": ["Insufficient cpu", "Insufficient memory"],
                    }
                ),
                "b": fit(SHORT_CPU),
            }
        ),
        "Unschedulable: Insufficient cpu, Insufficient memory on a; Insufficient cpu on b.",
        id="a node's reasons together make its rejection",
    ),
    pytest.param(
        attempt(
            {
                "a": {"NodePorts": SKIP, "NodeResourcesFit": SHORT_CPU},
                "b": {"NodeUnschedulable": OK, "NodeAffinity": SKIP, "NodeResourcesFit": OK},
            }
        ),
        "Unschedulable: Insufficient cpu on a.",
        id="Skip is no rejection and a node that passed is not named",
    ),
    pytest.param(
        attempt({"a": fit({"code": "Unschedulable", "reasons": []})}),
        "Unschedulable: Unschedulable on a.",
        id="a rejection without reasons is named by its code",
    ),
    pytest.param(
        attempt(
            {"a": fit(SHORT_CPU), "gpu": {"TaintToleration": TAINTED}},
            nominated="a",
            victims=("default/batch", "default/report"),
        ),
        "Unschedulable: Insufficient cpu on a; node(s) had untolerated taint {dedicated: gpu} on "
        "gpu (unresolvable); nominated to a, preempting default/batch, default/report.",
        id="a nomination names its victims",
    ),
    pytest.param(
        attempt({"a": fit(SHORT_CPU)}, nominated="a"),
        "Unschedulable: Insufficient cpu on a; nominated to a.",
        id="a nomination without victims",
    ),
    pytest.param(
        attempt(
            {
                n: {
                    "NodeAffinity": {
                        "code": "UnschedulableAndUnresolvable",
                        "reasons": ["pod affinity terms conflict"],
                    }
                }
                for n in ("a", "b")
            },
            message="0/2 nodes are available: pod affinity terms conflict.",
        ),
        "Unschedulable: pod affinity terms conflict on a, b (unresolvable).",
        id="a PreFilter rejection is every node's",
    ),
    pytest.param(
        attempt(
            {"a": fit(OK)},
            result="PermitRejected",
            node="a",
            message="0/1 nodes are available: 1 rejected due to timeout after waiting 60s at plugin Coscheduling.",
        ),
        "PermitRejected: 0/1 nodes are available: 1 rejected due to timeout after waiting 60s at "
        "plugin Coscheduling.",
        id="no node rejected: the message says it",
    ),
    pytest.param(
        attempt({}, result="Error", message='running PreFilter plugin "Broken": boom'),
        'Error: running PreFilter plugin "Broken": boom',
        id="an error before any node was evaluated",
    ),
]


@pytest.mark.parametrize(("given", "expected"), CASES)
def test_diagnose(impl: ModuleType, given: dict[str, Any], expected: str) -> None:
    assert impl.diagnose(given) == expected


# --- a whole run --------------------------------------------------------------------------------

CLUSTER = Path(__file__).with_name("cluster.yaml")


@pytest.fixture(scope="module")
def trace() -> dict[str, Any]:
    # Through JSON text, as a user reading `simulate --output json` would get it.
    result: dict[str, Any] = json.loads(framework.simulate(CLUSTER).to_json())
    return result


def test_the_pending_pod_of_the_chapter(impl: ModuleType, trace: dict[str, Any]) -> None:
    last = [a for a in trace["attempts"] if a["pod"] == "default/report"][-1]
    assert impl.diagnose(last) == (
        "Unschedulable: node(s) had untolerated taint {node-role.kubernetes.io/control-plane: } "
        "on cp-1 (unresolvable); Insufficient cpu on worker-1, worker-2; node(s) were "
        "unschedulable on worker-3 (unresolvable); node(s) didn't match Pod's node "
        "affinity/selector on gpu-1 (unresolvable)."
    )


def test_the_preemptor_of_the_chapter(impl: ModuleType, trace: dict[str, Any]) -> None:
    checkout = [a for a in trace["attempts"] if a["pod"] == "default/checkout"]
    assert [impl.diagnose(a) for a in checkout] == [
        "Unschedulable: node(s) had untolerated taint {node-role.kubernetes.io/control-plane: } "
        "on cp-1 (unresolvable); Insufficient cpu on worker-1, worker-2; node(s) were "
        "unschedulable on worker-3 (unresolvable); node(s) didn't match Pod's node "
        "affinity/selector on gpu-1 (unresolvable); nominated to worker-1, preempting default/web.",
        "Scheduled to worker-1.",
    ]


def test_the_same_text_with_another_code_is_another_group(impl: ModuleType) -> None:
    """TODO 2 groups by (text, code): a resolvable and an unresolvable "no" stay apart.

    (One plugin, here an out-of-tree one, may say the same words with either code.)
    """
    maybe = {"code": "Unschedulable", "reasons": ["rejected by ExamplePlugin"]}
    never = {**maybe, "code": "UnschedulableAndUnresolvable"}
    line = impl.diagnose(attempt({"a": fit(maybe), "b": fit(never)}))
    assert line == (
        "Unschedulable: rejected by ExamplePlugin on a; "
        "rejected by ExamplePlugin on b (unresolvable)."
    ), line
