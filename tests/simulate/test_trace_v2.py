"""The v2 trace: JSON Lines, a summary for every attempt, the tables only where asked for.

No Kubernetes counterpart: the simulator's own file format. What it must
keep from kube-scheduler is the summary's reasons histogram, which is the
count a ``FailedScheduling`` message prints (``2 Insufficient cpu``:
``pkg/scheduler/framework/types.go``, ``FitError.Error``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

import framework
from framework.__main__ import main
from framework.featuregate import KUBE_SCHEDULER_FEATURES
from framework.simulator.explain import explain
from framework.simulator.result import Attempt, FilterVerdict, SimulationResult
from framework.simulator.trace import (
    keep_tables_for,
    read_trace,
    trace_v2_schema,
    write_trace_v2,
)

CLUSTER = Path(__file__).resolve().parents[2] / "chapters" / "11_pending" / "cluster.yaml"
VALIDATOR = jsonschema.Draft202012Validator(trace_v2_schema())


@pytest.fixture(scope="module")
def full() -> SimulationResult:
    return framework.simulate(CLUSTER)


@pytest.fixture(scope="module")
def lean() -> SimulationResult:
    return framework.simulate(CLUSTER, keep_table=keep_tables_for(["default/db"]))


def lines_of(result: SimulationResult) -> list[str]:
    import io

    out = io.StringIO()
    write_trace_v2(result, out)
    return out.getvalue().splitlines()


def test_only_failed_and_asked_for_attempts_keep_their_tables(
    full: SimulationResult, lean: SimulationResult
) -> None:
    assert lean.placements == full.placements
    for kept, whole in zip(lean.attempts, full.attempts, strict=True):
        asked = kept.pod == "default/db" or kept.result != "Scheduled"
        assert kept.has_table == asked, (kept.pod, kept.result)
        assert kept.summary() == whole.summary()  # the same summary, tables kept or not
        assert (kept.result, kept.node, kept.message) == (whole.result, whole.node, whole.message)
    scheduled = [a for a in lean.attempts if a.result == "Scheduled" and a.pod != "default/db"]
    assert scheduled and all(not a.filter and not a.final_score for a in scheduled)


def test_the_summary_counts_what_the_message_counts(full: SimulationResult) -> None:
    report = full.attempts_of("default/report")[-1]
    summary = report.summary()
    assert summary.evaluated == 5 and summary.feasible == 0
    for reason, count in summary.reasons.items():
        assert f"{count} {reason}" in report.message


def test_every_line_validates_against_the_v2_schema(lean: SimulationResult) -> None:
    jsonschema.Draft202012Validator.check_schema(trace_v2_schema())
    lines = lines_of(lean)
    kinds = [json.loads(line)["kind"] for line in lines]
    assert kinds[0] == "Trace" and set(kinds) == {"Trace", "Nodes", "Attempt", "Event", "Pod"}
    for line in lines:
        errors = list(VALIDATOR.iter_errors(json.loads(line)))
        assert not errors, (line[:200], [e.message for e in errors[:3]])


def test_a_v2_trace_reads_back_as_the_result_it_was(
    lean: SimulationResult, tmp_path: Path
) -> None:
    for name in ("trace.jsonl", "trace.jsonl.gz"):
        path = tmp_path / name
        with framework_open(path) as out:
            write_trace_v2(lean, out)
        back = read_trace(path)
        assert back.to_dict() == lean.to_dict()
        assert [a.summary() for a in back.attempts] == [a.summary() for a in lean.attempts]
        assert [a.has_table for a in back.attempts] == [a.has_table for a in lean.attempts]
        assert back.pods == lean.pods and back.seed == lean.seed
        assert dict(back.score_weights) == dict(lean.score_weights)
        assert explain(back, "default/db") == explain(lean, "default/db")


def framework_open(path: Path):  # type: ignore[no-untyped-def]
    from framework.simulator.trace import open_trace_for_writing

    return open_trace_for_writing(path)


def test_a_v1_trace_still_reads(full: SimulationResult, tmp_path: Path) -> None:
    plain, packed = tmp_path / "t.json", tmp_path / "t.json.gz"
    plain.write_text(full.to_json())
    packed.write_bytes(gzip.compress(full.to_json().encode()))
    for path in (plain, packed):
        back = read_trace(path)
        assert back.to_dict() == full.to_dict()
        # v1 holds no pod summaries: explain works from the attempts alone.
        assert explain(back, "default/report") == explain(full, "default/report")


def test_a_file_that_is_no_trace_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "Pod"}\n')
    with pytest.raises(ValueError, match="not a simulation trace"):
        read_trace(bad)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_from_a_saved_trace_without_running_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.jsonl.gz"
    code, _, _ = run(
        capsys, "simulate", str(CLUSTER), "--output", "jsonl", "--out", str(trace),
        "--explain", "default/db",
    )  # fmt: skip
    assert code == 0
    _, direct, direct_err = run(capsys, "explain", "default/db", str(CLUSTER))
    code, saved, err = run(capsys, "explain", "default/db", "--trace", str(trace))
    assert (code, err) == (0, direct_err)  # the notes of the run, kept in the trace
    assert saved == direct
    # checkout was scheduled and not asked for: its summary only, and how to get the table.
    code, summary, _ = run(capsys, "explain", "default/checkout", "--trace", str(trace))
    assert code == 0
    assert "Scheduled to node worker-1" in summary
    assert "--explain default/checkout" in summary
    assert "NodeResourcesFit" not in summary  # no table


def test_explain_wants_files_or_a_trace(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "explain", "default/db")
    assert code == 2 and "--trace" in err


def test_the_same_run_writes_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [tmp_path / f"{i}.jsonl.gz" for i in (1, 2)]
    for path in paths:
        run(capsys, "simulate", str(CLUSTER), "--output", "jsonl", "--out", str(path))
    assert paths[0].read_bytes() == paths[1].read_bytes()


def attempt(pod: str, number: int) -> Attempt:
    return Attempt(pod, number, "default-scheduler", "Unschedulable", None, "")


@given(st.lists(st.sampled_from(["a/x", "a/y", "b/z"]), max_size=30))
def test_attempts_of_is_every_attempt_of_the_pod_in_order(pods: list[str]) -> None:
    attempts = tuple(attempt(pod, i) for i, pod in enumerate(pods, 1))
    result = SimulationResult(placements={}, attempts=attempts, events=())
    for pod in ("a/x", "a/y", "b/z", "missing/pod"):
        assert result.attempts_of(pod) == [a for a in attempts if a.pod == pod]


# --- the Filter table by node numbers -------------------------------------------------------

BY_NAME = Path(__file__).resolve().parent / "data" / "trace-v2-by-name.jsonl"
"""Chapter 11's cluster, ``--explain default/db``, as v2 was first written (nodes by name)."""


