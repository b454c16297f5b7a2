"""Session mode in the studio: where a run goes, the session driver running many runs, and taking them back.

The placement rules are checked on their own; then the real thing: a Celery worker, the
session driver process with its one Spark application, runs of two users in it. Killing the
session driver's whole process tree (its JVM and slots with it) must leave every run to go
on, once, from its latest checkpoint, with exact output.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import Counter

import pytest
from django.db import connection

from studio.models import Checkpoint, Pipeline, PipelineVersion, Run, RunEvent
from studio.runs import session
from studio.runs.placement import OWN_DRIVER, SESSION, place
from studio.runs.tasks import kill_tree
from tests.conftest import ROOT, stop_process_tree
from tests.support import simple_pipeline, wait_until

RUN_START_TIMEOUT = 240  # bounds a hang; Spark starts slowly on a loaded 2-core machine
COUNT = 2400
KEYS = 7


@pytest.fixture
def announced():
    """A session driver's presence in Redis, as one that serves announces it."""
    session.announce({"slots": 4})
    yield
    session.withdraw()


def run_of(user, definition, *, isolated: bool = False) -> Run:
    pipeline = Pipeline.objects.create(name="p", owner=user, isolated=isolated)
    version = PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=definition)
    return Run.objects.create(pipeline=pipeline, version=version, created_by=user)


@pytest.mark.django_db
def test_small_runs_go_to_the_session_and_the_others_keep_a_driver_of_their_own(user, settings, announced):
    small = run_of(user, simple_pipeline())
    assert place(small, simple_pipeline()) == place(small, simple_pipeline())
    assert (place(small, simple_pipeline()).where, place(small, simple_pipeline()).reason) == (
        SESSION, "no Python code, secrets or isolation; needs 1 of 4 slots")
    isolated = run_of(user, simple_pipeline(), isolated=True)
    assert place(isolated, simple_pipeline()).reason == "its pipeline is marked isolated"
    code = simple_pipeline()
    code["nodes"][1] = {"id": "double", "type": "transform.python", "params": {"code": "def map(x):\n    return x"}}
    assert (place(small, code).where, place(small, code).reason) == (
        OWN_DRIVER, "it runs Python code (node 'double'): isolated")
    wide = simple_pipeline(parallelism=5)
    assert place(small, wide).reason == "it needs 5 slots at once; the shared session has 4"
    settings.SESSION_MODE = False
    assert place(small, simple_pipeline()).reason == "session mode is off"


@pytest.mark.django_db
def test_without_a_serving_session_driver_a_run_keeps_a_driver_of_its_own(user):
    session.withdraw()
    run = run_of(user, simple_pipeline())
    assert (place(run, simple_pipeline()).where, place(run, simple_pipeline()).reason) == (
        OWN_DRIVER, "no session driver was serving")


@pytest.mark.django_db
def test_a_run_started_while_the_session_driver_starts_waits_for_it(user, monkeypatch):
    """A session driver holding the lease but not serving yet is starting: the run waits for it rather than
    take a driver of its own (on a cluster master that driver's application competed with the starting
    session for the cluster's cores: the multi-host story's run failed for want of them)."""
    session.withdraw()
    starting = lease_of("starting")
    assert starting.take() is None
    looked = threading.Event()
    read_presence = session.read_presence

    def observed_read():
        value = read_presence()
        looked.set()  # after the read: the presence announced below is not what this read saw
        return value

    run = run_of(user, simple_pipeline())
    monkeypatch.setattr(session, "read_presence", observed_read)
    placed = []
    placing = threading.Thread(target=lambda: placed.append(place(run, simple_pipeline())))
    try:
        placing.start()
        assert looked.wait(30), "the placement never looked for the session driver"
        starting.renew({"slots": 4})  # its Spark session is up: it serves
        placing.join(60)
        assert [(p.where, p.reason) for p in placed] == [(SESSION, "no Python code, secrets or isolation; "
                                                                     "needs 1 of 4 slots")]
    finally:
        placing.join(60)
        session.withdraw()


@pytest.mark.django_db
def test_a_session_driver_that_never_serves_is_waited_for_only_so_long(user, settings):
    session.withdraw()
    settings.SESSION_START_WAIT_S = 0.5
    assert lease_of("stuck").take() is None
    try:
        placement = place(run_of(user, simple_pipeline()), simple_pipeline())
        assert (placement.where, placement.reason) == (OWN_DRIVER, "no session driver was serving")
    finally:
        session.withdraw()


def start_small(api, pipeline_id: int) -> int:
    """Start a run while a session driver serves (announced afresh: its presence lasts seconds, a loaded
    machine's first requests take longer)."""
    session.announce({"slots": 4})
    return api.post(f"/api/pipelines/{pipeline_id}/runs", {}, format="json").json()["id"]


def launches() -> list[tuple]:
    """The launches waiting for the session driver, taken."""
    import redis
    from django.conf import settings

    client, taken = redis.Redis.from_url(settings.REDIS_URL), []
    while (launch := session.take_launch(client, 0.01)) is not None:
        taken.append(launch)
    return taken


class FakeCluster:
    def __init__(self, slots: int):
        self.pool = type("Pool", (), {"total": slots})()
        self.max_slots = slots


def session_driver_with(slots: int):
    from concurrent.futures import Future

    from studio.runs.session_driver import SessionDriver

    cluster = Future()
    cluster.set_result(FakeCluster(slots))
    return SessionDriver(cluster)


