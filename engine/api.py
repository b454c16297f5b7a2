"""The engine's public entry point: the one module the studio (or any client) imports.

Everything a client does with the engine goes through here, as Flink's clients go through
a ``ClusterClient`` and never through the scheduler's internals:

- definitions: :func:`validate_definition` (every problem at once, as data),
  :func:`normalise_definition` (defaults filled in), :data:`OPERATOR_CATALOG`,
  :func:`operator_spec`, :func:`expression_fields`, :func:`check_expression`,
  :data:`DEFINITION_SCHEMA`, :data:`CHECKPOINTING_DEFAULTS`, :class:`ValidationError`;
- references (``engine.spec.references``): :func:`references_in` finds a definition's
  ``${param:name}`` and ``${secret:name}``, :func:`fill_parameters` and :func:`fill_secrets` fill them
  in (a problem naming the node and field for each unknown name), :func:`stand_in_references`
  and :func:`about_places` let a definition with references be validated before it has values;
- plans: :func:`plan_pipeline` (regions, vertices, schedule order as JSON-ready data) and
  :func:`describe_vertices` (per job vertex: parallelism, operators, inputs);
- jobs: :func:`submit` a definition to a deployment (:class:`InProcess` threads, or
  :class:`Spark` barrier stages), with a checkpoint directory and an optional restore
  source; the :class:`JobHandle` gives events, status, savepoints, stop, cancel and the
  :class:`JobResult`; :func:`run` does both and waits;
- session mode: a :class:`SessionCluster` is one Spark application many jobs share; submit to
  it with an :class:`InSession` deployment (its own job group, scheduler pool and share of the
  application's slots, waiting in turn when they are taken; ``SessionCluster.usage`` says who
  holds what); :class:`SessionTooSmall` names a job that can never fit; on a cluster master,
  :class:`ElasticSettings` make its executors follow the slots its jobs need;
- warm drivers: :func:`start_warm_session` (a Spark session whose executors already run,
  before the job is known), :func:`session_for` (use it for a job, or None when the job
  needs more slots) and :func:`slots_needed` (slots a job needs at once);
- snapshots: :func:`load_checkpoint_metadata`, :func:`discard_checkpoint`, :func:`checkpoint_exists`
  (whether a completed checkpoint or savepoint is still at a location); a :class:`SnapshotBrowser`
  reads a completed snapshot's state as data (never restoring it): per operator the kind of
  state, keys paged and searched, one key's state, sizes per key group, the diff of two
  snapshots, an export as JSON lines or Parquet (``engine.snapshots``);
- Kafka, without a job: :func:`kafka_topics` (topics, partitions, earliest and latest offsets)
  and :func:`kafka_sample` (a topic's latest messages, decoded as a source node would), for a
  topic browser and schema inference; the caller checks the address against its grants first; a
  :class:`SnapshotSigner` signs what a job writes and verifies what it restores
  (:class:`SnapshotRefused` names a snapshot it refuses);
- shadow runs (``engine.shadow``): :func:`fork_definition` makes one job of production's
  version and a candidate (shared sources, the candidate's copies restoring production's
  state, every sink redirected into a sandbox directory), :func:`redirect_sinks` does the
  last for any definition (a test case's sandbox too), :func:`prepare_source_forks`,
  :func:`shadow_sources` and :func:`release_source_forks` keep production's slots and
  consumer groups where they are, :func:`diff_outputs` compares the two sides per sink;
- trust at the boundaries: :class:`Grants` lists where a job's connectors may read, write
  and connect, checked by each connector at the moment of use (``engine.runtime.grants``);
- failures on purpose: a :class:`KillPlan` of :class:`PlannedKill` s given to :func:`submit`
  crashes chosen subtasks at chosen points (:data:`KILL_POINTS`) in chosen attempts of the job,
  on either deployment (``engine.runtime.kill_hooks``); ``"source_pacing":
  {"records_per_checkpoint": n}`` in a deployment's ``config`` spreads a job's checkpoints
  over its input; :func:`register_operator` adds an operator outside the catalog (a plugin);
- test cases (a definition's ``tests``, ``engine.spec.test_cases``): :func:`run_test_case`
  runs one, bounded and streaming, with its inputs, mocks and assertions;
  :func:`prove_exactly_once` runs one on a deployment while its subtasks are killed and
  compares the sinks' output with a failure-free run; :func:`junit_report` reports;
- expectations (data-quality rules on nodes and edges, ``engine.spec.expectations``):
  :func:`expectation_counts` sums the subtasks' counts of a ``metrics`` event (its ``tasks``)
  or of a checkpoint's acknowledgements; a completed checkpoint event carries them as
  ``checkpointed_metrics``;
- live taps: ``JobHandle.open_tap(edge_id, sink, limits)`` samples the records on an edge
  of the running job into ``sink`` (rate- and size-limited, dropped rather than ever
  slowing the job; ``engine.cluster.taps``), ``JobHandle.close_tap(tap_id)`` stops it;
  :class:`TapError` names an edge that is not there.

Usage::

    handle = submit(definition, Spark(master="spark://host:7077"), checkpoint_dir=url,
                    restore=None, on_event=print)
    location = handle.trigger_savepoint().result(timeout=60)
    handle.stop_with_savepoint(drain=False).result(timeout=60)
    result = handle.wait()           # JobResult: status, failure_cause, collected, ...

A studio test enforces that ``studio`` imports nothing else of the engine (see
``.importlinter``).
"""
from __future__ import annotations