def test_a_v2_trace_naming_its_nodes_still_reads(tmp_path: Path) -> None:
    """Traces written before the node numbers read as the same run."""
    assert '"filter":{"nodes":' in BY_NAME.read_text()
    numbered = tmp_path / "trace.jsonl"
    framework.simulate(CLUSTER, trace=numbered, keep_table=keep_tables_for(["default/db"]))
    assert '"filter":{"ranges":' in numbered.read_text()
    old, new = read_trace(BY_NAME), read_trace(numbered)
    # The gates a run records grow as releases' gates are modelled, less those the release
    # turned out not to have (GangScheduling, gone in v1.37); the run itself is the same.
    old_run, new_run = old.to_dict(), new.to_dict()
    version = new_run["featureGates"]["emulatedVersion"]
    gone = {n for n, info in KUBE_SCHEDULER_FEATURES.items() if info.removed_at(version)}
    assert set(old_run["featureGates"]["gates"]) - gone <= set(new_run["featureGates"]["gates"])
    del old_run["featureGates"], new_run["featureGates"]
    assert old_run == new_run
    assert explain(old, "default/db") == explain(new, "default/db")
    for line in BY_NAME.read_text().splitlines():
        assert not list(VALIDATOR.iter_errors(json.loads(line))), line[:200]


def unschedulable(nodes: int, pods: int) -> str:
    """``nodes`` nodes of two pools, alternating, and pods none of them can take.

    The pods ask for pool ``p0``: its nodes are too small, the others do not match.
    """
    docs = [
        f"kind: Node\nmetadata: {{name: node-{i:03d}, labels: {{pool: p{i % 2}}}}}\n"
        f"status: {{allocatable: {{cpu: '{2 + i % 2}', memory: 4Gi, pods: '110'}}}}"
        for i in range(nodes)
    ]
    docs += [
        f"kind: Pod\nmetadata: {{name: big-{j}}}\nspec: {{nodeSelector: {{pool: p0}}, "
        f"containers: [{{name: c, image: x, "
        f"resources: {{requests: {{cpu: '{8 + j}'}}}}}}]}}"
        for j in range(pods)
    ]
    return "\n---\n".join(docs) + "\n"


