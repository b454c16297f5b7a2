"""``source.hybrid``: history from files, then live data from a Redis stream (seed 002, Hybrid source).

A backfill reads what was already exported to files, then carries on with the live
stream from where the export ended -- the same pipeline for history and live data, one
job, no gap and no overlap. Flink's ``HybridSource`` chains a bounded source and an
unbounded one and switches when the first is done; this is that for the two sources the
catalog has: ``source.file`` (``path``, ``format``) then ``source.redis_stream``
(``stream``, ``url``, ``batch_size``, ``bounded``).

The recorded switch position
    ``start_id`` is the stream id the history ends with: live reading starts right after
    it (the export's last entry id; ``"0-0"``: the whole stream). ``"$"`` (the default)
    means "the stream's last entry when the job first started": whatever is added after
    the start is live. Either way the resolved id goes into the stream split at the first
    start and from then on travels in every checkpoint, so a restore -- during the
    history or during the live phase -- switches at exactly the same entry. (With
    ``"$"``, a job that fails before its first checkpoint completed resolves it again on
    restart: give an explicit ``start_id`` when that matters.)

State and the switch
    The source keeps both sources' positions as operator list state: the file splits
    (``{"path", "offset", "header"}``, one per file) and the stream split (``{"stream",
    "last_id", "end_id"}``, one). A subtask reads its file splits first and, once they are
    done, its stream split if it has one -- the switch is just the file splits running
    out, between two polls, so a checkpoint sees either "file at offset n" or "files done,
    stream at id s", never something in between: exactly once across the switch. Files
    are dealt to the subtasks round robin; the stream split belongs to subtask 0 (on a
    restore at another parallelism the splits are dealt out again). With parallelism > 1,
    subtask 0 may thus start on live data while other subtasks still read history.
"""
from __future__ import annotations

from engine.runtime.operators.connectors.file_source import FileSource
from engine.runtime.operators.connectors.redis_stream import RedisStreamSource
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator

FILE_PARAMS = ("path", "format")
STREAM_PARAMS = ("stream", "url", "batch_size", "bounded", "start_id")


class HybridSource(SourceOperator):
    """Reads its file splits, then its stream split; both positions checkpointed."""

    def __init__(self, node, context):
        super().__init__(node, context)
        params = self.params
        self.history = FileSource(_part(node, FILE_PARAMS), context)
        self.live = RedisStreamSource(_part(node, STREAM_PARAMS, {"start_id": params.get("start_id", "$")}), context)

    @property
    def phase(self) -> str:
        """``history`` while file splits are left, then ``live`` (or ``done``)."""
        if self.history.splits:
            return "history"
        return "live" if self.live.splits else "done"

    def initialize_state(self):
        self.history.initialize_state()
        self.live.initialize_state()

    def open(self):
        self.history.open()
        self.live.open()

    def poll_next(self):
        if self.history.splits:
            batch = self.history.poll_next()
            if batch is not END_OF_INPUT:
                return batch
        return self.live.poll_next()

    def caught_up(self, records: int) -> bool:
        """The history's answer while its splits last, then the stream's."""
        return (self.history if self.history.splits else self.live).caught_up(records)

    def next_poll_delay(self) -> float:
        return self.live.next_poll_delay()

    def when_readable(self, callback) -> bool:
        """Once the history is read, the stream's waiter resumes the subtask."""
        return not self.history.splits and self.live.when_readable(callback)

    def snapshot_state(self, checkpoint_id):
        self.history.snapshot_state(checkpoint_id)
        self.live.snapshot_state(checkpoint_id)

    def close(self):
        try:
            self.history.close()
        finally:
            self.live.close()

    def metrics(self):
        return {"hybrid_phase": {self.node_id: self.phase}}

    def source_lag(self) -> list[dict]:
        """The file splits left, then the stream's backlog: both parts' splits."""
        return self.history.source_lag() + self.live.source_lag()


def _part(node: dict, names: tuple[str, ...], overrides: dict | None = None) -> dict:
    params = {name: node["params"][name] for name in names if name in (node.get("params") or {})}
    return {**node, "params": {**params, **(overrides or {})}}
