"""The session driver: one process, one Spark application, many runs (Flink's session cluster).

``python -m studio.runs.session_driver`` is started by ``make up``'s supervisor when
``settings.SESSION_MODE`` is on, and started again when it dies. It:

- starts a ``SessionCluster`` (``local[SESSION_SLOTS]``, or ``SPARK_MASTER``; FAIR scheduling); on a
  ``SPARK_MASTER`` it is elastic (``SESSION_ELASTIC``): between ``SESSION_MIN_EXECUTORS`` and
  ``SESSION_SLOTS`` one-core executors, as many as its runs' slots, idle ones released after
  ``SESSION_EXECUTOR_IDLE_S``;
- first takes the studio's session lease (``studio.runs.session.SessionLease``): one session
  driver serves a studio. One started while another holds it (by hand, beside the supervisor's)
  logs one line naming the holder and waits, retrying every ``ANNOUNCE_INTERVAL_S``, taking no
  run back and starting no Spark application, until the lease is free (the supervisor starts a
  session driver again whenever it exits: one that exited at once would be a crash loop); a
  holder of this host whose process is gone (killed) is not waited for;
- then takes back every run placed in the session that has not ended (a session driver
  that died ran them): each gets a new fencing token in one UPDATE that names the token it
  had, so exactly one driver goes on with it and whatever an old one still reports is
  refused; a run that ran goes on from its latest completed checkpoint (RESTARTING, naming
  the checkpoint), one still starting starts;
- then announces itself (``studio.runs.session``: its application, slots, runs, memory) and
  drives each run handed over to it on a thread of its own (a run handed over by its start,
  ``studio.runs.placement.send_to_session``, is claimed and planned here first, as a Celery
  worker's ``studio.runs.tasks.launch_run`` does; one by a worker, ``studio.runs.tasks``, is) with
  ``studio.runs.driver.run_driver``: heartbeat, commands, fencing, events and savepoints
  exactly as in a driver of its own, the job an ``InSession`` JobMaster of the shared
  application (its own job group, scheduler pool, control channel, checkpoint directory); a run
  handed back to it while it still drives it (``studio.runs.liveness``) gets its next job only
  once the fenced one ended (:meth:`SessionDriver.start_run`);
- keeps its lease while it serves (renewed with its presence every ``ANNOUNCE_INTERVAL_S``); one
  that loses it (its renewal finds another driver's id, or the lease expired while it stalled past
  ``PRESENCE_TTL_S``, or Redis did not renew it for ``PRESENCE_TTL_S - LEASE_MARGIN_S``) stops every
  run's job at once and exits non-zero (:meth:`SessionDriver.lose_lease`): exactly once. The
  supervisor starts it again, and it takes the runs back from their latest checkpoints;
- on SIGTERM/SIGINT withdraws its presence, cancels every run's job and waits for them (bounded),
  as a run's own driver cancels its job, and only then gives its lease up.

A run's failure (an operator raising, a slot killed) fails over that run's regions only;
the session driver dying ends every run's job at once (the JVM and its slots die with it),
and the next session driver takes them all back.

Threads: the main thread takes the lease and pops launches; one thread starts the Spark application,
one keeps the lease (and announces); per run, the threads of ``run_driver`` (its job, heartbeat, commands).
"""
from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import django

ANNOUNCE_INTERVAL_S = 2.0
LEASE_MARGIN_S = 5.0
"""A driver that could not renew its lease (Redis away) for ``PRESENCE_TTL_S`` less this takes it for lost
before it may have expired: once Redis is back another driver may take it and the runs back."""
MEMORY_INTERVAL_S = 10.0
COMMIT_WAIT_S = 30.0
"""How long a run handed over by its start is waited for to appear (its transaction to commit)."""
STOP_TIMEOUT_S = 30.0
TAKE_OVER_TIMEOUT_S = 90.0
"""How long a run handed back waits for its fenced job here to end (:meth:`SessionDriver.start_run`): a
cancelled JobMaster waits up to ``engine.cluster.spark_deployer.STAGE_STOP_TIMEOUT_S`` (30 s) for its slots
to stop and again for its stage to end, which a loaded machine can take; failing the run sooner would fail
runs that were only slow to stop. (Not imported: this module loads the engine only when it drives.)"""
TAKEN_BACK = "the session driver restarted"
EARLIER_JOB_LINGERS = ("the run was handed back to its session driver, but the job it ran there before did not end "
                       "within {timeout:g} s of its cancel: not resumed beside it, so that no two jobs of the run "
                       "write its checkpoints and sinks at once; restart it from its latest checkpoint")
