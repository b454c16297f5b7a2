"""A chain that fans out (``OperatorChain`` with ``chain_inputs``): each branch gets every batch,
watermark and status of its parent, counts its own records, and keeps its own ports and taps."""
from __future__ import annotations

from engine.runtime.io.events import WATERMARK_IDLE, Watermark
from engine.runtime.io.record_writer import RecordWriter
from engine.runtime.operator_chain import OperatorChain
from engine.runtime.operators.base import StreamOperator
from engine.runtime.operators.transform import FilterOperator, MapOperator


class Keep(StreamOperator):
    """A filter without a definition; records below zero go to its ``late`` port when one is bound."""

    def __init__(self, node_id: str, predicate=lambda x: True):
        super().__init__({"id": node_id}, context=None)
        self.predicate = predicate

    def process_batch(self, batch):
        late = self.side_outputs.get("late")
        if late is not None and any(x < 0 for x in batch):
            late([x for x in batch if x < 0])
            batch = [x for x in batch if x >= 0]
        self.emit([x for x in batch if self.predicate(x)])


class Channel:
    """An output channel that keeps what it was given."""

    def __init__(self):
        self.items: list = []

    def push(self, item):
        self.items.append(item)

    def records(self) -> list:
        return [record for item in self.items if isinstance(item, list) for record in item]

    def events(self) -> list:
        return [item for item in self.items if not isinstance(item, list)]


class OpenTap:
    """A tap point with a tap open: keeps the batches it was offered."""

    open = True

    def __init__(self):
        self.batches: list = []

    def offer(self, batch) -> None:
        self.batches.append(list(batch))


def writer(name: str) -> tuple[RecordWriter, Channel]:
    channel = Channel()
    return RecordWriter(name, [channel], None), channel


def test_each_branch_gets_every_batch_watermark_and_status_and_counts_its_own():
    head, even, odd = Keep("src"), Keep("even", lambda x: x % 2 == 0), Keep("odd", lambda x: x % 2 == 1)
    (even_writer, even_out), (odd_writer, odd_out) = writer("e"), writer("o")
    chain = OperatorChain([head, even, odd], {"even": [even_writer], "odd": [odd_writer]}, chain_inputs=[-1, 0, 0])
    assert chain.outputs == [[1, 2], [], []] and not chain.is_linear
    head.process_batch(list(range(10)))
    head.emit_watermark(Watermark(5))
    head.process_batch(list(range(10, 15)))
    head.emit_watermark_status(WATERMARK_IDLE)
    assert even_out.records() == [x for x in range(15) if x % 2 == 0]
    assert odd_out.records() == [x for x in range(15) if x % 2 == 1]
    for out in (even_out, odd_out):  # each branch's writer sees the watermark after the first batch only
        assert [type(item).__name__ for item in out.items] == ["list", "Watermark", "list", "WatermarkStatus"]
    assert chain.per_operator_metrics(15, 5) == {
        "src": {"records_in": 15, "records_out": 15, "watermark": 5},
        "even": {"records_in": 15, "records_out": 8, "watermark": 5},
        "odd": {"records_in": 15, "records_out": 7, "watermark": 5},
    }


def test_a_port_and_a_tap_inside_a_fan_out_chain_see_only_their_operator_output():
    """``split`` (a branch) sends its records below zero to its late port; a tap on the other branch sees
    that branch's output only; events reach the port's writer as they reach the main outputs'."""
    head, split, other = Keep("src"), Keep("split"), Keep("other", lambda x: x > 2)
    (split_writer, split_out), (late_writer, late_out), (other_writer, other_out) = (
        writer("s"), writer("l"), writer("x"))
    tap = OpenTap()
    chain = OperatorChain([head, split, other], {"split": [split_writer], "other": [other_writer]},
                          tap_points={"other": tap}, port_writers={"split": {"late": [late_writer]}},
                          chain_inputs=[-1, 0, 0])
    head.process_batch([-2, -1, 0, 1, 2, 3, 4])
    head.emit_watermark(Watermark(7))
    assert split_out.records() == [0, 1, 2, 3, 4]
    assert late_out.records() == [-2, -1]
    assert other_out.records() == [3, 4]
    assert tap.batches == [[3, 4]]
    assert [event.timestamp for event in late_out.events()] == [7]
    metrics = chain.per_operator_metrics(7, 7)
    assert (metrics["split"]["records_in"], metrics["split"]["records_out"]) == (7, 7)  # 5 main + 2 late
    assert (metrics["other"]["records_in"], metrics["other"]["records_out"]) == (7, 2)


def test_a_run_of_maps_is_not_fused_into_one_branch_of_a_fan_out():
    """``double`` feeds two filters: fused with the first, the second would never see a record."""
    def map_(node_id, source):
        return MapOperator({"id": node_id, "type": "transform.map", "params": {"expression": source}}, None)

    def filter_(node_id, source):
        return FilterOperator({"id": node_id, "type": "transform.filter", "params": {"predicate": source}}, None)

    head, double = Keep("src"), map_("double", "x * 2")
    small, large = filter_("small", "x < 10"), filter_("large", "x >= 10")
    (small_writer, small_out), (large_writer, large_out) = writer("s"), writer("l")
    OperatorChain([head, double, small, large], {"small": [small_writer], "large": [large_writer]},
                  chain_inputs=[-1, 0, 1, 1])
    head.process_batch(list(range(8)))
    assert small_out.records() == [0, 2, 4, 6, 8]
    assert large_out.records() == [10, 12, 14]


def test_chain_inputs_that_are_no_tree_listed_parent_first_are_refused():
    import pytest

    for inputs in ([0, 0], [-1, 1], [-1, 0, 2], [-1]):
        with pytest.raises(ValueError, match="do not form a tree"):
            OperatorChain([Keep("a"), Keep("b")] + ([Keep("c")] if len(inputs) == 3 else []), {},
                          chain_inputs=inputs)
