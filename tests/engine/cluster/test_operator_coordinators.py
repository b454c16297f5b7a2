"""The JobMaster's operator coordinators: answers reach the asking subtask, in order with triggers."""
from __future__ import annotations

import json

import pytest

from engine.cluster.operator_coordinators import OperatorCoordinators
from engine.plan.execution_ids import ExecutionVertexID
from engine.plan.job_graph import build_job_graph
from engine.runtime.operators.connectors.file_splits import splits_of_files


class RecordingSlot:
    def __init__(self):
        self.delivered = []

    def deliver_operator_event(self, task, node_id, event):
        self.delivered.append((tuple(task), node_id, event))


@pytest.fixture
def job_graph(tmp_path):
    (tmp_path / "in.jsonl").write_text("".join(json.dumps({"i": i}) + "\n" for i in range(500)))
    return build_job_graph({
        "format": 1, "name": "c", "parallelism": 2,
        "nodes": [{"id": "src", "type": "source.file", "params": {"path": str(tmp_path / "in.jsonl"),
                                                                   "split_bytes": 1000}},
                  {"id": "out", "type": "sink.collect"}],
        "edges": [{"id": "e", "from": "src", "to": "out", "partitioning": "rebalance"}]})


def test_only_nodes_with_a_coordinator_get_one(job_graph):
    coordinators = OperatorCoordinators(job_graph, None, lambda task: None)
    assert coordinators.has("src") and not coordinators.has("out")


def test_an_answer_for_a_slot_not_known_yet_is_delivered_when_it_is(job_graph):
    slots = {}
    coordinators = OperatorCoordinators(job_graph, None, slots.get)
    task = ExecutionVertexID("src", 1)
    coordinators.handle_event(task, "src", {"kind": "request"}, lambda: True)
    slot = RecordingSlot()
    slots[task] = slot
    assert slot.delivered == []
    coordinators.slot_running(slot, [task])
    assert [(t, node, event["kind"]) for t, node, event in slot.delivered] == [(("src", 1), "src", "splits")]
    coordinators.handle_event(task, "src", {"kind": "request"}, lambda: True)  # now straight to the slot
    assert len(slot.delivered) == 2 and slot.delivered[1][2]["splits"][0]["start"] > 0


def test_a_subtask_of_an_attempt_no_longer_current_gets_nothing_and_takes_nothing(job_graph):
    slot = RecordingSlot()
    coordinators = OperatorCoordinators(job_graph, None, lambda task: slot)
    coordinators.handle_event(ExecutionVertexID("src", 0), "src", {"kind": "request"}, lambda: False)
    coordinators.handle_event(ExecutionVertexID("src", 1), "src", {"kind": "request"}, lambda: True)
    assert [event["splits"][0]["start"] for _, _, event in slot.delivered] == [0]  # the first split is still there


def test_a_checkpoint_snapshots_and_sends_its_triggers_with_no_answer_in_between(job_graph):
    slot = RecordingSlot()
    coordinators = OperatorCoordinators(job_graph, None, lambda task: slot)
    coordinators.handle_event(ExecutionVertexID("src", 0), "src", {"kind": "request"}, lambda: True)
    held = []
    states = coordinators.checkpoint(3, lambda: held.append(coordinators._lock.locked()))
    assert held == [True]
    taken = slot.delivered[0][2]["splits"][0]
    unassigned = splits_of_files(states["src"]["files"])
    assert taken not in unassigned and unassigned[0]["start"] == taken["end"]


def test_answers_to_restarted_subtasks_are_dropped_with_the_splits_given_back(job_graph):
    coordinators = OperatorCoordinators(job_graph, None, lambda task: None)
    task = ExecutionVertexID("src", 0)
    coordinators.handle_event(task, "src", {"kind": "request"}, lambda: True)  # queued: no slot yet
    coordinators.subtasks_reset([task], None)
    slot = RecordingSlot()
    coordinators.slot_running(slot, [task])
    assert slot.delivered == []
    coordinators = OperatorCoordinators(job_graph, None, lambda task: slot)
    coordinators.handle_event(task, "src", {"kind": "request"}, lambda: True)
    assert slot.delivered[0][2]["splits"][0]["start"] == 0


