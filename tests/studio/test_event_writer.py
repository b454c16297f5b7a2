"""Run events stored many at a time: one transaction for a batch of many runs' events (``record_events``),
and the driver process's writer that batches whatever waits while it writes (``studio.runs.event_writer``)."""
from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from studio.models import Checkpoint, Pipeline, PipelineVersion, Run, RunEvent
from studio.runs import events
from studio.runs.event_writer import EventWriter
from studio.runs.events import DriverFenced, record_event, record_events, set_status
from tests.support import simple_pipeline


def running_run(user, token: str) -> Run:
    pipeline = Pipeline.objects.create(name="p", owner=user)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, created_by=user, driver_token=token)
    set_status(run.id, "RUNNING")
    return run


def checkpoint_cycle(run_id: int, checkpoint_id: int, token: str) -> list[tuple]:
    """What the engine reports of one periodic checkpoint of two subtasks, and a metrics event."""
    stats = {"id": checkpoint_id, "kind": "checkpoint", "trigger_timestamp": 1000 + checkpoint_id, "num_subtasks": 2}
    return [(run_id, "checkpoint", {**stats, "event": "triggered", "num_acknowledged_subtasks": 0}, token),
            (run_id, "checkpoint", {**stats, "event": "acknowledged", "num_acknowledged_subtasks": 1}, token),
            (run_id, "checkpoint", {**stats, "event": "acknowledged", "num_acknowledged_subtasks": 2}, token),
            (run_id, "checkpoint", {**stats, "event": "completed", "num_acknowledged_subtasks": 2,
                                    "external_path": f"/cp/{checkpoint_id}", "state_size": 10}, token),
            (run_id, "metrics", {"vertices": {}, "collected": {"out": [checkpoint_id]}}, token)]


@pytest.mark.django_db
def test_a_batch_of_many_runs_events_is_stored_in_order_with_a_few_statements(user):
    first, second = running_run(user, "a"), running_run(user, "b")
    record_event(first.id, "checkpoint", {"id": 1, "kind": "checkpoint", "event": "triggered",
                                          "trigger_timestamp": 5, "num_subtasks": 2})
    batch = [*checkpoint_cycle(first.id, 1, "a"), *checkpoint_cycle(second.id, 1, "b"),
             *checkpoint_cycle(first.id, 2, "a"),
             (first.id, "checkpoint", {"id": 1, "kind": "checkpoint", "event": "discarded", "discarded": True}, "a"),
             (second.id, "checkpoint", {"id": 1, "kind": "checkpoint", "event": "acknowledged",
                                        "num_acknowledged_subtasks": 1}, "b")]  # late: changes nothing
    with CaptureQueriesContext(connection) as queries:
        stored = record_events(batch)
    # per event it was a transaction of 5 to 9 statements: 17 events, more than a hundred
    assert len(queries) <= 25, [query["sql"][:80] for query in queries]
    assert [event["seq"] for event in stored] == [*range(3, 8), *range(2, 7), *range(8, 13), 13, 7]
    assert RunEvent.objects.filter(run=first).count() == 2 + 11  # RUNNING and the first triggered before
    rows = {(row.run_id, row.checkpoint_id): row for row in Checkpoint.objects.all()}
    assert (rows[(first.id, 1)].status, rows[(first.id, 1)].num_acknowledged_subtasks, rows[(first.id, 1)].discarded,
            rows[(first.id, 1)].trigger_timestamp) == ("COMPLETED", 2, True, 1001)
    assert (rows[(first.id, 2)].status, rows[(first.id, 2)].external_path, rows[(first.id, 2)].discarded) == (
        "COMPLETED", "/cp/2", False)
    assert (rows[(second.id, 1)].status, rows[(second.id, 1)].num_acknowledged_subtasks) == ("COMPLETED", 2)
    first.refresh_from_db()
    assert first.collected == {"out": [2]}