@pytest.mark.django_db
def test_a_small_run_goes_from_its_start_straight_to_the_serving_session_driver_and_is_claimed_there(
        api, user, announced, monkeypatch):
    from studio.runs import tasks

    celery_launches = []
    monkeypatch.setattr(tasks.launch_run, "delay", celery_launches.append)
    launches()
    pipeline = api.post("/api/pipelines", {"name": "small", "definition": simple_pipeline()}, format="json").json()
    run_id = start_small(api, pipeline["id"])
    run = Run.objects.get(pk=run_id)
    assert (run.status, run.placement, celery_launches) == ("CREATED", SESSION, []), "no Celery worker on the way"
    assert launches() == [(run_id, run.driver_token, None, True)]

    assert session_driver_with(4).launch(run_id, run.driver_token)
    run.refresh_from_db()
    assert (run.status, run.placement_reason) == ("SCHEDULING", "no Python code, secrets or isolation; needs 1 of 4 slots")
    assert run.plan["regions"], "planned as a Celery worker plans it"
    assert not session_driver_with(4).launch(run_id, run.driver_token), "claimed once"
    assert not session_driver_with(4).launch(run_id, "a token of another driver")

    wide = api.post("/api/pipelines", {"name": "wide", "definition": simple_pipeline(parallelism=3)},
                    format="json").json()
    wide_run = start_small(api, wide["id"])
    token = Run.objects.get(pk=wide_run).driver_token
    assert not session_driver_with(2).launch(wide_run, token)
    wide_row = Run.objects.get(pk=wide_run)
    assert (wide_row.status, wide_row.placement, wide_row.placement_reason) == (
        "CREATED", OWN_DRIVER, "it needs 3 slots at once; the shared session has 2")
    assert celery_launches == [wide_run], "back to a Celery worker, which starts a driver of its own"

    cancelled = start_small(api, pipeline["id"])
    assert api.post(f"/api/runs/{cancelled}/cancel").status_code == 202
    assert not session_driver_with(4).launch(cancelled, Run.objects.get(pk=cancelled).driver_token)
    assert Run.objects.get(pk=cancelled).status == "CANCELED"


@pytest.mark.django_db
def test_a_run_kept_out_of_the_session_is_launched_by_a_celery_worker(api, user, announced, monkeypatch):
    from studio.runs import tasks

    celery_launches = []
    monkeypatch.setattr(tasks.launch_run, "delay", celery_launches.append)
    launches()
    pipeline = Pipeline.objects.create(name="p", owner=user, isolated=True)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    run_id = start_small(api, pipeline.id)
    assert (celery_launches, launches(), Run.objects.get(pk=run_id).placement) == ([run_id], [], "")
    session.withdraw()  # no session driver serves: a worker decides (a driver of its own)
    pipeline.isolated = False
    pipeline.save()
    other = api.post(f"/api/pipelines/{pipeline.id}/runs", {}, format="json").json()["id"]
    assert (celery_launches, launches()) == ([run_id, other], [])


class SessionDriverProcess:
    """``python -m studio.runs.session_driver`` on the test database, as ``make up`` starts it."""

    def __init__(self, data_dir):
        self.env = {**os.environ, "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
                    "STUDIO_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT), "STUDIO_SESSION_SLOTS": "4"}
        self.process = None

    def start(self) -> "SessionDriverProcess":
        session.withdraw()
        self.process = subprocess.Popen([sys.executable, "-m", "studio.runs.session_driver"], cwd=ROOT,
                                        env=self.env)
        wait_until(lambda: self.process.poll() is not None or (session.presence() or {}).get("pid")
                   == self.process.pid, RUN_START_TIMEOUT, "the session driver to serve")
        assert self.process.poll() is None, "the session driver exited while starting"
        return self

    def crash(self) -> None:
        """SIGKILL the session driver, its Spark JVM and every slot: the application dies at once."""
        kill_tree(self.process.pid)
        session.withdraw()  # its presence would expire in seconds; the next one announces itself

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            stop_process_tree(self.process.pid)
        session.withdraw()


@pytest.fixture
def session_driver(studio_data_dir):
    driver = SessionDriverProcess(studio_data_dir)
    yield driver
    driver.stop()


def summing_pipeline(name: str, output, rate: int = 200) -> dict:
    return {"format": 1, "name": name, "parallelism": 1, "checkpointing": {"interval_ms": 300},
            "restart": {"strategy": "fixed_delay", "attempts": 3, "delay_ms": 0},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": COUNT, "rate": rate}},
                      {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}},
                      {"id": "out", "type": "sink.file", "params": {"path": str(output)}}],
            "edges": [{"id": "e1", "from": "gen", "to": "sum", "partitioning": "hash", "key": f"x % {KEYS}"},
                      {"id": "e2", "from": "sum", "to": "out"}]}


def start_run(api, definition) -> int:
    pipeline = api.post("/api/pipelines", {"name": definition["name"], "definition": definition}, format="json")
    assert pipeline.status_code == 201, pipeline.content
    run = api.post(f"/api/pipelines/{pipeline.json()['id']}/runs", {}, format="json")
    assert run.status_code == 201, run.content
    return run.json()["id"]


def committed(output) -> list:
    import json

    return [json.loads(line) for part in sorted(output.glob("part-*.jsonl")) for line in part.read_text().splitlines()
            if line]


def assert_exact(output) -> None:
    records = committed(output)
    assert len(records) == COUNT, f"{len(records)} running sums committed, {COUNT} expected"
    expected = Counter()
    for x in range(COUNT):
        expected[x % KEYS] += x
    finals = {}
    for key, total in records:
        finals[key] = max(finals.get(key, 0), total)
    assert finals == dict(expected)


def running_in_session(run_id: int):
    run = Run.objects.get(pk=run_id)
    return run if run.status == "RUNNING" and run.placement == SESSION else None


def completed_checkpoint(run_id: int):
    return Checkpoint.objects.filter(run_id=run_id, status="COMPLETED", kind="checkpoint").first()


