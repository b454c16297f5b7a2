"""Per-operator metrics: every operator of a chain counts its own records in and out and knows
its input watermark, so a filter inside a chain no longer shows the chain's input as its own."""
from __future__ import annotations

from engine.runtime.io.events import MAX_WATERMARK, Watermark
from engine.runtime.operator_chain import OperatorChain
from engine.runtime.operators.base import StreamOperator

RECORDS = 1000


class Keep(StreamOperator):
    """A filter without a definition: keeps what ``predicate`` accepts."""

    def __init__(self, node_id: str, predicate):
        super().__init__({"id": node_id}, context=None)
        self.predicate = predicate

    def process_batch(self, batch):
        self.emit([x for x in batch if self.predicate(x)])


def test_each_operator_in_a_chain_counts_its_own_input_output_and_watermark():
    first, halve, last = Keep("all", lambda x: True), Keep("even", lambda x: x % 2 == 0), Keep("sink", lambda x: False)
    chain = OperatorChain([first, halve, last], writers={})
    first.process_batch(list(range(10)))
    first.process_batch(list(range(10, 16)))
    assert chain.per_operator_metrics(16, None) == {
        "all": {"records_in": 16, "records_out": 16, "watermark": None},
        "even": {"records_in": 16, "records_out": 8, "watermark": None},
        "sink": {"records_in": 8, "records_out": 0, "watermark": None},
    }
    first.emit_watermark(Watermark(42))  # the default process_watermark passes it on
    assert {node: values["watermark"] for node, values in chain.per_operator_metrics(16, 50).items()} == {
        "all": 50, "even": 42, "sink": 42}


def halving_chain(parallelism: int = 2) -> dict:
    """gen -> time -> triple -> even (drops half) -> out, all chained; out alone in a second vertex."""
    return {
        "format": 1, "name": "halving", "parallelism": parallelism, "max_parallelism": 64,
        "checkpointing": {"interval_ms": 200}, "restart": {"strategy": "none"},
        "nodes": [
            {"id": "gen", "type": "source.datagen", "params": {"count": RECORDS}},
            {"id": "time", "type": "transform.watermark", "params": {"timestamp": "x"}},
            {"id": "triple", "type": "transform.map", "params": {"expression": "x * 3"}},
            {"id": "even", "type": "transform.filter", "params": {"predicate": "x % 2 == 0"}},
            {"id": "out", "type": "sink.collect", "params": {"max_records": 10 * RECORDS}, "parallelism": 1},
        ],
        "edges": [
            {"id": "e1", "from": "gen", "to": "time"}, {"id": "e2", "from": "time", "to": "triple"},
            {"id": "e3", "from": "triple", "to": "even"},
            {"id": "e4", "from": "even", "to": "out", "partitioning": "rebalance"},
        ],
    }


def test_a_filter_in_a_chain_reports_half_its_input_as_output(deployment, tmp_path):
    handle = deployment.submit(halving_chain(), checkpoint_dir=str(tmp_path))
    result = handle.wait(120)
    assert result.status == "FINISHED", result.failure
    tasks = handle.metrics()  # the final report of every subtask
    assert sorted(tasks) == ["gen#0", "gen#1", "out#0"]

    def total(node: str, counter: str) -> int:
        return sum(values["operators"][node][counter] for values in tasks.values() if node in values["operators"])

    assert total("gen", "records_out") == RECORDS
    for node in ("time", "triple", "even"):
        assert total(node, "records_in") == RECORDS, node
    assert total("triple", "records_out") == RECORDS
    assert total("even", "records_out") == RECORDS // 2  # 3x is even for every even x
    assert total("out", "records_in") == RECORDS // 2 == len(result.collected["out"])
    assert total("out", "records_out") == 0
    for name in ("gen#0", "gen#1"):  # per subtask, in of each operator = out of its predecessor
        operators = tasks[name]["operators"]
        assert list(operators) == ["gen", "time", "triple", "even"]
        assert operators["time"]["records_in"] == operators["gen"]["records_out"] == tasks[name]["records_in"]
        assert operators["even"]["records_in"] == operators["triple"]["records_out"]
        assert operators["even"]["records_out"] == tasks[name]["records_out"]
        # after the end of input every operator saw the final watermark
        assert operators["triple"]["watermark"] == operators["even"]["watermark"] == MAX_WATERMARK.timestamp
    assert tasks["out#0"]["operators"]["out"]["watermark"] == MAX_WATERMARK.timestamp


WINDOWED = 20_000


def windowed(late_port: bool) -> dict:
    """gen -> time (two records of every 1000 arrive a minute late) -> a tumbling count per key -> out.

    Without an edge from its late port the window is fed partial aggregates (``window_partials``);
    with one it gets the records themselves."""
    nodes = [
        {"id": "gen", "type": "source.datagen", "params": {"count": WINDOWED}},
        {"id": "time", "type": "transform.watermark",
         "params": {"timestamp": "x * 10 - (60000 if x % 1000 >= 998 else 0)", "max_out_of_orderness_ms": 0}},
        {"id": "win", "type": "window.tumbling", "params": {"size_ms": 500, "function": "count"}},
        {"id": "out", "type": "sink.collect", "params": {"max_records": WINDOWED}},
    ]
    edges = [{"id": "e1", "from": "gen", "to": "time"},
             {"id": "e2", "from": "time", "to": "win", "partitioning": "hash", "key": "x % 3"},
             {"id": "e3", "from": "win", "to": "out"}]
    if late_port:
        nodes.append({"id": "late", "type": "sink.collect", "params": {"max_records": WINDOWED}})
        edges.append({"id": "e4", "from": "win", "from_port": "late", "to": "late"})
    return {"format": 1, "name": "windowed", "parallelism": 2, "max_parallelism": 64,
            "checkpointing": {"interval_ms": 200}, "restart": {"strategy": "none"}, "nodes": nodes, "edges": edges}


def test_a_windows_in_is_its_upstreams_out_and_it_says_how_many_were_late(deployment, tmp_path):
    """A window's input once read lower than its upstream's output with nothing to say why: fed partial
    aggregates, it counted the partials. It counts the records they stand for, and its late ones."""
    for late_port in (False, True):
        handle = deployment.submit(windowed(late_port), checkpoint_dir=str(tmp_path / str(late_port)))
        result = handle.wait(120)
        assert result.status == "FINISHED", result.failure
        operators = [values["operators"] for values in handle.metrics().values()]

        def total(node: str, counter: str) -> int:
            return sum(figures[node].get(counter, 0) for figures in operators if node in figures)

        late = total("win", "late_records")
        assert total("time", "records_out") == total("win", "records_in") == WINDOWED, late_port
        assert 0 < late <= WINDOWED * 2 // 1000
        assert sum(record[2] for record in result.collected["out"]) == WINDOWED - late  # every other one counted
        if late_port:
            assert len(result.collected["late"]) == late and total("win", "partials_in") == 0
        else:
            assert 0 < total("win", "partials_in") < WINDOWED  # what crossed the exchange