@pytest.mark.django_db
def test_a_fenced_drivers_events_are_refused_and_the_others_of_the_batch_stored(user):
    mine, moved_on = running_run(user, "mine"), running_run(user, "new-driver")
    stored = record_events([(mine.id, "metrics", {"vertices": {}}, "mine"),
                            (moved_on.id, "metrics", {"vertices": {}}, "old-driver"),
                            (mine.id, "metrics", {"vertices": {}}, "mine")])
    assert [event["seq"] for event in (stored[0], stored[2])] == [2, 3]
    assert isinstance(stored[1], DriverFenced)
    assert not RunEvent.objects.filter(run=moved_on, type="metrics").exists()
    with pytest.raises(DriverFenced):
        record_event(moved_on.id, "metrics", {}, driver_token="old-driver")


@pytest.mark.django_db(transaction=True)  # the writer stores from its own thread
def test_the_writer_stores_what_waits_while_it_writes_in_one_batch_in_order(user, monkeypatch):
    run = running_run(user, "t")
    writer = EventWriter()
    writing, go_on = threading.Event(), threading.Event()
    real = events.record_events
    batches = []

    def slow_first_batch(batch):
        batches.append(len(batch))
        if len(batches) == 1:
            writing.set()
            go_on.wait(10)
        return real(batch)

    monkeypatch.setattr(events, "record_events", slow_first_batch)
    first = writer.submit(run.id, "metrics", {"n": 0}, "t")
    assert writing.wait(10)
    later = [writer.submit(run.id, "metrics", {"n": n}, "t") for n in range(1, 6)]
    go_on.set()
    assert writer.set_status(run.id, "CANCELING", driver_token="t")["seq"] == 8
    assert [future.result(10)["seq"] for future in [first, *later]] == [2, 3, 4, 5, 6, 7]
    assert batches[0] == 1 and batches[1] >= 5, "what waited went in one transaction"
    assert [event.data.get("n") for event in RunEvent.objects.filter(run=run, type="metrics")] == [0, 1, 2, 3, 4, 5]
    with pytest.raises(DriverFenced):
        writer.record(run.id, "metrics", {}, "someone-else")


def test_one_thread_takes_the_commands_of_every_run_in_the_order_each_run_was_sent_them():
    from datetime import datetime, timezone
    from types import SimpleNamespace

    from studio.runs.command_follower import CommandFollower
    from studio.runs.commands import command_key, drop_commands, send_command
    from tests.support import wait_until

    created = datetime.now(timezone.utc)
    runs = [SimpleNamespace(id=9_000_000 + n, created_at=created) for n in range(3)]
    taken: list[tuple[int, int]] = []
    follower = CommandFollower()
    try:
        for run in runs:
            follower.add(run.id, command_key(run), lambda command, run_id=run.id: taken.append((run_id, command["n"])))
        for n in range(3):
            for run in runs:
                send_command(run, {"command": "probe", "n": n})
        wait_until(lambda: len(taken) == 9, 10, "every command")
        assert [n for run_id, n in taken if run_id == runs[1].id] == [0, 1, 2]
        assert len([thread for thread in threading.enumerate() if thread.name == "commands"]) >= 1
        follower.remove(command_key(runs[0]))
        send_command(runs[0], {"command": "probe", "n": 3})
        send_command(runs[2], {"command": "probe", "n": 3})
        wait_until(lambda: (runs[2].id, 3) in taken, 10, "the command of a run still followed")
        assert (runs[0].id, 3) not in taken
    finally:
        for run in runs:
            drop_commands(run)


@pytest.mark.django_db
def test_checkpoint_progress_events_cost_the_alert_rules_no_query():
    from studio.alerts.evaluation import on_event

    with CaptureQueriesContext(connection) as queries:
        for event in ("triggered", "acknowledged", "discarded"):
            on_event(1, 1, "checkpoint", 0, {"event": event, "id": 3})
        on_event(1, 1, "startup", 0, {"driver": "session"})
    assert len(queries) == 0
    with CaptureQueriesContext(connection) as queries:
        on_event(1, 1, "checkpoint", 0, {"event": "completed", "id": 3})
    assert len(queries) == 1, "the pipeline's rules are looked at for a completed checkpoint"


