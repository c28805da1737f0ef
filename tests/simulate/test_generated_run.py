"""A generated cluster at a few hundred nodes: the trace agrees with the API server and itself.

The full-size run (``generate --nodes 1000 --pods 5000``) is measured, not
tested (see the simulator's API page); this one is small enough for the
suite and large enough for ``percentageOfNodesToScore`` to cut the search.

Expectations from kubernetes/kubernetes v1.33: ``pkg/scheduler/schedule_one.go``
(``schedulePod`` picks among the feasible nodes the one with the highest
total score, ``selectHost``; a node is feasible when every Filter plugin
passed it, ``findNodesThatPassFilters``; ``bind`` posts a Binding), and
NodeResourcesFit's Filter (``noderesources/fit.go``: no node is given more
than its allocatable).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import framework
from framework.apiserver.store import APIServer
from framework.objects import Binding
from framework.simulator.generate import generate
from framework.simulator.result import SimulationResult
from tests.simulate.test_schema import VALIDATOR, runs

NODES, PODS = 250, 800
PASSING = ("Success", "Skip")


@pytest.fixture(scope="module")
def run() -> Iterator[tuple[SimulationResult, dict[str, str]]]:
    """The generated run, and every Binding the API server accepted during it."""
    bindings: dict[str, str] = {}
    bind = APIServer.bind

    def recording(self: APIServer, binding: Binding) -> Any:
        pod = bind(self, binding)
        bindings[pod.key] = pod.spec.node_name
        return pod

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(APIServer, "bind", recording)
        result = framework.simulate(generate(NODES, PODS, seed=0))
    yield result, bindings


def test_the_generator_writes_exactly_what_it_was_asked_for() -> None:
    text = generate(NODES, PODS, seed=0)
    assert text == generate(NODES, PODS, seed=0) != generate(NODES, PODS, seed=1)
    items = json.loads(text)["items"]
    kinds = [item["kind"] for item in items]
    assert kinds.count("Node") == NODES
    assert kinds.count("Pod") == NODES  # one running agent per node
    assert sum(i["spec"]["replicas"] for i in items if i["kind"] == "Deployment") == PODS


def test_placements_are_the_api_servers_bindings(
    run: tuple[SimulationResult, dict[str, str]],
) -> None:
    result, bindings = run
    pending = {pod.key for pod in result.pods if not pod.running_at_start}
    assert len(pending) == PODS
    placed = {pod: node for pod, node in result.placements.items() if pod in pending and node}
    assert placed == bindings
    assert 0.9 * PODS < len(placed) < PODS  # most fit; the "huge" pods never do
    scheduled = [a for a in result.attempts if a.result == "Scheduled"]
    assert {a.pod: a.node for a in scheduled} == bindings
    assert sum(1 for e in result.events if e.reason == "Scheduled") == len(bindings)


def test_every_chosen_node_passed_every_filter_and_had_the_best_score(
    run: tuple[SimulationResult, dict[str, str]],
) -> None:
    result, _ = run
    for attempt in result.attempts:
        if attempt.node is None:
            assert attempt.result != "Scheduled"
            continue
        row = attempt.filter[attempt.node]
        assert all(verdict.code in PASSING for verdict in row.values()), attempt.pod
        if attempt.final_score:
            best = max(attempt.total(node) for node in attempt.final_score)
            assert attempt.total(attempt.node) == best, attempt.pod
    # percentageOfNodesToScore: 250 nodes, 50 − 250/125 = 48 %: 120 feasible nodes suffice.
    assert max(len(a.final_score) for a in result.attempts) == 120


def test_no_node_is_given_more_than_its_allocatable(
    run: tuple[SimulationResult, dict[str, str]],
) -> None:
    result, _ = run
    for node in result.nodes:
        for resource, used in node.requested_after.items():
            assert used <= node.allocatable.get(resource, 0), (node.name, resource)


def test_a_sample_of_the_trace_validates_against_the_schema(
    run: tuple[SimulationResult, dict[str, str]],
) -> None:
    result, _ = run
    sample = SimulationResult(
        placements=result.placements, attempts=result.attempts[::50], events=result.events
    )
    trace = json.loads(sample.to_json())
    errors = list(VALIDATOR.iter_errors(trace))
    assert not errors, [e.message for e in errors[:3]]


@pytest.mark.parametrize(("manifests", "config"), runs())
def test_the_streamed_trace_is_the_trace(manifests: str, config: str) -> None:
    from tests.simulate.plugins import PLUGINS

    result = framework.simulate(manifests, config=config, plugins=PLUGINS)
    expected = json.dumps(result.to_dict(), separators=(",", ":")) + "\n"
    assert result.to_json() == expected
    assert json.loads(result.to_json(indent=2)) == result.to_dict()
