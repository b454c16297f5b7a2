"""Creating a run: pick the version and mode, check the definition and the restore, enqueue the launch."""
from __future__ import annotations

from django.db import transaction

from studio.locations import claim_sinks, policy_for, sink_uses
from studio.models import Pipeline, PipelineVersion, Run, RunStatus
from studio.processes.budget import validate_definition
from studio.runs.events import set_status
from studio.runs.restore import resolve_restore
from studio.trusted_code import require_code_permission


class DefinitionProblems(Exception):
    """The version's definition does not validate (any more); ``errors`` lists every problem."""

    def __init__(self, errors: list[dict]):
        super().__init__(f"{len(errors)} problem(s) in the definition")
        self.errors = errors


def start_run(pipeline: Pipeline, version: PipelineVersion, *, user, mode: str | None = None,
              restore_from: dict | None = None, allow_non_restored_state: bool = False) -> Run:
    """Create a CREATED run and enqueue ``launch_run``, both or neither.

    The launch is queued inside the run's transaction: when Redis cannot take it, the run
    is rolled back and the error (a 503 over HTTP) is all that happened. The worker may see
    the task a moment before the commit; ``launch_run`` waits for the row.
    The definition is checked against the locations granted to ``user`` now (and the run's
    driver checks it again when it starts); starting makes the pipeline the owner of its sink
    targets. Raises :class:`DefinitionProblems`, ``studio.runs.restore.RestoreError`` or (code the user may not
    run) ``studio.trusted_code.TrustedCodeRefused``.
    """
    from studio.runs.tasks import launch_run

    require_code_permission(user, version.definition, "run")
    policy = policy_for(user, pipeline)
    errors = validate_definition(version.definition, policy)
    if errors:
        raise DefinitionProblems(errors)
    mode = mode or version.definition.get("mode", "streaming")
    restore = (resolve_restore(user, restore_from, version.definition, allow_non_restored_state, pipeline)
               if restore_from else None)
    with transaction.atomic():
        conflicts = claim_sinks(pipeline, sink_uses(version.definition, policy))
        if conflicts:
            raise DefinitionProblems(conflicts)
        run = Run.objects.create(
            pipeline=pipeline, version=version, mode=mode, created_by=user,
            restored_from=restore.checkpoint if restore else None, restore_path=restore.path if restore else "",
            allow_non_restored_state=allow_non_restored_state)
        if restore and restore.checkpoint:  # the run restored from says where its job went (``ended_by``)
            Run.objects.filter(pk=restore.checkpoint.run_id).update()
        set_status(run.id, RunStatus.CREATED)  # before the launch can report SCHEDULING
        launch_run.delay(run.id)
    run.refresh_from_db()
    return run