@pytest.mark.spark
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_a_run_in_the_session_is_invisible_and_unreachable_to_another_user(
        session_driver, api, other_api, grant, user, other_user, tmp_path):
    # no Celery worker reads this test's launches (tests/conftest.py): alice's run starts because its
    # start hands it straight to the session driver
    alice_dir, bob_dir = tmp_path / "alice", tmp_path / "bob"
    alice_dir.mkdir()
    bob_dir.mkdir()
    grant(user, alice_dir)
    grant(other_user, bob_dir)
    session_driver.start()
    alice = start_run(api, summing_pipeline("alice", alice_dir / "out", rate=100))
    wait_until(lambda: running_in_session(alice), RUN_START_TIMEOUT, "alice's run to run in the session")
    checkpoint = wait_until(lambda: completed_checkpoint(alice), 60, "a checkpoint of alice's run")

    for path in ("", "/events", "/checkpoints", "/metrics", "/taps"):
        assert other_api.get(f"/api/runs/{alice}{path}").status_code == 404, path
    assert other_api.post(f"/api/runs/{alice}/taps", {"edge": "e1"}, format="json").status_code == 404
    assert other_api.post(f"/api/runs/{alice}/cancel").status_code == 404
    for stolen in (alice_dir / "out", checkpoint.external_path):
        theft = summing_pipeline("bob", bob_dir / "out")
        theft["nodes"][0] = {"id": "gen", "type": "source.file", "params": {"path": str(stolen)}}
        refused = other_api.post("/api/pipelines", {"name": "bob", "definition": theft}, format="json")
        if refused.status_code == 201:  # saved: starting it is refused
            refused = other_api.post(f"/api/pipelines/{refused.json()['id']}/runs", {}, format="json")
        assert refused.status_code == 400 and "params.path" in refused.content.decode(), refused.content
    bob_pipeline = other_api.post("/api/pipelines", {"name": "bob-restores",
                                                     "definition": summing_pipeline("bob", bob_dir / "out")},
                                  format="json").json()["id"]
    restored = other_api.post(f"/api/pipelines/{bob_pipeline}/runs",
                              {"restore_from": {"path": checkpoint.external_path}}, format="json")
    assert restored.status_code in (400, 403), restored.content
    assert api.get(f"/api/runs/{alice}").json()["status"] == "RUNNING", "alice's run went on"
    assert api.post(f"/api/runs/{alice}/cancel").status_code == 202
    wait_until(lambda: Run.objects.get(pk=alice).status == "CANCELED", 60, "alice's run to be cancelled")


def python_daemon_running(pid: int) -> bool:
    """Whether the executors' Python daemon (``engine.cluster.spark_daemon``) runs below process ``pid``."""
    import psutil

    for process in psutil.Process(pid).children(recursive=True):
        try:
            if "engine.cluster.spark_daemon" in " ".join(process.cmdline()):
                return True
        except psutil.Error:
            pass
    return False


@pytest.mark.spark
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_the_session_driver_down_past_the_heartbeat_timeout_every_run_goes_on_once_from_its_latest_checkpoint(
        celery_worker_process, session_driver, api, granted_tmp_path):
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from studio.runs.liveness import WAITS_FOR_SESSION, check_heartbeats

    session_driver.start()
    assert python_daemon_running(session_driver.process.pid), "the session serves with its Python workers started"
    runs = {name: start_run(api, summing_pipeline(name, granted_tmp_path / name)) for name in ("one", "two")}
    for run_id in runs.values():
        wait_until(lambda: running_in_session(run_id), RUN_START_TIMEOUT, "the run to run in the session")
        wait_until(lambda: completed_checkpoint(run_id), 60, "a completed checkpoint")
    tokens = {run_id: Run.objects.get(pk=run_id).driver_token for run_id in runs.values()}
    session_driver.crash()
    # the heartbeat check, as a worker runs it once the session driver was silent past the timeout
    check_heartbeats(now=timezone.now() + timedelta(seconds=settings.HEARTBEAT_TIMEOUT_S + 5))
    for run_id in runs.values():
        run = Run.objects.get(pk=run_id)
        assert (run.status, run.status_history[-1].get("cause")) == ("RESTARTING", WAITS_FOR_SESSION)
    session_driver.start()
    for run_id in runs.values():
        wait_until(lambda: Run.objects.get(pk=run_id).status in ("FINISHED", "FAILED", "CANCELED"),
                   RUN_START_TIMEOUT, "the run to end")
    for name, run_id in runs.items():
        run = Run.objects.get(pk=run_id)
        assert (run.status, run.placement) == ("FINISHED", SESSION), run.failure_cause
        assert run.driver_token != tokens[run_id], "the new session driver claimed it with a token of its own"
        taken_back = [e.data for e in RunEvent.objects.filter(run_id=run_id, type="status").order_by("seq")
                      if e.data["status"] == "RESTARTING"]
        assert [t["cause"] for t in taken_back[:1]] == [WAITS_FOR_SESSION], taken_back
        assert len(taken_back) == 2, "taken back once"
        assert taken_back[1]["cause"].startswith("the session driver restarted: going on from checkpoint ") or \
            taken_back[1]["cause"].startswith("the session driver was lost: going on from checkpoint "), taken_back
        startups = [e.data for e in RunEvent.objects.filter(run_id=run_id, type="startup")]
        assert [s["driver"] for s in startups] == ["session", "session"]
        assert_exact(granted_tmp_path / name)


@pytest.mark.django_db
def test_an_editor_marks_a_pipeline_isolated_and_another_user_cannot(api, other_api, user):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    assert api.get(f"/api/pipelines/{pipeline.id}").json()["isolated"] is False
    marked = api.post(f"/api/pipelines/{pipeline.id}/isolation", {"isolated": True}, format="json")
    assert (marked.status_code, marked.json()["isolated"]) == (200, True)
    assert Pipeline.objects.get(pk=pipeline.id).isolated
    bad = api.post(f"/api/pipelines/{pipeline.id}/isolation", {"isolated": "maybe"}, format="json")
    assert bad.status_code == 400 and "isolated" in bad.content.decode(), bad.content
    assert other_api.post(f"/api/pipelines/{pipeline.id}/isolation", {"isolated": False},
                          format="json").status_code == 404
    assert Pipeline.objects.get(pk=pipeline.id).isolated


@pytest.mark.django_db
def test_a_run_says_where_it_runs_and_why(api, user):
    run = run_of(user, simple_pipeline())
    assert (api.get(f"/api/runs/{run.id}").json()["placement"], api.get(f"/api/runs/{run.id}").json()[
        "placement_reason"]) == ("", "")
    Run.objects.filter(pk=run.id).update(placement=SESSION, placement_reason="shares the studio's Spark session")
    body = api.get(f"/api/runs/{run.id}").json()
    assert (body["placement"], body["placement_reason"]) == (SESSION, "shares the studio's Spark session")


