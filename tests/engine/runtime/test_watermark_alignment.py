"""Watermark alignment (``engine.runtime.watermark_alignment``): the group's bound, a subtask's
pause and resume, the source input that stops polling, and the coordinators that route reports.

All in process and stepped by hand: a fake clock, reports delivered synchronously."""
from __future__ import annotations

import copy

from engine.api import normalise_definition
from engine.cluster.operator_coordinators import OperatorCoordinators
from engine.plan.job_graph import build_job_graph
from engine.runtime.io.stream_input import MORE_AVAILABLE, NOTHING_AVAILABLE, SourceInput
from engine.runtime.operators.source import END_OF_INPUT
from engine.runtime.watermark_alignment import (ACTIVE, AUTO_DRIFT_MS, SESSION_AUTO_DRIFT_MS, FINISHED, HOLD, IDLE, AlignmentSettings,
                                                SourceAlignment, WatermarkAlignmentGroup, aligned_sources)

A, B, C = ("src", 0), ("src", 1), ("src", 2)
DRIFT = 1000


def group_of(*members, drift=DRIFT):
    return WatermarkAlignmentGroup("g", {member: drift for member in members})


# -- the group's bound --------------------------------------------------------------------------

def test_the_bound_is_the_least_active_watermark_plus_the_drift():
    group = group_of(A, B, C)
    group.report(C, None, ACTIVE, False)
    assert group.report(A, 5_000, ACTIVE, False) == (HOLD, [])  # B has not said where it is yet
    assert group.report(B, 2_000, ACTIVE, False) == (3_000, [])
    assert group.bound(A) == 3_000


def test_until_every_member_reported_the_bound_holds_everyone_at_their_first_watermark():
    group = group_of(A, B)
    assert group.report(A, 5_000, ACTIVE, True) == (HOLD, [])
    assert group.report(B, 2_000, ACTIVE, False) == (3_000, [])  # A waits on: 3,000 is not past its 5,000
    assert group.report(B, 4_800, ACTIVE, False) == (5_800, [(A, 5_800)])


def test_members_without_a_watermark_idle_or_finished_hold_nobody_back():
    group = group_of(A, B, C)
    group.report(A, 9_000, ACTIVE, False)
    group.report(B, None, ACTIVE, False)  # read nothing yet (no split, say)
    group.report(C, 100, IDLE, False)
    assert group.bound(A) == 10_000
    group.report(A, None, FINISHED, False)
    assert group.bound(B) is None  # no active member with a watermark: no bound


def test_a_report_that_moves_the_bound_wakes_the_paused_members_it_lets_go_on():
    group = group_of(A, B, C)
    group.report(A, 0, ACTIVE, False)
    group.report(B, 1_500, ACTIVE, True)  # paused: 1,500 is past 0 + 1,000
    assert group.report(C, 2_200, ACTIVE, True) == (1_000, [])
    # A reaches 700: B's bound 1,700 is 200 past its 1,500, less than a quarter of the drift
    assert group.report(A, 700, ACTIVE, False) == (1_700, [])
    # at 800 B may read 300 further (a quarter of the drift and more); C not yet
    assert group.report(A, 800, ACTIVE, False) == (1_800, [(B, 1_800)])
    assert group.report(A, 900, ACTIVE, False) == (1_900, [])  # B was woken once, C still waits
    bound, wakes = group.report(A, None, FINISHED, False)
    assert wakes == [(C, 2_500)]  # the least active watermark is B's now


def test_a_restarted_member_is_forgotten_and_holds_the_group_until_it_reports_again():
    group = group_of(A, B)
    group.report(A, 0, ACTIVE, False)
    group.report(B, 5_000, ACTIVE, True)
    assert group.forget([A]) == []
    assert group.bound(B) == HOLD
    assert group.report(A, 4_700, ACTIVE, False) == (5_700, [(B, 5_700)])


