"""The executors' Python daemon forks workers that already hold the engine (spark_daemon)."""
import importlib
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


def test_a_session_with_a_slot_niceness_hands_it_to_its_executors_daemon(monkeypatch):
    from types import SimpleNamespace

    from engine.cluster import session_cluster

    confs = []

    def create(name, master, conf):
        confs.append(dict(conf))
        return SimpleNamespace(sparkContext=SimpleNamespace(master=master, defaultParallelism=2))

    monkeypatch.setattr(session_cluster, "create_spark_session", create)
    monkeypatch.setattr(session_cluster, "start_python_workers", lambda session, count: None)
    session_cluster.SessionCluster(2, slot_nice=5)
    session_cluster.SessionCluster(2)
    assert confs[0]["spark.executorEnv.ENGINE_SLOT_NICE"] == "5"
    assert "spark.executorEnv.ENGINE_SLOT_NICE" not in confs[1]