def test_a_failed_attempt_numbers_its_nodes_once_and_in_ranges(tmp_path: Path) -> None:
    """Each search goes round robin from where the last one stopped
    (``nextStartNodeIndex``, schedule_one.go): one or two ranges of numbers."""
    trace = tmp_path / "trace.jsonl"
    result = framework.simulate(unschedulable(120, 3), trace=trace)
    assert result.attempt_count == 3
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    numbered = [line for line in lines if line["kind"] == "Nodes"]
    assert len(numbered) == 1 and numbered[0]["first"] == 0
    assert sorted(numbered[0]["names"]) == [f"node-{i:03d}" for i in range(120)]
    failed = [line for line in lines if line["kind"] == "Attempt"]
    for line in failed:
        table = line["filter"]
        assert 1 <= len(table["ranges"]) <= 2
        assert sum(count for _, count in table["ranges"]) == 120
        # The two kinds of node alternate: two rows, one character a node.
        assert len(table["rows"]) == 2 and len(table["row"]) == 120
        assert set(table["row"]) == {"0", "1"}
        assert len(json.dumps(line)) < 2_000
    back = read_trace(trace)
    records = result.attempt_records
    assert records is not None
    assert [a.summary() for a in back.attempts] == [records[p].last.summary() for p in records]
    assert all(len(a.filter) == 120 for a in back.attempts)


@given(
    order=st.permutations([f"n{i}" for i in range(12)]).flatmap(
        lambda nodes: st.lists(st.sampled_from(nodes), unique=True, min_size=1, max_size=12)
    ),
    data=st.data(),
    rows=st.integers(min_value=1, max_value=70),
)
def test_any_filter_table_reads_back_as_it_was(
    order: list[str], data: st.DataObject, rows: int
) -> None:
    """Node numbers, ranges and the row characters (or numbers, past 62 rows) lose nothing."""
    distinct = [{"Fit": FilterVerdict("Unschedulable", (f"reason {i}",))} for i in range(rows)]
    tables = []
    for _ in range(2):  # the second attempt reuses the first one's node numbers
        picks = data.draw(
            st.lists(st.integers(0, rows - 1), min_size=len(order), max_size=len(order))
        )
        tables.append({node: distinct[pick] for node, pick in zip(order, picks, strict=True)})
        order = order[::-1]
    attempts = tuple(
        Attempt(f"default/p{i}", 1, "default-scheduler", "Unschedulable", None, "no", filter=t)
        for i, t in enumerate(tables)
    )
    import io

    out = io.StringIO()
    write_trace_v2(SimulationResult(placements={}, attempts=attempts, events=()), out)
    lines = out.getvalue().splitlines()
    for line in lines:
        assert not list(VALIDATOR.iter_errors(json.loads(line))), line[:200]
    back = read_v2_lines(lines)
    assert [dict(a.filter) for a in back.attempts] == [dict(t) for t in tables]
    assert [list(a.filter) for a in back.attempts] == [list(t) for t in tables]


def read_v2_lines(lines: list[str]) -> SimulationResult:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        path.write_text("\n".join(lines) + "\n")
        return read_trace(path)


def test_a_node_number_without_its_nodes_line_is_a_clear_error(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    framework.simulate(unschedulable(4, 1), trace=trace)
    lines = trace.read_text().splitlines()
    assert json.loads(lines[1])["kind"] == "Nodes"
    skipped = tmp_path / "skipped.jsonl"
    skipped.write_text("\n".join([lines[0], *lines[2:]]) + "\n")
    with pytest.raises(ValueError, match=r"skipped.jsonl:2: node range \[\d+, \d+\] is not in"):
        read_trace(skipped)
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join([lines[0], lines[1], *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match=r"twice\.jsonl:3: Nodes line numbers from 0, but 4"):
        read_trace(twice)


def test_more_rows_than_characters_are_written_as_numbers() -> None:
    table = {f"n{i}": {"Fit": FilterVerdict("Unschedulable", (f"reason {i}",))} for i in range(70)}
    attempt = Attempt("default/p", 1, "default-scheduler", "Unschedulable", None, "no", table)
    import io

    out = io.StringIO()
    write_trace_v2(SimulationResult(placements={}, attempts=(attempt,), events=()), out)
    lines = out.getvalue().splitlines()
    written = json.loads(lines[2])["filter"]
    assert written["row"] == list(range(70)) and written["ranges"] == [[0, 70]]
    assert not list(VALIDATOR.iter_errors(json.loads(lines[2])))
    assert dict(read_v2_lines(lines).attempts[0].filter) == table
