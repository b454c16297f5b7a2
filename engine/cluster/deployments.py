"""Deployments: where a job's slots run, and the JobMaster of a job on one.

:class:`InProcess` runs them as threads of this process (tests, previews, test cases),
:class:`Spark` as Spark barrier stages (the product's runs, exactly-once proofs). ``engine.api``
offers both to clients; ``engine.testing`` runs its jobs through them too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from engine.checkpoint.signing import SnapshotSigner
from engine.cluster.job_master import JobHandle, JobMaster, JobResult
from engine.cluster.local import ThreadDeployer
from engine.cluster.session_cluster import SessionCluster
from engine.cluster.spark_deployer import SparkDeployer
from engine.runtime.grants import Grants
from engine.runtime.kill_hooks import KillPlan
from engine.spec import normalise_definition

EventSink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class InProcess:
    """Run the job's slots as threads of this process (tests, previews).

    ``config`` is merged into every slot's configuration (``batch_size``,
    ``channel_capacity``, ``network: "tcp"`` ...).
    """

    config: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Spark:
    """Run each pipelined region as a Spark barrier stage.

    ``master``: a Spark master URL (``local[N]`` sized to the job when None); ``session``:
    an existing SparkSession to use instead; ``advertised_host``: where the executors
    reach this driver's control channel; ``pin_slots``: each slot on a CPU of its own;
    ``config`` is merged into every slot's configuration, as ``InProcess``'s.
    """

    master: str | None = None
    session: Any = None
    advertised_host: str = "127.0.0.1"
    pin_slots: bool = True
    config: dict = field(default_factory=dict)


@dataclass(frozen=True)
class InSession:
    """Run the job as one of many in a shared Spark application (a :class:`SessionCluster`).

    ``job``: its name, unique in the session (its scheduler pool and job group are named
    after it); the job waits without a deadline for slots other jobs hold. ``config`` as
    ``Spark``'s."""

    cluster: SessionCluster
    job: str
    advertised_host: str = "127.0.0.1"
    config: dict = field(default_factory=dict)


SESSION_CAPACITY_WAIT_S = float("inf")
"""A job in a session waits for its slots as long as it takes: other jobs end and give theirs back."""

Deployment = InProcess | Spark | InSession


def submit(definition: dict, deployment: Deployment, *, checkpoint_dir: str, restore: str | dict | None = None,
           on_event: EventSink | None = None, timeout: float | None = None, grants: Grants | None = None,
           signer: SnapshotSigner | None = None, kill_plan: KillPlan | None = None,
           may_complete_checkpoint: Callable[[], bool] | None = None) -> JobHandle:
    """Start a job in the background; the handle controls it. ``restore``: a checkpoint or
    savepoint directory (or its loaded metadata) to start from. ``grants``: where its
    connectors may go (None: anywhere); ``signer``: signs its snapshots and refuses to
    restore one it did not sign (None: no signatures); ``kill_plan``: crashes to inject
    (:class:`KillPlan`, on either deployment); ``may_complete_checkpoint``: asked at each
    checkpoint's completion whether the job is still its driver's, a no failing that checkpoint
    (``engine.checkpoint.coordinator``, "Fencing"; None: always yes)."""
    return job_master_for(definition, deployment, checkpoint_dir=checkpoint_dir, restore=restore,
                          on_event=on_event, grants=grants, signer=signer, kill_plan=kill_plan,
                          may_complete_checkpoint=may_complete_checkpoint).start(timeout)


def job_master_for(definition: dict, deployment: Deployment, *, checkpoint_dir: str,
                   restore: str | dict | None = None, on_event: EventSink | None = None, kill_hook=None,
                   grants: Grants | None = None, signer: SnapshotSigner | None = None,
                   kill_plan: KillPlan | None = None,
                   may_complete_checkpoint: Callable[[], bool] | None = None) -> JobMaster:
    """The JobMaster of ``definition`` over the deployer of ``deployment`` (not started yet).

    ``kill_hook`` (in-process only) injects failures for tests (``engine.runtime.kill_hooks``);
    ``kill_plan`` injects planned ones on either deployment (a kill raises in process, and on
    Spark it ends the slot's process as the plan's ``crash`` says)."""
    definition = normalise_definition(definition)
    common = {"checkpoint_dir": checkpoint_dir, "restore": restore, "on_event": on_event, "grants": grants,
              "signer": signer, "kill_plan": kill_plan, "may_complete_checkpoint": may_complete_checkpoint}
    if isinstance(deployment, InProcess):
        return JobMaster(definition, ThreadDeployer(deployment.config, kill_hook), config=deployment.config,
                         shuffle_root=deployment.config.get("shuffle_dir"), **common)
    if isinstance(deployment, Spark):
        if kill_hook is not None:
            raise ValueError("kill hooks run in this process only: on Spark, use a KillPlan")
        deployer = SparkDeployer(spark_master=deployment.master, spark_session=deployment.session,
                                 advertised_host=deployment.advertised_host, pin_slots=deployment.pin_slots)
        return JobMaster(definition, deployer, config=deployment.config, **common)
    if isinstance(deployment, InSession):
        if kill_hook is not None:
            raise ValueError("kill hooks run in this process only: in a session, use a KillPlan")
        return JobMaster(definition, deployment.cluster.deployer(deployment.job,
                                                                 advertised_host=deployment.advertised_host),
                         config=deployment.config, capacity_wait_s=SESSION_CAPACITY_WAIT_S, **common)
    raise TypeError(f"unknown deployment {deployment!r}: use InProcess(...), Spark(...) or InSession(...)")


def run(definition: dict, deployment: Deployment, *, checkpoint_dir: str, restore: str | dict | None = None,
        on_event: EventSink | None = None, timeout: float | None = None, grants: Grants | None = None,
        signer: SnapshotSigner | None = None, kill_plan: KillPlan | None = None,
        may_complete_checkpoint: Callable[[], bool] | None = None) -> JobResult:
    """Run a job to its end; a ``timeout`` cancels it (status CANCELED)."""
    return submit(definition, deployment, checkpoint_dir=checkpoint_dir, restore=restore, on_event=on_event,
                  timeout=timeout, grants=grants, signer=signer, kill_plan=kill_plan,
                  may_complete_checkpoint=may_complete_checkpoint).wait()
