"""The HTML report: every pod, its tables, nothing fetched, input escaped, the same bytes each run.

The tables are ``explain``'s (the Filter verdicts and reasons of
``kubernetes/kubernetes:pkg/scheduler/framework/runtime/framework.go``
``RunFilterPlugins``, the weighted scores of ``schedule_one.go``
``prioritizeNodes``); the page is checked by parsing it with the standard
library's :class:`html.parser.HTMLParser`, as a browser would read it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import pytest

import framework
from framework.simulator.report_html import (
    FULL_TABLE_NODES,
    MAX_PASSED_ROWS,
    MAX_REJECTED_ROWS,
    MAX_SCORE_ROWS,
    render_html,
)
from framework.simulator.result import SimulationResult
from framework.simulator.utilisation import PER_NODE_LIMIT
from framework.status import Status
from tests.simulate.test_trace import CLUSTER, FILTER_AND_SCORE, profile


def nodes(count: int, cpu: str = "4", prefix: str = "node") -> str:
    return "".join(
        f"---\nkind: Node\nmetadata: {{name: {prefix}-{i:03d}}}\n"
        f'status: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}\n'
        for i in range(count)
    )


def pods(count: int, cpu: str = "100m", annotations: str = "{}") -> str:
    return "".join(
        f"---\nkind: Pod\nmetadata: {{name: pod-{i:03d}, annotations: {annotations}}}\n"
        f"spec: {{containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: {cpu}}}}}}}]}}\n"
        for i in range(count)
    )


@dataclass
class Page(HTMLParser):
    """What a browser would build from the page: tags, attributes, text, tables."""

    tags: Counter[str] = field(default_factory=Counter)
    attributes: list[tuple[str, str, str]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    pods: dict[str, str] = field(default_factory=dict)  # pod section id → its summary's text
    tables: list[list[list[str]]] = field(default_factory=list)
    open: list[str] = field(default_factory=list)
    section: str | None = None
    summary: list[str] | None = None
    cell: list[str] | None = None

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        values = dict(attrs)
        self.attributes += [(tag, name, value or "") for name, value in attrs]
        if tag == "details" and values.get("class") == "pod":
            self.section = values.get("id")
        elif tag == "summary" and self.section is not None and self.section not in self.pods:
            self.summary = []
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "summary" and self.summary is not None and self.section is not None:
            self.pods[self.section] = "".join(self.summary)
            self.summary = None
        elif tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self.summary is not None:
            self.summary.append(data)
        if self.cell is not None:
            self.cell.append(data)

    def table_headed(self, *header: str) -> list[list[str]]:
        return next(t for t in self.tables if t and t[0][: len(header)] == list(header))


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    page.close()
    return page


def summaries(result: SimulationResult) -> dict[str, str]:
    page = parse(render_html(result))
    return {text.split()[1]: text.split()[0] for text in page.pods.values()}


def test_every_pod_has_a_section_with_its_outcome() -> None:
    result = framework.simulate(CLUSTER, config=FILTER_AND_SCORE)
    page = parse(render_html(result))
    assert len(page.pods) == len(result.pods) == 3
    assert summaries(result) == {
        "default/web": "Scheduled",
        "default/batch": "Scheduled",
        "default/huge": "Pending",
    }
    assert page.tags["html"] == page.tags["body"] == 1
    assert page.tags["svg"] == 3  # cpu, memory, pods


def test_the_tables_are_explains_tables() -> None:
    # The reasons are the plugins' own (nodeunschedulable.go, tainttoleration.go, fit.go).
    result = framework.simulate(CLUSTER, config=FILTER_AND_SCORE)
    page = parse(render_html(result))
    filter_table = page.table_headed("NODE", "NodeUnschedulable", "TaintToleration")
    assert ["cordoned", "node(s) were unschedulable (unresolvable)", "-", "-"] in filter_table
    assert any(row[0] == "big ★" and row[1:] == ["ok", "ok", "ok"] for row in filter_table)
    score_table = page.table_headed("NODE", "TaintToleration ×3", "NodeResourcesFit ×2", "TOTAL")
    assert score_table[1][0].endswith("★")  # the chosen node has the highest total
    text = "".join(page.text)
    assert "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}" in text


def test_the_page_fetches_nothing() -> None:
    page = parse(render_html(framework.simulate(CLUSTER, config=FILTER_AND_SCORE)))
    references = [
        (tag, name, value) for tag, name, value in page.attributes if name in ("src", "href")
    ]
    assert references and all(value.startswith("#") for _, _, value in references)
    for tag in ("script", "link", "img", "iframe", "object", "embed"):
        assert page.tags[tag] == 0, tag
    assert "http://" not in "".join(page.text) and "https://" not in "".join(page.text)
    assert not any("http" in value for _, _, value in page.attributes)


class EchoAnnotation:
    """Filter: rejects every node with the pod's ``test.example/why`` annotation as the reason."""

    def __init__(self, args: Any, handle: Any) -> None:
        pass

    def name(self) -> str:
        return "EchoAnnotation"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status:
        return Status.unschedulable(pod.metadata.annotations.get("test.example/why", "no"))