def test_a_failing_coordinator_answers_with_an_error_and_the_job_master_goes_on(job_graph, monkeypatch):
    from engine.runtime.operators.connectors.file_splits import FileSplitEnumerator

    def broken(self, subtask, event):
        raise RuntimeError("broken listing")

    monkeypatch.setattr(FileSplitEnumerator, "handle_event", broken)
    slot = RecordingSlot()
    OperatorCoordinators(job_graph, None, lambda task: slot).handle_event(
        ExecutionVertexID("src", 0), "src", {"kind": "request"}, lambda: True)
    assert slot.delivered[0][2]["kind"] == "error" and "broken listing" in slot.delivered[0][2]["message"]


def test_a_split_enumerator_is_told_the_event_time_of_its_sources_chain(tmp_path):
    """Through filters (records as they are) to the watermark node; not past a map, nor across an exchange."""
    (tmp_path / "in.jsonl").write_text(json.dumps({"ts": 1}) + "\n")

    def told(middle: list[dict], partitioning: str = "forward"):
        nodes = [{"id": "src", "type": "source.file", "params": {"path": str(tmp_path / "in.jsonl")}}, *middle,
                 {"id": "time", "type": "transform.watermark", "params": {"timestamp": 'x["ts"]'}},
                 {"id": "out", "type": "sink.collect"}]
        edges = [{"id": f"e{i}", "from": a["id"], "to": b["id"], "partitioning": partitioning if i == 0 else "forward"}
                 for i, (a, b) in enumerate(zip(nodes, nodes[1:]))]
        graph = build_job_graph({"format": 1, "name": "t", "parallelism": 2, "nodes": nodes, "edges": edges})
        return OperatorCoordinators(graph, None, lambda task: None)._coordinators["src"].timestamp

    assert told([]) == 'x["ts"]'
    assert told([{"id": "keep", "type": "transform.filter", "params": {"predicate": 'x["ts"] > 0'}}]) == 'x["ts"]'
    assert told([{"id": "shape", "type": "transform.map", "params": {"expression": '{"ts": x["ts"] * 2}'}}]) is None
    assert told([], partitioning="rebalance") is None


def test_an_aligned_file_sources_splits_span_a_share_of_the_drift(tmp_path):
    from engine.cluster.operator_coordinators import SPLIT_SPAN_SHARE
    from engine.runtime.watermark_alignment import SESSION_AUTO_DRIFT_MS

    (tmp_path / "in.jsonl").write_text(json.dumps({"ts": 1}) + "\n")

    def span(downstream: str, drift: int | None, parallelism: int = 2):
        graph = build_job_graph({
            "format": 1, "name": "t", "parallelism": parallelism,
            "nodes": [{"id": "src", "type": "source.file", "params": {"path": str(tmp_path / "in.jsonl")}},
                      {"id": "time", "type": "transform.watermark",
                       "params": {"timestamp": 'x["ts"]', "alignment_max_drift_ms": drift}},
                      {"id": "w", "type": downstream, "params": {"gap_ms": 10, "size_ms": 10, "function": "count"}},
                      {"id": "out", "type": "sink.collect"}],
            "edges": [{"id": "a", "from": "src", "to": "time"},
                      {"id": "b", "from": "time", "to": "w", "partitioning": "hash", "key": 'x["ts"]'},
                      {"id": "c", "from": "w", "to": "out"}]})
        return OperatorCoordinators(graph, None, lambda task: None)._coordinators["src"].max_span_ms

    # aligned by default, with the drift of sessions alone: a backfill into sessions
    assert span("window.session", None) == SESSION_AUTO_DRIFT_MS // SPLIT_SPAN_SHARE
    # ... a bound, not a pace: splits of 15 s of event time, not the 3.75 s a 30 s drift cut
    # (a split request every few thousand events, and a pause of the subtask ahead at each split)
    assert span("window.session", None) == 15_000
    assert span("window.tumbling", 4_000) == 4_000 // SPLIT_SPAN_SHARE
    assert span("window.tumbling", None) is None  # not aligned: cut by bytes alone
    assert span("window.session", None, parallelism=1) is None  # a group of one aligns nothing