@pytest.mark.django_db
def test_the_session_use_is_what_its_driver_announced(api):
    session.withdraw()
    assert api.get("/api/session").json() == {"enabled": True, "serving": False, "application_id": None,
                                              "slots": None, "slots_used": None, "slots_max": None, "runs": None,
                                              "runs_waiting": None, "memory_mb": None, "executors": None,
                                              "executors_target": None, "executors_min": None, "executors_max": None}
    session.announce({"application_id": "local-1", "slots": 4, "slots_used": 2, "slots_max": 4, "runs": 2,
                      "runs_waiting": 1, "memory_mb": 900, "pid": 1, "executors": None})
    try:
        assert api.get("/api/session").json() == {"enabled": True, "serving": True, "application_id": "local-1",
                                                  "slots": 4, "slots_used": 2, "slots_max": 4, "runs": 2,
                                                  "runs_waiting": 1, "memory_mb": 900, "executors": None,
                                                  "executors_target": None, "executors_min": None,
                                                  "executors_max": None}
        session.announce({"application_id": "app-1", "slots": 2, "slots_used": 2, "slots_max": 8, "runs": 1,
                          "runs_waiting": 1, "memory_mb": 1200, "pid": 1, "executors": 2, "executors_target": 3,
                          "executors_min": 1, "executors_max": 8})
        elastic = api.get("/api/session").json()
        assert {name: elastic[name] for name in ("slots", "slots_max", "executors", "executors_target",
                                                 "executors_min", "executors_max")} == {
            "slots": 2, "slots_max": 8, "executors": 2, "executors_target": 3, "executors_min": 1, "executors_max": 8}
    finally:
        session.withdraw()


@pytest.mark.django_db
def test_an_elastic_session_announces_its_executors_and_places_runs_by_its_maximum(user, monkeypatch):
    """A session on a Spark master grows to its maximum of executors: a run needing more slots than it has
    now still goes there (and waits for its executors); its presence carries the executors' figures."""
    from studio.runs import session_driver

    driver = session_driver_with(2)
    cluster = driver.cluster.result()
    cluster.max_slots = 8
    cluster.application_id = "app-1"
    cluster.usage = lambda: {"slots": 2, "used": 2, "waiting": {"run-9": 3}, "executors": 2, "executors_target": 5,
                             "executors_min": 1, "executors_max": 8}
    monkeypatch.setattr(session_driver, "_tree_memory_mb", lambda: 700.0)
    presence = driver.presence()
    assert {name: presence[name] for name in ("slots", "slots_used", "slots_max", "runs_waiting", "executors",
                                              "executors_target", "executors_min", "executors_max")} == {
        "slots": 2, "slots_used": 2, "slots_max": 8, "runs_waiting": 1, "executors": 2, "executors_target": 5,
        "executors_min": 1, "executors_max": 8}
    session.announce(presence)
    try:
        wide = run_of(user, simple_pipeline(parallelism=5))
        assert place(wide, simple_pipeline(parallelism=5)).reason == (
            "no Python code, secrets or isolation; needs 5 of 8 slots")
        assert place(wide, simple_pipeline(parallelism=9)).reason == (
            "it needs 9 slots at once; the shared session has 8")
    finally:
        session.withdraw()


def test_the_session_driver_reads_its_memory_once_in_a_while_not_at_every_announcement(monkeypatch):
    from studio.runs import session_driver

    reads = []
    monkeypatch.setattr(session_driver, "_tree_memory_mb", lambda: reads.append(1) or 512.0)
    driver = session_driver_with(4)
    driver.cluster.result().usage = lambda: {"slots": 4, "used": 0, "waiting": {}}
    driver.cluster.result().application_id = "local-1"
    presences = [driver.presence() for _ in range(5)]
    assert [presence["memory_mb"] for presence in presences] == [512] * 5
    assert len(reads) == 1
    assert session.PRESENCE_TTL_S >= 10 * session_driver.ANNOUNCE_INTERVAL_S, "a busy driver stays present"


def test_the_session_driver_makes_its_session_elastic_on_a_spark_master_only(settings, monkeypatch):
    """``STUDIO_SESSION_SLOTS`` is the most executors a session on a master grows to, between
    ``STUDIO_SESSION_MIN_EXECUTORS`` and it, idle ones released after ``STUDIO_SESSION_EXECUTOR_IDLE_S``;
    ``local[N]`` (no master) gets no elastic settings, nor does a master with ``STUDIO_SESSION_ELASTIC=0``."""
    import engine.api
    from engine.api import ElasticSettings
    from studio.runs import session_driver

    started, nice, group_nice = [], [], []

    class Recorded:
        def __init__(self, slots, master, elastic=None, slot_nice=0, slot_autogroup_nice=0):
            started.append((slots, master, elastic))
            nice.append(slot_nice)
            group_nice.append(slot_autogroup_nice)
            self.application_id, self.pool, self.max_slots = "app", type("Pool", (), {"total": 1})(), slots

    monkeypatch.setattr(engine.api, "SessionCluster", Recorded)
    settings.SESSION_MIN_EXECUTORS, settings.SESSION_EXECUTOR_IDLE_S = 2, 45.0
    session_driver.start_cluster(16, "spark://master:7077")
    session_driver.start_cluster(16, None)
    settings.SESSION_ELASTIC = False
    session_driver.start_cluster(16, "spark://master:7077")
    assert started == [(16, "spark://master:7077", ElasticSettings(minimum=2, maximum=16, grace_s=45.0)),
                       (16, None, None), (16, "spark://master:7077", None)]
    assert nice == [settings.SESSION_SLOT_NICE] * 3 and settings.SESSION_SLOT_NICE == 5, \
        "the session's slots yield the CPU to the web server and the session driver"
    assert group_nice == [settings.SLOT_AUTOGROUP_NICE] * 3 and settings.SLOT_AUTOGROUP_NICE > 0, \
        "the session's slots weigh less than the driver's and the web server's groups"


