"""The driver process of one shadow run: ``python -m studio.shadows.driver <shadow id>``.

Started by the ``run_shadow`` Celery task (``studio.shadows.tasks``), which kills its whole
process tree past the shadow's time cap. In order:

1. both versions' definitions, their paths resolved and checked against the grants of the
   user who asked for the shadow, as they are now (``studio.location_policy``);
2. the sources' forks production must not notice (``engine.api.prepare_source_forks``: a copy
   of each CDC slot, made before the snapshot is taken);
3. the snapshot: a savepoint production takes now (``take``), or its newest completed
   checkpoint (``latest``); opened only signed by this studio as it is, of production's
   pipeline, and restorable by the user (``studio.runs.snapshots.verified_snapshot``);
4. one job of both versions (``engine.api.fork_definition``): the nodes they share run once,
   the candidate's copies restore production's state, every sink of either side writes JSON
   lines into the shadow's own directory; sources read on from the snapshot's positions
   without moving production's (``engine.api.shadow_sources``). The job may write only that
   directory (its grants), gets at most ``max_slots`` slots, and runs on Spark;
5. it runs until its input ends, its time budget is spent or its output reaches its cap,
   then stops with a savepoint, so every redirected sink commits what it processed;
6. the diff per sink (``engine.api.diff_outputs``), stored on the row; the forks are
   released and the shadow's own checkpoints deleted. Production's checkpoints, targets,
   slots and consumer groups are never written.
"""
from __future__ import annotations

import logging
import os
import secrets
import shutil
import sys
import time
from pathlib import Path

import django

POLL_S = 0.25
SAVEPOINT_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 120.0
logger = logging.getLogger("studio.shadows.driver")


class ShadowRefused(Exception):
    """The shadow cannot run; the message says why (stored as its failure)."""


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    django.setup()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    run_shadow(int(argv[0]))
    return 0


def run_shadow(shadow_id: int) -> None:
    from studio.shadows.models import ShadowRun, ShadowStatus

    shadow = ShadowRun.objects.select_related("production__pipeline", "production__version", "candidate",
                                              "created_by").get(pk=shadow_id)
    if shadow.status != ShadowStatus.PENDING:
        return
    forks: list = []
    try:
        forks = _run(shadow)
    except ShadowRefused as refused:
        _end(shadow, ShadowStatus.FAILED, failure=str(refused))
    except Exception as error:  # noqa: BLE001 - whatever went wrong ends the shadow, said in words
        logger.exception("shadow %s failed", shadow_id)
        _end(shadow, ShadowStatus.FAILED, failure=f"{type(error).__name__}: {error}")
    finally:
        clean_up(shadow, forks)


def clean_up(shadow, forks: list | None = None) -> None:
    """Release the shadow's source forks (those given, else those its row lists) and delete its own checkpoints."""
    from engine.api import SourceFork, release_source_forks
    from studio.shadows.models import ShadowRun

    if forks is None:
        forks = [SourceFork.from_json(fork) for fork in shadow.forks]
    problems = release_source_forks(forks) if forks else []
    if problems:
        logger.warning("shadow %s left: %s", shadow.pk, "; ".join(problems))
    ShadowRun.objects.filter(pk=shadow.pk).update(forks=[])
    shutil.rmtree(_checkpoint_dir(shadow), ignore_errors=True)