"""Why a run handed back is FAILED when its fenced job lingers (:meth:`SessionDriver.start_run`)."""
EXECUTOR_FIGURES = ("executors", "executors_target", "executors_min", "executors_max")
"""An elastic session's executors (registered, asked for, its minimum and maximum); None in local[N]."""
logger = logging.getLogger("studio.runs.session_driver")


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    django.setup()
    from studio.processes.priority import yield_to_studio

    logger.info("%s", yield_to_studio())  # before its JVM and slots start: they share its session's weight
    driver = SessionDriver()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: driver.stopping.set())
    return driver.serve()


def start_cluster(slots: int, master: str | None):
    from django.conf import settings

    from engine.api import ElasticSettings, SessionCluster

    elastic = None
    if master and settings.SESSION_ELASTIC:
        elastic = ElasticSettings(minimum=min(settings.SESSION_MIN_EXECUTORS, slots), maximum=slots,
                                  grace_s=settings.SESSION_EXECUTOR_IDLE_S)
    cluster = SessionCluster(slots, master, elastic=elastic, slot_nice=settings.SESSION_SLOT_NICE,
                             slot_autogroup_nice=settings.SLOT_AUTOGROUP_NICE)
    logger.info("session ready: application %s with %s slots (at most %s)", cluster.application_id,
                cluster.pool.total, cluster.max_slots)
    return cluster