@pytest.mark.django_db
def test_checkpoint_rows_changed_by_a_batch_are_written_by_one_prepared_update_and_their_runs_touched(user):
    """``bulk_update``'s one CASE per field and row was a third of a session driver's CPU with many runs: the
    rows a batch changes are written by one statement run for each row; what they hold and the change tokens
    (so no cached answer shows the old rows) are as before."""
    runs = [running_run(user, f"t{index}") for index in range(3)]
    record_events([(run.id, "checkpoint", {"id": 1, "kind": "checkpoint", "event": "triggered",
                                           "trigger_timestamp": 5, "num_subtasks": 2}, run.driver_token)
                   for run in runs])
    tokens = {run.id: Run.objects.get(pk=run.id).change_token for run in runs}
    pipeline_tokens = {run.id: Pipeline.objects.get(pk=run.pipeline_id).runs_change_token for run in runs}
    subtasks = [{"task": "gen#0", "alignment_duration": 3.5}, {"task": "sum#0", "alignment_duration": 1.0}]
    with CaptureQueriesContext(connection) as queries:
        record_events([(run.id, "checkpoint", {"id": 1, "kind": "checkpoint", "event": "completed",
                                               "num_acknowledged_subtasks": 2, "external_path": f"/cp/{run.id}",
                                               "state_size": 10 + index, "subtasks": subtasks,
                                               "end_to_end_duration": 40}, run.driver_token)
                       for index, run in enumerate(runs)])
    assert not [query["sql"] for query in queries if "CASE WHEN" in query["sql"]]
    for index, run in enumerate(runs):
        row = Checkpoint.objects.get(run=run, checkpoint_id=1)
        assert (row.status, row.num_acknowledged_subtasks, row.external_path, row.state_size, row.subtasks,
                row.alignment_duration, row.end_to_end_duration, row.trigger_timestamp) == (
            "COMPLETED", 2, f"/cp/{run.id}", 10 + index, subtasks, 3.5, 40, 5)
        assert Run.objects.get(pk=run.id).change_token != tokens[run.id]
        assert Pipeline.objects.get(pk=run.pipeline_id).runs_change_token != pipeline_tokens[run.id]


@pytest.mark.django_db(transaction=True)  # the writer stores from its own thread
def test_events_nobody_waits_for_linger_to_share_a_batch_and_one_waited_for_takes_them_at_once(user, monkeypatch):
    """A session's runs made batches of a few events each, every batch paying its fixed statements: events
    nobody waits for (metrics, checkpoint progress) wait for others (``LINGER_S``); a status is waited for
    and goes at once, with what waited before it."""
    import time

    run = running_run(user, "t")
    writer = EventWriter(linger_s=60)  # longer than the test: only the waited-for event ends the lingering
    real = events.record_events
    batches = []
    monkeypatch.setattr(events, "record_events", lambda batch: batches.append(len(batch)) or real(batch))
    submitted = []
    for n in range(5):
        submitted.append(writer.submit(run.id, "metrics", {"n": n}, "t"))
        time.sleep(0.02)  # the writer's thread has time to take each one alone: it lingers instead
    assert not any(future.done() for future in submitted)
    assert writer.set_status(run.id, "CANCELING", driver_token="t")["seq"] == 7
    assert [future.result(10)["seq"] for future in submitted] == [2, 3, 4, 5, 6]
    assert batches == [6], "the five lingering and the status in one transaction"


