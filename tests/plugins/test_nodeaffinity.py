"""NodeAffinity: selector matching, PreFilter narrowing, Filter, scoring, added affinity, hints, args.

The Filter/PreFilter table follows ``TestNodeAffinity``, the scoring table
``TestNodeAffinityPriority``, and the hint table the queueing-hint test, of
``kubernetes/kubernetes:pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go``;
the selector cases follow the tests of
``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity_test.go``
(v1.33), in our own words.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.cluster_event import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.config import ConfigError, loads_config
from framework.cycle_state import CycleState
from framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
)
from framework.node_info import NodeInfo
from framework.objects import Node, Pod
from framework.objects import pod as v1
from framework.objects.nodeaffinity import (
    LazyErrorNodeSelector,
    NodeSelectorParseError,
    get_required_node_affinity,
    new_node_selector,
    new_preferred_scheduling_terms,
)
from framework.plugins import nodeaffinity
from framework.plugins.nodeaffinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
    NodeAffinityArgs,
)
from framework.plugins.registry import in_tree_registry
from framework.runtime.build import new_framework
from framework.status import Code, Status


def make_node(name: str = "node1", labels: Any = None) -> Node:
    return Node.from_dict({"metadata": {"name": name, "labels": dict(labels or {})}})


def make_pod(
    node_selector: Any = None,
    required: Any = None,
    preferred: Any = None,
    name: str = "pod1",
) -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    node_affinity: dict[str, Any] = {}
    if required is not None:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": required
        }
    if preferred is not None:
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    if node_affinity:
        spec["affinity"] = {"nodeAffinity": node_affinity}
    return Pod.from_dict(
        {"metadata": {"name": name, "namespace": "default", "uid": name}, "spec": spec}
    )


def info(node: Node | None) -> NodeInfo:
    node_info = NodeInfo()
    if node is not None:
        node_info.set_node(node)
    return node_info


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


def exprs(*requirements: dict[str, Any]) -> dict[str, Any]:
    return {"matchExpressions": list(requirements)}


def name_in(*names: str) -> dict[str, Any]:
    return expr("metadata.name", "In", *names)


def added(required: Any = None, preferred: Any = None) -> NodeAffinityArgs:
    affinity: dict[str, Any] = {}
    if required is not None:
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": required
        }
    if preferred is not None:
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    return NodeAffinityArgs.from_args({"addedAffinity": affinity})


# --- PreFilter and Filter ---------------------------------------------------------------------

SKIP = Status.skip()
CONFLICT = Status.unresolvable(ERR_REASON_CONFLICT)


def case(
    case_id: str,
    pod: Pod,
    labels: dict[str, str],
    *,
    node: str = "node1",
    args: NodeAffinityArgs | None = None,
    names: set[str] | None = None,
    pre_filter: Status | None = None,
    reason: str | None = None,
) -> Any:
    """One row: the pod, the node's labels and name; PreFilter's result and status, Filter's reason."""
    return pytest.param(pod, labels, node, args, names, pre_filter, reason, id=case_id)


ZONE_FOO = [exprs(expr("zone", "In", "foo"))]
NODE1_AND_FOO = {"matchFields": [name_in("node1")], **exprs(expr("foo", "In", "bar"))}

