"""What goes wrong, where, and how often: the plan a fault-injection run follows.

A :class:`FaultPlan` is a list of :class:`Rule` objects. Each time a
wrapped plugin is called at an extension point, or a wrapped API server is
asked to do something, the wrapper asks the plan whether to inject a fault
there (:meth:`FaultPlan.decide`). The first rule that matches the *site*
(``"Filter"``, ``"bind"``), the plugin or resource, and the pod, and whose
draw comes up, names the :class:`Fault`.

Draws are not taken from one shared random stream, because binding cycles
run on threads of their own and the order in which they ask would change
from run to run. Each call draws one number, a hash of the seed, the site,
the subject (plugin or resource), the pod, the node or detail, and how many
questions were asked about that pod before; the rules at that site share
it, each taking the next slice of [0, 1) as wide as its probability, so at
most one fault strikes a call. A pod's cycles run one after another, so a
run asks the same questions about it and gets the same answers whatever
order the threads take (as far as the other pods, bound in another order,
leave its cycles unchanged).

A *hang* blocks the calling thread on an event until the test releases it
(:meth:`FaultPlan.release`), however long that takes: it never returns on
its own. :meth:`FaultPlan.wait_for_hangs` lets a test wait until a hang has
begun before it acts, so no test has to sleep. A guard (real seconds, 60 by
default) turns a hang nobody released into an :class:`InjectedFault`, so a
broken test fails instead of blocking the suite.

No Kubernetes counterpart: kube-scheduler's tests inject faults with
hand-written fake plugins (``pkg/scheduler/framework/runtime/framework_test.go``)
and a fake clientset with reactors (``k8s.io/client-go/testing``). This
module gathers both kinds behind one plan, so that a soak run can scatter
faults everywhere and count them.
"""

from __future__ import annotations

import enum
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

__all__ = [
    "API_SITES",
    "PLUGIN_SITES",
    "Fault",
    "FaultPlan",
    "Hang",
    "InjectedFault",
    "Injection",
    "Rule",
    "applicable_faults",
]


_MASK64 = 2**64 - 1


class InjectedFault(RuntimeError):
    """The exception a fault raises, or wraps in an Error status: it says it was injected."""


class Fault(enum.Enum):
    """A kind of fault. The value is how reports and the docs name it."""

    # --- plugins, at any extension point ---
    RAISE = "raises"
    ERROR = "returns Error"
    HANG = "hangs until released"
    UNKNOWN_CODE = "returns an unknown status code"
    WRONG_TYPE = "returns the wrong type"
    # --- plugins, at Score / NormalizeScore only ---
    SCORE_OUT_OF_RANGE = "a normalised score outside [0, 100]"
    SCORE_UNKNOWN_NODE = "a score for a node that was not asked"
    SCORE_WRONG_LENGTH = "a score list of the wrong length"
    # --- the API server ---
    CONFLICT = "409 Conflict"
    POD_DELETED = "the pod is deleted first (404 NotFound)"
    INTERNAL_ERROR = "500 InternalError"
    UNAVAILABLE = "503 ServiceUnavailable"
    LOST_RESPONSE = "the write lands, the answer is lost (504 Timeout)"
    WATCH_DROPPED = "the watch is closed by the server"
    WATCH_EXPIRED = "410 Expired: too old resource version"


# Sites of plugin faults: the extension points, by Kubernetes' names.
_ANY_POINT = frozenset({Fault.RAISE, Fault.HANG})
_RETURNS_STATUS = _ANY_POINT | {Fault.ERROR, Fault.UNKNOWN_CODE, Fault.WRONG_TYPE}
PLUGIN_SITES: dict[str, frozenset[Fault]] = {
    "PreEnqueue": _RETURNS_STATUS
    - {Fault.HANG},  # runs in event handlers: a hang blocks the watch
    "PreFilter": _RETURNS_STATUS,
    "Filter": _RETURNS_STATUS,
    "PostFilter": _RETURNS_STATUS,
    "PreScore": _RETURNS_STATUS,
    "Score": _RETURNS_STATUS | {Fault.SCORE_OUT_OF_RANGE},
    "NormalizeScore": _RETURNS_STATUS
    | {Fault.SCORE_OUT_OF_RANGE, Fault.SCORE_UNKNOWN_NODE, Fault.SCORE_WRONG_LENGTH},
    "Reserve": _RETURNS_STATUS,
    "Unreserve": _ANY_POINT,  # returns nothing: it can only raise or hang
    "Permit": _RETURNS_STATUS,
    "PreBind": _RETURNS_STATUS,
    "Bind": _RETURNS_STATUS,
    "PostBind": _ANY_POINT,
}
"""The extension points a plugin fault can be injected at, and the faults each can take."""