def _run(shadow) -> list:
    from django.conf import settings
    from django.utils import timezone

    from engine.api import (RedirectedSink, Spark, diff_outputs, fork_definition, output_bytes, prepare_source_forks,
                            shadow_sources, slots_needed, source_forks_config, submit)
    from studio.shadows.models import ShadowStatus

    production_definition, candidate_definition, grants = _definitions(shadow)
    token = f"s{shadow.pk}{secrets.token_hex(3)}"
    forks = prepare_source_forks(production_definition, token)
    _update(shadow, forks=[fork.as_json() for fork in forks])
    metadata = _snapshot(shadow)
    output_dir = Path(shadow.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    job = fork_definition(production_definition, candidate_definition, str(output_dir))
    definition, groups = shadow_sources(job.definition, token, metadata, {"redis_url": settings.REDIS_URL})
    forks += groups
    _update(shadow, forks=[fork.as_json() for fork in forks])
    slots = slots_needed(definition)
    if slots > shadow.max_slots:
        raise ShadowRefused(f"the shadow job needs {slots} slots at once (both versions side by side); it may use "
                            f"{shadow.max_slots}")
    _update(shadow, status=ShadowStatus.RUNNING, started_at=timezone.now(), shared=job.shared, sinks=job.sinks)
    handle = submit(definition, Spark(master=settings.SPARK_MASTER or f"local[{slots}]",
                                      config={"source_forks": source_forks_config(forks)}),
                    checkpoint_dir=str(_checkpoint_dir(shadow)), restore=metadata, grants=grants,
                    signer=_signer(shadow))
    paths = [side["path"] for sink in job.sinks for side in (sink["production"], sink["candidate"]) if side]
    deadline = time.monotonic() + shadow.max_seconds
    ended_by = "input_end"
    while handle.job.status not in ("FINISHED", "FAILED", "CANCELED"):
        if time.monotonic() > deadline:
            ended_by = "time_budget"
        elif sum(output_bytes(path) for path in paths) > shadow.max_output_bytes:
            ended_by = "output_cap"
        if ended_by != "input_end":
            try:  # the savepoint's completion commits every redirected sink's pending files
                handle.stop_with_savepoint(drain=False).result(timeout=STOP_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - a stop that fails still ends the job
                logger.exception("shadow %s: the stop with savepoint failed; cancelling", shadow.pk)
                handle.cancel()
            break
        time.sleep(POLL_S)
    result = handle.wait(STOP_TIMEOUT_S)
    if result.status == "FAILED":
        raise ShadowRefused(f"the shadow job failed: {result.failure_cause}")
    diffs = []
    for sink in job.sinks:
        production = RedirectedSink.from_json(sink["production"]) if sink["production"] else None
        candidate = RedirectedSink.from_json(sink["candidate"]) if sink["candidate"] else None
        diffs.append(diff_outputs(production, candidate, max_bytes=shadow.max_output_bytes * 2))
    _end(shadow, ShadowStatus.COMPLETED, diff=diffs, ended_by=ended_by)
    return forks


def _definitions(shadow):
    """Both versions' definitions, checked and resolved for the shadow's user, and the grants of its job.

    Both run with the parameters production runs with (its environment's, as it was started) and the shadow's
    user's secrets (``studio.run_values.fill_values``); from then on this process masks those secrets in what it
    writes, its Spark processes' output included, and in the shadow's row."""
    from engine.api import Grants, normalise_definition
    from studio.location_policy import check_definition, engine_grants, resolved_definition
    from studio.locations import policy_for
    from studio.run_values import FILL, ValuesRefused, fill_values

    policy = policy_for(shadow.created_by, shadow.production.pipeline)
    resolved, secrets = [], set()
    for name, version in (("production", shadow.production.version), ("candidate", shadow.candidate)):
        try:
            filled = fill_values(version.definition, user=shadow.created_by, run=shadow.production, secrets=FILL)
        except ValuesRefused as refused:
            raise ShadowRefused(f"{name} v{version.number}: {refused}")
        secrets.update(filled.secrets)
        definition = normalise_definition({**filled.definition, "mode": "streaming"})
        problems, uses = check_definition(definition, policy)
        if problems:
            first = problems[0]
            raise ShadowRefused(f"{name} v{version.number}: node {first.get('node')!r} {first.get('field')}: "
                                f"{first['message']}")
        resolved.append(resolved_definition(definition, uses))
    if secrets:
        _mask_secrets(sorted(secrets))
    Path(policy.workspace).mkdir(parents=True, exist_ok=True)
    granted = engine_grants(policy)
    # the job reads what the user may read, and writes only the shadow's own directory
    grants = Grants(read=granted.read + granted.write, write=(os.path.realpath(shadow.output_dir),), urls=granted.urls)
    return resolved[0], resolved[1], grants


def _mask_secrets(values: list[str]) -> None:
    from studio.secret_masking import SecretMask, activate, mask_output

    mask = SecretMask(values)
    activate(mask)
    mask_output(mask)


def _snapshot(shadow) -> dict:
    """The metadata of the snapshot the shadow starts from (see the module docstring, 3.)."""
    from django.utils import timezone

    from engine.api import SnapshotRefused
    from studio.models import Checkpoint, SavepointRequest
    from studio.runs.control import RunStateConflict, trigger_savepoint
    from studio.runs.snapshots import SnapshotForbidden, verified_snapshot
    from studio.shadows.models import ShadowStatus

    production = shadow.production
    _update(shadow, status=ShadowStatus.SNAPSHOTTING)
    if shadow.snapshot == "take":
        try:
            request = trigger_savepoint(production, shadow.created_by)
        except RunStateConflict as conflict:
            raise ShadowRefused(f"production cannot take the savepoint: {conflict}")
        deadline = time.monotonic() + SAVEPOINT_TIMEOUT_S
        while request.status == "IN_PROGRESS":
            if time.monotonic() > deadline:
                raise ShadowRefused(f"production's savepoint did not complete in {SAVEPOINT_TIMEOUT_S:g} s")
            time.sleep(POLL_S)
            request = SavepointRequest.objects.get(pk=request.pk)
        if request.status != "COMPLETED" or not request.location:
            raise ShadowRefused(f"production's savepoint failed: {request.failure_cause or 'no savepoint was written'}")
        # the request's location: its checkpoint row may get its path a moment after the request completed
        checkpoint, location = request.checkpoint, request.location
    else:
        checkpoint = (Checkpoint.objects.filter(run=production, status="COMPLETED", discarded=False)
                      .exclude(external_path="").order_by("-checkpoint_id").first())
        if checkpoint is None:
            raise ShadowRefused(f"run {production.pk} has no completed checkpoint to start from")
        location = checkpoint.external_path
    try:
        metadata = verified_snapshot(shadow.created_by, location)
    except (SnapshotRefused, SnapshotForbidden, FileNotFoundError) as refused:
        raise ShadowRefused(f"the snapshot of run {production.pk} at {location}: {refused}")
    origin = metadata.get("origin") or {}
    if origin.get("pipeline") != production.pipeline_id:
        raise ShadowRefused(f"the snapshot at {location} was not written by run {production.pk}'s pipeline")
    if checkpoint is None:
        checkpoint = Checkpoint.objects.filter(run=production, checkpoint_id=metadata.get("checkpoint_id")).first()
    _update(shadow, checkpoint=checkpoint, snapshot_location=metadata["location"], started_at=timezone.now())
    return metadata


def _signer(shadow):
    from engine.api import SnapshotSigner
    from studio.runs.snapshots import signing_key

    # the shadow's own checkpoints: signed, with an origin no run restores from (they are deleted at its end)
    return SnapshotSigner(signing_key(), {"pipeline": None, "run": None, "shadow": shadow.pk})


def _checkpoint_dir(shadow) -> Path:
    from django.conf import settings

    return Path(settings.CHECKPOINT_ROOT) / f"shadow-{shadow.pk}"


def _update(shadow, **fields) -> None:
    from studio.secret_masking import masked
    from studio.shadows.models import ENDED, ShadowRun

    # what the row answers (the diff's records, a failure's words) is masked; its forks are what releases them
    fields = {name: value if name == "forks" else masked(value) for name, value in fields.items()}
    for name, value in fields.items():
        setattr(shadow, name, value)
    # a shadow discarded meanwhile stays discarded
    ShadowRun.objects.filter(pk=shadow.pk).exclude(status__in=ENDED).update(**fields)


def _end(shadow, status: str, **fields) -> None:
    from django.utils import timezone

    _update(shadow, status=status, ended_at=timezone.now(), **fields)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