FILTER_CASES = [
    case("missing labels", make_pod({"foo": "bar"}), {}, reason=ERR_REASON_POD),
    case("same labels", make_pod({"foo": "bar"}), {"foo": "bar"}),
    case("node labels are superset", make_pod({"foo": "bar"}), {"foo": "bar", "baz": "blah"}),
    case(
        "node labels are subset",
        make_pod({"foo": "bar", "baz": "blah"}),
        {"foo": "bar"},
        reason=ERR_REASON_POD,
    ),
    case(
        "In operator that matches the existing node",
        make_pod(required=[exprs(expr("foo", "In", "bar", "value2"))]),
        {"foo": "bar"},
    ),
    case(
        "Gt operator that matches the existing node",
        make_pod(required=[exprs(expr("kernel-version", "Gt", "0204"))]),
        {"kernel-version": "0206"},
    ),
    case(
        "Lt operator that does not match",
        make_pod(required=[exprs(expr("kernel-version", "Lt", "0204"))]),
        {"kernel-version": "0206"},
        reason=ERR_REASON_POD,
    ),
    case(
        "Gt on a label that is not an integer",
        make_pod(required=[exprs(expr("kernel-version", "Gt", "1"))]),
        {"kernel-version": "v2"},
        reason=ERR_REASON_POD,
    ),
    case(
        "NotIn operator that matches the existing node",
        make_pod(required=[exprs(expr("mem-type", "NotIn", "DDR", "DDR2"))]),
        {"mem-type": "DDR3"},
    ),
    case(
        "NotIn matches a node without the label",
        make_pod(required=[exprs(expr("mem-type", "NotIn", "DDR"))]),
        {},
    ),
    case(
        "Exists operator that matches the existing node",
        make_pod(required=[exprs(expr("GPU", "Exists"))]),
        {"GPU": "NVIDIA-GRID-K1"},
    ),
    case(
        "DoesNotExist operator on a node with the label",
        make_pod(required=[exprs(expr("GPU", "DoesNotExist"))]),
        {"GPU": "NVIDIA-GRID-K1"},
        reason=ERR_REASON_POD,
    ),
    case(
        "affinity that does not match the node's labels",
        make_pod(required=[exprs(expr("foo", "In", "value1", "value2"))]),
        {"foo": "bar"},
        reason=ERR_REASON_POD,
    ),
    case(
        "an empty term matches no node",
        make_pod(required=[{"matchExpressions": []}]),
        {"foo": "bar"},
        reason=ERR_REASON_POD,
    ),
    case(
        "required affinity without terms matches no node",
        make_pod(required=[]),
        {"foo": "bar"},
        reason=ERR_REASON_POD,
    ),
    case("no affinity: skipped", make_pod(), {"foo": "bar"}, pre_filter=SKIP),
    case(
        "only preferred terms: Filter is skipped",
        make_pod(preferred=[{"weight": 1, "preference": exprs(expr("foo", "In", "bar"))}]),
        {},
        pre_filter=SKIP,
    ),
    case(
        "multiple matchExpressions ANDed that match the node",
        make_pod(required=[exprs(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))]),
        {"GPU": "NVIDIA-GRID-K1"},
    ),
    case(
        "multiple matchExpressions ANDed that do not match the node",
        make_pod(required=[exprs(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER"))]),
        {"GPU": "NVIDIA-GRID-K1"},
        reason=ERR_REASON_POD,
    ),
    case(
        "multiple terms ORed, one matches",
        make_pod(
            required=[
                exprs(expr("foo", "In", "bar", "value2")),
                exprs(expr("diffkey", "In", "wrong", "value2")),
            ]
        ),
        {"foo": "bar"},
    ),
    case(
        "affinity and nodeSelector both satisfied",
        make_pod({"foo": "bar"}, required=[exprs(expr("foo", "Exists"))]),
        {"foo": "bar"},
    ),
    case(
        "affinity matches but nodeSelector does not",
        make_pod({"foo": "bar"}, required=[exprs(expr("foo", "Exists"))]),
        {"foo": "barrrrrr"},
        reason=ERR_REASON_POD,
    ),
    case(
        "an invalid value in a term: it matches nothing",
        make_pod(required=[exprs(expr("foo", "NotIn", "invalid value: ___@#$%^"))]),
        {"foo": "bar"},
        reason=ERR_REASON_POD,
    ),
    case(
        "a broken term does not stop a good one from matching",
        make_pod(required=[exprs(expr("foo", "Like", "bar")), exprs(expr("foo", "In", "bar"))]),
        {"foo": "bar"},
    ),
    case(
        "matchFields In that matches the node",
        make_pod(required=[{"matchFields": [name_in("node1")]}]),
        {},
        names={"node1"},
    ),
    case(
        "matchFields In that does not match the node",
        make_pod(required=[{"matchFields": [name_in("node1")]}]),
        {},
        node="node2",
        names={"node1"},
        reason=ERR_REASON_POD,
    ),
    case(
        "matchFields NotIn: no narrowing, and it matches",
        make_pod(required=[{"matchFields": [expr("metadata.name", "NotIn", "node1")]}]),
        {},
        node="node2",
    ),
    case(
        "two terms: matchFields does not match but matchExpressions does",
        make_pod(required=[{"matchFields": [name_in("node1")]}, exprs(expr("foo", "In", "bar"))]),
        {"foo": "bar"},
        node="node2",
    ),
    case(
        "one term: matchFields does not match but matchExpressions does",
        make_pod(required=[NODE1_AND_FOO]),
        {"foo": "bar"},
        node="node2",
        names={"node1"},
        reason=ERR_REASON_POD,
    ),
    case(
        "one term: both matchFields and matchExpressions match",
        make_pod(required=[NODE1_AND_FOO]),
        {"foo": "bar"},
        names={"node1"},
    ),
    case(
        "two terms: neither matches",
        make_pod(
            required=[
                {"matchFields": [name_in("node1")]},
                exprs(expr("foo", "In", "not-match-to-bar")),
            ]
        ),
        {"foo": "bar"},
        node="node2",
        reason=ERR_REASON_POD,
    ),
    case(
        "two terms of node name affinity",
        make_pod(
            required=[{"matchFields": [name_in("node1")]}, {"matchFields": [name_in("node2")]}]
        ),
        {},
        node="node2",
        names={"node1", "node2"},
    ),
    case(
        "two conflicting matchFields requirements",
        make_pod(required=[{"matchFields": [name_in("node1"), name_in("node2")]}]),
        {},
        node="node2",
        pre_filter=CONFLICT,
    ),
    case(
        "names intersected within a term; two values are still a parse error for Filter",
        make_pod(
            required=[{"matchFields": [name_in("node1", "node2"), name_in("node2", "node3")]}]
        ),
        {},
        node="node2",
        names={"node2"},
        reason=ERR_REASON_POD,
    ),
    case(
        "matches added affinity and the pod's node affinity",
        make_pod(required=[exprs(expr("foo", "In", "bar"))]),
        {"zone": "foo", "foo": "bar"},
        args=added(ZONE_FOO),
    ),
    case(
        "matches added affinity but not the pod's node affinity",
        make_pod(required=[exprs(expr("foo", "In", "bar"))]),
        {"zone": "foo"},
        args=added(ZONE_FOO),
        reason=ERR_REASON_POD,
    ),
    case(
        "does not match added affinity",
        make_pod(),
        {"zone": "bar"},
        args=added(ZONE_FOO),
        reason=ERR_REASON_ENFORCED,
    ),
    case(
        "added affinity is checked first",
        make_pod(required=[exprs(expr("foo", "In", "bar"))]),
        {"zone": "bar"},
        args=added(ZONE_FOO),
        reason=ERR_REASON_ENFORCED,
    ),
]


@pytest.mark.parametrize(
    ("pod", "labels", "node_name", "args", "names", "pre_filter_status", "reason"), FILTER_CASES
)
def test_pre_filter_and_filter(
    pod: Pod,
    labels: dict[str, str],
    node_name: str,
    args: NodeAffinityArgs | None,
    names: set[str] | None,
    pre_filter_status: Status | None,
    reason: str | None,
) -> None:
    plugin, state = NodeAffinity(None, args), CycleState()
    node_info = info(make_node(node_name, labels))
    result, status = plugin.pre_filter(state, pod, [node_info])
    assert status == pre_filter_status
    assert result == (PreFilterResult(frozenset(names)) if names is not None else None)
    if status is not None:
        return  # the framework would not call Filter
    got = plugin.filter(state, pod, node_info)
    if reason is None:
        assert got is None
    else:
        assert got is not None
        assert (got.code, got.reasons) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,))


