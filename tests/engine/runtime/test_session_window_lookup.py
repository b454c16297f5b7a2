"""window.session finds the sessions a record touches by bisecting each key's sorted starts (issue #39):
it fires what a straightforward scan of every session fires, across merges, late records and restores."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime.io.events import TimestampedBatch, Watermark
from engine.runtime.operators.base import OperatorContext
from engine.runtime.operators.windows.session_window import SessionWindowOperator
from engine.spec.expressions import compile_batch_expression

FOLD = {"sum": lambda a, b: a + b, "count": lambda a, b: a + b, "min": min, "max": max}


def session_operator(gap: int, function: str, restore_from=None) -> tuple[SessionWindowOperator, list]:
    node = {"id": "s", "type": "window.session", "params": {"gap_ms": gap, "function": function, "value": 'x["v"]'}}
    context = OperatorContext(task=("s", 0), node_id="s", parallelism=1, max_parallelism=8, config={},
                              batch_key_function=compile_batch_expression('x["k"]'))
    operator = SessionWindowOperator(node, context)
    if restore_from is not None:  # the key groups a checkpoint holds, loaded before the states register
        context.keyed_state().restore(restore_from.context.keyed_state().snapshot().by_key_group())
    operator.initialize_state()
    fired: list = []
    operator.emit = lambda batch: fired.extend(batch)
    return operator, fired


class Reference:
    """Every key's sessions in a list, scanned whole for each record."""

    def __init__(self, gap: int, function: str):
        self.gap, self.function, self.watermark = gap, function, -(2 ** 62)
        self.sessions: dict = {}
        self.late = 0

    def add(self, k, v, t):
        v = 1 if self.function == "count" else v
        mine = self.sessions.setdefault(k, [])
        touched = [s for s in mine if s[0] <= t + self.gap and s[1] >= t]
        if not touched and t + self.gap - 1 <= self.watermark:
            self.late += 1
            return
        start, end, acc = t, t + self.gap, v
        for s in touched:
            mine.remove(s)
            start, end, acc = min(start, s[0]), max(end, s[1]), FOLD[self.function](acc, s[2])
        mine.append([start, end, acc])

    def advance(self, watermark: int) -> list:
        self.watermark = max(self.watermark, watermark)
        out = []
        for k, mine in self.sessions.items():
            out += [[k, s, e, acc] for s, e, acc in mine if e - 1 <= self.watermark]
            mine[:] = [s for s in mine if s[1] - 1 > self.watermark]
        return out


@st.composite
def skewed_events(draw):
    """Two sources' clocks apart (event-time skew), small keys, some far-back records (late or bridging)."""
    steps = draw(st.lists(st.tuples(st.sampled_from(["a", "b", 3]), st.integers(-20, 20), st.integers(0, 30),
                                    st.sampled_from([0, 0, 0, -150, -400])), min_size=1, max_size=120))
    events, clocks = [], [0, 500]
    for i, (key, value, step, back) in enumerate(steps):
        clocks[i % 2] += step
        events.append({"k": key, "v": value, "t": max(0, clocks[i % 2] + back)})
    return events


@settings(max_examples=60, deadline=None)
@given(events=skewed_events(), gap=st.sampled_from([1, 10, 40]),
       function=st.sampled_from(["sum", "count", "min", "max"]), batch_size=st.integers(1, 25),
       disorder=st.sampled_from([0, 100, 700]), restore_at=st.integers(0, 6))
def test_bisected_sessions_fire_what_a_scan_of_every_session_fires(events, gap, function, batch_size, disorder,
                                                                  restore_at):
    operator, fired = session_operator(gap, function)
    reference, expected = Reference(gap, function), []
    highest = late_before = 0
    for n, i in enumerate(range(0, len(events), batch_size)):
        if n == restore_at:  # restored from a snapshot: the index is rebuilt from the sessions
            late_before += operator.late_records  # a metric, not state: it starts again at 0
            operator, refired = session_operator(gap, function, restore_from=operator)
            refired[:0], fired = fired, refired
            operator.process_watermark(Watermark(reference.watermark))
        part = events[i:i + batch_size]
        operator.process_batch(TimestampedBatch(part, [e["t"] for e in part]))
        for e in part:
            reference.add(e["k"], e["v"], e["t"])
        highest = max(highest, *(e["t"] for e in part))
        operator.process_watermark(Watermark(highest - disorder))
        expected += reference.advance(highest - disorder)
        assert operator._starts == {k: sorted(mine) for k, mine in operator.sessions.entries.items()}
        assert sorted(fired, key=repr) == sorted(expected, key=repr)
    operator.finish_keys()
    expected += reference.advance(2 ** 62)
    assert sorted(fired, key=repr) == sorted(expected, key=repr)
    assert late_before + operator.late_records == reference.late
    assert not operator.sessions.entries and not operator._starts


def test_a_fired_session_carries_its_end_minus_one_even_when_it_grew_after_its_timer_was_set():
    """The timer of a session is set at its first end; a record that extends it moves no timer. A
    watermark past both ends fires the old timer: the window's time is still its own end - 1."""
    operator, _ = session_operator(gap=10, function="sum")
    emitted: list[TimestampedBatch] = []
    operator.emit = emitted.append
    operator.process_batch(TimestampedBatch([{"k": "a", "v": 1, "t": 0}], [0]))  # session [0, 10), timer at 9
    operator.process_batch(TimestampedBatch([{"k": "a", "v": 2, "t": 5}], [5]))  # grows to [0, 15)
    operator.process_watermark(Watermark(100))
    [batch] = emitted
    assert list(batch) == [["a", 0, 15, 3]]
    assert list(batch.timestamps) == [14]
