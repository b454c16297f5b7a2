"""Maps and filters fused in a chain: the same records, counts, taps and errors as one by one."""
from __future__ import annotations

import pytest

from engine.runtime.io.events import TimestampedBatch
from engine.runtime.operator_chain import OperatorChain
from engine.runtime.operators.base import StreamOperator
from engine.runtime.operators.transform import FilterOperator, MapOperator
from engine.runtime.stream_task import _failing_operator


class Collect(StreamOperator):
    """The chain's end: keeps what reaches it."""

    def __init__(self):
        super().__init__({"id": "collect"}, context=None)
        self.batches: list = []

    def process_batch(self, batch):
        self.batches.append(batch)
        self.emit(batch)


def step(node_id: str, kind: str, source: str) -> StreamOperator:
    if kind == "map":
        return MapOperator({"id": node_id, "type": "transform.map", "params": {"expression": source}}, None)
    return FilterOperator({"id": node_id, "type": "transform.filter", "params": {"predicate": source}}, None)


def chain_of(tap_points=None, predicate: str = "x % 2 == 0"):
    """triple, plus_one, even (a run of two maps and a filter), then halve (a map alone) and collect."""
    operators = [step("triple", "map", "x * 3"), step("plus_one", "map", "x + 1"),
                 step("even", "filter", predicate), step("halve", "map", "x // 2"), Collect()]
    return OperatorChain(operators, writers={}, tap_points=tap_points), operators


def test_a_fused_run_gives_the_records_and_counts_of_its_operators_one_by_one():
    chain, (triple, plus_one, even, halve, collect) = chain_of()
    plus_one.mapped = even.kept = None  # called one by one, these would fail: the run must not call them
    triple.process_batch(list(range(10)))
    triple.process_batch([])
    triple.process_batch(list(range(10, 16)))
    expected = [(3 * x + 1) // 2 for x in range(16) if (3 * x + 1) % 2 == 0]
    assert [record for batch in collect.batches for record in batch] == expected
    metrics = chain.per_operator_metrics(16, None)
    assert {node: (values["records_in"], values["records_out"]) for node, values in metrics.items()} == {
        "triple": (16, 16), "plus_one": (16, 16), "even": (16, 8), "halve": (8, 8), "collect": (8, 8)}


def test_batches_with_event_times_go_through_the_operators_one_by_one():
    chain, (triple, _, _, _, collect) = chain_of()
    triple.process_batch(TimestampedBatch([1, 2, 3], [10, 20, 30]))
    assert collect.batches == [[2, 5]] and collect.batches[0].timestamps == [10, 30]


class OpenTap:
    """A tap point with a tap open: records each batch it is offered."""

    open = True

    def __init__(self):
        self.offered: list = []

    def offer(self, batch):
        self.offered.append(list(batch))


def test_a_tap_open_inside_the_run_sees_that_operators_output():
    tap = OpenTap()
    chain, (triple, _, _, _, collect) = chain_of(tap_points={"plus_one": tap})
    triple.process_batch([1, 2, 3])
    assert tap.offered == [[4, 7, 10]]
    tap.open = False
    triple.process_batch([5])
    assert tap.offered == [[4, 7, 10]] and collect.batches == [[2, 5], [8]]


def test_an_expression_failing_in_a_fused_run_fails_from_its_own_operator():
    chain, (triple, _, even, _, collect) = chain_of(predicate="1 // (x - 7) > 0")  # x - 7 is 0 for the record 2
    with pytest.raises(ZeroDivisionError) as raised:
        triple.process_batch([3, 2, 1])
    assert _failing_operator(raised.value) is even
    assert collect.batches == []


def test_a_map_whose_guards_need_temporaries_is_not_fused_and_still_right():
    """``x * x`` is guarded with a temporary (``:=``), which a comprehension's iterable may not hold."""
    operators = [step("square", "map", "x * x % 97"), step("odd", "filter", "x % 2 == 1"), Collect()]
    chain = OperatorChain(operators, writers={})
    operators[0].process_batch(list(range(20)))
    assert operators[2].batches == [[x * x % 97 for x in range(20) if x * x % 97 % 2 == 1]]
    assert chain.per_operator_metrics(20, None)["odd"]["records_in"] == 20