@pytest.mark.parametrize(
    ("pod", "labels", "reason"),
    [
        pytest.param(make_pod({"foo": "bar"}), {"foo": "bar"}, None, id="node selector"),
        pytest.param(make_pod({"foo": "bar"}), {}, ERR_REASON_POD, id="node selector, no match"),
        pytest.param(
            make_pod(required=[exprs(expr("foo", "In", "bar"))]),
            {"foo": "bar"},
            None,
            id="node affinity",
        ),
    ],
)
def test_filter_works_without_pre_filter(
    pod: Pod, labels: dict[str, str], reason: str | None
) -> None:
    status = NodeAffinity().filter(CycleState(), pod, info(make_node("node1", labels)))
    assert (status.reasons if status is not None else None) == ((reason,) if reason else None)


def test_the_reasons_are_kubernetes_exact_words() -> None:
    assert ERR_REASON_POD == "node(s) didn't match Pod's node affinity/selector"
    assert ERR_REASON_ENFORCED == "node(s) didn't match scheduler-enforced node affinity"
    assert ERR_REASON_CONFLICT == "pod affinity terms conflict"


def test_a_node_info_without_a_node_is_an_error() -> None:
    status = NodeAffinity().filter(CycleState(), make_pod({"a": "b"}), info(None))
    assert status is not None and status.code is Code.ERROR