@pytest.mark.spark
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_a_run_handed_back_to_the_serving_session_driver_that_still_drives_it_runs_again_once_and_cancels(
        session_driver, api, granted_tmp_path, monkeypatch):
    """The heartbeat check took a run of a serving session driver for lost (its presence briefly missing at the
    check): fenced and handed back while its first driver thread still held it. The serving driver must take it
    up again under the new token, one job of it running, and a cancel must reach that job."""
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from studio.runs import liveness

    session_driver.start()
    run_id = start_run(api, summing_pipeline("handed-back", granted_tmp_path / "out", rate=20))
    wait_until(lambda: running_in_session(run_id), RUN_START_TIMEOUT, "the run to run in the session")
    first_token = Run.objects.get(pk=run_id).driver_token
    one_job = wait_until(lambda: (session.presence() or {}).get("slots_used"), 60, "the run's slots announced")
    monkeypatch.setattr(liveness.session, "read_presence", lambda: None)  # missing at this check only
    assert liveness.check_heartbeats(now=timezone.now() + timedelta(seconds=settings.HEARTBEAT_TIMEOUT_S + 5)) \
        == [run_id]
    monkeypatch.undo()
    fenced = Run.objects.get(pk=run_id)
    assert (fenced.status, fenced.status_history[-1]["cause"]) == ("RESTARTING", liveness.WAITS_FOR_SESSION)

    def running_again():
        run = running_in_session(run_id)
        return run if run is not None and run.status_history[-1]["status"] == "RUNNING" and any(
            entry.get("cause", "").startswith(f"{liveness.SESSION_LOST}: going on from")
            for entry in run.status_history) else None

    again = wait_until(running_again, RUN_START_TIMEOUT, "the run to run again in the serving session driver")
    assert again.driver_token == fenced.driver_token != first_token, "driven under the token the check gave it"
    # the first thread's job leaves once it is fenced; one job of the run stays in the session
    wait_until(lambda: (session.presence() or {}).get("slots_used") == one_job, 60, "one job of the run in the session")
    assert (session.presence() or {}).get("run_ids") == [run_id]
    assert api.post(f"/api/runs/{run_id}/cancel").status_code == 202
    wait_until(lambda: Run.objects.get(pk=run_id).status == "CANCELED", 60, "the run to be cancelled")
    wait_until(lambda: (session.presence() or {}).get("slots_used") == 0, 60, "its slots given back")
    startups = [e.data["driver"] for e in RunEvent.objects.filter(run_id=run_id, type="startup")]
    assert startups == ["session", "session"], "started once, resumed once"


@pytest.mark.spark
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_a_run_handed_back_to_the_serving_session_driver_mid_stream_finishes_exactly_once(
        session_driver, api, granted_tmp_path, monkeypatch):
    """Fenced and handed back while its job writes, the run's fenced job must not go on completing checkpoints and
    committing its sink beside the resumed job (which goes on from the checkpoint it found): every record once."""
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from studio.runs import liveness

    session_driver.start()
    run_id = start_run(api, summing_pipeline("handed-back", granted_tmp_path / "out"))
    wait_until(lambda: running_in_session(run_id), RUN_START_TIMEOUT, "the run to run in the session")
    wait_until(lambda: completed_checkpoint(run_id), 60, "a completed checkpoint")
    monkeypatch.setattr(liveness.session, "read_presence", lambda: None)  # missing at this check only
    assert liveness.check_heartbeats(now=timezone.now() + timedelta(seconds=settings.HEARTBEAT_TIMEOUT_S + 5)) \
        == [run_id]
    monkeypatch.undo()
    assert Run.objects.get(pk=run_id).status != "FINISHED", "handed back before its input ended"
    wait_until(lambda: Run.objects.get(pk=run_id).status in ("FINISHED", "FAILED", "CANCELED"), RUN_START_TIMEOUT,
               "the run to end")
    run = Run.objects.get(pk=run_id)
    assert run.status == "FINISHED", run.failure_cause
    assert any(entry.get("cause", "").startswith(f"{liveness.SESSION_LOST}: going on from checkpoint ")
               for entry in run.status_history), run.status_history
    assert_exact(granted_tmp_path / "out")


@pytest.mark.spark
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_a_run_handed_back_while_it_waits_for_slots_in_the_serving_session_driver_runs_once_when_they_free(
        session_driver, api, granted_tmp_path, monkeypatch):
    """Fenced and handed back while its first job still waits for the session's slots (SCHEDULING), the run goes on
    in the serving driver once slots free: one job of it, under the new token; the first job leaves the queue."""
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    from studio.runs import liveness

    session_driver.start()
    wide = summing_pipeline("wide", granted_tmp_path / "wide", rate=20)
    wide["parallelism"] = 4
    holder = start_run(api, wide)
    wait_until(lambda: running_in_session(holder), RUN_START_TIMEOUT, "the wide run to hold every slot")
    run_id = start_run(api, summing_pipeline("waiting", granted_tmp_path / "out", rate=50))
    wait_until(lambda: RunEvent.objects.filter(run_id=run_id, type="region", data__event="waiting").exists(),
               RUN_START_TIMEOUT, "the run to wait for slots")
    assert Run.objects.get(pk=run_id).status == "SCHEDULING"
    # at this check the presence lists the wide run only (as one announced before the run was claimed did)
    monkeypatch.setattr(liveness.session, "read_presence", lambda: {"run_ids": [holder]})
    now = timezone.now() + timedelta(seconds=settings.HEARTBEAT_TIMEOUT_S + 5)
    assert liveness.check_heartbeats(now=now) == [run_id]
    monkeypatch.undo()
    token = Run.objects.get(pk=run_id).driver_token
    wait_until(lambda: any(entry.get("cause", "").startswith(f"{liveness.SESSION_LOST}: going on from")
                           for entry in Run.objects.get(pk=run_id).status_history), 60, "the serving driver to take it")
    # the first job left the queue: one job of the run waits, under the new token
    wait_until(lambda: RunEvent.objects.filter(run_id=run_id, type="region", data__event="waiting").count() == 2,
               60, "the run's job to wait for slots again")
    wait_until(lambda: (session.presence() or {}).get("runs_waiting") == 1, 60, "one job of the run waiting")
    assert api.post(f"/api/runs/{holder}/cancel").status_code == 202
    wait_until(lambda: Run.objects.get(pk=holder).status == "CANCELED", 60, "the wide run to be cancelled")
    again = wait_until(lambda: running_in_session(run_id), RUN_START_TIMEOUT, "the run to run in the session again")
    assert again.driver_token == token
    wait_until(lambda: Run.objects.get(pk=run_id).status == "FINISHED", RUN_START_TIMEOUT, "the run to finish")
    wait_until(lambda: (session.presence() or {}).get("slots_used") == 0, 60, "every slot given back")
    assert_exact(granted_tmp_path / "out")


class StandInJob:
    """What the session driver holds of a run's job: something it cancels (a JobMaster's ``cancel``)."""

    def __init__(self):
        self.cancelled = threading.Event()

    def cancel(self) -> None:
        self.cancelled.set()