# -- a subtask's side ---------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Subtask:
    """A source subtask's alignment with a watermark set by hand and its reports recorded."""

    def __init__(self, drift=DRIFT, interval_ms=10):
        self.watermark = None
        self.idle = False
        self.sent = []
        self.clock = Clock()
        self.alignment = SourceAlignment(AlignmentSettings(drift, "g", interval_ms), lambda: self.watermark,
                                         lambda: self.idle, self.sent.append, self.clock)

    def reads_up_to(self, watermark):
        self.watermark = watermark
        self.alignment.after_batch()


def test_a_subtask_pauses_past_its_bound_and_says_so_at_once():
    subtask = Subtask()
    subtask.alignment.on_bound(2_000)
    subtask.reads_up_to(1_500)
    assert not subtask.alignment.paused
    subtask.reads_up_to(2_100)  # within the update interval of the last report, but past the bound
    assert subtask.alignment.paused
    assert subtask.sent[-1] == {"kind": "watermark", "watermark": 2_100, "status": ACTIVE, "paused": True}


def test_a_paused_subtask_resumes_when_the_bound_passed_its_resume_point():
    subtask = Subtask()
    subtask.alignment.on_bound(2_000)
    subtask.reads_up_to(2_100)
    resumed = []
    subtask.alignment.when_resumed(lambda: resumed.append(True))
    subtask.alignment.on_bound(2_200)  # 100 past: less than a quarter of the drift
    assert subtask.alignment.paused and not resumed
    subtask.alignment.on_bound(2_350)
    assert not subtask.alignment.paused and resumed == [True]
    subtask.alignment.when_resumed(lambda: resumed.append("at once"))
    assert resumed == [True, "at once"]


def test_a_subtask_waits_after_its_first_batch_for_the_coordinators_first_answer():
    subtask = Subtask()
    subtask.reads_up_to(100)
    assert subtask.alignment.paused and subtask.sent[-1]["paused"]
    subtask.alignment.on_bound(None)  # a group with nobody else active yet
    assert not subtask.alignment.paused


def test_a_watermark_that_moved_is_reported_at_most_every_update_interval():
    subtask = Subtask(interval_ms=10)
    subtask.alignment.on_bound(None)
    subtask.reads_up_to(100)
    subtask.reads_up_to(200)
    subtask.clock.now = 0.005
    subtask.reads_up_to(300)
    assert [event["watermark"] for event in subtask.sent] == [100]
    subtask.clock.now = 0.011
    subtask.reads_up_to(300)
    subtask.reads_up_to(300)
    assert [event["watermark"] for event in subtask.sent] == [100, 300]


def test_keep_alive_reports_a_change_of_idleness_and_asks_again_while_paused():
    subtask = Subtask()
    subtask.alignment.on_bound(None)
    subtask.reads_up_to(100)
    subtask.alignment.keep_alive()
    assert len(subtask.sent) == 1  # nothing changed
    subtask.idle = True
    subtask.alignment.keep_alive()
    assert subtask.sent[-1]["status"] == IDLE
    subtask.idle = False
    subtask.alignment.on_bound(50)
    subtask.reads_up_to(200)
    count = len(subtask.sent)
    subtask.alignment.keep_alive()
    assert len(subtask.sent) == count + 1 and subtask.sent[-1]["paused"]


def test_the_end_of_data_releases_the_group_and_a_waiting_subtask():
    subtask = Subtask()
    subtask.alignment.on_bound(0)
    subtask.reads_up_to(5_000)
    resumed = []
    subtask.alignment.when_resumed(lambda: resumed.append(True))
    subtask.alignment.finish()
    subtask.alignment.finish()
    assert resumed == [True] and not subtask.alignment.paused
    assert [event["status"] for event in subtask.sent].count(FINISHED) == 1
    subtask.alignment.on_bound(0)
    subtask.reads_up_to(9_000)
    assert not subtask.alignment.paused  # a finished subtask never pauses