# --- Selector matching ------------------------------------------------------------------------


def node_selector(*terms: dict[str, Any]) -> v1.NodeSelector:
    return v1.NodeSelector.from_dict({"nodeSelectorTerms": list(terms)})


def test_a_broken_term_reports_its_errors_only_when_nothing_matched() -> None:
    selector = LazyErrorNodeSelector(
        node_selector(exprs(expr("foo", "Like")), exprs(expr("a", "Exists")))
    )
    assert selector.match(make_node(labels={"a": "1"})) == (True, [])
    matched, problems = selector.match(make_node(labels={}))
    assert not matched
    assert problems == [
        (
            "nodeSelectorTerms[0].matchExpressions[0].operator",
            'Unsupported value: "Like": supported values: "In", "NotIn", "Exists", '
            '"DoesNotExist", "Gt", "Lt"',
        )
    ]


def test_a_strict_selector_lists_every_problem_with_its_path() -> None:
    with pytest.raises(NodeSelectorParseError) as caught:
        new_node_selector(
            node_selector(
                {"matchFields": [name_in("a", "b"), expr("metadata.name", "Exists")]},
                exprs(expr("foo", "In")),
            ),
            "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution",
        )
    paths = [path for path, _ in caught.value.problems]
    assert paths == [
        "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values",
        "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[1].operator",
        "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[0]",
    ]
    assert (
        caught.value.problems[0][1] == 'Invalid value: []string{"a", "b"}: must have one element'
    )
    assert (
        caught.value.problems[1][1]
        == 'Unsupported value: "Exists": supported values: "In", "NotIn"'
    )
    assert str(caught.value).startswith("[addedAffinity.")


def test_match_fields_are_not_checked_on_a_node_without_a_name() -> None:
    selector = LazyErrorNodeSelector(node_selector({"matchFields": [name_in("node1")]}))
    assert selector.match(make_node("")) == (True, [])
    assert selector.match(None) == (False, [])


def test_a_match_field_on_an_unknown_field_reads_it_as_empty() -> None:
    selector = LazyErrorNodeSelector(
        node_selector({"matchFields": [expr("spec.foo", "NotIn", "x")]})
    )
    assert selector.matches(make_node("node1"))
    selector = LazyErrorNodeSelector(node_selector({"matchFields": [expr("spec.foo", "In", "x")]}))
    assert not selector.matches(make_node("node1"))


def test_the_node_selector_is_compared_verbatim_even_when_it_is_no_valid_label() -> None:
    required = get_required_node_affinity(make_pod({"not a/valid/key": "x"}))
    assert required.match(make_node(labels={"not a/valid/key": "x"})) == (True, [])
    assert required.match(make_node(labels={})) == (False, [])


def test_preferred_terms_skip_weight_zero_and_empty_terms_and_sum_the_rest() -> None:
    terms = new_preferred_scheduling_terms(
        [
            v1.PreferredSchedulingTerm.from_dict(
                {"weight": 0, "preference": exprs(expr("a", "Exists"))}
            ),
            v1.PreferredSchedulingTerm.from_dict({"weight": 5, "preference": {}}),
            v1.PreferredSchedulingTerm.from_dict(
                {"weight": 2, "preference": exprs(expr("a", "Exists"))}
            ),
            v1.PreferredSchedulingTerm.from_dict(
                {"weight": 3, "preference": {"matchFields": [name_in("node1")]}}
            ),
        ]
    )
    assert len(terms) == 2
    assert terms.score(make_node("node1", {"a": "1"})) == 5
    assert terms.score(make_node("node2", {"a": "1"})) == 2
    assert terms.score(make_node("node2")) == 0


def test_preferred_terms_that_do_not_compile_are_an_error() -> None:
    with pytest.raises(NodeSelectorParseError, match=r"^\[0\]\.matchExpressions\[0\]\.operator"):
        new_preferred_scheduling_terms(
            [
                v1.PreferredSchedulingTerm.from_dict(
                    {"weight": 1, "preference": exprs(expr("a", "Nope"))}
                )
            ]
        )


# --- PreScore, Score, NormalizeScore -------------------------------------------------------------

LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}