from typing import Any, Callable

from engine.checkpoint.signing import SnapshotRefused, SnapshotSigner
from engine.checkpoint.storage import CheckpointStorage
from engine.checkpoint.storage import discard as discard_checkpoint
from engine.checkpoint.storage import is_completed as checkpoint_exists
from engine.checkpoint.storage import load_metadata as load_checkpoint_metadata
from engine.checkpoint.storage import sign_snapshot_files
from engine.cluster.autogroup import AUTOGROUP_SWITCH, autogroup_nice, autogroup_on, set_autogroup_nice
from engine.cluster.elastic import ElasticSettings
from engine.cluster.deployments import Deployment, InProcess, InSession, Spark, job_master_for, run, submit
from engine.cluster.job_master import JobHandle, JobResult
from engine.cluster.session_cluster import SessionCluster, SessionTooSmall
from engine.cluster.taps import TapError
from engine.cluster.warm_session import session_for, start_warm_session
from engine.plan.plan_summary import plan_pipeline
from engine.runtime.grants import Grants
from engine.runtime.kill_hooks import KILL_POINTS, KillPlan, PlannedKill
from engine.shadow.fork import ForkError, ShadowJob, fork_definition
from engine.shadow.outputs import OutputTooLarge, committed_records, diff_outputs, output_bytes
from engine.shadow.redirect import RedirectedSink, redirect_sinks
from engine.shadow.sources import (SourceFork, prepare_source_forks, release_source_forks, shadow_sources,
                                   source_forks_config)
from engine.snapshots.browser import SnapshotBrowser, UnknownOperator
from engine.spec import OPERATOR_CATALOG, ValidationError, normalise_definition, validate_definition
from engine.spec.catalog import expression_fields, operator_spec
from engine.spec.expressions import check_expression
from engine.spec.pipeline_file import SUFFIX as PIPELINE_FILE_SUFFIX
from engine.spec.pipeline_file import (PipelineFileError, logic_of, pipeline_file_name, pipeline_from_text,
                                         pipeline_to_text)
from engine.spec.references import (VALUE_NAME, Reference, about_places, fill_parameters, fill_secrets,
                                    holds_reference, references_in)
from engine.spec.validation import CHECKPOINTING_DEFAULTS, DEFINITION_SCHEMA

EventSink = Callable[[dict[str, Any]], None]


def stand_in_references(definition: dict) -> tuple[dict, set]:
    """``definition`` with each ``${param:…}``/``${secret:…}`` replaced by a value its field accepts, and the
    ``(node, field)`` places that held one (``engine.spec.references``): validation without an environment
    checks the rest and drops what it finds at those places (:func:`about_places`)."""
    from engine.spec.references import field_schemas, with_stand_ins

    return with_stand_ins(definition, field_schemas(definition))


def expectation_counts(task_reports) -> dict[str, dict]:
    """``{"node:<id>" | "edge:<id>": {"records", "dropped", "quarantined", "rules": {name: {"action",
    "violated"}}}}`` summed over task reports (each a dict that may hold ``expectations``)."""
    from engine.checkpoint.statistics import add_counts

    total: dict = {}
    for report in task_reports:
        add_counts(total, (report or {}).get("expectations") or {})
    return total


def run_test_case(definition: dict, case: dict, *, workdir: str, timeout: float = 30.0, resolve_file=None,
                  grants: Grants | None = None) -> dict:
    """Run one test case of a definition (``engine.spec.test_cases`` says what one is) in this process,
    bounded and streaming: what passed, what failed with its first difference, per node what it
    emitted (``engine.testing.runner``). Its inputs and outputs are files below ``workdir``."""
    from pathlib import Path

    from engine.testing.runner import run_test_case as run_case

    return run_case(definition, case, workdir=Path(workdir), timeout=timeout, resolve_file=resolve_file,
                    grants=grants)