def test_two_subtasks_reading_at_different_event_time_speeds_stay_within_the_drift_and_both_end():
    """B's event time runs three times as fast as A's; they read in turns. B pauses and waits for A,
    which is never paused (it holds the least watermark), until A ends and lets B finish."""
    group = group_of(A, B)
    subtasks = {A: Subtask(), B: Subtask()}
    for member, subtask in subtasks.items():
        def send(event, member=member):
            bound, wakes = group.report(member, event["watermark"], event["status"], event["paused"])
            subtask.alignment.on_bound(bound)
            for woken, woken_bound in wakes:
                subtasks[woken].alignment.on_bound(woken_bound)
        subtask.sent = []
        subtask.alignment._send = send
    position = {A: 0, B: 0}
    speed = {A: 10, B: 30}
    spreads = []
    for step in range(2_000):
        for member, subtask in subtasks.items():
            subtask.clock.now = step * 0.001
            if subtask.alignment.paused or subtask.alignment.finished:
                continue
            position[member] += speed[member]
            subtask.reads_up_to(position[member])
            if member == A and position[A] >= 10_000:
                subtask.alignment.finish()
        if not subtasks[A].alignment.finished:
            spreads.append(position[B] - position[A])
    assert subtasks[A].alignment.pauses <= 1  # at its first batch, until B said where it is
    assert subtasks[B].alignment.pauses > 10
    assert max(spreads) <= DRIFT + speed[B]  # one batch past the bound at most
    assert not subtasks[B].alignment.paused  # A's end released it
    assert position[B] > 20_000


# -- the source input ---------------------------------------------------------------------------

class Polls:
    batch_size = 2

    def __init__(self, polls):
        self.polls = list(polls)

    def poll_next(self):
        return self.polls.pop(0) if self.polls else END_OF_INPUT

    def next_poll_delay(self):
        return 0.0


def test_a_paused_source_is_not_polled_and_resumes_through_the_alignment():
    subtask = Subtask()
    processed = []
    source_input = SourceInput(Polls([[1, 2], [3, 4]]), processed.extend, timer_service=None,
                               alignment=subtask.alignment)
    subtask.alignment.on_bound(1_000)
    subtask.watermark = 2_000  # what the chain's watermark node says after this batch
    assert source_input.process_input() == MORE_AVAILABLE
    assert subtask.alignment.paused
    assert source_input.process_input() == NOTHING_AVAILABLE
    assert processed == [1, 2]
    resumed = []
    source_input.when_available(lambda: resumed.append(True))
    assert resumed == []
    subtask.alignment.on_bound(3_000)
    assert resumed == [True]
    assert source_input.process_input() == MORE_AVAILABLE and processed == [1, 2, 3, 4]
    assert source_input.metrics()["alignment_pauses"] == 1


def test_a_source_that_read_nothing_for_a_while_holds_nobody_back_until_it_reads_again():
    subtask = Subtask()
    subtask.alignment.on_bound(None)
    source_input = SourceInput(Polls([[1, 2], [], [3, 4]]), [].extend, timer_service=None,
                               alignment=subtask.alignment)
    subtask.watermark = 500
    source_input.process_input()
    assert source_input.process_input() == NOTHING_AVAILABLE
    subtask.clock.now = 0.1
    subtask.alignment.keep_alive()
    assert subtask.sent[-1]["status"] == ACTIVE  # a rate limit's wait, or a split on its way, for all we know
    subtask.clock.now = 0.25
    subtask.alignment.keep_alive()
    assert subtask.sent[-1]["status"] == IDLE
    subtask.watermark = 600
    subtask.clock.now = 1.0
    source_input.process_input()
    assert subtask.sent[-1] == {"kind": "watermark", "watermark": 600, "status": ACTIVE, "paused": False}


def test_a_source_at_its_end_tells_the_group():
    subtask = Subtask()
    source_input = SourceInput(Polls([]), [].extend, timer_service=None, alignment=subtask.alignment)
    source_input.process_input()
    assert subtask.sent[-1]["status"] == FINISHED


