"""The trace on disk: version v2, JSON Lines that scale, and reading v1 and v2 back.

The v1 trace (:meth:`SimulationResult.to_json
<framework.simulator.result.SimulationResult.to_json>`) is one JSON
document holding every Filter verdict of every plugin on every node each
attempt evaluated: 5,000 attempts on 1,000 nodes come to 1.6 GB, which no
editor opens. **v2** keeps what a person reads for every attempt and the
full evidence only where it is asked for:

* one JSON object per line (JSON Lines), written a line at a time, never
  built whole; gzip-compressed when the file name ends in ``.gz``, with no
  time or name in the gzip header, so the same run writes the same bytes;
* the first line, ``{"kind": "Trace", "version": "v2", ...}``: the seed,
  the feature gates (the emulated release, every gate's value, the
  user's overrides), each profile's Score plugin weights, the notes and
  warnings of the run;
* an ``Attempt`` line per scheduling attempt, in the order the cycles ran:
  its result, node, message, nomination and victims, and its ``summary``
  (:class:`~framework.simulator.result.AttemptSummary`: nodes evaluated,
  nodes feasible, the best few nodes with their total scores, and how many
  nodes gave each rejection reason); the node × plugin tables only for the
  attempts :func:`keep_tables_for` keeps: failed attempts, the pods named
  with ``--explain``, or all of them with ``--full-trace``. ``score`` and
  ``finalScore`` are v1's; ``filter`` is written as the nodes in evaluation
  order, the distinct rows of verdicts, and each node's row
  (``{"nodes": [...], "rows": [...], "row": [0, 0, 1, ...]}``): the nodes of
  an attempt share a few rows, so this is some kilobytes where v1's form is
  a third of a megabyte at 1,000 nodes;
* an ``Event`` line per Event occurrence, as in v1;
* a ``Pod`` line per pod of the input, in input order: where it ended
  (v1's ``placements``) and what the reports say about it.

**Streamed.** ``framework.simulate(..., trace=PATH)`` and ``simulate
--output jsonl`` write the file as the run goes (:class:`TraceWriter`):
the header when the scheduler starts, each ``Attempt`` line as soon as the
attempt is over (see :mod:`framework.simulator.recorder`), then the events
and pods. A table is on disk once its attempt is over and is not kept in
memory; the run keeps each pod's attempts in brief
(:class:`~framework.simulator.result.PodAttempts`: a count, the last
attempt's outcome and summary, whom it preempted), which is what the table
and the summary line need. :func:`write_trace_v2` writes the same bytes
from a result that kept its attempts.

Its JSON Schema (draft 2020-12, one line at a time) ships beside this
module as ``trace-v2.schema.json`` (:func:`trace_v2_schema`).
:func:`read_trace` reads either version, compressed or not, into a
:class:`~framework.simulator.result.SimulationResult`, so ``explain`` works
from a saved trace without running the simulation again; given the pods to
explain, it reads a v2 trace a line at a time into per-pod records and keeps
the tables of those pods only, so that a trace of any size can be explained.

No Kubernetes counterpart: kube-scheduler keeps no such record.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib.resources import files
from pathlib import Path
from typing import IO, Any, TextIO

from framework.featuregate import FeatureGates
from framework.simulator.result import (
    TRACE_VERSION,
    Attempt,
    AttemptSummary,
    EventRecord,
    FilterVerdict,
    PodAttempts,
    PodSummary,
    SimulationResult,
    _attempt_head,
    _dumps,
    _plain,
)

__all__ = [
    "TRACE_V2",
    "TRACE_V2_SCHEMA_FILE",
    "TraceError",
    "TraceWriter",
    "header_of",
    "keep_tables_for",
    "open_trace_for_writing",
    "read_trace",
    "trace_header",
    "trace_v2_schema",
    "write_trace_v2",
]

TRACE_V2 = "v2"
TRACE_V2_SCHEMA_FILE = "trace-v2.schema.json"
_GZIP_MAGIC = b"\x1f\x8b"


def trace_v2_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one line of a v2 trace, as shipped beside this module."""
    text = files("framework.simulator").joinpath(TRACE_V2_SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def keep_tables_for(
    pods: Iterable[str] = (), *, failed: bool = True
) -> Callable[[str, bool], bool]:
    """Which attempts keep their tables: those of ``pods`` (``namespace/name``), and failed ones.

    Give it to :func:`framework.simulate` as ``keep_table``; a bare pod name
    means the ``default`` namespace.
    """
    wanted = frozenset(pod if "/" in pod else f"default/{pod}" for pod in pods)
    return lambda pod, did_fail: pod in wanted or (failed and did_fail)


@contextlib.contextmanager
def open_trace_for_writing(path: Path) -> Iterator[TextIO]:
    """``path`` open for text, gzip-compressed if it ends in ``.gz`` (no time or name in the header)."""
    if path.suffix != ".gz":
        with path.open("w", encoding="utf-8") as stream:
            yield stream
        return
    with (
        path.open("wb") as raw,
        gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as packed,
        io.TextIOWrapper(packed, encoding="utf-8") as stream,
    ):
        yield stream


# --- writing --------------------------------------------------------------------------------


def _pod_line(pod: PodSummary | None, key: str, node: str | None) -> dict[str, Any]:
    line: dict[str, Any] = {"kind": "Pod", "pod": key, "node": node}
    if pod is not None:
        line.update(
            priority=pod.priority,
            qosClass=pod.qos_class,
            schedulerName=pod.scheduler_name,
            runningAtStart=pod.running_at_start,
            schedulingGates=list(pod.scheduling_gates),
        )
    return line


def _filter_table(
    attempt: Attempt, rows: dict[int, tuple[int, str]]
) -> tuple[list[str], list[str], list[int]]:
    """The Filter table as nodes in evaluation order, the distinct rows, and each node's row.

    Most nodes of an attempt share one of a few rows (the recorder shares
    them): written once each, a 1,000-node table is some kilobytes, not a
    third of a megabyte. ``rows`` maps a row's ``id`` to its index and text
    within this attempt.
    """
    nodes: list[str] = []
    texts: list[str] = []
    index: list[int] = []
    rows.clear()
    for node, row in attempt.filter.items():
        known = rows.get(id(row))
        if known is None:
            known = rows[id(row)] = (len(texts), _dumps({p: v.to_dict() for p, v in row.items()}))
            texts.append(known[1])
        nodes.append(node)
        index.append(known[0])
    return nodes, texts, index


def _attempt_line(attempt: Attempt, rows: dict[int, tuple[int, str]]) -> str:
    head = {
        "kind": "Attempt",
        **_attempt_head(attempt),
        "nominatedNode": attempt.nominated_node,
        "victims": list(attempt.victims),
    }
    parts = [_dumps(head)[:-1], ',"summary":', _dumps(attempt.summary().to_dict())]
    if attempt.has_table:
        nodes, texts, index = _filter_table(attempt, rows)
        parts += [
            ',"filter":{"nodes":', _dumps(nodes), ',"rows":[', ",".join(texts), '],"row":',
            _dumps(index), '},"score":',
            _dumps({node: _plain(row) for node, row in attempt.score.items()}),
            ',"finalScore":',
            _dumps({node: _plain(row) for node, row in attempt.final_score.items()}),
        ]  # fmt: skip
    parts.append("}")
    return "".join(parts)


def trace_header(
    *,
    seed: int,
    feature_gates: FeatureGates | None,
    score_weights: Mapping[str, Mapping[str, int]],
    notes: Iterable[str],
    warnings: Iterable[str],
) -> dict[str, Any]:
    """The first line of a v2 trace: what the run was set up with, known before it starts."""
    return {
        "kind": "Trace",
        "version": TRACE_V2,
        "seed": seed,
        **({"featureGates": feature_gates.to_dict()} if feature_gates is not None else {}),
        "scoreWeights": {name: dict(w) for name, w in score_weights.items()},
        "notes": list(notes),
        "warnings": list(warnings),
    }


class TraceWriter:
    """A v2 trace written as the run goes: the header, each attempt as it ends, then the rest.

    :meth:`attempt` turns an attempt into its line and writes it at once, so
    a table is on disk, not in memory, once its attempt is over; events and
    pods come with :meth:`end`, when the run has them all. The bytes are
    :func:`write_trace_v2`'s for the same run.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._rows: dict[int, tuple[int, str]] = {}

    def header(self, header: Mapping[str, Any]) -> None:
        self.out.write(_dumps(header) + "\n")

    def attempt(self, attempt: Attempt) -> None:
        self.out.write(_attempt_line(attempt, self._rows) + "\n")

    def end(self, result: SimulationResult) -> None:
        """The ``Event`` lines, then a ``Pod`` line per pod of the input."""
        out = self.out
        for event in result.events:
            out.write(_dumps({"kind": "Event", **event.to_dict()}) + "\n")
        pods = {pod.key: pod for pod in result.pods}
        for key, node in result.placements.items():
            out.write(_dumps(_pod_line(pods.get(key), key, node)) + "\n")


def header_of(result: SimulationResult) -> dict[str, Any]:
    """The header line of ``result``'s trace."""
    return trace_header(
        seed=result.seed,
        feature_gates=result.feature_gates,
        score_weights=result.score_weights,
        notes=result.notes,
        warnings=result.warnings,
    )


def write_trace_v2(result: SimulationResult, out: TextIO) -> None:
    """Write ``result`` as a v2 trace to ``out``, a line at a time (see the module docstring).

    A streamed result (:attr:`SimulationResult.streamed
    <framework.simulator.result.SimulationResult.streamed>`) kept no
    attempts to write: its trace was written as it ran.
    """
    if result.streamed:
        raise ValueError("a streamed run's v2 trace was written as it ran; it kept no attempts")
    writer = TraceWriter(out)
    writer.header(header_of(result))
    for attempt in result.attempts:
        writer.attempt(attempt)
    writer.end(result)


# --- reading --------------------------------------------------------------------------------


class TraceError(ValueError):
    """A file that is not a trace this project wrote."""


def _open_text(path: Path) -> IO[str]:
    with path.open("rb") as probe:
        packed = probe.read(2) == _GZIP_MAGIC
    if packed:
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return path.open("r", encoding="utf-8")


def _row(row: Mapping[str, Any]) -> Mapping[str, FilterVerdict]:
    return {plugin: FilterVerdict(v["code"], tuple(v["reasons"])) for plugin, v in row.items()}


def _attempt(
    data: Mapping[str, Any], rows: dict[str, Mapping[str, FilterVerdict]], tables: bool = True
) -> Attempt:
    """One attempt as written; without its tables (its summary only) unless ``tables``."""
    table: dict[str, Mapping[str, FilterVerdict]] = {}
    written = (data.get("filter") or {}) if tables else {}
    if "nodes" in written and "row" in written:  # v2: the distinct rows, and each node's
        distinct = [_row(row) for row in written["rows"]]
        for node, index in zip(written["nodes"], written["row"], strict=True):
            table[node] = distinct[index]
    else:
        for node, row in written.items():
            key = _dumps(row)  # nodes with the same verdicts share one row, as when recorded
            shared = rows.get(key)
            if shared is None:
                shared = rows[key] = _row(row)
            table[node] = shared
    summary = data.get("summary")
    kept = tables and "filter" in data
    return Attempt(
        pod=data["pod"],
        attempt=data["attempt"],
        profile=data["profile"],
        result=data["result"],
        node=data["node"],
        message=data["message"],
        filter=table,
        score=(data.get("score") or {}) if kept else {},
        final_score=(data.get("finalScore") or {}) if kept else {},
        nominated_node=data["nominatedNode"],
        victims=tuple(data["victims"]),
        recorded_summary=None if kept or summary is None else AttemptSummary.from_dict(summary),
    )


def _event(data: Mapping[str, Any]) -> EventRecord:
    return EventRecord(data["type"], data["reason"], data["object"], data["message"])


def _from_v1(document: Mapping[str, Any]) -> SimulationResult:
    rows: dict[str, Mapping[str, FilterVerdict]] = {}
    return SimulationResult(
        placements=dict(document["placements"]),
        attempts=tuple(_attempt(a, rows) for a in document["attempts"]),
        events=tuple(_event(e) for e in document["events"]),
        feature_gates=_gates(document.get("featureGates")),
    )


def _gates(recorded: Any) -> FeatureGates | None:
    return FeatureGates.from_dict(recorded) if recorded is not None else None


def _from_v2(
    header: Mapping[str, Any],
    lines: Iterable[str],
    where: str,
    wanted: frozenset[str] | None = None,
) -> SimulationResult:
    rows: dict[str, Mapping[str, FilterVerdict]] = {}
    attempts: list[Attempt] = []
    records: dict[str, PodAttempts] | None = None if wanted is None else {}
    events: list[EventRecord] = []
    placements: dict[str, str | None] = {}
    pods: list[PodSummary] = []
    for number, line in enumerate(lines, 2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            kind = data["kind"]
            if kind == "Attempt" and records is not None:
                assert wanted is not None
                pod = data["pod"]
                read = _attempt(data, rows, tables=pod in wanted)
                record = records.get(pod)
                records[pod] = record.then(read) if record else PodAttempts.first(read)
            elif kind == "Attempt":
                attempts.append(_attempt(data, rows))
            elif kind == "Event":
                events.append(_event(data))
            elif kind == "Pod":
                placements[data["pod"]] = data["node"]
                if "schedulerName" in data:
                    pods.append(
                        PodSummary(
                            key=data["pod"],
                            priority=data["priority"],
                            qos_class=data["qosClass"],
                            scheduler_name=data["schedulerName"],
                            node=data["node"],
                            running_at_start=data["runningAtStart"],
                            scheduling_gates=tuple(data["schedulingGates"]),
                        )
                    )
            else:
                raise TraceError(f"{where}:{number}: unknown kind {kind!r}")
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise TraceError(f"{where}:{number}: not a v2 trace line ({error})") from None
    return SimulationResult(
        placements=placements,
        attempts=tuple(attempts),
        events=tuple(events),
        pods=tuple(pods),
        warnings=tuple(header.get("warnings", ())),
        notes=tuple(header.get("notes", ())),
        seed=header.get("seed", 0),
        score_weights=header.get("scoreWeights", {}),
        feature_gates=_gates(header.get("featureGates")),
        attempt_records=records,
    )


def read_trace(path: str | Path, pods: Iterable[str] | None = None) -> SimulationResult:
    """A saved trace, v1 (JSON) or v2 (JSON Lines), gzip-compressed or not, as a result.

    Raises :class:`TraceError` (a ``ValueError``) for a file that is not
    one, and ``OSError`` for one that cannot be read. A v1 trace gives the
    attempts, events and placements (it holds no pod summaries, weights or
    seed).

    With ``pods`` (``namespace/name``), a v2 trace is read a line at a time
    into per-pod records (:attr:`SimulationResult.attempt_records
    <framework.simulator.result.SimulationResult.attempt_records>`): each
    pod's last attempt with its summary, and its tables only for ``pods``,
    so that ``explain`` reads a trace of any size in bounded memory.
    """
    path = Path(path)
    wanted = None if pods is None else frozenset(pods)
    not_a_trace = (
        f"{path}: not a simulation trace (write one with simulate --output jsonl or "
        "--output json --out FILE)"
    )
    with _open_text(path) as stream:
        try:
            first = stream.readline()
            try:
                head: Any = json.loads(first)
            except json.JSONDecodeError:
                head = json.loads(first + stream.read())  # an indented v1 document
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise TraceError(not_a_trace) from None
        if isinstance(head, dict) and head.get("kind") == "Trace":
            if head.get("version") != TRACE_V2:
                raise TraceError(f"{path}: trace version {head.get('version')!r} is not v2")
            return _from_v2(head, stream, str(path), wanted)
    if isinstance(head, dict) and head.get("version") == TRACE_VERSION:
        try:
            return _from_v1(head)
        except (KeyError, TypeError) as error:
            raise TraceError(f"{path}: not a v1 trace ({error})") from None
    raise TraceError(not_a_trace)
