"""The source contract: step-wise sources polled by the mailbox loop (no checkpoint lock).

Flink's legacy sources ran their own loop in a second thread and shared a checkpoint
lock with the mailbox thread (seed 004 §3.2, seed 001 §5.1) so that "emit a record" and
"advance the offset" stayed atomic with respect to snapshots. Here a source is polled,
one batch per step, by the subtask's mailbox thread (FLIP-27 style). Between two polls
the thread runs its mails, a checkpoint trigger among them; so a snapshot always sees the
position right after the last batch emitted, and the barrier follows exactly that batch.

``poll_next()`` returns a list of records (it may be empty: nothing right now) or
:data:`END_OF_INPUT`. When it returned nothing, the task suspends its default action until
the source can be read again: a source that can tell when its input has more
(``when_readable``, e.g. a blocking read in a thread of its own) resumes it then;
otherwise ``next_poll_delay()`` says how long to wait before polling again (a rate limit's
next slot, or an idle back-off) and a timer mail resumes it. Either way an idle source
costs nothing in the mailbox thread.

Positions live in operator list state, one element per split, so they are redistributed
on a restore at another parallelism; ``snapshot_state`` writes them, ``initialize_state``
reads them.

A poll returns at most ``batch_size`` records. With buffer debloating on, that shrinks
with the buffer size the consumers announce (``OperatorContext.poll_budget``): a source's
one step of output is part of the data in flight in front of a barrier.
"""
from __future__ import annotations

from engine.runtime.io.stream_input import END_OF_INPUT
from engine.runtime.operators.base import StreamOperator

__all__ = ["DEFAULT_BATCH_SIZE", "END_OF_INPUT", "IDLE_POLL_DELAY", "IdleBackoff", "SourceOperator"]

DEFAULT_BATCH_SIZE = 1024
IDLE_POLL_DELAY = 0.05
FIRST_IDLE_POLL_DELAY = 0.001


class IdleBackoff:
    """How long a source that found nothing waits before it polls again: ``first`` after a poll
    that had records, doubling with each empty poll up to ``longest``.

    A fixed wait of ``longest`` (50 ms) set the latency of a source fed a few events at a time:
    at 1,000 events/s most polls find nothing, so an event waited half of it on average
    (p50 ~25 ms from the external stream to the output). With the back-off a source that
    just had records looks again after 1 ms, a quiet one costs a poll per ``longest``.
    Mailbox thread only.
    """

    __slots__ = ("first", "longest", "_next")

    def __init__(self, first: float = FIRST_IDLE_POLL_DELAY, longest: float = IDLE_POLL_DELAY):
        self.first = first
        self.longest = longest
        self._next = first

    def active(self) -> None:
        """A poll had records: the next empty one waits ``first``."""
        self._next = self.first

    def idle(self) -> float:
        """A poll had none: how long to wait (each consecutive one twice the last, at most ``longest``)."""
        delay = self._next
        self._next = min(self.longest, delay * 2)
        return delay


class SourceOperator(StreamOperator):
    """Base of sources: step-wise ``poll_next``."""

    is_source = True

    @property
    def batch_size(self) -> int:
        """Records per poll: the configured batch size, less while buffer debloating asks for less."""
        configured = int(self.context.config.get("batch_size", DEFAULT_BATCH_SIZE))
        budget = self.context.poll_budget() if self.context.poll_budget is not None else None
        return configured if budget is None else max(1, min(configured, budget))

    def poll_next(self):
        raise NotImplementedError(f"{type(self).__name__}.poll_next() must be overridden")

    def caught_up(self, records: int) -> bool:
        """After a poll that gave ``records`` records (some): whether the source has read what its
        input holds for now, so that what its batches left in the subtask's output buffers goes at
        once instead of waiting for more (``SourceInput``). Here a poll short of ``batch_size`` says
        so: a live source (a stream, a topic, a change log, a paced generator) returns fewer only
        when it found no more. A source whose polls come short while more is waiting says otherwise."""
        return records < self.batch_size

    def next_poll_delay(self) -> float:
        """Seconds to wait after a poll that returned no records."""
        return IDLE_POLL_DELAY

    def when_readable(self, callback) -> bool:
        """After a poll that returned no records (mailbox thread): arrange for ``callback`` to be
        called, from any thread, once a poll may find some, and say True; False (the default)
        when the source cannot tell, and ``next_poll_delay`` paces its polls instead.

        A callback called early or twice costs one more poll (it resumes the subtask, which
        polls); one never called stalls the source, so a source that says True must call it
        also when it cannot wait any more (an error: the poll then meets it)."""
        return False

    def process_batch(self, batch):
        raise TypeError(f"source '{self.node_id}' takes no input")
