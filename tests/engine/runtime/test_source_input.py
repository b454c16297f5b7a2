"""A source that has caught up sends its output buffers at once (``SourceInput``'s ``flush_outputs``)."""
from engine.runtime.io.stream_input import MORE_AVAILABLE, NOTHING_AVAILABLE, SourceInput
from engine.runtime.operators.source import END_OF_INPUT


class ListedPolls:
    """A source whose polls give the listed batches, then end."""

    batch_size = 4

    def __init__(self, polls):
        self.polls = list(polls)

    def poll_next(self):
        return self.polls.pop(0) if self.polls else END_OF_INPUT

    def next_poll_delay(self):
        return 0.0


def polled(polls):
    """What each poll of ``polls`` led to: (status, records processed, flushes so far)."""
    processed, flushes, steps = [], [], []
    source_input = SourceInput(ListedPolls(polls), processed.extend, timer_service=None,
                               flush_outputs=lambda: flushes.append(len(processed)))
    for _ in polls:
        steps.append((source_input.process_input(), len(processed), len(flushes)))
    return steps, flushes


def test_a_poll_with_fewer_records_than_a_batch_sends_the_buffers_after_processing_them():
    steps, flushes = polled([[1, 2, 3, 4], [5, 6, 7, 8], [9], [10, 11, 12, 13], [14, 15]])
    assert [status for status, _, _ in steps] == [MORE_AVAILABLE] * 5
    assert flushes == [9, 15]  # after the short polls' records went into the buffers, never after a full poll


def test_an_empty_poll_leaves_the_flush_to_the_mailbox_before_it_waits():
    steps, flushes = polled([[1, 2, 3, 4], []])
    assert steps[1][0] == NOTHING_AVAILABLE
    assert flushes == []


def test_a_chain_without_output_buffers_has_nothing_to_flush():
    processed = []
    source_input = SourceInput(ListedPolls([[1]]), processed.extend, timer_service=None)
    assert source_input.process_input() == MORE_AVAILABLE
    assert processed == [1]