@pytest.mark.django_db
def test_the_collected_records_of_a_batchs_runs_are_written_in_one_statement_with_their_change_tokens(user):
    """Each session run sends its collected records with its metrics every second: written for all the batch's
    runs at once (each run with a new change token, its pipeline's run list too), not two statements a run."""
    runs = [running_run(user, f"t{index}") for index in range(3)]
    tokens = {run.id: Run.objects.get(pk=run.id).change_token for run in runs}
    pipeline_tokens = {run.id: Pipeline.objects.get(pk=run.pipeline_id).runs_change_token for run in runs}
    with CaptureQueriesContext(connection) as queries:
        record_events([(run.id, "metrics", {"vertices": {}, "collected": {"out": [run.id, n]}}, run.driver_token)
                       for n in range(2) for run in runs])
    # one statement prepared once and run for each run (Django logs it as "3 times: UPDATE ..."), one touch
    run_updates = [query["sql"] for query in queries if 'UPDATE "studio_run" SET' in query["sql"]]
    pipeline_updates = [query["sql"] for query in queries if 'UPDATE "studio_pipeline" SET' in query["sql"]]
    assert len(run_updates) == 1 and len(pipeline_updates) == 1, (run_updates, pipeline_updates)
    for run in runs:
        stored = Run.objects.get(pk=run.id)
        assert stored.collected == {"out": [run.id, 1]} and stored.change_token != tokens[run.id]
        assert stored.status_history[-1]["status"] == "RUNNING"
        assert Pipeline.objects.get(pk=run.pipeline_id).runs_change_token != pipeline_tokens[run.id]


@pytest.mark.django_db(transaction=True)  # the writer stores from its own thread
def test_a_waited_for_event_goes_ahead_of_other_runs_backlog_with_its_own_runs_events_in_order(user, monkeypatch):
    """With a hundred runs the writer fell behind, and a starting run's startup and RUNNING waited behind every
    other run's queued metrics: a waited-for event takes its run's queued events ahead of the others' backlog."""
    busy, starting = running_run(user, "busy"), running_run(user, "starting")
    writer = EventWriter(linger_s=0)
    writing, go_on = threading.Event(), threading.Event()
    real = events.record_events
    batches = []

    def slow_first_batch(batch):
        batches.append([(run_id, data.get("n")) for run_id, _, data, _ in batch])
        if len(batches) == 1:
            writing.set()
            go_on.wait(10)
        return real(batch)

    monkeypatch.setattr(events, "record_events", slow_first_batch)
    writer.submit(busy.id, "metrics", {"n": 0}, "busy")
    assert writing.wait(10)
    backlog = [writer.submit(busy.id, "metrics", {"n": n}, "busy") for n in range(1, 6)]
    own = writer.submit(starting.id, "metrics", {"n": 10}, "starting")
    status = threading.Thread(target=writer.set_status, args=(starting.id, "CANCELING"), kwargs={"driver_token": "starting"})
    status.start()
    while not writer._urgent:  # the status is queued behind the backlog
        threading.Event().wait(0.01)
    go_on.set()
    status.join(10)
    assert [future.result(10)["seq"] for future in backlog] == [3, 4, 5, 6, 7]
    assert own.result(10)["seq"] == 2
    assert batches[1] == [(starting.id, 10), (starting.id, None)], batches
    assert batches[2] == [(busy.id, n) for n in range(1, 6)]


@pytest.mark.django_db(transaction=True)
def test_a_run_followed_by_two_driver_threads_has_its_commands_taken_by_the_one_holding_its_token():
    from studio.models import Pipeline, PipelineVersion, Run
    from studio.runs.command_follower import CommandFollower
    from studio.runs.commands import command_key, drop_commands, send_command
    from tests.support import simple_pipeline, wait_until

    pipeline = Pipeline.objects.create(name="p")
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run = Run.objects.create(pipeline=pipeline, version=version, driver_token="new")  # fenced "old", handed back
    key, taken = command_key(run), []

    def new(command):
        taken.append(("new", command["n"]))

    def old(command):
        taken.append(("old", command["n"]))

    follower = CommandFollower()
    try:
        follower.add(run.id, key, new, "new")
        follower.add(run.id, key, old, "old")  # the fenced thread got there last
        send_command(run, {"command": "probe", "n": 1})
        wait_until(lambda: taken, 10, "the command")
        assert not follower.remove(key, old), "the later thread still follows the list: it is not dropped"
        send_command(run, {"command": "probe", "n": 2})
        wait_until(lambda: len(taken) == 2, 10, "the second command")
        assert taken == [("new", 1), ("new", 2)]
        assert follower.remove(key, new)
    finally:
        drop_commands(run)
