"""A paced datagen polls a few times a second, several records a poll, at the rate it was given.

Each poll is a timer's wake-up and a turn of the subtask's thread: at one record a poll, a run at
100 records/s spent about 20 ms of CPU a second on them (issue 40's many runs per machine).
"""
from __future__ import annotations

from engine.runtime.operators.base import OperatorContext
from engine.runtime.operators.connectors import datagen
from engine.runtime.operators.connectors.datagen import PACED_POLL_S, DatagenSource


class Clock:
    def __init__(self):
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def source(rate: float) -> DatagenSource:
    context = OperatorContext(task=("gen", 0), node_id="gen", parallelism=1, max_parallelism=64, config={})
    gen = DatagenSource({"id": "gen", "type": "source.datagen", "params": {"rate": rate}}, context)
    gen.initialize_state()
    gen.open()
    return gen


def run_polls(gen: DatagenSource, clock: Clock, seconds: float) -> tuple[int, list]:
    """Poll as the subtask does (after each ``next_poll_delay``) for ``seconds``; (polls, records)."""
    polls, records, end = 0, [], clock.now + seconds
    while True:
        clock.now += max(gen.next_poll_delay(), 1e-6)
        if clock.now > end:
            return polls, records
        polls += 1
        records += list(gen.poll_next())


def test_a_source_at_100_records_a_second_polls_20_times_a_second_and_keeps_its_rate(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(datagen, "time", clock)
    gen = source(100)
    polls, records = run_polls(gen, clock, 10.0)
    assert polls <= 10 / PACED_POLL_S + 1  # was one poll a record: 1,000
    assert 995 <= len(records) <= 1000
    assert records == list(range(len(records)))


def test_a_slow_source_still_polls_once_a_record(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(datagen, "time", clock)
    gen = source(2)
    polls, records = run_polls(gen, clock, 10.0)
    assert polls == len(records) == 20
