"""A streamed run: each attempt's v2 line written when the attempt is over, its tables let go.

No Kubernetes counterpart: kube-scheduler keeps no record of its attempts.
What the simulator must keep from it is the outcome of each pod, the
``FailedScheduling`` message and the preemptions (the victims' ``Preempted``
events name the preemptor, ``pkg/scheduler/framework/preemption/preemption.go``,
v1.33), whether the attempts are held in memory or streamed to disk.
"""

from __future__ import annotations

import gc
import io
import json
import tracemalloc
from pathlib import Path
from types import MappingProxyType

import pytest

import framework
from framework.__main__ import main
from framework.simulator.explain import explain
from framework.simulator.recorder import TraceRecorder
from framework.simulator.report import render_table, summary_line
from framework.simulator.result import Attempt, FilterTable, SimulationResult
from framework.simulator.trace import TraceWriter, keep_tables_for, read_trace, write_trace_v2

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"
CLUSTERS = [CHAPTERS / "11_pending" / "cluster.yaml", CHAPTERS / "09_preemption" / "cluster.yaml"]


def whole_trace(result: SimulationResult) -> str:
    out = io.StringIO()
    write_trace_v2(result, out)
    return out.getvalue()


@pytest.mark.parametrize("cluster", CLUSTERS, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("explained", [(), ("default/checkout", "default/vip")])
def test_the_streamed_trace_is_the_trace_written_after_the_run(
    cluster: Path, explained: tuple[str, ...]
) -> None:
    keep = keep_tables_for(explained)
    whole = framework.simulate(cluster, keep_table=keep)
    out = io.StringIO()
    streamed = framework.simulate(cluster, keep_table=keep, trace=out)
    assert out.getvalue() == whole_trace(whole)
    # What the summary and the table say is the same, from each pod's record alone.
    assert streamed.streamed and streamed.attempts == ()
    assert render_table(streamed) == render_table(whole)
    assert summary_line(streamed) == summary_line(whole)
    assert streamed.preemptions() == whole.preemptions() != {}
    for pod in whole.placements:
        assert streamed.attempt_count_of(pod) == whole.attempt_count_of(pod)
        last, whole_last = streamed.last_attempt(pod), whole.last_attempt(pod)
        if whole_last is None:
            assert last is None
            continue
        assert last is not None and not last.has_table  # the tables are on disk only
        assert last.summary() == whole_last.summary()
        assert (last.result, last.node, last.message) == (
            whole_last.result,
            whole_last.node,
            whole_last.message,
        )


def test_a_streamed_result_will_not_pretend_to_hold_the_attempts() -> None:
    streamed = framework.simulate(CLUSTERS[0], trace=io.StringIO())
    with pytest.raises(ValueError, match="last_attempt"):
        streamed.attempts_of("default/report")
    with pytest.raises(ValueError, match="v2 trace"):
        streamed.to_json()
    with pytest.raises(ValueError, match="written as it ran"):
        write_trace_v2(streamed, io.StringIO())


@pytest.mark.parametrize("cluster", CLUSTERS, ids=lambda p: p.parent.name)
def test_explain_from_the_streamed_file_reads_one_pod_in_full_and_the_rest_in_brief(
    cluster: Path, tmp_path: Path
) -> None:
    path = tmp_path / "trace.jsonl.gz"
    framework.simulate(cluster, trace=path)
    whole = framework.simulate(cluster)
    everything = read_trace(path)
    for pod in whole.placements:
        one = read_trace(path, pods=[pod])
        assert one.streamed and one.attempt_count == len(whole.attempts)
        assert explain(one, pod) == explain(everything, pod)
        last = whole.last_attempt(pod)
        if last is not None and last.result != "Scheduled":  # a failed attempt: in full
            assert explain(one, pod) == explain(whole, pod)


def test_simulate_writes_the_trace_as_it_goes_and_explain_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.jsonl"
    cluster = str(CLUSTERS[1])
    assert main(["simulate", cluster, "--output", "jsonl", "--out", str(trace)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Scheduled 1 of 1 pending pod(s) in 2 scheduling attempt(s)")
    assert main(["explain", "default/vip", "--trace", str(trace)]) == 0
    saved = capsys.readouterr().out
    assert main(["explain", "default/vip", cluster]) == 0
    direct = capsys.readouterr().out
    # The last attempt was Scheduled and not asked for: its summary, the same first lines.
    assert saved.splitlines()[:3] == direct.splitlines()[:3]
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    # The failed attempt's table numbers its nodes first (a Nodes line).
    assert [line["kind"] for line in lines[:4]] == ["Trace", "Nodes", "Attempt", "Attempt"]
    assert "filter" in lines[2] and "filter" not in lines[3]  # failed: kept; Scheduled: not


def test_bad_input_leaves_the_trace_file_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text("an earlier trace\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n")
    assert main(["simulate", str(bad), "--output", "jsonl", "--out", str(trace)]) == 2
    assert "spec.containers: Required value" in capsys.readouterr().err
    assert trace.read_text() == "an earlier trace\n"


def test_an_unwritable_trace_path_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = tmp_path / "no-such-dir" / "trace.jsonl"
    code = main(["simulate", str(CLUSTERS[0]), "--output", "jsonl", "--out", str(where)])
    assert code == 2
    assert f"--out {where}: cannot write" in capsys.readouterr().err


# --- memory: what a streamed run keeps --------------------------------------------------------

NODES = 40


def unschedulable_cluster(nodes: int, pods: int) -> str:
    """Nodes, and pods none of them fits: every attempt fails and keeps its Filter table."""
    docs = [
        f'kind: Node\nmetadata: {{name: node-{i:03d}}}\nstatus: {{allocatable: {{cpu: "2", '
        f'memory: 4Gi, pods: "110"}}}}'
        for i in range(nodes)
    ]
    docs += [
        f"kind: Pod\nmetadata: {{name: big-{j:04d}}}\nspec: {{containers: [{{name: c, image: "
        f"x, resources: {{requests: {{cpu: '{4 + j % 3}'}}}}}}]}}"
        for j in range(pods)
    ]
    return "\n---\n".join(docs) + "\n"


def live_filter_tables(nodes: int) -> int:
    """How many node → verdicts tables of ``nodes`` nodes are alive (reachable or not yet freed)."""
    gc.collect()
    return sum(
        1
        for obj in gc.get_objects()
        if (
            type(obj) is dict
            and len(obj) == nodes
            and type(obj.get("node-000")) is MappingProxyType  # a Filter row
        )
        or (type(obj) is FilterTable and len(obj) == nodes)  # a batch search's table
    )


@pytest.mark.parametrize("retain", [False, True], ids=["streamed", "retained"])
def test_a_streamed_run_lets_each_table_go_once_it_is_written(
    retain: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted in the trace writer, as each failed attempt's line is written.

    Retained (what the run did before it streamed), the tables pile up: the
    count grows with the attempts, which shows the probe sees them.
    """
    seen: list[int] = []
    write = TraceWriter.attempt

    def counting(self: TraceWriter, attempt: Attempt) -> None:
        write(self, attempt)
        seen.append(live_filter_tables(NODES))

    monkeypatch.setattr(TraceWriter, "attempt", counting)
    if retain:
        original = TraceRecorder.__init__

        def retaining(self: TraceRecorder, *args: object, **kwargs: object) -> None:
            original(self, *args, **{**kwargs, "retain": True})  # type: ignore[arg-type]

        monkeypatch.setattr(TraceRecorder, "__init__", retaining)
    result = framework.simulate(unschedulable_cluster(NODES, 12), trace=io.StringIO())
    assert len(seen) >= 12
    if retain:
        assert seen[-1] >= len(seen)  # every failed attempt's table is still there
    else:
        # The attempt being written, and the one just recorded if it has not been passed on.
        assert max(seen) <= 2, seen
        assert all(not r.last.has_table for r in (result.attempt_records or {}).values())
        assert live_filter_tables(NODES) == 0


@pytest.mark.slow
@pytest.mark.timeout(600)  # tracemalloc slows the runs down several times
def test_a_streamed_runs_memory_does_not_grow_with_its_failed_attempts_tables() -> None:
    """tracemalloc's peak over the run, at 20 and at 120 pods that fit nowhere on 400 nodes.

    Each failed attempt's table on 400 nodes is some 13 KB (a dict slot per
    node); the pods themselves (API server, cache, queue, records) cost about
    8 KB each. Retained, 180 more failed attempts added 3.9 MB; streamed, the
    peak grew by what the pods cost, 1.4 MB (at 60 and 240 pods, measured on
    Python 3.11).
    """
    nodes = 400

    def peak(pods: int, *, stream: bool) -> int:
        manifests = unschedulable_cluster(nodes, pods)
        gc.collect()
        tracemalloc.start()
        try:
            if stream:
                framework.simulate(manifests, trace=_Discard())
            else:
                framework.simulate(manifests, keep_table=keep_tables_for())
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    framework.simulate(unschedulable_cluster(10, 2))  # the modules a run imports, before tracing
    streamed = peak(120, stream=True) - peak(20, stream=True)
    retained = peak(120, stream=False) - peak(20, stream=False)
    table = 100 * nodes * 30  # bytes: the tables of the 100 more failed attempts, at least
    assert retained > table  # the probe sees them when they are kept
    assert streamed < retained - table // 2, (streamed, retained)


class _Discard(io.StringIO):
    """A stream that forgets what it is given (the trace's bytes are not what is measured)."""

    def write(self, text: str) -> int:
        return len(text)
