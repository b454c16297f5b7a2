"""The executors' Python daemon forks workers that already hold the engine (spark_daemon)."""
import importlib
import json
import subprocess
import sys
import zipfile
import zipimport
from pathlib import Path

import pytest

from engine.cluster.spark_daemon import forget_zip_finders, preload

ROOT = Path(__file__).resolve().parents[3]


def test_preload_imports_what_imports_and_skips_what_does_not():
    imported = preload(("engine.runtime.slot", "engine.no_such_module"))

    assert imported == ["engine.runtime.slot"]
    assert "engine.runtime.slot" in sys.modules


def test_preloading_starts_no_thread_a_fork_would_lose():
    # in a fresh interpreter, as the daemon does: this test process runs Spark's py4j threads
    probe = "from engine.cluster.spark_daemon import preload, thread_count; preload(); print(thread_count())"
    threads = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                             cwd=ROOT).stdout

    assert threads.strip() == "1"


def test_forgotten_zip_finders_leave_imports_from_the_archive_working(tmp_path, monkeypatch):
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zipped_pkg/__init__.py", "")
        bundle.writestr("zipped_pkg/first.py", "VALUE = 1\n")
        bundle.writestr("zipped_pkg/second.py", "VALUE = 2\n")
    monkeypatch.syspath_prepend(str(archive))
    monkeypatch.delitem(sys.modules, "zipped_pkg", raising=False)
    importlib.import_module("zipped_pkg.first")
    try:
        assert forget_zip_finders() >= 1
        assert not any(isinstance(finder, zipimport.zipimporter) for finder in sys.path_importer_cache.values())
        importlib.invalidate_caches()  # what a freshly forked worker does once it extended sys.path

        assert importlib.import_module("zipped_pkg.second").VALUE == 2
    finally:
        for name in ("zipped_pkg", "zipped_pkg.first", "zipped_pkg.second"):
            sys.modules.pop(name, None)


@pytest.mark.spark
def test_slot_workers_are_forked_by_the_engine_daemon_with_the_runtime_imported(spark_session):
    def inspect_worker(_partition):
        import os
        import sys as worker_sys

        with open(f"/proc/{os.getppid()}/cmdline", "rb") as cmdline:
            parent = cmdline.read().replace(b"\0", b" ").decode()
        yield {"parent": parent, "runtime_imported": "engine.runtime.slot" in worker_sys.modules}

    workers = spark_session.sparkContext.parallelize(range(2), 2).mapPartitions(inspect_worker).collect()

    assert all("engine.cluster.spark_daemon" in worker["parent"] for worker in workers), workers
    assert all(worker["runtime_imported"] for worker in workers), workers


def test_the_daemon_takes_the_slots_niceness_and_the_workers_it_forks_keep_it():
    """A session's slots run nicer than the processes beside them (``SessionCluster(slot_nice=...)``): with a
    hundred runs on two cores the web server and the session driver get the CPU first."""
    probe = ("import os; from engine.cluster.spark_daemon import take_niceness; before = os.nice(0); "
             "after = take_niceness({'ENGINE_SLOT_NICE': '5'}); pid = os.fork()\n"
             "if pid == 0: os._exit(os.nice(0) - before)\n"
             "print(after - before, os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), take_niceness({}) - before)")
    taken, forked, unset = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                                          cwd=ROOT).stdout.split()
    assert (taken, forked, unset) == ("5", "5", "5")


def sessions_spark_confs(monkeypatch) -> list[dict]:
    """The Spark conf each ``SessionCluster`` made from here on asks for, in order (no Spark is started)."""
    from types import SimpleNamespace

    from engine.cluster import session_cluster

    confs: list[dict] = []

    def create(name, master, conf):
        confs.append(dict(conf))
        return SimpleNamespace(sparkContext=SimpleNamespace(master=master, defaultParallelism=2))

    monkeypatch.setattr(session_cluster, "create_spark_session", create)
    monkeypatch.setattr(session_cluster, "start_python_workers", lambda session, count: None)
    return confs


def test_a_session_with_a_slot_niceness_hands_it_to_its_executors_daemon(monkeypatch):
    from engine.cluster import session_cluster

    confs = sessions_spark_confs(monkeypatch)
    session_cluster.SessionCluster(2, slot_nice=5)
    session_cluster.SessionCluster(2)
    assert confs[0]["spark.executorEnv.ENGINE_SLOT_NICE"] == "5"
    assert "spark.executorEnv.ENGINE_SLOT_NICE" not in confs[1]


SLOT_AUTOGROUP_PROBE = """
import json, os
from engine.cluster.autogroup import autogroup_of
from engine.cluster.session_cluster import SessionCluster

def slot(_partition):
    import os
    from engine.cluster.autogroup import autogroup_of
    yield {"sid": os.getsid(0), "daemon": os.getppid(), "group": autogroup_of()}

cluster = SessionCluster(1, slot_autogroup_nice=7)
try:
    slots = cluster.session.sparkContext.parallelize(range(1), 1).mapPartitions(slot).collect()
finally:
    cluster.session.stop()
print(json.dumps({"driver_sid": os.getsid(0), "driver_group": autogroup_of(), "slots": slots}))
"""