AFFINITY1 = [{"weight": 2, "preference": exprs(expr("foo", "In", "bar"))}]
AFFINITY2 = [
    {"weight": 2, "preference": exprs(expr("foo", "In", "bar"))},
    {"weight": 4, "preference": exprs(expr("key", "In", "value"))},
    {
        "weight": 5,
        "preference": exprs(
            expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")
        ),
    },
]

SCORE_CASES = [
    pytest.param(
        make_pod(preferred=[{"weight": 2, "preference": exprs(expr("foo", "In", "none"))}]),
        {"node1": LABEL1, "node2": LABEL2, "node3": LABEL3},
        None,
        {"node1": 0, "node2": 0, "node3": 0},
        id="no node matches the preferred terms: all zero",
    ),
    pytest.param(
        make_pod(preferred=AFFINITY1),
        {"node1": LABEL1, "node2": LABEL2, "node3": LABEL3},
        None,
        {"node1": 100, "node2": 0, "node3": 0},
        id="only node1 matches the preferred terms",
    ),
    pytest.param(
        make_pod(preferred=AFFINITY2),
        {"node1": LABEL1, "node5": LABEL5, "node2": LABEL2},
        None,
        {"node1": 18, "node5": 100, "node2": 36},  # 2, 11 and 4 of 11
        id="all nodes match, with different weights",
    ),
    pytest.param(
        make_pod(),
        {"node1": LABEL1, "node2": LABEL2},
        added(preferred=[{"weight": 5, "preference": exprs(expr("key", "In", "value"))}]),
        {"node1": 0, "node2": 100},
        id="added affinity",
    ),
    pytest.param(
        make_pod(preferred=AFFINITY1),
        {"node1": LABEL1, "node2": LABEL2, "node3": LABEL5},
        added(preferred=[{"weight": 3, "preference": exprs(expr("key", "In", "value"))}]),
        {"node1": 40, "node2": 60, "node3": 100},  # 2, 3 and 2+3 of 5
        id="added affinity and the pod's own",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "args", "expected"), SCORE_CASES)
def test_score(
    pod: Pod,
    nodes: dict[str, dict[str, str]],
    args: NodeAffinityArgs | None,
    expected: dict[str, int],
) -> None:
    plugin, state = NodeAffinity(None, args), CycleState()
    infos = [info(make_node(name, labels)) for name, labels in nodes.items()]
    assert plugin.pre_score(state, pod, infos) is None
    scores = []
    for node_info in infos:
        score, status = plugin.score(state, pod, node_info)
        assert status is None
        scores.append(NodeScore(node_info.name, score))
    assert plugin.score_extensions().normalize_score(state, pod, scores) is None
    assert {s.name: s.score for s in scores} == expected


def test_pre_score_skips_a_pod_without_preferred_terms() -> None:
    pod = make_pod({"foo": "bar"}, required=[exprs(expr("foo", "Exists"))])
    assert NodeAffinity().pre_score(CycleState(), pod, []) == Status.skip()


def test_pre_score_with_a_broken_preferred_term_is_an_error() -> None:
    pod = make_pod(preferred=[{"weight": 1, "preference": exprs(expr("foo", "Sometimes"))}])
    status = NodeAffinity().pre_score(CycleState(), pod, [])
    assert status is not None and status.code is Code.ERROR
    assert 'Unsupported value: "Sometimes"' in status.message()


def test_score_works_without_pre_score() -> None:
    pod = make_pod(preferred=AFFINITY2)
    assert NodeAffinity().score(CycleState(), pod, info(make_node("n", LABEL5))) == (11, None)


# --- Events and hints ---------------------------------------------------------------------------


def test_it_registers_node_add_and_label_updates() -> None:
    (registration,) = NodeAffinity().events_to_register()
    assert registration.event == ClusterEvent(
        EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL
    )
    assert registration.queueing_hint_fn is not None


