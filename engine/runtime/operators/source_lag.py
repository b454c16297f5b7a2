"""Source lag: what a source has left to read, per split, as the source's own system counts it.

"How far behind is the job" starts at its sources. Each source operator answers
``source_lag()`` with one entry per split it holds, measured when the subtask reports its
metrics (about once a second, on the mailbox thread, so between two polls)::

    {"split": "events/0", "records_behind": 1200, "bytes_behind": None, "pending": None}

- ``records_behind``: records (entries, messages) after the split's position that exist
  now: Kafka's end offset minus the position, a Redis stream's entries after the last id read
  (with a consumer group: the group's ``lag`` from ``XINFO GROUPS``);
- ``bytes_behind``: bytes after the position: a file split's unread bytes, PostgreSQL's WAL
  distance from the server's current LSN to the position read;
- ``pending``: read but not yet covered by a completed checkpoint, as the system keeps it
  (a Redis consumer group's pending entries, a PostgreSQL slot's WAL behind its confirmed LSN).

A figure a source cannot know is None. Splits not handed out yet are the split enumerator's
(``FileSplitEnumerator.lag``), reported by the JobMaster beside the subtasks' reports. A
measurement that fails (the system is away for a moment) reports no lag rather than failing
the task: the read itself fails the task when the system stays away.
"""
from __future__ import annotations

import logging

logger = logging.getLogger(__name__)

FIGURES = ("records_behind", "bytes_behind", "pending")
"""What one split's lag may say; each a count or None."""


def split_lag(split: str, records_behind: int | None = None, bytes_behind: int | None = None,
              pending: int | None = None) -> dict:
    """One split's entry (negative counts, from a position read past a figure measured just before, are 0).

    >>> split_lag("s/0", records_behind=-3, bytes_behind=10)
    {'split': 's/0', 'records_behind': 0, 'bytes_behind': 10, 'pending': None}
    """
    def count(value):
        return None if value is None else max(0, int(value))

    return {"split": split, "records_behind": count(records_behind), "bytes_behind": count(bytes_behind),
            "pending": count(pending)}


def measured_lag(operator) -> list[dict] | None:
    """``operator.source_lag()``, or None when it has none or its measurement failed."""
    try:
        return operator.source_lag()
    except Exception as error:  # a report without lag, never a failed task: the reads fail it if this lasts
        logger.debug("the lag of %s was not measured: %s", operator.node_id, error)
        return None