class StandInDrivers:
    """``run_driver`` as the session driver calls it, for the tests of what the session driver itself decides:
    which driver thread of a run may start its job, and when. A token's stand-in holds a job until it is
    cancelled and then until ``release`` (its JobMaster still ending: slots stopping, the sink closing)."""

    def __init__(self, holds: set[str]):
        self.holds = holds
        self.release = threading.Event()
        self.jobs: dict[str, StandInJob] = {}
        self.started: list[tuple[str, set[str]]] = []  # (token, the tokens whose job still ran then)
        self._running: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, run_id, token, warm_session=None, *, session_cluster=None, resume_cause=None, job=None,
                 lease_confirmed=None):
        with self._lock:
            self.started.append((token, set(self._running)))
            self._running.add(token)
        try:
            if token in self.holds:
                self.jobs[token] = StandInJob()
                job.set(self.jobs[token])
                wait_until(self.jobs[token].cancelled.is_set, 60, f"the job of {token} to be cancelled")
                wait_until(self.release.is_set, 60, f"the job of {token} to end")
        finally:
            with self._lock:
                self._running.discard(token)
        return 0

    def tokens(self) -> list[str]:
        with self._lock:
            return [token for token, _ in self.started]


def driver_threads(run_id: int) -> int:
    return sum(1 for thread in threading.enumerate() if thread.name == f"run-{run_id}")


@pytest.fixture
def held_run(user):
    """A run of the session that its driver holds with token ``first``, as one RUNNING in it."""
    run = run_of(user, simple_pipeline())
    Run.objects.filter(pk=run.id).update(placement=SESSION, status="RUNNING", driver_token="first")
    return run.id


@pytest.mark.django_db(transaction=True)
def test_a_run_handed_back_starts_its_job_again_only_once_the_fenced_job_of_it_ended(held_run, monkeypatch):
    """Handed back to the session driver that still drives it, the run must not have two jobs at once (both would
    write its checkpoint directory and its sink): the fenced job is cancelled, and the resumed one is started
    only once the fenced one's driver thread ended (its JobMaster gone: no checkpoint of it completes, nothing
    of it is committed, after the resumed job chose the checkpoint it goes on from)."""
    from studio.runs import driver as run_drivers
    from studio.runs.liveness import SESSION_LOST

    drivers = StandInDrivers(holds={"first"})
    monkeypatch.setattr(run_drivers, "run_driver", drivers)
    session_driver = session_driver_with(4)
    session_driver.start_run(held_run, "first")
    wait_until(lambda: "first" in drivers.jobs, 10, "the first job to run")
    Run.objects.filter(pk=held_run).update(driver_token="second")  # the heartbeat check fenced it, handed it back
    session_driver.start_run(held_run, "second", SESSION_LOST)

    wait_until(drivers.jobs["first"].cancelled.is_set, 10, "the fenced job to be cancelled by the new start")
    assert drivers.tokens() == ["first"], "the resumed job waits while the fenced one still ends"
    assert session_driver.runs() == [held_run], "the run is this driver's all along (its presence lists it)"
    drivers.release.set()
    wait_until(lambda: drivers.tokens() == ["first", "second"], 10, "the resumed job to start")
    assert drivers.started == [("first", set()), ("second", set())], "never two jobs of the run at once"
    wait_until(lambda: session_driver.runs() == [], 10, "both driver threads to end")


@pytest.mark.django_db(transaction=True)
def test_a_fenced_job_that_does_not_end_fails_the_resumed_start_visibly_instead_of_running_beside_it(
        held_run, monkeypatch):
    from studio.runs import driver as run_drivers
    from studio.runs import session_driver as session_drivers
    from studio.runs.liveness import SESSION_LOST

    drivers = StandInDrivers(holds={"first"})
    monkeypatch.setattr(run_drivers, "run_driver", drivers)
    monkeypatch.setattr(session_drivers, "TAKE_OVER_TIMEOUT_S", 0.2)  # bounds the wait; nothing here is timed
    session_driver = session_driver_with(4)
    session_driver.start_run(held_run, "first")
    wait_until(lambda: "first" in drivers.jobs, 10, "the first job to run")
    Run.objects.filter(pk=held_run).update(driver_token="second")
    session_driver.start_run(held_run, "second", SESSION_LOST)

    wait_until(lambda: Run.objects.get(pk=held_run).status == "FAILED", 10, "the resumed start to fail")
    run = Run.objects.get(pk=held_run)
    assert run.failure_cause == session_drivers.EARLIER_JOB_LINGERS.format(timeout=0.2), run.failure_cause
    assert drivers.tokens() == ["first"], "no second job beside the one still ending"
    drivers.release.set()
    wait_until(lambda: session_driver.runs() == [], 10, "the fenced driver thread to end")
    assert drivers.tokens() == ["first"]


@pytest.mark.django_db(transaction=True)
def test_a_stale_or_repeated_launch_of_a_run_leaves_the_job_of_its_current_driver_alone(held_run, monkeypatch):
    """A launch whose token the run no longer holds (handed back before a session driver restarted and took it back
    with a token of its own) or one delivered twice must not cancel the job of the run's current driver."""
    from studio.runs import driver as run_drivers

    drivers = StandInDrivers(holds={"first"})
    monkeypatch.setattr(run_drivers, "run_driver", drivers)
    session_driver = session_driver_with(4)
    session_driver.start_run(held_run, "first")
    wait_until(lambda: "first" in drivers.jobs, 10, "the first job to run")
    for token in ("stale", "first"):
        session_driver.start_run(held_run, token, "the session driver restarted")
        wait_until(lambda: driver_threads(held_run) == 1, 10, f"the launch with token {token} to be dropped")
    assert not drivers.jobs["first"].cancelled.is_set()
    assert (drivers.tokens(), session_driver.runs()) == (["first"], [held_run])
    drivers.jobs["first"].cancel()
    drivers.release.set()
    wait_until(lambda: session_driver.runs() == [], 10, "the driver thread to end")


def test_a_run_handed_back_waits_for_its_fenced_job_longer_than_a_slow_spark_stop_takes():
    """A cancelled JobMaster may wait for its slots to stop and then for its stage to end, each up to the
    deployer's bound: a take-over giving up sooner would fail runs that were only slow to stop."""
    from engine.cluster.spark_deployer import STAGE_STOP_TIMEOUT_S
    from studio.runs import session_driver as session_drivers

    assert session_drivers.TAKE_OVER_TIMEOUT_S > 2 * STAGE_STOP_TIMEOUT_S


class AnyToken:
    """Every token: a stand-in ``run_driver`` holding the job of whichever token a run is taken back with."""

    def __contains__(self, token) -> bool:
        return True