HINT_CASES = [
    pytest.param(
        make_pod(), None, None, "not-a-node", QueueingHint.QUEUE, id="backoff-wrong-new-object"
    ),
    pytest.param(
        make_pod(),
        None,
        "not-a-node",
        make_node(),
        QueueingHint.QUEUE,
        id="backoff-wrong-old-object",
    ),
    pytest.param(
        make_pod({"foo": "bar"}),
        None,
        None,
        make_node(),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-add",
    ),
    pytest.param(
        make_pod({"foo": "bar"}),
        None,
        None,
        make_node(labels={"foo": "bar"}),
        QueueingHint.QUEUE,
        id="queue-on-add",
    ),
    pytest.param(
        make_pod({"foo": "bar"}),
        None,
        make_node(),
        make_node(labels={"aaa": "bbb"}),
        QueueingHint.QUEUE_SKIP,
        id="skip-unrelated-changes",
    ),
    pytest.param(
        make_pod({"foo": "bar"}),
        None,
        make_node(),
        make_node(labels={"foo": "bar"}),
        QueueingHint.QUEUE,
        id="queue-on-labels-change",
    ),
    pytest.param(
        make_pod({"foo": "bar"}),
        None,
        make_node(labels={"foo": "bar"}),
        make_node(labels={"foo": "bar", "aaa": "ccc"}),
        QueueingHint.QUEUE_SKIP,
        id="skip-unrelated-changes-on-labels",
    ),
    pytest.param(
        make_pod(),
        added([exprs(expr("zone", "In", "foo"))]),
        None,
        make_node(labels={"zone": "bar"}),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-add-scheduler-enforced-node-affinity",
    ),
    pytest.param(
        make_pod(),
        added([exprs(expr("zone", "In", "foo"))]),
        None,
        make_node(labels={"zone": "foo"}),
        QueueingHint.QUEUE,
        id="queue-on-add-scheduler-enforced-node-affinity",
    ),
    pytest.param(
        make_pod(required=[exprs(expr("foo", "Like"))]),
        None,
        None,
        make_node(),
        QueueingHint.QUEUE,
        id="queue-when-the-pod's-terms-do-not-compile",
    ),
]


@pytest.mark.parametrize(("pod", "args", "old", "new", "expected"), HINT_CASES)
def test_is_schedulable_after_node_change(
    pod: Pod, args: NodeAffinityArgs | None, old: Any, new: Any, expected: QueueingHint
) -> None:
    assert NodeAffinity(None, args).is_schedulable_after_node_change(pod, old, new) is expected


# --- Args and registration --------------------------------------------------------------------


def test_the_plugin_implements_its_points_and_is_registered_in_tree() -> None:
    plugin = nodeaffinity.new(None, None)
    for protocol in (
        PreFilterPlugin,
        FilterPlugin,
        PreScorePlugin,
        ScorePlugin,
        EnqueueExtensions,
    ):
        assert isinstance(plugin, protocol)
    assert plugin.name() == nodeaffinity.NAME == "NodeAffinity"
    assert in_tree_registry()["NodeAffinity"] is nodeaffinity.new


def test_new_reads_added_affinity_from_plugin_config_args() -> None:
    plugin = nodeaffinity.new(
        {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [exprs(expr("pool", "In", "batch"))]
                }
            }
        },
        None,
    )
    pod = make_pod()
    status = plugin.filter(CycleState(), pod, info(make_node(labels={"pool": "web"})))
    assert status == Status.unresolvable(ERR_REASON_ENFORCED)


def test_new_rejects_added_affinity_that_does_not_compile() -> None:
    with pytest.raises(
        NodeSelectorParseError,
        match=r"addedAffinity\.preferredDuringSchedulingIgnoredDuringExecution",
    ):
        nodeaffinity.new(
            {
                "addedAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 1, "preference": exprs(expr("a", "Maybe"))}
                    ]
                }
            },
            None,
        )


CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{{name: '*'}}]
      enabled: [{{name: PrioritySort}}, {{name: NodeAffinity}}, {{name: DefaultBinder}}]
  pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{{key: pool, operator: {operator}, values: [batch]}}]
"""


def test_configuration_validation_reports_bad_added_affinity_with_its_field_path() -> None:
    with pytest.raises(ConfigError) as caught:
        loads_config(CONFIG.format(operator="Within"), "bad.yaml")
    assert (
        "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        ".nodeSelectorTerms[0].matchExpressions[0].operator"
    ) in str(caught.value)


def test_a_profile_with_added_affinity_builds_and_enforces_it() -> None:
    config = loads_config(CONFIG.format(operator="In"), "good.yaml")
    fwk = new_framework(in_tree_registry(), config.profiles[0])
    (plugin,) = fwk.plugins["filter"]
    status = plugin.filter(CycleState(), make_pod(), info(make_node(labels={"pool": "web"})))  # type: ignore[attr-defined]
    assert status == Status.unresolvable(ERR_REASON_ENFORCED)