API_SITES: dict[str, frozenset[Fault]] = {
    "bind": frozenset(
        {
            Fault.CONFLICT,
            Fault.POD_DELETED,
            Fault.INTERNAL_ERROR,
            Fault.UNAVAILABLE,
            Fault.LOST_RESPONSE,
        }
    ),
    "update_status": frozenset({Fault.CONFLICT, Fault.INTERNAL_ERROR, Fault.UNAVAILABLE}),
    "create": frozenset({Fault.INTERNAL_ERROR, Fault.UNAVAILABLE}),
    "watch": frozenset({Fault.WATCH_DROPPED, Fault.WATCH_EXPIRED}),
}
"""The API server's verbs a fault can be injected at, and the faults each can take.

``watch`` faults strike when a watch is opened: ``WATCH_EXPIRED`` refuses a
watch from a resourceVersion; ``WATCH_DROPPED`` lets it open and closes it
at the next change it would deliver.
"""


def applicable_faults(site: str) -> frozenset[Fault]:
    """The faults that can be injected at ``site`` (an extension point or an API verb)."""
    if site in PLUGIN_SITES:
        return PLUGIN_SITES[site]
    if site in API_SITES:
        return API_SITES[site]
    known = ", ".join([*PLUGIN_SITES, *API_SITES])
    raise ValueError(f"no fault can be injected at {site!r}; the sites are: {known}")


@dataclass(frozen=True, slots=True)
class Rule:
    """Inject ``fault`` at ``site``, for these subjects, with this probability, at most ``limit`` times.

    ``subjects`` narrows the rule to plugins (for an extension point) or
    resources (``pods``, ``events``; for an API verb); ``pods`` to pod names.
    Empty means any. ``probability`` is per call; ``limit`` caps how many
    times the rule fires in all (None: no cap).
    """

    site: str
    fault: Fault
    probability: float = 1.0
    subjects: frozenset[str] = frozenset()
    pods: frozenset[str] = frozenset()
    limit: int | None = None

    def __post_init__(self) -> None:
        if self.fault not in applicable_faults(self.site):
            can = ", ".join(sorted(f.name for f in applicable_faults(self.site)))
            raise ValueError(
                f"{self.fault.name} cannot be injected at {self.site}; it can take {can}"
            )
        if not 0.0 <= self.probability <= 1.0:
            raise ValueError(f"probability must be within [0, 1], got {self.probability}")

    def matches(self, site: str, subject: str, pod: str) -> bool:
        return (
            site == self.site
            and (not self.subjects or subject in self.subjects)
            and (not self.pods or pod in self.pods)
        )


@dataclass(frozen=True, slots=True)
class Injection:
    """One fault injected: where, into what, for which pod (``namespace/name``), which fault."""

    site: str
    subject: str
    pod: str
    fault: Fault

    def __str__(self) -> str:
        return f"{self.subject} {self.fault.value} at {self.site} for pod {self.pod or '-'}"


@dataclass(slots=True)
class Hang:
    """A call blocked by a :data:`Fault.HANG` until :meth:`FaultPlan.release` lets it go on."""

    injection: Injection
    released: threading.Event = field(default_factory=threading.Event)