def serving_in_thread(session_driver) -> list:
    """``serve`` on a thread of its own (as the session driver's main thread runs it); its exit code, once ended."""
    ended: list = []
    threading.Thread(target=lambda: ended.append(session_driver.serve()), daemon=True, name="serve").start()
    return ended


def stand_in_session_driver():
    driver = session_driver_with(4)
    cluster = driver.cluster.result()
    cluster.application_id = "local-1"
    cluster.usage = lambda: {"slots": 4, "used": 1, "waiting": {}}
    return driver


def lease_of(name: str, ttl_s: float = 600) -> session.SessionLease:
    """The session lease as another session driver (``name``) holds it."""
    import time

    return session.SessionLease({"driver": name, "pid": 1, "host": "elsewhere", "since": time.time()}, ttl_s=ttl_s)


@pytest.mark.django_db(transaction=True)
def test_a_second_session_driver_does_not_serve_beside_the_one_holding_the_lease_and_takes_no_run(
        held_run, studio_data_dir, tmp_path):
    """Two session drivers serving one studio would each take the runs back and run a job of each, the one fenced
    committing beside the other until its next heartbeat: one started beside the serving one names it, waits, and
    touches nothing of the session: no run taken back, no Spark application started."""
    import psutil

    session.withdraw()
    first = lease_of("the-first")
    assert first.take() is None
    log = tmp_path / "second.log"
    driver = SessionDriverProcess(studio_data_dir)
    with open(log, "wb") as output:
        process = subprocess.Popen([sys.executable, "-m", "studio.runs.session_driver"], cwd=ROOT, env=driver.env,
                                   stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: "another session driver the-first" in log.read_text()
                   or Run.objects.get(pk=held_run).driver_token != "first" or process.poll() is not None,
                   RUN_START_TIMEOUT, "the second session driver to take the lease, or say who holds it")
        run = Run.objects.get(pk=held_run)
        assert (run.driver_token, run.status) == ("first", "RUNNING"), "no run taken back beside the serving driver"
        refused = [line for line in log.read_text().splitlines() if "another session driver" in line]
        assert len(refused) == 1 and "(pid 1 on elsewhere, since " in refused[0], log.read_text()
        assert process.poll() is None, "it waits for the lease (the supervisor would only start it again)"
        assert not [child for child in psutil.Process(process.pid).children(recursive=True)
                    if "java" in child.name()], "no Spark application started"
        assert session.lease_holder()["driver"] == "the-first" and session.presence() is None
        process.terminate()
        assert process.wait(60) == 0, "stopped while it waited"
        assert Run.objects.get(pk=held_run).driver_token == "first"
    finally:
        if process.poll() is None:
            stop_process_tree(process.pid)
        session.withdraw()


@pytest.mark.django_db(transaction=True)
def test_a_session_driver_waiting_for_the_lease_takes_the_runs_back_once_it_is_free(held_run, monkeypatch, caplog):
    from studio.runs import driver as run_drivers

    session.withdraw()
    first = lease_of("the-first")
    assert first.take() is None
    drivers = StandInDrivers(holds=AnyToken())
    monkeypatch.setattr(run_drivers, "run_driver", drivers)
    session_driver = stand_in_session_driver()
    ended = serving_in_thread(session_driver)
    try:
        wait_until(lambda: "another session driver the-first" in caplog.text, 60, "the holder named")
        assert (Run.objects.get(pk=held_run).driver_token, drivers.tokens()) == ("first", [])
        first.release()
        wait_until(lambda: drivers.tokens(), 60, "the run taken back once the lease is free")
        assert drivers.tokens() == [Run.objects.get(pk=held_run).driver_token] != ["first"]
        assert session.lease_holder()["driver"] == session_driver.driver_id
        wait_until(lambda: (session.presence() or {}).get("driver") == session_driver.driver_id, 60, "it announces")
    finally:
        session_driver.stopping.set()
        drivers.release.set()
        wait_until(lambda: ended, 60, "the session driver to end")
        session.withdraw()
    assert ended == [0] and session.lease_holder() is None, "its jobs ended, it gave its lease up"


@pytest.mark.parametrize("lost", ["taken over", "expired"])
@pytest.mark.django_db(transaction=True)
def test_a_session_driver_that_lost_its_lease_stops_its_jobs_at_once_and_leaves_the_runs_to_the_next(
        held_run, monkeypatch, lost):
    """A driver whose lease another took (or that expired while it stalled) must not go on committing: the holder
    may have taken its runs back and resumed them. It fences its runs (so its cancel does not end them), cancels
    their jobs and ends non-zero; the runs stay as they were for the next driver to take back."""
    from studio.runs import driver as run_drivers
    from studio.runs.events import DriverFenced, set_status

    session.withdraw()
    drivers = StandInDrivers(holds=AnyToken())
    monkeypatch.setattr(run_drivers, "run_driver", drivers)
    session_driver = stand_in_session_driver()
    ended = serving_in_thread(session_driver)
    try:
        token = wait_until(lambda: next(iter(drivers.jobs), None), 60, "the run taken back and its job running")
        wait_until(lambda: (session.presence() or {}).get("run_ids") == [held_run], 60, "the driver to announce it")
        session.withdraw()  # the lease expired (Redis deletes it)
        if lost == "taken over":
            assert lease_of("the-second").take() is None
        wait_until(drivers.jobs[token].cancelled.is_set, 60, "the job cancelled once the lease is found lost")
        run = Run.objects.get(pk=held_run)
        assert run.status == "RUNNING" and run.driver_token not in ("first", token), "fenced, not ended"
        with pytest.raises(DriverFenced):
            set_status(held_run, "CANCELED", driver_token=token)  # what its cancelled job reports is refused
        drivers.release.set()
        wait_until(lambda: ended, 60, "the session driver to end")
        assert ended == [1], "it ends non-zero: the supervisor starts it again, and it takes the runs back"
        holder = session.lease_holder()
        assert (holder or {}).get("driver") == ("the-second" if lost == "taken over" else None), "left as it was"
        if lost == "taken over":
            assert session.presence() is None, "it announces nothing under another's lease"
    finally:
        session_driver.stopping.set()
        drivers.release.set()
        session.withdraw()


