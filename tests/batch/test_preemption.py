"""DefaultPreemption's search for candidates over the batch engine's arrays finds what the reference finds.

The reference is :meth:`Evaluator.find_candidates` (``findCandidates`` and
``DryRunPreemption`` in
``kubernetes/kubernetes:pkg/scheduler/framework/preemption/preemption.go``);
:class:`~framework.batch.preemption.BatchCandidateFinder` must give the same
candidates (victims and PDB violations included), the same statuses for the
nodes the dry run passed, in the same order, and the same errors, drawing
the same offset from the plugin's RNG. Hypothesis draws nodes with running
pods of mixed priorities (so that some nodes have victims and most do not),
PDBs, Filter statuses of both codes, and preemptors.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import framework
from framework.batch import preemption as batch_preemption
from framework.batch.arrays import NodeArrays
from framework.batch.engine import EngineMismatchError
from framework.batch.preemption import BatchCandidateFinder
from framework.cycle_state import CycleState
from framework.interface import NodeToStatus
from framework.preemption.candidate import Candidate
from framework.status import Status
from tests.plugins.defaultpreemption.helpers import (
    HIGH,
    LOW,
    MID,
    NEG,
    Harness,
    build,
    make_node,
    make_pdb,
    make_pod,
)

PRIORITIES = (NEG, LOW, MID, HIGH)


@st.composite
def scene(draw: Any) -> dict[str, Any]:
    count = draw(st.one_of(st.integers(1, 8), st.integers(40, 120)))
    nodes = [
        make_node(f"node-{i:03d}", {"cpu": f"{draw(st.sampled_from([1000, 2000, 4000]))}m"})
        for i in range(count)
    ]
    pods = []
    for i in range(draw(st.integers(0, 2 * count))):
        priority = draw(st.sampled_from(PRIORITIES))
        pods.append(
            make_pod(
                f"run-{i:03d}",
                priority,
                node=f"node-{draw(st.integers(0, count - 1)):03d}",
                req={"cpu": f"{draw(st.sampled_from([100, 500, 1000]))}m"},
                labels={"app": draw(st.sampled_from(["a", "b"]))},
                start=f"2026-01-01T00:00:{i % 60:02d}Z",
            )
        )
    # Most nodes Unschedulable (preemption might help), some not; a status object shared by
    # many nodes, as the batch engine's are.
    unschedulable = Status.unschedulable("Insufficient cpu").with_plugin("NodeResourcesFit")
    unresolvable = Status.unresolvable("node(s) didn't match").with_plugin("NodeAffinity")
    codes = draw(st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=count, max_size=count))
    pdbs = []
    if draw(st.integers(0, 3)) > 0:
        pdbs.append(make_pdb("pdb-a", {"app": "a"}, allowed=draw(st.sampled_from([0, 0, 1]))))
    return {
        "nodes": nodes,
        "pods": pods,
        "codes": codes,
        "statuses": (unschedulable, unresolvable, Status.unschedulable("own status")),
        "absent": draw(st.sampled_from([None, unschedulable])),
        "pdbs": pdbs,
        "preemptor": make_pod(
            "preemptor",
            draw(st.sampled_from((*PRIORITIES, MID, HIGH))),
            req={"cpu": f"{draw(st.sampled_from([500, 1000, 3000]))}m"},
        ),
        "seed": draw(st.integers(0, 2**16)),
        "percentage": draw(st.sampled_from([10, 50, 100])),
        "absolute": draw(st.sampled_from([1, 3, 100])),
    }


def _harness(s: dict[str, Any]) -> Harness:
    from framework.plugins.defaultpreemption import DefaultPreemptionArgs

    args = DefaultPreemptionArgs(
        min_candidate_nodes_percentage=s["percentage"], min_candidate_nodes_absolute=s["absolute"]
    )
    return build(s["nodes"], s["pods"], pdbs=s["pdbs"], seed=s["seed"], args=args)


def _statuses(s: dict[str, Any], harness: Harness, state: CycleState) -> NodeToStatus:
    """Filter's own status where it rejects, else one of the scene's; some nodes left absent."""
    statuses = NodeToStatus(s["absent"])
    for info, code in zip(harness.fwk.snapshot.node_infos().list(), s["codes"], strict=False):
        status = s["statuses"][code]
        if code == 0:
            found = harness.fwk.run_filter_plugins_with_nominated_pods(state, s["preemptor"], info)
            status = status if found.is_success() else found
        if code < 2 or s["absent"] is None:
            statuses.set(info.name, status)
    return statuses


def _found(answer: Any) -> tuple[Any, ...]:
    candidates, statuses, error = answer
    return (
        [
            (c.name, [p.key for p in c.victims.pods], c.victims.num_pdb_violations)
            for c in candidates
        ],
        None
        if statuses is None
        else [(n, st.code, st.all_reasons(), st.plugin) for n, st in statuses.items()],
        None if error is None else str(error),
    )


def _search(s: dict[str, Any], batch: bool) -> tuple[tuple[Any, ...], BatchCandidateFinder | None]:
    harness = _harness(s)
    pod = s["preemptor"]
    state = harness.pre_filtered_state(pod)
    all_nodes = list(harness.fwk.snapshot.node_infos().list())
    statuses = _statuses(s, harness, state)
    evaluator = harness.plugin.evaluator
    if not batch:
        return _found(evaluator.find_candidates(state, all_nodes, pod, statuses)), None
    finder = BatchCandidateFinder(evaluator, NodeArrays())
    return _found(finder(state, all_nodes, pod, statuses)), finder


@settings(max_examples=60, deadline=None)
@given(s=scene())
def test_the_batch_finder_finds_what_the_reference_finds(s: dict[str, Any]) -> None:
    reference, _ = _search(s, batch=False)
    batch, finder = _search(s, batch=True)
    assert finder is not None and finder.answered
    assert batch == reference


def test_a_full_cluster_of_equals_is_answered_without_a_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No node holds a pod of lower priority: every node's answer, and no NodeInfo cloned."""
    nodes = [make_node(f"node-{i:03d}", {"cpu": "1000m"}) for i in range(300)]
    pods = [
        make_pod(f"fill-{i:03d}", LOW, node=f"node-{i:03d}", req={"cpu": "900m"})
        for i in range(300)
    ]
    s = {"nodes": nodes, "pods": pods, "pdbs": [], "seed": 3, "percentage": 10, "absolute": 100}
    harness = _harness(s)
    pod = make_pod("preemptor", LOW, req={"cpu": "500m"})
    all_nodes = list(harness.fwk.snapshot.node_infos().list())
    statuses = NodeToStatus()
    shared = Status.unschedulable("Insufficient cpu").with_plugin("NodeResourcesFit")
    statuses.set_each([n.name for n in all_nodes], [shared] * len(all_nodes))
    finder = BatchCandidateFinder(harness.plugin.evaluator, NodeArrays())
    from framework.node_info import NodeInfo

    def no_copies(self: NodeInfo) -> NodeInfo:
        raise AssertionError("a NodeInfo was copied")

    monkeypatch.setattr(NodeInfo, "clone", no_copies)
    candidates, node_statuses, error = finder(CycleState(), all_nodes, pod, statuses)
    assert candidates == [] and error is None and node_statuses is not None
    assert len(node_statuses) == 300
    assert {st.message() for _, st in node_statuses.items()} == {
        "No preemption victims found for incoming pod"
    }