def test_a_paced_source_that_is_also_paused_waits_for_both():
    subtask = Subtask()
    processed = []
    source_input = SourceInput(Polls([[1, 2], [3, 4], [5, 6]]), processed.extend, timer_service=None,
                               records_per_checkpoint=2, alignment=subtask.alignment)
    subtask.alignment.on_bound(0)
    subtask.watermark = 100
    assert source_input.process_input() == MORE_AVAILABLE  # paced now, and paused
    resumed = []
    source_input.when_available(lambda: resumed.append("checkpoint"))
    source_input.checkpoint_taken()
    assert resumed == ["checkpoint"]
    assert source_input.process_input() == NOTHING_AVAILABLE  # still paused by the alignment
    source_input.when_available(lambda: resumed.append("aligned"))
    subtask.alignment.on_bound(10_000)
    assert resumed == ["checkpoint", "aligned"]
    assert source_input.process_input() == MORE_AVAILABLE and processed == [1, 2, 3, 4]


# -- the coordinators ---------------------------------------------------------------------------

def aligned_job(parallelism=2, drift=DRIFT, group=""):
    return normalise_definition({
        "format": 1, "name": "aligned", "parallelism": parallelism,
        "nodes": [
            {"id": "src", "type": "source.datagen", "params": {"count": 10, "expression": '{"ts": x}'}},
            {"id": "time", "type": "transform.watermark",
             "params": {"timestamp": 'x["ts"]', "alignment_max_drift_ms": drift, "alignment_group": group}},
            {"id": "out", "type": "sink.collect"},
        ],
        "edges": [{"id": "e1", "from": "src", "to": "time"},
                  {"id": "e2", "from": "time", "to": "out", "partitioning": "rebalance"}],
    })


class Slot:
    def __init__(self):
        self.delivered = []

    def deliver_operator_event(self, task, node_id, event):
        self.delivered.append((tuple(task), node_id, event))


def test_only_groups_of_more_than_one_source_subtask_are_aligned():
    assert set(aligned_sources(build_job_graph(aligned_job()))) == {"time"}
    assert aligned_sources(build_job_graph(aligned_job(parallelism=1))) == {}
    assert aligned_sources(build_job_graph(aligned_job(drift=0))) == {}


def test_without_a_drift_a_backfill_from_files_into_sessions_is_aligned_and_nothing_else_is(tmp_path):
    def job(source_type, window_type):
        definition = aligned_job(drift=None)
        if source_type == "source.file":
            definition["nodes"][0] = {"id": "src", "type": "source.file", "parallelism": 2,
                                      "params": {"path": str(tmp_path), "format": "jsonl", "split_bytes": 4 << 20}}
        definition["nodes"].append({"id": "w", "type": window_type, "parallelism": 2,
                                    "params": {"gap_ms": 100} if window_type == "window.session" else {"size_ms": 100}})
        definition["nodes"].append({"id": "w_out", "type": "sink.collect", "parallelism": 2})
        definition["edges"] += [{"id": "e3", "from": "time", "to": "w", "partitioning": "hash", "key": "x",
                                 "exchange": "pipelined"},
                                {"id": "e4", "from": "w", "to": "w_out"}]
        return normalise_definition(definition)

    members = aligned_sources(build_job_graph(job("source.file", "window.session")))["time"]
    assert {settings.max_drift_ms for _, settings in members.values()} == {SESSION_AUTO_DRIFT_MS}
    joined = job("source.file", "window.session")
    joined["nodes"] += [{"id": "j", "type": "join.window", "parallelism": 2, "params": {"size_ms": 100}},
                        {"id": "j_out", "type": "sink.collect", "parallelism": 2}]
    joined["edges"] += [{"id": "e5", "from": "time", "to": "j", "partitioning": "hash", "key": "x", "side": "left",
                         "exchange": "pipelined"},
                        {"id": "e6", "from": "time", "to": "j", "partitioning": "hash", "key": "x", "side": "right",
                         "exchange": "pipelined"},
                        {"id": "e7", "from": "j", "to": "j_out"}]
    members = aligned_sources(build_job_graph(normalise_definition(joined)))["time"]
    assert {settings.max_drift_ms for _, settings in members.values()} == {AUTO_DRIFT_MS}  # a join's buffers: 30 s
    assert aligned_sources(build_job_graph(job("source.datagen", "window.session"))) == {}  # not a backfill
    assert aligned_sources(build_job_graph(job("source.file", "window.tumbling"))) == {}  # partials: cheap skew
    off = job("source.file", "window.session")
    off["nodes"][1]["params"]["alignment_max_drift_ms"] = 0
    assert aligned_sources(build_job_graph(off)) == {}


