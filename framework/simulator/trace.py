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
  order, as ranges of node numbers, the distinct rows of verdicts, and each
  node's row, one character a node (``{"ranges": [[412, 588], [0, 412]],
  "rows": [...], "row": "0001120..."}``; a list of numbers when there are
  more rows than characters): the nodes of an attempt share a few rows and
  are evaluated round robin, so a failed attempt on 5,000 nodes is a line of
  some 6 KB (a few hundred bytes compressed), where listing the nodes by
  name took 70 to 80 KB and v1's form a megabyte and a half;
* a ``Nodes`` line before the first ``Attempt`` line whose table names a
  node not numbered yet: those nodes' names, numbered on from ``first``
  (the trace's first node is 0), in the order the tables first met them;
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
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib.resources import files
from pathlib import Path
from typing import IO, Any, TextIO

from framework.featuregate import FeatureGates
from framework.simulator.result import (
    TRACE_VERSION,
    Attempt,
    AttemptSummary,
    EventRecord,
    FilterTable,
    FilterVerdict,
    PodAttempts,
    PodSummary,
    SimulationResult,
    _attempt_head,
    _dumps,
    _plain,
)

__all__ = [
    "ROW_DIGITS",
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
        # Only when they say something the rest of the line does not, so that most lines
        # stay as they were.
        if pod.running_at_start and pod.node_at_start != node:
            line["nodeAtStart"] = pod.node_at_start
        if pod.terminating_at_start:
            line["terminatingAtStart"] = True
    return line


ROW_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""A node's row in ``filter.row``, one character a node, when an attempt has at most 62 rows."""


def _filter_table(
    attempt: Attempt, rows: dict[int, tuple[int, str]], numbers: dict[str, int]
) -> tuple[list[str], list[list[int]], list[str], str | list[int]]:
    """The Filter table: nodes not numbered yet, ranges of node numbers, distinct rows, each node's.

    ``numbers`` (the trace's node numbers, kept by the writer) gets the
    nodes first met here, in evaluation order. Most nodes of an attempt
    share one of a few rows (the recorder shares them), written once each;
    ``rows`` maps a row's ``id`` to its index and text within this attempt.
    The nodes are evaluated round robin from where the last search
    stopped, so their numbers come in one or two ranges.
    """
    rows.clear()
    if isinstance(attempt.filter, FilterTable):
        shared = _shared_filter_table(attempt.filter, rows, numbers)
        if shared is not None:
            return shared
        rows.clear()
    new_names: list[str] = []
    ranges: list[list[int]] = []
    texts: list[str] = []
    index: list[int] = []
    previous = -2
    for node, row in attempt.filter.items():
        number = numbers.get(node)
        if number is None:
            number = numbers[node] = len(numbers)
            new_names.append(node)
        if number == previous + 1:
            ranges[-1][1] += 1
        else:
            ranges.append([number, 1])
        previous = number
        known = rows.get(id(row))
        if known is None:
            known = rows[id(row)] = (len(texts), _dumps({p: v.to_dict() for p, v in row.items()}))
            texts.append(known[1])
        index.append(known[0])
    if len(texts) <= len(ROW_DIGITS):
        return new_names, ranges, texts, "".join([ROW_DIGITS[i] for i in index])
    return new_names, ranges, texts, index


_DIGIT_BYTES = bytes.maketrans(bytes(range(len(ROW_DIGITS))), ROW_DIGITS.encode("ascii"))


def _shared_filter_table(
    table: FilterTable, rows: dict[int, tuple[int, str]], numbers: dict[str, int]
) -> tuple[list[str], list[list[int]], list[str], str | list[int]] | None:
    """:func:`_filter_table` of a table kept as rows and indices, or None if it names new nodes.

    The same ranges, rows and row text, from arrays: the nodes' numbers
    are looked up at once, and each node's row character is a byte
    translated.
    """
    import numpy as np  # a FilterTable comes from the batch engine, which has numpy loaded

    found = list(map(numbers.get, table.names))
    if None in found:
        return None  # the loop numbers them, in evaluation order
    number = np.array(found, dtype=np.int64)
    starts = [0, *(np.flatnonzero(np.diff(number) != 1) + 1).tolist(), len(number)]
    ranges = [[int(number[start]), end - start] for start, end in itertools.pairwise(starts)]
    texts: list[str] = []
    for row in table.rows:
        text = _dumps({p: v.to_dict() for p, v in row.items()})
        rows[id(row)] = (len(texts), text)
        texts.append(text)
    indices = np.asarray(table.indices, dtype=np.int64)
    if len(texts) <= len(ROW_DIGITS):
        return (
            [],
            ranges,
            texts,
            indices.astype(np.uint8).tobytes().translate(_DIGIT_BYTES).decode(),
        )
    return [], ranges, texts, indices.tolist()


def _attempt_line(
    attempt: Attempt, rows: dict[int, tuple[int, str]], numbers: dict[str, int]
) -> tuple[list[str], str]:
    """The nodes the line numbers for the first time (a ``Nodes`` line first), and the line."""
    head = {
        "kind": "Attempt",
        **_attempt_head(attempt),
        "nominatedNode": attempt.nominated_node,
        "victims": list(attempt.victims),
    }
    parts = [_dumps(head)[:-1], ',"summary":', _dumps(attempt.summary().to_dict())]
    new_names: list[str] = []
    if attempt.has_table:
        new_names, ranges, texts, index = _filter_table(attempt, rows, numbers)
        parts += [
            ',"filter":{"ranges":', _dumps(ranges), ',"rows":[', ",".join(texts), '],"row":',
            _dumps(index), '},"score":',
            _dumps({node: _plain(row) for node, row in attempt.score.items()}),
            ',"finalScore":',
            _dumps({node: _plain(row) for node, row in attempt.final_score.items()}),
        ]  # fmt: skip
    parts.append("}")
    return new_names, "".join(parts)


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
        self._numbers: dict[str, int] = {}  # node name -> its number in the trace

    def header(self, header: Mapping[str, Any]) -> None:
        self.out.write(_dumps(header) + "\n")

    def attempt(self, attempt: Attempt) -> None:
        first = len(self._numbers)
        new_names, line = _attempt_line(attempt, self._rows, self._numbers)
        if new_names:
            nodes = {"kind": "Nodes", "first": first, "names": new_names}
            self.out.write(_dumps(nodes) + "\n")
        self.out.write(line + "\n")

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


def _numbered_nodes(ranges: Iterable[Sequence[int]], names: Sequence[str]) -> Iterator[str]:
    for first, count in ranges:
        if first < 0 or count < 1 or first + count > len(names):
            raise TraceError(f"node range [{first}, {count}] is not in the Nodes lines before it")
        yield from names[first : first + count]


def _attempt(
    data: Mapping[str, Any],
    rows: dict[str, Mapping[str, FilterVerdict]],
    tables: bool = True,
    names: Sequence[str] = (),
) -> Attempt:
    """One attempt as written; without its tables (its summary only) unless ``tables``.

    ``names`` are the trace's numbered nodes so far (its ``Nodes`` lines).
    """
    table: dict[str, Mapping[str, FilterVerdict]] = {}
    written = (data.get("filter") or {}) if tables else {}
    if "row" in written:  # v2: the nodes, the distinct rows, and each node's row
        distinct = [_row(row) for row in written["rows"]]
        row = written["row"]
        indices = [ROW_DIGITS.index(c) for c in row] if isinstance(row, str) else row
        nodes = (
            _numbered_nodes(written["ranges"], names)
            if "ranges" in written
            else written["nodes"]  # v2 as first written: the nodes by name
        )
        for node, index in zip(nodes, indices, strict=True):
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
    names: list[str] = []  # the nodes the Nodes lines numbered, in order
    for number, line in enumerate(lines, 2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            kind = data["kind"]
            if kind == "Attempt" and records is not None:
                assert wanted is not None
                pod = data["pod"]
                read = _attempt(data, rows, tables=pod in wanted, names=names)
                record = records.get(pod)
                records[pod] = record.then(read) if record else PodAttempts.first(read)
            elif kind == "Attempt":
                attempts.append(_attempt(data, rows, names=names))
            elif kind == "Nodes":
                if data["first"] != len(names):
                    raise TraceError(
                        f"{where}:{number}: Nodes line numbers from {data['first']}, "
                        f"but {len(names)} nodes were numbered before it"
                    )
                names += data["names"]
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
                            node_at_start=data.get(
                                "nodeAtStart", data["node"] if data["runningAtStart"] else None
                            ),
                            terminating_at_start=data.get("terminatingAtStart", False),
                        )
                    )
            else:
                raise TraceError(f"{where}:{number}: unknown kind {kind!r}")
        except TraceError as error:
            if str(error).startswith(where):
                raise
            raise TraceError(f"{where}:{number}: {error}") from None
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
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