class SessionDriver:
    """Drives the runs of one shared Spark application; ``serve`` in the main thread."""

    def __init__(self, cluster: Future | None = None):
        from django.conf import settings

        self._slots, self._master = settings.SESSION_SLOTS, settings.SPARK_MASTER or None
        self.cluster = cluster  # a future of the SessionCluster; started by serve once it holds the lease
        self.stopping = threading.Event()
        self.started_at = time.time()
        self.driver_id = secrets.token_hex(8)
        self.lease = None  # studio.runs.session.SessionLease, taken by serve
        self.lease_lost = threading.Event()
        self.clock = time.monotonic
        """The monotonic clock the lease's renewals are taken and judged by (a test's may be its own)."""
        self._lease_done = threading.Event()  # the lease keeper ends: every job here ended, or the lease was lost
        # monotonic, when the last renewal that found the lease held was sent: written by the lease keeper (and
        # take_lease before it starts), read by every run's completion guard (lease_confirmed; one float, no lock)
        self._renewed_at = float("-inf")
        self._announcing = False  # guarded by: self._announce_lock; whether renewals announce the presence
        self._announce_lock = threading.Lock()
        self._lock = threading.Lock()
        # guarded by: self._lock; per run, its driver threads in the order they were started (more than one a
        # while when it was handed back to this driver: the fenced one ending and the next one waiting for it)
        self._runs: dict[int, list[_Driving]] = {}
        self._memory: tuple[float, float] | None = None  # lease keeper only: (when, MB)

    def serve(self) -> int:
        """Serve until stopped (0), the lease lost or the Spark application not started (1)."""
        import redis
        from django.conf import settings

        from studio.runs import session

        if not self.take_lease():
            return 0  # stopped while another driver served
        keeper = threading.Thread(target=self._keep_lease, daemon=True, name="lease")
        keeper.start()
        if self.cluster is None:
            self.cluster = ThreadPoolExecutor(1, thread_name_prefix="session-start").submit(
                start_cluster, self._slots, self._master)
        failed = False
        self.wait_for_predecessor()
        self.take_back_runs()
        try:
            self.cluster.result()
        except Exception:
            logger.exception("the session's Spark application did not start")
            failed = True
            self.stopping.set()
        with self._announce_lock:
            self._announcing = not self.stopping.is_set()
        client = redis.Redis.from_url(settings.REDIS_URL)
        while not self.stopping.is_set():
            try:
                launch = session.take_launch(client, 1)
            except redis.RedisError:
                self.stopping.wait(1)  # Redis restarting: launches wait in the list
                continue
            if launch is not None and self.stopping.is_set():
                try:
                    session.hand_over(launch[0], launch[1], launch[2], launch=launch[3])  # for the next driver
                except redis.RedisError:
                    pass  # the next session driver claims the run as it starts (take_back_runs)
            elif launch is not None:
                self.start_run(*launch)
        with self._announce_lock:  # no launch comes any more; the lease stays held while the jobs end
            self._announcing = False
            try:
                self.lease.withdraw()
            except redis.RedisError:
                pass
        ended = self._stop_runs()
        self._lease_done.set()
        keeper.join(STOP_TIMEOUT_S)
        if ended and not self.lease_lost.is_set():
            try:
                self.lease.release()  # every job here ended: the next driver may take the runs back now
            except redis.RedisError:
                pass  # it expires
        return 1 if failed or self.lease_lost.is_set() else 0

    def take_lease(self) -> bool:
        """Take the studio's session lease, waiting while another session driver holds it (naming it, once
        per holder); False when stopped first. Nothing of the session is touched before: no run taken back,
        no Spark application started, nothing announced."""
        import redis

        from studio.runs import session

        self.lease = session.SessionLease({"driver": self.driver_id, "pid": os.getpid(),
                                           "host": socket.gethostname(), "since": self.started_at})
        named = None
        while not self.stopping.is_set():
            sent = self.clock()
            try:
                holder = self.lease.take()
                if holder and _died_here(holder) and self.lease.evict(holder):
                    logger.info("taking the session lease of %s, which died", session.describe_holder(holder))
                    holder = None
            except redis.RedisError:
                logger.warning("could not take the session lease (Redis away); trying again")
                self.stopping.wait(ANNOUNCE_INTERVAL_S)
                continue
            if holder is None:
                self._renewed_at = sent
                logger.info("holding the session lease as %s", session.describe_holder(self.lease.holder))
                return True
            if holder and holder.get("driver") != named:
                named = holder.get("driver")
                logger.error("another %s serves this studio: this one does not serve beside it (both would run "
                             "the runs' jobs and commit their records twice); it waits for that lease to end",
                             session.describe_holder(holder))
            self.stopping.wait(ANNOUNCE_INTERVAL_S if holder else 0.1)
        return False

    def wait_for_predecessor(self) -> None:
        """Take no run back while the lease's previous holder may still complete checkpoints: the lease vanished
        (its key deleted, or evicted by Redis) less than the confirm window after that holder's last renewal
        (``SessionLease.predecessor_may_commit_s``; ``studio.runs.fencing``). Expired, given up or taken from
        a dead holder, the lease leaves nothing to wait for."""
        wait_s = self.lease.predecessor_may_commit_s
        if wait_s > 0:
            logger.warning("the session lease vanished from a driver that renewed it moments ago: taking its runs "
                           "back in %.1f s, once it can complete no checkpoint any more", wait_s)
            self.stopping.wait(wait_s)

    def lease_confirmed(self) -> bool:
        """Whether this driver's lease was renewed less than ``CONFIRM_WINDOW_S`` ago and is not known lost: a
        run's job here may complete a checkpoint only then (``studio.runs.fencing``). Any thread."""
        from studio.runs.fencing import CONFIRM_WINDOW_S

        return not self.lease_lost.is_set() and self.clock() - self._renewed_at < CONFIRM_WINDOW_S

    def take_back_runs(self) -> list[int]:
        """Claim every run of the session that has not ended, with a new token; drive each. Their ids."""
        from django.utils import timezone

        from studio.models import TERMINAL_STATUSES, Run, RunStatus
        from studio.runs.placement import SESSION

        taken = []
        for run in Run.objects.filter(placement=SESSION).exclude(status__in=TERMINAL_STATUSES).only(
                "id", "driver_token", "status").order_by("id"):
            if self.stopping.is_set():
                break  # the lease lost, or stopped: the next session driver takes the rest back
            token = secrets.token_hex(16)
            claimed = Run.objects.filter(pk=run.id, driver_token=run.driver_token).exclude(
                status__in=TERMINAL_STATUSES).update(driver_token=token, heartbeat_at=timezone.now())
            if not claimed:
                continue  # it ended, or another driver claimed it, meanwhile
            ran = run.status not in (RunStatus.CREATED, RunStatus.SCHEDULING)
            logger.info("taking back run %s (%s)", run.id, run.status)
            # a CREATED one was handed over by its start and never claimed: claimed and planned now
            self.start_run(run.id, token, TAKEN_BACK if ran else None, run.status == RunStatus.CREATED)
            taken.append(run.id)
        return taken

    def start_run(self, run_id: int, token: str, resume_cause: str | None = None, launch: bool = False) -> None:
        """Drive the run on a thread of its own; ``launch``: it is CREATED (handed over by its start), claimed
        and planned first (:meth:`launch`).

        A run handed back while this driver still drives it (the heartbeat check took it for lost and gave
        it a new token, ``studio.runs.liveness``) has its fenced job here still: that job learns it was
        fenced at its next heartbeat, and until its JobMaster ended it may complete checkpoints and commit
        its sinks' transactions. Its next job must not start beside it: both would write the run's
        checkpoint directory and its sinks, and the next job would go on from a checkpoint older than
        what the fenced one committed meanwhile (the records between written twice). So the new thread
        first cancels the earlier job and waits for its thread (:meth:`_take_over`), and only then calls
        ``run_driver``, which picks the checkpoint to go on from. When the earlier thread does not end
        within ``TAKE_OVER_TIMEOUT_S`` the run is FAILED, saying so (:data:`EARLIER_JOB_LINGERS`), rather than
        resumed: its job may still write, and waiting on without end would show a run RESTARTING that
        never goes on. A launch whose token the run no longer holds, or one of a token already driven
        here (delivered twice), leaves the earlier thread alone and ends."""
        from studio.runs.driver import JobReference

        job = JobReference()
        thread = threading.Thread(target=self._drive, args=(run_id, token, resume_cause, job, launch), daemon=True,
                                  name=f"run-{run_id}")
        with self._lock:
            self._runs.setdefault(run_id, []).append(_Driving(thread, job, token))
        thread.start()

    def _drive(self, run_id: int, token: str, resume_cause: str | None, job, launch: bool = False) -> None:
        from django.db import connections

        from studio.runs.driver import run_driver

        try:
            if not self._take_over(run_id, token):
                return
            if launch and not self.launch(run_id, token):
                return
            if self.stopping.is_set():
                return  # the lease lost, or stopped: the next session driver takes the run back
            run_driver(run_id, token, session_cluster=self.cluster, resume_cause=resume_cause, job=job,
                       lease_confirmed=self.lease_confirmed)
        except Exception:
            logger.exception("the driver of run %s failed", run_id)
        finally:
            me = threading.current_thread()
            with self._lock:
                left = [driving for driving in self._runs.get(run_id, ()) if driving.thread is not me]
                if left:
                    self._runs[run_id] = left  # another driver thread of the run (handed back) goes on
                else:
                    self._runs.pop(run_id, None)
            connections.close_all()

    def _take_over(self, run_id: int, token: str) -> bool:
        """On the run's new driver thread, before it starts anything: True once no earlier driver thread of the
        run is left in this process (cancelled and ended); False when this thread must not drive the run (see
        :meth:`start_run`)."""
        from studio.models import Run, RunStatus
        from studio.runs.events import DriverFenced, set_status

        me = threading.current_thread()
        with self._lock:
            driving = self._runs.get(run_id, [])
            earlier = driving[:next((index for index, entry in enumerate(driving) if entry.thread is me), 0)]
        if not earlier:
            return True
        if not Run.objects.filter(pk=run_id, driver_token=token).exists():
            logger.info("run %s: dropping a launch with a token it no longer holds", run_id)
            return False
        if any(entry.token == token for entry in earlier):
            logger.info("run %s: dropping a launch delivered twice", run_id)
            return False
        logger.warning("run %s handed back while its fenced job still runs here: cancelling it first", run_id)
        for entry in earlier:
            entry.job.cancel()
        deadline = time.monotonic() + TAKE_OVER_TIMEOUT_S
        for entry in earlier:
            entry.thread.join(max(0.0, deadline - time.monotonic()))
        if self.stopping.is_set():
            return False  # this process ends, its JVM and any job left with it: the next session driver takes it back
        if not any(entry.thread.is_alive() for entry in earlier):
            return True
        cause = EARLIER_JOB_LINGERS.format(timeout=TAKE_OVER_TIMEOUT_S)
        logger.error("run %s: %s", run_id, cause)
        canceling = Run.objects.filter(pk=run_id, status=RunStatus.CANCELING).exists()
        try:
            set_status(run_id, RunStatus.CANCELED if canceling else RunStatus.FAILED, cause, driver_token=token)
        except DriverFenced:
            pass  # handed on again meanwhile: its newer driver thread waits for the earlier ones too
        return False

    def launch(self, run_id: int, token: str) -> bool:
        """What ``launch_run`` does for a run a Celery worker launches, for a run its start handed straight to
        this session (``studio.runs.placement.send_to_session``): wait for its row (the start's transaction
        may not have committed yet), plan it, check that it fits the session, claim it (CREATED to
        SCHEDULING). True: drive it now. False: it is not this driver's to drive (ended, cancelled, invalid,
        taken by another driver), or it needs more slots than the session has and went back to a Celery
        worker, placed in a driver of its own."""
        from engine.api import ValidationError, normalise_definition, plan_pipeline
        from studio.models import Run, RunStatus
        from studio.run_values import planned_definition
        from studio.runs.events import set_status
        from studio.runs.placement import OWN_DRIVER, fits
        from studio.runs.tasks import claim, launch_run

        deadline = time.monotonic() + COMMIT_WAIT_S
        while (run := Run.objects.select_related("version").filter(pk=run_id).first()) is None:
            if time.monotonic() > deadline or self.stopping.wait(0.02):
                logger.warning("run %s handed over never appeared; not starting it", run_id)
                return False
        if run.driver_token != token:
            return False  # another launch of it (a session driver taking runs back) has it
        if run.status != RunStatus.CREATED:
            claim(run_id)  # cancelled before it started: CANCELED now
            return False
        try:
            definition = normalise_definition({**planned_definition(run), "mode": run.mode})
            plan = plan_pipeline(definition)
        except ValidationError as error:
            if claim(run_id):
                set_status(run_id, RunStatus.FAILED, cause=f"invalid definition: {error}")
            return False
        try:
            placement = fits(definition, self.cluster.result().max_slots)
        except Exception:  # the application did not start: this driver ends, the next one takes the run back
            return False
        if not placement.in_session:
            if Run.objects.filter(pk=run_id, driver_token=token).update(placement=OWN_DRIVER,
                                                                        placement_reason=placement.reason):
                launch_run.delay(run_id)  # a Celery worker claims it and starts a driver of its own
            return False
        if not claim(run_id):
            return False  # cancelled meanwhile (then CANCELED), or claimed by another launch
        Run.objects.filter(pk=run_id).update(plan=plan, placement_reason=placement.reason)
        return True

    def runs(self) -> list[int]:
        with self._lock:
            return sorted(self._runs)

    def presence(self) -> dict:
        """What the studio shows of this session (``studio.runs.session.announce``)."""
        cluster = self.cluster.result()
        usage = cluster.usage()
        runs = self.runs()
        return {"pid": os.getpid(), "application_id": cluster.application_id, "slots": usage["slots"],
                "slots_used": usage["used"], "slots_max": cluster.max_slots, "runs": len(runs), "run_ids": runs,
                "runs_waiting": len(usage["waiting"]), "memory_mb": round(self._memory_mb()), "since": self.started_at,
                "at": time.time(),  # when run_ids held: a run claimed since is not in them (studio.runs.liveness)
                **{name: usage.get(name) for name in EXECUTOR_FIGURES}}

    def _memory_mb(self) -> float:
        """The process tree's memory, measured at most every ``MEMORY_INTERVAL_S`` (reading it walks every
        slot's Python worker: a hundred processes for a hundred runs, every announcement)."""
        now = time.monotonic()
        if self._memory is None or now - self._memory[0] >= MEMORY_INTERVAL_S:
            self._memory = (now, _tree_memory_mb())
        return self._memory[1]

    def _keep_lease(self) -> None:
        """The lease keeper's loop: renew the lease (with the presence, once serving) until every job here ended;
        on finding it lost, :meth:`lose_lease`."""
        import redis
        from django.db import connections

        from studio.runs import session

        while not self._lease_done.is_set():
            sent = self.clock()
            with self._announce_lock:
                presence = None
                if self._announcing:
                    try:
                        presence = self.presence()
                    except Exception:
                        logger.warning("could not say what the session holds", exc_info=True)
                try:
                    holder = self.lease.renew(presence)
                except redis.RedisError:
                    holder = None if sent - self._renewed_at < session.PRESENCE_TTL_S - LEASE_MARGIN_S else {}
                    logger.warning("could not renew the session lease (Redis away)")
                else:
                    if holder is None:
                        self._renewed_at = sent
            if holder is not None:
                self.lose_lease(holder)
                break
            self._lease_done.wait(ANNOUNCE_INTERVAL_S)
        connections.close_all()

    def lose_lease(self, holder: dict) -> None:
        """This driver no longer holds the session lease (``holder``: who does, ``{}`` when none does: it
        expired while this driver stalled, or could not be renewed): stop every run's job here at once, and
        end (``serve`` returns 1; the supervisor starts a session driver again, which takes the runs back).

        Exactly once: another driver may hold the lease now and have taken the runs back with tokens of its
        own, their jobs resumed from their latest checkpoints. A job here learns it was fenced only at its
        next heartbeat or event; until then it would complete checkpoints and commit its sinks beside the
        resumed job, the records between committed twice. Before cancelling, the runs this driver holds get
        a token no driver holds (one UPDATE naming their tokens), so the cancel's CANCELED, and whatever else
        a job here still reports, is refused: each run stays as it was, for the next driver to take back."""
        from studio.models import TERMINAL_STATUSES, Run
        from studio.runs import session

        logger.error("lost the session lease (%s holds it now): stopping every run's job here at once, so that "
                     "none commits beside a job the holder resumed; this driver ends, and the next one takes the "
                     "runs back", session.describe_holder(holder))
        self.lease_lost.set()
        self.stopping.set()
        with self._lock:
            running = [driving for drivings in self._runs.values() for driving in drivings]
        try:
            Run.objects.filter(driver_token__in=[driving.token for driving in running]).exclude(
                status__in=TERMINAL_STATUSES).update(driver_token=f"lease-lost-{secrets.token_hex(8)}")
        except Exception:
            logger.exception("could not fence the runs of this driver; cancelling their jobs anyway")
        for driving in running:
            driving.job.cancel()

    def _stop_runs(self) -> bool:
        """Cancel every run's job and wait for them (bounded); True when every one ended."""
        with self._lock:
            running = [driving for drivings in self._runs.values() for driving in drivings]
        for driving in running:
            driving.job.cancel()
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for driving in running:
            driving.thread.join(max(0.0, deadline - time.monotonic()))
        return not any(driving.thread.is_alive() for driving in running)


@dataclass(frozen=True)
class _Driving:
    """One driver thread of a run in the session driver: its thread, its job, the token it drives the run with."""

    thread: threading.Thread
    job: object  # studio.runs.driver.JobReference
    token: str


def _died_here(holder: dict) -> bool:
    """Whether the lease ``holder`` was a process of this host that no longer exists (killed: its lease would
    hold the runs of the session driver started again for up to ``PRESENCE_TTL_S``). A live process of its pid,
    or a holder elsewhere, is waited for."""
    if holder.get("host") != socket.gethostname() or not isinstance(holder.get("pid"), int) or holder["pid"] <= 0:
        return False
    try:
        os.kill(holder["pid"], 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # it exists (another user's)
    return False


def _tree_memory_mb() -> float:
    """Resident memory of this process and its children (the JVM, the slots' Python workers), in MB."""
    import psutil

    me = psutil.Process()
    total = 0
    for process in [me, *me.children(recursive=True)]:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass
    return total / 2**20


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.exit(main())
