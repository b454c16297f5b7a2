"""Watermark alignment across source subtasks (Flink's FLIP-182, our own mechanism).

Why: a keyed event-time operator fed by several source subtasks holds its state until the
*slowest* of them lets its watermark pass. When one source subtask reads event time far
ahead of another -- neighbouring splits of a time-ordered file are tens of seconds apart,
a subtask on a busier CPU falls behind -- everything the leading one sends waits in the
windows, sessions and join buffers downstream for that long: more open sessions per key
to scan, more windows to keep, bigger checkpoints. Alignment bounds that skew: a source
subtask whose watermark runs ahead of its group's minimum by more than ``max_drift_ms``
stops reading until the others caught up.

Settings (the ``transform.watermark`` node's params, the watermark strategy as in Flink)
    ``alignment_max_drift_ms`` (0: off; unset: ``AUTO_DRIFT_MS`` behind a file or Parquet
    source whose records reach a join, ``SESSION_AUTO_DRIFT_MS`` when session windows only, off
    elsewhere), ``alignment_group``
    (sources whose watermarks are
    aligned together; empty: the node's own subtasks) and ``alignment_update_interval_ms``
    (how often at most a subtask reports a watermark that moved). Alignment acts where the
    watermark node runs in a source's chain (a forward edge of equal parallelism from the
    source, or through maps and filters): that subtask's polls are what can pause. A group
    of one subtask never pauses and sends nothing.

The subtask's side (:class:`SourceAlignment`, in the source's mailbox thread)
    After each batch it looks at its chain's watermark. When it moved, it is reported to
    the group's coordinator at most every update interval; immediately when it passed the
    bound last announced, and then the subtask *pauses*: ``SourceInput`` polls no more and
    its default action waits for the resume. Mails still run while it waits: checkpoint
    triggers (its barrier goes out at its unchanged position), timers, latency markers,
    stop-with-savepoint. A report is answered with the group's current bound; a paused
    subtask resumes once the bound is ``RESUME_SHARE`` of the drift past its watermark (so
    it reads a stretch before it pauses again, instead of a batch per round trip). A timer
    reports every ``KEEP_ALIVE_S`` while anything changed or the subtask is paused, so an
    idleness change, or a bound lost in a restart, is never waited for forever.

The coordinator's side (:class:`WatermarkAlignmentGroup`, in the JobMaster)
    The group's bound for a member is the least watermark of its *active* members plus the
    member's drift. Until every member reported once, the bound holds everyone at their first
    watermark (``HOLD``): a slot that starts later would otherwise find the others far ahead.
    Members that reported no watermark yet (nothing read), are idle (their watermark node's
    ``idle_timeout_ms`` passed without records, or their source read nothing for ``QUIET_S``: a
    quiet partition) or finished (end of data) hold nobody back;
    with no active member there is no bound. When a report moves the bound, every paused
    member whose resume point it passed is told at once. A source subtask restored as
    finished reports so before anything else.

Never a deadlock
    The member holding the least watermark is never paused by the bound (its watermark is
    the minimum, its bound the minimum plus its drift); when it ends or goes idle it leaves
    the minimum. So some member always reads, until every one ended. A member not reported
    yet is starting: it reads (a subtask without a watermark never pauses) and reports at its
    first batch, or its first keep-alive, whichever comes first. Restarted subtasks are
    forgotten (``forget``) and report afresh: watermarks are not checkpointed, a restored
    subtask's watermark starts low and rises with what it reads, as everywhere else.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

ACTIVE = "active"
IDLE = "idle"
FINISHED = "finished"

KEEP_ALIVE_S = 0.1
"""How often a subtask reports while it is paused or something changed since its last report."""

QUIET_S = 0.2
"""A source that read nothing for this long holds its group back no more (a quiet partition; not
a rate limit's or a split request's short waits between reads)."""

RESUME_SHARE = 0.25
"""A paused subtask resumes once the bound is this share of its drift past its watermark."""

DEFAULT_UPDATE_INTERVAL_MS = 10

AUTO_SOURCES = frozenset({"source.file", "source.parquet"})
KEPT_RECORDS = frozenset({"window.session", "join.window", "join.interval"})
AUTO_DRIFT_MS = 30_000
"""Without ``alignment_max_drift_ms`` a watermark node behind one of ``AUTO_SOURCES`` whose records
reach one of ``KEPT_RECORDS`` aligns with this drift (``SESSION_AUTO_DRIFT_MS`` when they reach
session windows only): files read in splits are a backfill whose
subtasks' event times drift apart by whole splits, and sessions and joins keep (and scan) records
for as long as the skew (``docs/performance.md``, "Watermark alignment"). Elsewhere it is off: live
sources' subtasks stay near each other by themselves, and a tumbling or sliding aggregate keeps a
number per key and window, so the skew costs it little while a paused source leaves its CPU idle
and the other slot reads more splits. 30 s, not 10: with the join's filters chained into the
source's task (fan-out chaining) the window join of ``make bench-events`` ran 1.17-1.23 M events/s
at p=2 with 30 s against 0.78-0.94 M with 10 s (sources paused 50-80 ms a run against 300-420;
20 s 0.93-1.07 M, 60 s 0.76-1.02 M, off 0.96-1.06 M; Spark ``local[2]``, 1M events, quiet machine)."""
SESSION_AUTO_DRIFT_MS = 120_000
"""The automatic drift in front of session windows alone: a bound against a subtask left far
behind (a slower CPU), not a pace. Session windows find a record's sessions by bisect and take
partial sessions (``session_partials``), so the skew of two subtasks on neighbouring splits (30-70
s of bench-events' events) costs them nothing measurable, while a drift near that skew pauses the
subtask ahead again and again and leaves its CPU idle, and cuts the splits to an eighth of the
drift (``SPLIT_SPAN_SHARE``: 3.75 s of event time at 30 s, a split request every few thousand
events). Profiled at p=2 on Spark (``docs/performance.md``, "Where the session job's second core
went"): 30 s paused the sources 55-135 ms a run of ~0.65 s; 120 s pauses them 2-4 ms (the hold at
the start) with 15 s splits, and the job ran as fast as without alignment. A join keeps every
record of its windows: ``AUTO_DRIFT_MS`` there."""

_NO_WATERMARK = -(2**63)
_MAX_WATERMARK = 2**63 - 1

HOLD = _NO_WATERMARK
"""The bound while a member of the group has not reported yet (its slot still starting, or
restarting): nobody reads past a first watermark until every member said where it is."""

Member = tuple  # (vertex id, subtask index): the subtask's task id


@dataclass(frozen=True)
class AlignmentSettings:
    """A watermark node's alignment settings."""

    max_drift_ms: int
    group: str
    update_interval_ms: int = DEFAULT_UPDATE_INTERVAL_MS

    @classmethod
    def of(cls, node: dict, source: dict | None = None, feeds_kept_records: bool | int = False) -> AlignmentSettings | None:
        """``node``'s settings in a chain whose head is ``source``, or None when it aligns nothing
        (not a watermark node, drift 0, or no drift set and not a backfill feeding kept records:
        ``source`` one of ``AUTO_SOURCES`` and ``feeds_kept_records``, True or the automatic drift
        of what the records reach, ``auto_drift``)."""
        if node.get("type") != "transform.watermark":
            return None
        params = node.get("params") or {}
        drift = params.get("alignment_max_drift_ms")
        if drift is None:
            auto = AUTO_DRIFT_MS if feeds_kept_records is True else int(feeds_kept_records or 0)
            drift = auto if (source or {}).get("type") in AUTO_SOURCES else 0
        drift = int(drift)
        if drift <= 0:
            return None
        return cls(drift, str(params.get("alignment_group") or node["id"]),
                   max(1, int(params.get("alignment_update_interval_ms") or DEFAULT_UPDATE_INTERVAL_MS)))


def may_resume(watermark: int | None, bound: int | None, drift_ms: int) -> bool:
    """Whether a subtask paused at ``watermark`` reads again under ``bound`` (None: no bound)."""
    return bound is None or watermark is None or (bound != HOLD and bound - watermark >= drift_ms * RESUME_SHARE)


def aligned_sources(job_graph) -> dict[str, dict[Member, tuple[str, AlignmentSettings]]]:
    """``{group: {member: (watermark node id, settings)}}`` of the groups with more than one
    member: every subtask of a source vertex whose chain holds a watermark node with alignment on."""
    groups: dict[str, dict[Member, tuple[str, AlignmentSettings]]] = {}
    for vertex in job_graph.vertices:
        if not vertex.is_source:
            continue
        for node in vertex.operators:
            settings = AlignmentSettings.of(node, vertex.operators[0], auto_drift(job_graph, vertex))
            if settings is not None:
                members = groups.setdefault(settings.group, {})
                for index in range(vertex.parallelism):
                    members[(vertex.id, index)] = (node["id"], settings)
                break  # the first watermark node of the chain is the source's
    return {group: members for group, members in groups.items() if len(members) > 1}


def auto_drift(job_graph, vertex) -> int:
    """The automatic drift of ``vertex``'s records: 0 when they reach (through any edges) no operator of
    ``KEPT_RECORDS``, ``SESSION_AUTO_DRIFT_MS`` when session windows only, else ``AUTO_DRIFT_MS``."""
    seen, waiting, kinds = set(), [vertex], set()
    while waiting:
        current = waiting.pop()
        if current.id in seen:
            continue
        seen.add(current.id)
        kinds.update(node.get("type") for node in current.operators if node.get("type") in KEPT_RECORDS)
        waiting.extend(job_graph.vertex(edge.target) for edge in job_graph.outputs_of(current.id))
    if not kinds:
        return 0
    return SESSION_AUTO_DRIFT_MS if kinds == {"window.session"} else AUTO_DRIFT_MS


@dataclass
class _Report:
    watermark: int | None
    status: str
    paused: bool


class WatermarkAlignmentGroup:
    """The JobMaster's side of one alignment group: what each member reported, and its bound.

    Used under ``OperatorCoordinators``' lock only (one thread at a time)."""

    def __init__(self, name: str, drifts: dict[Member, int]):
        self.name = name
        self.drifts = dict(drifts)
        self._reports: dict[Member, _Report] = {}
        self.most_ahead = 0
        """The most a member's reported watermark was ahead of the group's minimum (its own report
        against the others' latest): what alignment bounds, to the drift and one poll."""

    def minimum(self) -> int | None:
        """The least watermark of the active members that have one; None when there is none."""
        marks = [report.watermark for report in self._reports.values()
                 if report.status == ACTIVE and report.watermark is not None]
        return min(marks) if marks else None

    def bound(self, member: Member) -> int | None:
        """The watermark ``member`` may read up to now (None: no bound; ``HOLD`` while a member
        has not reported yet: its watermark could be anything)."""
        if len(self._reports) < len(self.drifts):
            return HOLD
        least = self.minimum()
        return None if least is None else least + self.drifts[member]

    def report(self, member: Member, watermark: int | None, status: str,
               paused: bool) -> tuple[int | None, list[tuple[Member, int | None]]]:
        """A member's report: ``(its bound, [(paused member to wake, its bound), ...])``."""
        if member not in self.drifts:
            raise KeyError(f"{member!r} is not a member of watermark alignment group {self.name!r}")
        if status not in (ACTIVE, IDLE, FINISHED):
            raise ValueError(f"unknown watermark status {status!r}")
        self._reports[member] = _Report(watermark, status, paused)
        if status == ACTIVE and watermark is not None and len(self._reports) == len(self.drifts):
            self.most_ahead = max(self.most_ahead, watermark - self.minimum())
        return self.bound(member), self._wakes(exclude=member)

    def forget(self, members: Iterable[Member]) -> list[tuple[Member, int | None]]:
        """``members`` restart (they report afresh); the paused members this lets go on."""
        for member in members:
            self._reports.pop(member, None)
        return self._wakes()

    def _wakes(self, exclude: Member | None = None) -> list[tuple[Member, int | None]]:
        wakes = []
        for member, report in self._reports.items():
            if member == exclude or not report.paused:
                continue
            bound = self.bound(member)
            if may_resume(report.watermark, bound, self.drifts[member]):
                report.paused = False  # it reports again when it pauses again
                wakes.append((member, bound))
        return wakes

    def figures(self) -> dict:
        """The group's minimum, how many members are paused, and ``most_ahead``."""
        return {"minimum": self.minimum(), "paused": sum(1 for report in self._reports.values() if report.paused),
                "most_ahead": self.most_ahead}


class SourceAlignment:
    """A source subtask's side of watermark alignment. Mailbox thread only.

    ``watermark_of()`` is the subtask's current watermark (None before the first), ``idle_of()``
    whether its watermark node marked its output idle; ``send(event)`` sends an event to the
    group's coordinator, whose answers come back through :meth:`on_bound`."""

    def __init__(self, settings: AlignmentSettings, watermark_of: Callable[[], int | None],
                 idle_of: Callable[[], bool], send: Callable[[dict], None],
                 clock: Callable[[], float] = time.monotonic):
        self.settings = settings
        self._watermark_of = watermark_of
        self._idle_of = idle_of
        self._send = send
        self._clock = clock
        self.bound: int | None = HOLD
        """The bound the coordinator announced last (None: none); until its first answer, ``HOLD``:
        the subtask pauses after its first batch and waits for it (a round trip) instead of reading
        on unbounded (at the start, and after a restore, where the others may be far behind)."""
        self.paused = False
        self.finished = False
        self._empty_since: float | None = None  # when the source's polls began to find nothing
        self.pauses = 0
        self.paused_s = 0.0
        self._paused_at = 0.0
        self._resume: Callable[[], None] | None = None
        self._reported: tuple | None = None  # (watermark, status, paused) last sent
        self._reported_at = float("-inf")
        self._interval_s = settings.update_interval_ms / 1000.0

    # -- the source's polls ------------------------------------------------------------------
    def after_batch(self) -> None:
        """A batch went through the chain: pause when the watermark passed the bound; report
        a watermark that moved, at most every update interval (at once when pausing)."""
        self._empty_since = None
        watermark = self._watermark_of()
        if watermark is None or self.finished:
            return
        if self.bound is not None and watermark > self.bound:
            self._pause()
            self._report(watermark)
        elif (self._clock() - self._reported_at >= self._interval_s
              and (self._reported is None or self._reported[0] != watermark)):
            self._report(watermark)

    def nothing_read(self) -> None:
        """The source's poll found nothing to read. Once it read nothing for ``QUIET_S`` it holds
        nobody back (reported with the next keep-alive): pausing the others cannot help it."""
        if self._empty_since is None:
            self._empty_since = self._clock()

    def when_resumed(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the subtask may read again (at once when it may already)."""
        if not self.paused:
            callback()
        else:
            self._resume = callback

    def on_bound(self, bound: int | None) -> None:
        """The coordinator's answer or wake-up: the bound this subtask may read up to now."""
        self.bound = bound
        if self.paused and may_resume(self._watermark_of(), bound, self.settings.max_drift_ms):
            self._go_on()

    def keep_alive(self) -> None:
        """Timer (every ``KEEP_ALIVE_S``): report when anything changed, or while paused (to ask again)."""
        if self.finished:
            return
        watermark = self._watermark_of()
        state = (watermark, self._status(), self.paused)
        if self.paused or state != self._reported:
            self._report(watermark)

    def finish(self) -> None:
        """End of data (or of the subtask): hold nobody back any more, never pause again."""
        if self.finished:
            return
        self.finished = True
        self._go_on()
        self._send({"kind": "watermark", "watermark": None, "status": FINISHED, "paused": False})

    # -- inside --------------------------------------------------------------------------------
    def _status(self) -> str:
        quiet = self._empty_since is not None and self._clock() - self._empty_since >= QUIET_S
        return IDLE if quiet or self._idle_of() else ACTIVE

    def _report(self, watermark: int | None) -> None:
        state = (watermark, self._status(), self.paused)
        self._reported, self._reported_at = state, self._clock()
        self._send({"kind": "watermark", "watermark": watermark, "status": state[1], "paused": self.paused})

    def _pause(self) -> None:
        if not self.paused:
            self.paused = True
            self.pauses += 1
            self._paused_at = self._clock()

    def _go_on(self) -> None:
        if self.paused:
            self.paused = False
            self.paused_s += self._clock() - self._paused_at
        resume, self._resume = self._resume, None
        if resume is not None:
            resume()

    def metrics(self) -> dict:
        """``alignment_paused_ms`` (total so far, the current pause included) and ``alignment_pauses``."""
        paused_s = self.paused_s + (self._clock() - self._paused_at if self.paused else 0.0)
        return {"alignment_paused_ms": round(paused_s * 1000.0, 1), "alignment_pauses": self.pauses}


def chain_watermark(operator) -> Callable[[], int | None]:
    """The current watermark of a watermark node ``operator`` (None before its first, and once it
    emitted the maximum: it then holds nobody back)."""
    def watermark() -> int | None:
        value = operator.current_watermark
        return None if value <= _NO_WATERMARK or value >= _MAX_WATERMARK else value

    return watermark
