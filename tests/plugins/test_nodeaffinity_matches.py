"""``matches``, NodeAffinity Filter's answer without the parse errors, is ``match``'s answer.

Kubernetes' Filter calls ``RequiredNodeAffinity.Match`` and drops the
error (``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go``,
with ``Match`` in ``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``,
v1.33). Ours asks :meth:`RequiredNodeAffinity.matches`, which builds no
error list; for any selector, any terms (broken ones included) and any
node it must say what ``match`` says.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from framework.objects import Node, Pod
from framework.objects.nodeaffinity import get_required_node_affinity

KEYS = ["zone", "disk", "cores"]
VALUES = ["a", "b", "8", "16", "x"]

expressions = st.fixed_dictionaries(
    {
        "key": st.sampled_from(KEYS),
        # "Bogus" and In without values do not compile: such terms match nothing.
        "operator": st.sampled_from(
            ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bogus"]
        ),
        "values": st.lists(st.sampled_from(VALUES), max_size=2),
    }
)
fields = st.fixed_dictionaries(
    {
        "key": st.just("metadata.name"),
        "operator": st.sampled_from(["In", "NotIn"]),
        "values": st.lists(st.sampled_from(["n1", "n2"]), min_size=1, max_size=2),
    }
)
terms = st.fixed_dictionaries(
    {},
    optional={
        "matchExpressions": st.lists(expressions, max_size=2),
        "matchFields": st.lists(fields, max_size=1),
    },
)


def _clean(requirement: dict[str, Any]) -> dict[str, Any]:
    # Exists and DoesNotExist take no values; the API server would refuse them otherwise.
    if requirement["operator"] in ("Exists", "DoesNotExist"):
        return {**requirement, "values": []}
    return requirement


@given(
    st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=2),
    st.none() | st.lists(terms, max_size=3),
    st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3),
    st.sampled_from(["n1", "n2"]),
)
def test_matches_is_match_without_the_errors(
    node_selector: dict[str, str],
    required: list[dict[str, Any]] | None,
    labels: dict[str, str],
    name: str,
) -> None:
    spec: dict[str, Any] = {"nodeSelector": node_selector}
    if required is not None:
        cleaned = [
            {part: [_clean(r) for r in reqs] for part, reqs in term.items()} for term in required
        ]
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": cleaned}
            }
        }
    pod = Pod.from_dict({"metadata": {"name": "p"}, "spec": spec})
    node = Node.from_dict({"metadata": {"name": name, "labels": labels}})
    compiled = get_required_node_affinity(pod)
    assert compiled.matches(node) == compiled.match(node)[0]