def prove_exactly_once(definition: dict, case: dict, deployment: Deployment, *, workdir: str, kills: int = 10,
                       seed: int | None = None, rescale: bool = True, timeout: float = 600.0, resolve_file=None,
                       grants: Grants | None = None, on_progress=None, sink_targets=None) -> dict:
    """Run a test case of a definition while its subtasks are killed at random points (a seed draws
    them; once it restores at another parallelism) and compare every sink's committed output with a
    failure-free run's (``engine.testing.proof``): passed, failed (with the first difference, the kills
    and the seed to replay them), inconclusive or error."""
    from pathlib import Path

    from engine.testing.proof import prove_exactly_once as prove

    return prove(definition, case, deployment, workdir=Path(workdir), kills=kills, seed=seed, rescale=rescale,
                 timeout=timeout, resolve_file=resolve_file, grants=grants, on_progress=on_progress,
                 sink_targets=sink_targets)


def junit_report(pipeline: str, results: list[dict]) -> str:
    """Test case results as a JUnit XML report."""
    from engine.testing.runner import junit_xml

    return junit_xml(pipeline, results)


def register_operator(spec: dict, factory: str) -> None:
    """Add an operator type outside the catalog (a plugin): ``spec`` as the catalog's entries are,
    ``factory`` a ``"module:callable"`` building it as ``factory(node, context)``. Jobs using it carry
    the factory's name to their slots, which import it there (the module must be importable on
    every executor). Tests register deliberately broken operators this way."""
    from engine.runtime.operators import register_factory
    from engine.spec.catalog import register_operator_spec

    register_operator_spec(spec)
    register_factory(spec["type"], factory)


def latest_checkpoint(checkpoint_dir: str) -> dict | None:
    """The metadata of the newest completed checkpoint below ``checkpoint_dir``, or None."""
    return CheckpointStorage(checkpoint_dir).latest_completed()


def kafka_topics(bootstrap_servers: str) -> list[dict]:
    """``[{"topic", "partitions": [{"partition", "earliest", "latest"}]}]`` of a Kafka cluster
    (ValueError with a readable reason when it cannot be read)."""
    from engine.runtime.operators.connectors.kafka.browse import list_topics

    return list_topics(bootstrap_servers)


def kafka_sample(bootstrap_servers: str, topic: str, limit: int = 20, **params) -> list[dict]:
    """The latest ``limit`` messages of ``topic``: ``{"partition", "offset", "timestamp", "key", "headers",
    "value", "text"}``, ``value`` decoded with a source node's ``params`` (``format`` ...; JSON by default)."""
    from engine.runtime.operators.connectors.kafka.browse import sample_messages

    return sample_messages(bootstrap_servers, topic, limit, **params)


def slots_needed(definition: dict) -> int:
    """Slots a (normalised) definition's job needs at once on a Spark deployment."""
    from engine.cluster.job_master import slots_needed_at_once
    from engine.plan.compiler import compile_job_graph
    from engine.plan.job_graph import build_job_graph

    return slots_needed_at_once(compile_job_graph(build_job_graph(definition)))


def describe_vertices(definition: dict) -> dict:
    """Per job vertex of a (normalised) definition: parallelism, operators, inputs."""
    from engine.plan.job_graph import build_job_graph

    return build_job_graph(definition).describe()


__all__ = [
    # references to an environment's parameters and the user's secrets
    "Reference", "VALUE_NAME", "about_places", "fill_parameters", "fill_secrets", "holds_reference", "references_in",
    "stand_in_references",
    "CHECKPOINTING_DEFAULTS", "DEFINITION_SCHEMA", "KILL_POINTS", "OPERATOR_CATALOG", "check_expression",
    "checkpoint_exists", "expression_fields", "operator_spec", "Deployment", "Grants", "InProcess", "InSession",
    "JobHandle", "SessionCluster", "SessionTooSmall", "ElasticSettings",
    # Linux autogroups (the CPU shared by session first): the session driver's and its slots' weight
    "AUTOGROUP_SWITCH", "autogroup_nice", "autogroup_on", "set_autogroup_nice",
    "JobResult", "KillPlan", "PlannedKill", "register_operator", "SnapshotRefused",
    "SnapshotSigner", "Spark", "TapError", "sign_snapshot_files",
    # shadow runs and the state browser
    "ForkError", "OutputTooLarge", "RedirectedSink", "ShadowJob", "SnapshotBrowser", "SourceFork", "UnknownOperator",
    "committed_records", "diff_outputs", "fork_definition", "output_bytes", "prepare_source_forks", "redirect_sinks",
    "release_source_forks", "shadow_sources", "source_forks_config",
    "ValidationError", "describe_vertices", "expectation_counts", "discard_checkpoint", "job_master_for", "kafka_sample", "kafka_topics",
    "latest_checkpoint",
    "load_checkpoint_metadata", "normalise_definition", "plan_pipeline", "prove_exactly_once", "run", "run_test_case",
    "session_for", "slots_needed", "start_warm_session", "submit", "junit_report", "validate_definition",
    # pipelines as files
    "PIPELINE_FILE_SUFFIX", "PipelineFileError", "logic_of", "pipeline_file_name", "pipeline_from_text",
    "pipeline_to_text",
]