def test_the_coordinators_answer_a_report_with_its_bound_and_wake_the_paused():
    graph = build_job_graph(aligned_job())
    vertex = graph.vertices[0].id
    slot = Slot()
    coordinators = OperatorCoordinators(graph, None, lambda task: slot)
    assert coordinators
    current = lambda: True
    coordinators.handle_event((vertex, 1), "time", {"kind": "watermark", "watermark": 5_000, "status": ACTIVE,
                                                    "paused": False}, current)
    coordinators.handle_event((vertex, 0), "time", {"kind": "watermark", "watermark": 0, "status": ACTIVE,
                                                    "paused": False}, current)
    coordinators.handle_event((vertex, 1), "time", {"kind": "watermark", "watermark": 5_000, "status": ACTIVE,
                                                    "paused": True}, current)
    assert slot.delivered[-1] == ((vertex, 1), "time", {"kind": "watermark_bound", "bound": 1_000})
    slot.delivered.clear()
    coordinators.handle_event((vertex, 0), "watermark", {"kind": "watermark", "watermark": 4_500,
                                                         "status": ACTIVE, "paused": False}, current)
    assert slot.delivered == []  # not its watermark node: nobody's coordinator
    coordinators.handle_event((vertex, 0), "time", {"kind": "watermark", "watermark": 4_500, "status": ACTIVE,
                                                    "paused": False}, lambda: False)
    assert slot.delivered == []  # a report of an attempt being restarted is dropped
    coordinators.handle_event((vertex, 0), "time", {"kind": "watermark", "watermark": 4_500, "status": ACTIVE,
                                                    "paused": False}, current)
    assert slot.delivered == [((vertex, 0), "time", {"kind": "watermark_bound", "bound": 5_500}),
                              ((vertex, 1), "time", {"kind": "watermark_bound", "bound": 5_500})]
    assert coordinators.alignment_figures() == {"time": {"minimum": 4_500, "paused": 0, "most_ahead": 5_000}}


def test_a_restart_forgets_the_restarted_members_reports():
    graph = build_job_graph(aligned_job())
    vertex = graph.vertices[0].id
    slot = Slot()
    coordinators = OperatorCoordinators(graph, None, lambda task: slot)
    current = lambda: True
    coordinators.handle_event((vertex, 0), "time", {"kind": "watermark", "watermark": 0, "status": ACTIVE,
                                                    "paused": False}, current)
    coordinators.handle_event((vertex, 1), "time", {"kind": "watermark", "watermark": 9_000, "status": ACTIVE,
                                                    "paused": True}, current)
    slot.delivered.clear()
    coordinators.subtasks_reset([(vertex, 0)], None)
    assert slot.delivered == []  # held until the restarted subtask says where it is
    coordinators.handle_event((vertex, 0), "time", {"kind": "watermark", "watermark": 8_500, "status": ACTIVE,
                                                    "paused": False}, current)
    assert slot.delivered == [((vertex, 0), "time", {"kind": "watermark_bound", "bound": 9_500}),
                              ((vertex, 1), "time", {"kind": "watermark_bound", "bound": 9_500})]


def test_a_malformed_report_is_answered_with_an_error_not_a_crash():
    graph = build_job_graph(aligned_job())
    vertex = graph.vertices[0].id
    slot = Slot()
    coordinators = OperatorCoordinators(graph, None, lambda task: slot)
    coordinators.handle_event((vertex, 0), "time", {"kind": "watermark", "watermark": "soon", "status": ACTIVE,
                                                    "paused": False}, lambda: True)
    assert slot.delivered[-1][2]["kind"] == "error"
