"""Creating the Spark session a JobMaster places its slots on.

Spark's own recovery is switched off (one task attempt, one stage attempt): a failed slot
fails its barrier stage, and the JobMaster's failover, not Spark's retry, restores from
the latest checkpoint. The engine reaches the executors as a zip added with
``addPyFile``, so the same code runs in ``local[N]`` and on a standalone cluster.

The executors' Python daemon is ``engine.cluster.spark_daemon``: it imports the engine
before it forks workers, so a slot replacing a killed one starts without seconds of
imports. The daemon finds the engine on the executor's ``PYTHONPATH``: first the shipped
zip by its relative name (a standalone executor fetches it into its working directory,
where the daemon starts, before its first Python task), then this engine's directory
(``local[N]``: the executors are this process's JVM, on this file system).

In ``local[N]`` the driver's JVM compiles with its quick compiler only
(``-XX:TieredStopAtLevel=1``, :data:`LOCAL_DRIVER_JAVA_OPTIONS`). Its work there is
scheduling a few barrier stages, while the slot processes, each pinned to a CPU, do the
job's work on the same CPUs. Left with its optimising compiler, the JVM kept compiling
Spark's code for several runs after start: 0.25-0.36 CPU-seconds inside single second-long
runs of ``make bench-events``, taken from one pinned slot, which then finished last and set
the run's time. With the quick compiler only, the JVM took 0.02 CPU-seconds in every one of
nine such runs. Options given in ``extra_conf`` are kept and come after it.
"""
from __future__ import annotations

import logging
import os
import sys
import tempfile
import zipfile
from pathlib import Path

from engine.cluster.addresses import spark_driver_conf

ENGINE_DIR = Path(__file__).resolve().parent.parent
ENGINE_ZIP_NAME = "engine.zip"
WARM_DAEMON_MODULE = "engine.cluster.spark_daemon"
LOCAL_DRIVER_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"
DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"


def spark_master_for(slots: int, configured: str | None = None) -> str:
    """Return the configured master, or ``local[N]`` with a core per slot."""
    return configured or f"local[{max(1, slots)}]"


def create_spark_session(app_name: str, master: str, extra_conf: dict[str, str] | None = None):
    """Start (or reuse) the process's Spark session with the engine shipped to executors."""
    logging.getLogger("py4j").setLevel(logging.WARNING)  # its connection chatter, even at exit
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.appName(app_name).master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.task.maxFailures", "1")
        .config("spark.stage.maxConsecutiveAttempts", "1")
        .config("spark.python.worker.reuse", "true")
        .config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.python.daemon.module", WARM_DAEMON_MODULE)
        .config("spark.executorEnv.PYTHONPATH", os.pathsep.join([ENGINE_ZIP_NAME, str(ENGINE_DIR.parent)]))
    )
    # the driver's addresses and ports: SPARK_DRIVER_BIND_ADDRESS, _HOST, _PORT, SPARK_BLOCK_MANAGER_PORT
    for key, value in {**spark_driver_conf(), **_driver_jvm_conf(master, extra_conf or {})}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    session.sparkContext.addPyFile(build_engine_zip())
    return session


def start_python_workers(session, workers: int) -> None:
    """Run one tiny Python task on each of ``workers`` slots: the executors' Python daemon starts (it
    imports the engine, seconds on a busy machine) and keeps a reusable worker per slot, before any
    job waits for them."""
    context = session.sparkContext
    context.parallelize(range(workers), workers).map(lambda number: number).collect()


def _driver_jvm_conf(master: str, extra_conf: dict[str, str]) -> dict[str, str]:
    """``extra_conf``, with the quick-compiler option first in the driver's Java options when
    the executors share the driver's host (``local``)."""
    if not master.startswith("local"):
        return dict(extra_conf)
    given = extra_conf.get(DRIVER_JAVA_OPTIONS, "")
    return {**extra_conf, DRIVER_JAVA_OPTIONS: f"{LOCAL_DRIVER_JAVA_OPTIONS} {given}".strip()}


def build_engine_zip() -> str:
    """Zip the ``engine`` package (sources only) into a temporary file for ``addPyFile``."""
    target = Path(tempfile.mkdtemp(prefix="engine-zip-")) / ENGINE_ZIP_NAME
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(ENGINE_DIR.rglob("*.py")):
            archive.write(path, path.relative_to(ENGINE_DIR.parent).as_posix())
    return str(target)