@pytest.mark.spark
@pytest.mark.timeout(900)
@pytest.mark.django_db(transaction=True)
def test_a_session_driver_whose_lease_expired_ends_and_the_next_one_finishes_its_run_exactly_once(
        session_driver, api, granted_tmp_path):
    """A session driver stalled past its lease's life finds it expired: it ends its jobs and exits non-zero rather
    than commit beside a driver that may have taken its runs; the next one (the supervisor's restart) takes the
    run back from its latest checkpoint, and every record is committed once."""
    session_driver.start()
    run_id = start_run(api, summing_pipeline("expired", granted_tmp_path / "out"))
    wait_until(lambda: running_in_session(run_id), RUN_START_TIMEOUT, "the run to run in the session")
    wait_until(lambda: completed_checkpoint(run_id), 60, "a completed checkpoint")
    session.withdraw()  # the lease expired while its driver stalled
    assert session_driver.process.wait(120) == 1, "it ends non-zero once it finds its lease lost"
    assert Run.objects.get(pk=run_id).status not in ("FINISHED", "FAILED", "CANCELED"), "left for the next driver"
    session_driver.start()
    wait_until(lambda: Run.objects.get(pk=run_id).status in ("FINISHED", "FAILED", "CANCELED"), RUN_START_TIMEOUT,
               "the run to end")
    run = Run.objects.get(pk=run_id)
    assert run.status == "FINISHED", run.failure_cause
    assert any(entry.get("cause", "").startswith("the session driver restarted: going on from checkpoint ")
               for entry in run.status_history), run.status_history
    assert_exact(granted_tmp_path / "out")


@pytest.mark.django_db(transaction=True)
def test_a_session_driver_started_again_takes_the_lease_of_the_killed_one_at_once(held_run, monkeypatch):
    """The supervisor starts a session driver again once the last one died (SIGKILL): the dead one's lease would
    keep its runs waiting for up to its life; a holder of this host whose process is gone is not waited for."""
    import socket
    import time

    from studio.runs import driver as run_drivers

    session.withdraw()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    killed = session.SessionLease({"driver": "killed", "pid": dead.pid, "host": socket.gethostname(),
                                   "since": time.time()}, ttl_s=600)
    assert killed.take() is None
    alive = lease_of("alive-elsewhere")
    drivers = StandInDrivers(holds=set())
    monkeypatch.setattr(run_drivers, "run_driver", drivers)
    session_driver = stand_in_session_driver()
    ended = serving_in_thread(session_driver)
    try:
        wait_until(lambda: drivers.tokens(), 60, "the run taken back")
        assert session.lease_holder()["driver"] == session_driver.driver_id
    finally:
        session_driver.stopping.set()
        wait_until(lambda: ended, 60, "the session driver to end")
    assert alive.take() is None, "it gave the lease up as it ended"
    alive.release()
    session.withdraw()


@pytest.mark.django_db(transaction=True)
def test_a_lease_gone_early_from_a_live_holder_is_taken_but_its_runs_only_once_that_holder_can_complete_nothing(
        held_run, monkeypatch, caplog):
    """The lease key deleted under a holder that still runs (by hand, or evicted by a Redis short of memory): a new
    session driver may take the lease at once, but the old holder renewed it moments ago and its jobs may complete
    checkpoints for up to the confirm window after that (``studio.runs.fencing``). The new one takes no run back,
    choosing no checkpoint, until that window ran out; a lease given up, or expired, leaves nothing to wait for."""
    from studio.runs import driver as run_drivers
    from studio.runs.fencing import CONFIRM_WINDOW_S

    session.withdraw()
    first = lease_of("the-first")
    assert first.take() is None
    session._client().delete(session._key("lease"))  # gone from under its live holder
    second = lease_of("the-second")
    assert second.take() is None and 0 < second.predecessor_may_commit_s <= CONFIRM_WINDOW_S
    second.release()
    third = lease_of("the-third")
    assert third.take() is None and third.predecessor_may_commit_s == 0, "given up: its jobs ended"
    third.release()

    slow = session.SessionLease({"driver": "slow", "pid": 1, "host": "elsewhere"}, ttl_s=600, confirm_window_s=600)
    assert slow.take() is None
    session._client().delete(session._key("lease"))
    drivers = StandInDrivers(holds=AnyToken())
    monkeypatch.setattr(run_drivers, "run_driver", drivers)
    session_driver = stand_in_session_driver()
    ended = serving_in_thread(session_driver)
    try:
        wait_until(lambda: "taking its runs back in" in caplog.text, 60, "the new holder to wait for the old one")
        assert session.lease_holder()["driver"] == session_driver.driver_id
        assert (Run.objects.get(pk=held_run).driver_token, drivers.tokens()) == ("first", []), "no run taken back yet"
    finally:
        session_driver.stopping.set()
        wait_until(lambda: ended, 60, "the session driver to end")
        session.withdraw()
    assert Run.objects.get(pk=held_run).driver_token == "first", "stopped while it waited: left for the next driver"


def test_every_take_over_waits_at_least_the_confirm_window_of_the_driver_it_fences(settings):
    """A driver's job completes checkpoints for up to ``CONFIRM_WINDOW_S`` after its hold was last confirmed: the
    heartbeat check declares it lost no sooner, and a session lease expires only after it."""
    from studio.runs import liveness
    from studio.runs.fencing import CONFIRM_WINDOW_S

    assert liveness.lost_after_s(settings.HEARTBEAT_TIMEOUT_S) >= CONFIRM_WINDOW_S
    assert liveness.lost_after_s(1) == CONFIRM_WINDOW_S, "a short heartbeat timeout configured does not undercut it"
    assert session.PRESENCE_TTL_S > CONFIRM_WINDOW_S


def test_the_jobs_of_a_session_driver_complete_checkpoints_only_while_its_lease_was_renewed_within_the_window():
    from studio.runs.fencing import CONFIRM_WINDOW_S

    driver = session_driver_with(4)
    now = [1000.0]
    driver.clock = lambda: now[0]
    assert not driver.lease_confirmed(), "never renewed"
    driver._renewed_at = now[0]
    assert driver.lease_confirmed()
    now[0] += CONFIRM_WINDOW_S
    assert not driver.lease_confirmed(), "its renewals stalled for the window: another may hold the lease"
    driver._renewed_at = now[0]
    driver.lease_lost.set()
    assert not driver.lease_confirmed(), "found lost"