def _contended(nodes: int, pods: int) -> str:
    """Nodes filled by low-priority pods and a few of equal priority; pending pods of high priority."""
    docs = [
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000",
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: -5",
    ]
    for i in range(nodes):
        name = f"node-{i:03d}"
        docs.append(
            f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: "
            f"{{kubernetes.io/hostname: {name}}}}}\nstatus: {{allocatable: {{cpu: '2', "
            f"memory: 4Gi, pods: '10'}}, capacity: {{cpu: '2', memory: 4Gi, pods: '10'}}}}"
        )
        klass = "low" if i % 3 == 0 else "high"
        docs.append(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: fill-{i:03d}}}\nspec: {{nodeName: "
            f"{name}, priorityClassName: {klass}, containers: [{{name: c, image: x, resources: "
            f"{{requests: {{cpu: 1500m}}}}}}]}}"
        )
    for j in range(pods):
        docs.append(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p-{j:03d}}}\nspec: {{priorityClassName: "
            f"high, containers: [{{name: c, image: x, resources: {{requests: {{cpu: '1'}}}}}}]}}"
        )
    return "\n---\n".join(docs) + "\n"


def test_both_engines_compare_the_dry_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--engine both`` runs both searches for candidates: the same victims, the same trace."""
    finders: list[batch_preemption.ComparedCandidateFinder] = []
    original = batch_preemption.ComparedCandidateFinder.__init__

    def keep(self: batch_preemption.ComparedCandidateFinder, *args: Any) -> None:
        original(self, *args)
        finders.append(self)

    monkeypatch.setattr(batch_preemption.ComparedCandidateFinder, "__init__", keep)
    manifests = _contended(40, 20)
    both = framework.simulate(manifests, seed=7, engine="both")
    reference = framework.simulate(manifests, seed=7, engine="reference")
    assert both.to_json() == reference.to_json()
    assert len(both.preemptions()) > 0
    assert sum(f.compared for f in finders) > 0


def test_a_wrong_dry_run_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a batch dry run that words "no victims" otherwise is found out."""
    monkeypatch.setattr(batch_preemption, "_NO_VICTIMS", Status.unresolvable("no victims"))
    with pytest.raises(EngineMismatchError, match="dry run's node statuses"):
        framework.simulate(_contended(6, 4), seed=1, engine="both")


def test_a_batch_search_that_raises_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``--engine both`` a bug of the batch search is a mismatch, not a mere Error status."""

    def broken(self: BatchCandidateFinder, statuses: NodeToStatus) -> Any:
        raise IndexError("a bug")

    monkeypatch.setattr(BatchCandidateFinder, "_potential_rows", broken)
    with pytest.raises(EngineMismatchError, match="search for candidates"):
        framework.simulate(_contended(6, 4), seed=1, engine="both")


@pytest.mark.parametrize("preemptor_priority", [HIGH, 2**63 - 1])
def test_the_extreme_priorities_compare_as_the_reference_does(preemptor_priority: int) -> None:
    """The column holds priorities within ±2**62; a preemptor past that is left to the evaluator."""
    nodes = [make_node(f"node-{i}", {"cpu": "1000m"}) for i in range(3)]
    pods = [
        make_pod("huge", 2**63 - 1, node="node-0", req={"cpu": "900m"}),
        make_pod("tiny", -(2**63), node="node-1", req={"cpu": "900m"}),
        make_pod("low", NEG, node="node-2", req={"cpu": "900m"}),
    ]
    s = {
        "nodes": nodes,
        "pods": pods,
        "pdbs": [],
        "seed": 1,
        "percentage": 10,
        "absolute": 100,
        "absent": Status.unschedulable("Insufficient cpu"),
        "codes": [2, 2, 2],
        "statuses": (None, None, None),  # every node has the absent status
        "preemptor": make_pod("preemptor", preemptor_priority, req={"cpu": "500m"}),
    }
    reference, _ = _search(s, batch=False)
    batch, finder = _search(s, batch=True)
    assert batch == reference
    assert finder is not None and finder.answered == (preemptor_priority == HIGH)
    assert sorted(name for name, _, _ in reference[0]) == ["node-1", "node-2"]


def test_candidates_keep_their_type() -> None:
    """The finder's candidates are the reference's Candidate objects (extenders read them)."""
    s = {
        "nodes": [make_node("node-000", {"cpu": "1000m"})],
        "pods": [make_pod("low", NEG, node="node-000", req={"cpu": "900m"})],
        "pdbs": [],
        "seed": 0,
        "percentage": 10,
        "absolute": 100,
    }
    harness = _harness(s)
    pod = make_pod("preemptor", HIGH, req={"cpu": "500m"})
    state = harness.pre_filtered_state(pod)
    all_nodes = list(harness.fwk.snapshot.node_infos().list())
    statuses = NodeToStatus()
    statuses.set("node-000", Status.unschedulable("Insufficient cpu"))
    candidates, _, _ = BatchCandidateFinder(harness.plugin.evaluator, NodeArrays())(
        state, all_nodes, pod, statuses
    )
    assert [type(c) for c in candidates] == [Candidate]
    assert [p.name for p in candidates[0].victims.pods] == ["low"]


def _full(nodes: int, pods: int) -> str:
    """``scripts/trace_scale.py full`` in small: every node 0.6 CPU short, pods of 1 CPU."""
    docs = []
    for i in range(nodes):
        name = f"node-{i:03d}"
        pool = "general" if i % 3 else "gpu"
        docs.append(
            f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: "
            f"{{kubernetes.io/hostname: {name}, pool: {pool}}}}}\nstatus: {{allocatable: "
            f"{{cpu: '2', memory: 4Gi, pods: '10'}}, capacity: {{cpu: '2', memory: 4Gi, "
            f"pods: '10'}}}}"
        )
        docs.append(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: fill-{i:03d}}}\nspec: {{nodeName: "
            f"{name}, containers: [{{name: c, image: x, resources: {{requests: "
            f"{{cpu: 1400m}}}}}}]}}"
        )
    for j in range(pods):
        selector = ", nodeSelector: {pool: general}" if j % 2 else ""
        docs.append(
            f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p-{j:03d}}}\nspec: {{containers: "
            f"[{{name: c, image: x, resources: {{requests: {{cpu: '1'}}}}}}]{selector}}}"
        )
    return "\n---\n".join(docs) + "\n"


@pytest.mark.parametrize(
    "manifests", [_full(150, 6), _contended(40, 12)], ids=["full", "contended"]
)
def test_failed_attempts_write_the_same_trace_from_both_engines(manifests: str) -> None:
    """The recorder keeps a batch search's table as rows and indices: the same v2 trace bytes."""
    import io

    from framework.simulator.recorder import TraceRecorder
    from framework.simulator.result import FilterTable

    tables: list[type] = []
    original = TraceRecorder.cycle_ended

    def seeing(self: TraceRecorder, queued: Any, outcome: Any) -> None:
        draft = self._current
        if draft is not None:
            tables.append(type(draft.table if draft.table is not None else draft.filter))
        original(self, queued, outcome)

    traces = {}
    for engine in ("reference", "batch"):
        out = io.StringIO()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(TraceRecorder, "cycle_ended", seeing)
            framework.simulate(manifests, seed=5, engine=engine, trace=out)
        traces[engine] = out.getvalue()
    assert traces["batch"] == traces["reference"]
    assert FilterTable in tables