PAYLOADS = [
    pytest.param("<script>alert(1)</script>", id="a script element"),
    pytest.param('"><img src=x onerror=alert(1)>', id="breaking out of an attribute"),
    pytest.param("</td></table></details><h1>owned</h1>", id="closing the page's elements"),
    pytest.param("&lt;b&gt; &amp; ' \"", id="entities and quotes"),
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_text_from_the_input_cannot_inject_markup(payload: str) -> None:
    # Annotations are free text; a plugin's reason (here, the annotation) reaches the
    # FailedScheduling message, the Filter table, the events and the summary.
    annotation = payload.replace("'", "''")
    manifests = nodes(2) + pods(1, annotations=f"{{test.example/why: '{annotation}'}}")
    config = profile("{name: PrioritySort}", "{name: EchoAnnotation}", "{name: DefaultBinder}")
    result = framework.simulate(
        manifests, config=config, plugins={"EchoAnnotation": EchoAnnotation}
    )
    assert payload in result.attempts[0].message
    page = parse(render_html(result))
    for tag in ("script", "img", "h1"):
        assert page.tags[tag] == (1 if tag == "h1" else 0), tag
    # The pod, each of its attempts, the events: no element of the payload's.
    assert page.tags["details"] == 1 + len(result.attempts) + 1
    text = "".join(page.text)
    assert text.count(payload) >= 4  # message, summary list, the filter table, the event


def test_the_same_input_and_seed_give_the_same_bytes() -> None:
    manifests = nodes(6) + pods(12)
    first = render_html(framework.simulate(manifests, seed=3))
    again = render_html(framework.simulate(manifests, seed=3))
    assert first.encode() == again.encode()


def test_a_preemption_shows_the_history_the_nomination_and_the_victim() -> None:
    # preemption.go: the preemptor is nominated and retried; the victim is deleted.
    manifests = (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
        "value: 1000\n"
        + nodes(1, cpu="1")
        + "---\nkind: Pod\nmetadata: {name: low}\nspec:\n  nodeName: node-000\n"
        '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]\n'
        + "---\nkind: Pod\nmetadata: {name: urgent}\nspec:\n  priorityClassName: high\n"
        '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]\n'
    )
    result = framework.simulate(manifests)
    assert summaries(result) == {"default/low": "Preempted", "default/urgent": "Scheduled"}
    page = parse(render_html(result))
    history = page.table_headed("attempt", "profile", "result", "node", "nominated", "victims")
    assert [row[:6] for row in history[1:]] == [
        ["1", "default-scheduler", "Unschedulable", "-", "node-000", "default/low"],
        ["2", "default-scheduler", "Scheduled", "node-000", "-", "-"],
    ]
    events = [t for t in page.tables if t[0] == ["type", "reason", "object", "count", "message"]]
    assert any(row[1] == "Preempted" and row[2] == "default/low" for t in events for row in t)


def test_a_repeated_event_is_one_row_with_its_count() -> None:
    # As the table does (and kubectl get events, one Event with a count): a pod with no node
    # to go to is retried after each backoff, each attempt with the same FailedScheduling.
    result = framework.simulate(pods(1))
    attempts = len(result.attempts)
    assert attempts > 1
    page = parse(render_html(result))
    events = [t for t in page.tables if t[0] == ["type", "reason", "object", "count", "message"]]
    assert events  # the page's, and the pod's own
    for rows in events:
        assert [row[1:4] for row in rows[1:]] == [
            ["FailedScheduling", "default/pod-000", str(attempts)]
        ]


def test_a_large_attempt_shows_a_cut_of_its_tables_and_says_so() -> None:
    # 45 nodes, of which the first 20 too small: every attempt evaluates all 45 (fewer than
    # the 100 feasible nodes numFeasibleNodesToFind asks for).
    manifests = nodes(20, cpu="100m", prefix="tiny") + nodes(25) + pods(1, cpu="500m")
    result = framework.simulate(manifests)
    assert len(result.attempts[0].filter) == 45 > FULL_TABLE_NODES
    page = parse(render_html(result))
    filter_table = page.table_headed("NODE", "NodeUnschedulable")
    rows = MAX_REJECTED_ROWS + MAX_PASSED_ROWS
    assert len(filter_table) - 1 in (rows, rows + 1)  # and the chosen node, wherever it is
    assert any(row[0].endswith("★") for row in filter_table)
    text = "".join(page.text)
    assert (
        f"the first {MAX_REJECTED_ROWS} of the 20 rejected, the first "
        f"{MAX_PASSED_ROWS} of the 25 that passed every filter"
    ) in text
    # v1.37: nodes too small in total are unresolvable (kubernetes#131345), and the report says so.
    assert "Rejections: NodeResourcesFit: Insufficient cpu (unresolvable) (20 node(s))" in text
    score_table = page.table_headed("NODE", "TaintToleration ×3")
    assert len(score_table) - 1 in (MAX_SCORE_ROWS, MAX_SCORE_ROWS + 1)
    assert any(row[0].endswith("★") for row in score_table)
    assert f"Showing the {MAX_SCORE_ROWS} highest totals of 25" in text
    # More nodes than PER_NODE_LIMIT: a histogram, not a bar per node.
    assert len(result.nodes) > PER_NODE_LIMIT
    assert "nodes by requested / allocatable" in text


@pytest.mark.parametrize("version", ["1.33", "1.37"])
def test_the_page_names_the_release_the_run_emulated(version: str) -> None:
    """Not always v1.33: the release ``--emulated-version`` chose (v1.37 unless told)."""
    page = render_html(framework.simulate(CLUSTER, emulated_version=version))
    assert f"(kube-scheduler v{version})" in page
    other = "1.37" if version == "1.33" else "1.33"
    assert f"kube-scheduler v{other}" not in page
