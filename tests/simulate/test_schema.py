"""The v1 trace validates against its JSON Schema (draft 2020-12), shipped with the package.

The schema's shape is issue 6's trace format; these tests keep the code and
the schema from drifting apart, on runs that produce every kind of attempt
result, verdict code and event.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

import framework
from framework.simulator import trace_schema
from framework.simulator.result import ATTEMPT_RESULTS
from tests.simulate.plugins import PLUGINS
from tests.simulate.test_reproducible import CONFIG as GROUPS
from tests.simulate.test_reproducible import MANIFESTS as GROUPED_PODS
from tests.simulate.test_trace import CLUSTER, FILTER_AND_SCORE, nodes, pods, profile

VALIDATOR = jsonschema.Draft202012Validator(trace_schema())


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(trace_schema())
    assert trace_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert trace_schema()["properties"]["attempts"]["items"]["$ref"] == "#/$defs/attempt"
    assert tuple(trace_schema()["$defs"]["attempt"]["properties"]["result"]["enum"]) == (
        ATTEMPT_RESULTS
    )


def runs() -> list[Any]:
    prefilter = profile(
        "{name: PrioritySort}",
        "{name: RejectLabelled}",
        "{name: FailFirstAttempt}",
        "{name: NodeAffinity}",
        "{name: NodeResourcesFit}",
        "{name: DefaultBinder}",
    )
    return [
        pytest.param(CLUSTER, FILTER_AND_SCORE, id="filters, scores, unschedulable"),
        pytest.param(GROUPED_PODS, GROUPS, id="permit waits and timeouts"),
        pytest.param(
            nodes(2) + pods(1, labels="{test.example/reject: 'yes'}") + pods(2, prefix="ok"),
            prefilter,
            id="prefilter rejection, skip, error",
        ),
    ]


@pytest.mark.parametrize(("manifests", "config"), runs())
def test_traces_validate_against_the_schema(manifests: str, config: str) -> None:
    trace = json.loads(framework.simulate(manifests, config=config, plugins=PLUGINS).to_json())
    errors = sorted(VALIDATOR.iter_errors(trace), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_the_schema_rejects_what_the_trace_never_holds() -> None:
    trace = framework.simulate(CLUSTER, config=FILTER_AND_SCORE).to_dict()
    trace["attempts"][0]["result"] = "Maybe"
    assert not VALIDATOR.is_valid(trace)
    trace = framework.simulate(CLUSTER, config=FILTER_AND_SCORE).to_dict()
    trace["attempts"][0]["filter"]["big"]["NodeResourcesFit"]["code"] = "Fine"
    assert not VALIDATOR.is_valid(trace)
    del trace["events"]
    assert not VALIDATOR.is_valid(trace)
