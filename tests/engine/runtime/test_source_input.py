"""A source that has caught up sends its output buffers at once (``SourceInput``'s ``flush_outputs``);
one whose polls come short while more is waiting (a file read in blocks) leaves them to fill."""
import json

from engine.runtime.io.stream_input import END_OF_INPUT_STATUS, MORE_AVAILABLE, NOTHING_AVAILABLE, SourceInput
from engine.runtime.operators.base import OperatorContext
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator


class ListedPolls:
    """A source whose polls give the listed batches, then end; caught up after a poll short of 4
    records, or as ``caught_up`` says."""

    batch_size = 4

    def __init__(self, polls, caught_up=None):
        self.polls = list(polls)
        self._caught_up = caught_up or (lambda records: records < self.batch_size)

    def poll_next(self):
        return self.polls.pop(0) if self.polls else END_OF_INPUT

    def caught_up(self, records):
        return self._caught_up(records)

    def next_poll_delay(self):
        return 0.0


def polled(polls, caught_up=None):
    """What each poll of ``polls`` led to: (status, records processed, flushes so far)."""
    processed, flushes, steps = [], [], []
    source_input = SourceInput(ListedPolls(polls, caught_up), processed.extend, timer_service=None,
                               flush_outputs=lambda: flushes.append(len(processed)))
    for _ in polls:
        steps.append((source_input.process_input(), len(processed), len(flushes)))
    return steps, flushes


def test_a_poll_with_fewer_records_than_a_batch_sends_the_buffers_after_processing_them():
    steps, flushes = polled([[1, 2, 3, 4], [5, 6, 7, 8], [9], [10, 11, 12, 13], [14, 15]])
    assert [status for status, _, _ in steps] == [MORE_AVAILABLE] * 5
    assert flushes == [9, 15]  # after the short polls' records went into the buffers, never after a full poll


def test_a_short_poll_of_a_source_that_is_not_caught_up_leaves_the_buffers_to_fill():
    steps, flushes = polled([[1, 2, 3], [4], [5, 6]], caught_up=lambda records: False)
    assert [status for status, _, _ in steps] == [MORE_AVAILABLE] * 3
    assert flushes == []


def test_an_empty_poll_leaves_the_flush_to_the_mailbox_before_it_waits():
    steps, flushes = polled([[1, 2, 3, 4], []])
    assert steps[1][0] == NOTHING_AVAILABLE
    assert flushes == []


def test_a_chain_without_output_buffers_has_nothing_to_flush():
    processed = []
    source_input = SourceInput(ListedPolls([[1]]), processed.extend, timer_service=None)
    assert source_input.process_input() == MORE_AVAILABLE
    assert processed == [1]


def context(config=None):
    return OperatorContext(task=("in", 0), node_id="in", parallelism=1, max_parallelism=8, config=config or {})


def test_a_live_source_is_caught_up_after_a_poll_short_of_its_batch():
    source = SourceOperator({"id": "in", "type": "source.test", "params": {}}, context({"batch_size": 4}))
    assert [source.caught_up(records) for records in (1, 3, 4)] == [True, True, False]


def test_a_file_source_sends_its_buffers_only_when_it_ends_though_its_polls_come_short(tmp_path):
    """Its polls give a block's lines, sized to a little under the batch: read as "caught up", every one
    of them sent every output buffer (at parallelism 2 a local push and a TCP frame per poll)."""
    from engine.runtime.operators.connectors.file_source import FileSource

    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps({"id": n, "user": f"user-{n % 7}", "note": "x" * 150}) + "\n" for n in range(5000)))
    source = FileSource({"id": "in", "type": "source.file", "params": {"path": str(path), "format": "jsonl"}},
                        context({"batch_size": 1024}))
    source.initialize_state()
    source.open()
    batches, flushes = [], []
    source_input = SourceInput(source, batches.append, timer_service=None,
                               flush_outputs=lambda: flushes.append(len(batches)))
    try:
        while source_input.process_input() != END_OF_INPUT_STATUS:
            pass
    finally:
        source.close()
    assert sum(map(len, batches)) == 5000
    assert any(len(batch) < 1024 for batch in batches[:-1]), "polls short of the batch before the last"
    assert flushes == []