class FaultPlan:
    """The rules, the draws, the record of what was injected, and the hangs in progress.

    Thread-safe: wrapped plugins and API calls on any thread consult it.
    ``enabled`` switches every rule off at once (a test that wants the
    cluster to settle at the end turns it off).

    >>> plan = FaultPlan([Rule("Filter", Fault.ERROR, subjects=frozenset({"NodeName"}))])
    >>> plan.decide("Filter", "NodeName", "default/web")
    Injection(site='Filter', subject='NodeName', pod='default/web', fault=<Fault.ERROR: 'returns Error'>)
    >>> plan.decide("Filter", "NodePorts", "default/web") is None
    True
    >>> plan.counts()
    {'Filter: returns Error': 1}
    """

    def __init__(
        self, rules: Collection[Rule] = (), *, seed: int = 0, hang_guard: float = 60.0
    ) -> None:
        self.rules = list(rules)
        self.seed = seed
        self.hang_guard = hang_guard
        self.enabled = True
        self.injected: list[Injection] = []
        self._cond = threading.Condition()
        self._asked: Counter[str] = Counter()
        self._fired: Counter[int] = Counter()
        self._by_site: dict[str, list[tuple[int, Rule]]] = {}
        self._index_rules()
        self._hangs: list[Hang] = []
        #: Called (outside the plan's lock) with each injection; tests log or count with it.
        self.observers: list[Callable[[Injection], None]] = []

    # --- deciding ---------------------------------------------------------------------------

    def decide(self, site: str, subject: str, pod: str = "", detail: str = "") -> Injection | None:
        """The fault to inject into this call, or None; ``detail`` tells calls apart (per node)."""
        rules = self._by_site.get(site)
        if not self.enabled or not rules:
            return None  # the common case, kept cheap: Filter asks once per node
        with self._cond:
            self._asked[pod] += 1
            # One draw per call; the site's rules share it, each taking the next slice of
            # [0, 1) as wide as its probability, so at most one fault strikes a call.
            question = f"{self.seed}\x1f{site}\x1f{subject}\x1f{pod}\x1f{detail}"
            draw = self._draw(f"{question}\x1f{self._asked[pod]}")
            below = 0.0
            for index, rule in rules:
                if not rule.matches(site, subject, pod):
                    continue
                if rule.limit is not None and self._fired[index] >= rule.limit:
                    continue
                below += rule.probability
                if rule.probability < 1.0 and draw >= below:
                    continue
                self._fired[index] += 1
                injection = Injection(site, subject, pod, rule.fault)
                self.injected.append(injection)
                break
            else:
                return None
        for observer in self.observers:
            observer(injection)
        return injection

    @staticmethod
    def _draw(question: str) -> float:
        """A number in [0, 1) that depends only on the question: stable across runs, and cheap.

        crc32 (fast, unlike a cryptographic hash, and unlike ``hash()`` not
        salted per process), then splitmix64's finaliser, so that questions
        differing in one digit land far apart.
        """
        z = (zlib.crc32(question.encode()) + 0x9E3779B97F4A7C15) & _MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return (z ^ (z >> 31)) / 2**64

    def _index_rules(self) -> None:
        by_site: dict[str, list[tuple[int, Rule]]] = {}
        for index, rule in enumerate(self.rules):
            by_site.setdefault(rule.site, []).append((index, rule))
        self._by_site = by_site

    # --- hangs --------------------------------------------------------------------------------

    def hang(self, injection: Injection) -> None:
        """Block the calling thread until released; raise InjectedFault after the guard."""
        hang = Hang(injection)
        with self._cond:
            self._hangs.append(hang)
            self._cond.notify_all()
        if not hang.released.wait(self.hang_guard):
            raise InjectedFault(
                f"hang at {injection.site} of {injection.subject} for {injection.pod or '-'} "
                f"was never released"
            )

    def hangs(self) -> list[Hang]:
        """The hangs begun and not yet released, oldest first."""
        with self._cond:
            return [h for h in self._hangs if not h.released.is_set()]

    def wait_for_hangs(self, count: int = 1, timeout: float | None = None) -> list[Hang]:
        """Block until at least ``count`` hangs are in progress; return them (oldest first)."""
        with self._cond:
            done = self._cond.wait_for(
                lambda: sum(not h.released.is_set() for h in self._hangs) >= count,
                timeout if timeout is not None else self.hang_guard,
            )
            if not done:
                raise InjectedFault(f"{count} hang(s) never began")
            return [h for h in self._hangs if not h.released.is_set()]

    def release(self, hang: Hang | None = None) -> int:
        """Let one hang go on (or, with None, every one); return how many were released."""
        with self._cond:
            chosen = [hang] if hang is not None else list(self._hangs)
            released = 0
            for h in chosen:
                if not h.released.is_set():
                    h.released.set()
                    released += 1
            self._hangs = [h for h in self._hangs if not h.released.is_set()]
            return released

    # --- the record ---------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """How many faults were injected, by ``"<site>: <fault>"``, most frequent first."""
        with self._cond:
            tally = Counter(f"{i.site}: {i.fault.value}" for i in self.injected)
        return dict(tally.most_common())

    def disabled(self) -> FaultPlan:
        """Switch every rule off (and release every hang); returns the plan for chaining."""
        self.enabled = False
        self.release()
        return self

    def with_rules(self, *rules: Rule) -> FaultPlan:
        """Add rules after the existing ones; returns the plan for chaining."""
        with self._cond:
            self.rules.extend(rules)
            self._index_rules()
        return self

    def __repr__(self) -> str:
        rules = ", ".join(f"{r.site}:{r.fault.name}" for r in self.rules)
        return f"FaultPlan([{rules}], seed={self.seed}, injected={len(self.injected)})"