@pytest.mark.spark
@pytest.mark.timeout(600)
def test_a_sessions_slots_run_in_an_autogroup_of_their_own_at_its_niceness():
    """``SessionCluster(slot_autogroup_nice=7)``: the slots' daemon leads a session of its own (pyspark's daemon
    loop still starts: its ``setpgid(0, 0)`` is not refused), so its workers are one autogroup at niceness 7 apart
    from the driver's, which keeps its weight: the data path waits behind the control plane, not beside it.
    A Spark application of its own, so in a process of its own (this one's shares the test session's)."""
    from engine.cluster.autogroup import autogroup_on

    if not autogroup_on():
        pytest.skip("this kernel does not group the CPU by session")
    done = subprocess.run([sys.executable, "-c", SLOT_AUTOGROUP_PROBE], capture_output=True, text=True, timeout=540,
                          cwd=ROOT, check=False, start_new_session=True)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    (slot,) = seen["slots"]
    assert slot["sid"] == slot["daemon"] != seen["driver_sid"], "the daemon leads a session of its own"
    assert slot["group"][1] == 7 and slot["group"][0] != seen["driver_group"][0], seen
    assert seen["driver_group"][1] == 0, "the driver's group keeps its weight"
    assert "engine daemon: slots: own autogroup" in done.stderr


def test_without_a_slot_autogroup_niceness_the_daemon_stays_in_the_drivers_session():
    probe = ("import os; from engine.cluster.spark_daemon import take_own_autogroup; sid = os.getsid(0); "
             "print(take_own_autogroup({}), take_own_autogroup({'ENGINE_SLOT_AUTOGROUP_NICE': '0'}), "
             "os.getsid(0) == sid)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.split() == ["False", "False", "True"]
    assert done.stderr == "", "nothing asked, nothing said"


def test_where_autogroups_are_off_the_daemon_stays_where_it_is_and_says_so_once(tmp_path):
    switch = tmp_path / "sched_autogroup_enabled"
    switch.write_text("0\n")
    probe = ("import os; from pathlib import Path; from engine.cluster import autogroup, spark_daemon\n"
             f"autogroup.AUTOGROUP_SWITCH = Path({str(switch)!r}); sid = os.getsid(0)\n"
             "print(spark_daemon.take_own_autogroup({'ENGINE_SLOT_AUTOGROUP_NICE': '10'}), os.getsid(0) == sid)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.split() == ["False", "True"]
    said = "engine daemon: slots: autogroup niceness not set: autogroup scheduling is off (or no /proc)"
    assert done.stderr.splitlines() == [said]


def test_where_the_group_refuses_its_niceness_the_daemon_runs_on_and_says_why(monkeypatch):
    from engine.cluster import autogroup

    monkeypatch.setattr(autogroup, "autogroup_on", lambda switch=None: True)
    monkeypatch.setattr(autogroup.os, "setsid", lambda: None)  # this test's session is not the test's to leave

    def refused(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(autogroup.Path, "write_text", refused)
    leads, said = autogroup.lead_own_autogroup(10)
    assert leads and said == "own session, autogroup niceness not set: [Errno 13] Permission denied"


def test_a_process_that_leads_a_process_group_cannot_take_a_session_and_runs_on():
    probe = ("import os; from engine.cluster.autogroup import lead_own_autogroup; os.setpgid(0, 0); "
             "print(lead_own_autogroup(10))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    from engine.cluster.autogroup import autogroup_on

    expected = "no session of its own" if autogroup_on() else "autogroup scheduling is off"
    assert expected in done.stdout, done.stdout


def test_pyspark_daemons_own_group_call_is_not_refused_in_a_session_leader():
    """pyspark's ``manager()`` starts with ``os.setpgid(0, 0)``, refused to a session leader (EPERM): the daemon's
    ``os`` for it answers that call (already its group's leader) and passes any other through."""
    probe = ("import os; from engine.cluster.spark_daemon import _SessionLeaderOs; os.setsid(); shim = _SessionLeaderOs()\n"
             "try:\n    os.setpgid(0, 0); print('plain os: allowed')\n"
             "except PermissionError:\n    print('plain os: refused')\n"
             "shim.setpgid(0, 0); print('shim: allowed', shim.getpid() == os.getpid(), os.getpgid(0) == os.getpid())")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.splitlines() == ["plain os: refused", "shim: allowed True True"]


def test_a_session_with_a_slot_autogroup_niceness_hands_it_to_its_executors_daemon(monkeypatch):
    from engine.cluster import session_cluster

    confs = sessions_spark_confs(monkeypatch)
    session_cluster.SessionCluster(2, slot_autogroup_nice=10)
    session_cluster.SessionCluster(2)
    assert confs[0]["spark.executorEnv.ENGINE_SLOT_AUTOGROUP_NICE"] == "10"
    assert "spark.executorEnv.ENGINE_SLOT_AUTOGROUP_NICE" not in confs[1]
