"""Creating a run: pick the version and mode, check the definition and the restore, enqueue the launch."""
from __future__ import annotations

from django.db import transaction

from studio.locations import claim_sinks, policy_for, sink_uses
from studio.models import Pipeline, PipelineVersion, Run, RunStatus
from studio.processes.budget import validate_definition
from studio.run_values import bind, environment_of, values_for_start
from studio.runs.events import set_status
from studio.runs.placement import send_to_session
from studio.runs.restore import resolve_restore
from studio.trusted_code import require_code_permission


class DefinitionProblems(Exception):
    """The version's definition does not validate (any more); ``errors`` lists every problem."""

    def __init__(self, errors: list[dict]):
        super().__init__(f"{len(errors)} problem(s) in the definition")
        self.errors = errors


def start_run(pipeline: Pipeline, version: PipelineVersion, *, user, mode: str | None = None,
              restore_from: dict | None = None, allow_non_restored_state: bool = False,
              environment: str | None = None) -> Run:
    """Create a CREATED run and enqueue ``launch_run`` (or hand it straight to the session driver,
    ``studio.runs.placement.send_to_session``), both or neither.

    The launch is queued inside the run's transaction: when Redis cannot take it, the run
    is rolled back and the error (a 503 over HTTP) is all that happened. The worker may see
    the task a moment before the commit; ``launch_run`` waits for the row.
    The definition is checked against the locations granted to ``user`` now (and the run's
    driver checks it again when it starts); starting makes the pipeline the owner of its sink
    targets. ``environment`` (a name) gives the definition's ``${param:…}`` their values, checked here with
    the rest (``studio.run_values``); without one, a run restored from a run's checkpoint or savepoint runs in
    that run's environment. Raises :class:`DefinitionProblems`, ``studio.run_values.ValuesRefused``,
    ``studio.runs.restore.RestoreError`` or (code the user may not run) ``studio.trusted_code.TrustedCodeRefused``.
    """
    from studio.runs.tasks import launch_run

    require_code_permission(user, version.definition, "run")
    restore = (resolve_restore(user, restore_from, version.definition, allow_non_restored_state, pipeline)
               if restore_from else None)
    if environment is None and restore is not None and restore.origin_run is not None:
        environment = _environment_of_run(restore.origin_run)  # a restore goes on where the job ran
    definition, values = values_for_start(user, pipeline, version, environment)
    policy = policy_for(user, pipeline)
    errors = validate_definition(definition, policy)
    if errors:
        raise DefinitionProblems(errors)
    mode = mode or definition.get("mode", "streaming")
    with transaction.atomic():
        conflicts = claim_sinks(pipeline, sink_uses(definition, policy))
        if conflicts:
            raise DefinitionProblems(conflicts)
        run = Run.objects.create(
            pipeline=pipeline, version=version, mode=mode, created_by=user,
            restored_from=restore.checkpoint if restore else None, restore_path=restore.path if restore else "",
            allow_non_restored_state=allow_non_restored_state)
        bind(run, values)  # what runs where, before the launch can read it
        if restore and restore.checkpoint:  # the run restored from says where its job went (``ended_by``)
            Run.objects.filter(pk=restore.checkpoint.run_id).update()
        set_status(run.id, RunStatus.CREATED)  # before the launch can report SCHEDULING
        if not send_to_session(run, definition):  # a small run goes straight to the serving session driver
            launch_run.delay(run.id)
    run.refresh_from_db()
    return run


def _environment_of_run(run_id: int) -> str | None:
    run = Run.objects.filter(pk=run_id).first()
    return environment_of(run) if run is not None else None
