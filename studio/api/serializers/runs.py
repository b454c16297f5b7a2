"""Runs: starting one, its summary and detail, its events and rescales, and state compatibility."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from studio.api.serializers.fields import (MAX_BIGINT, MAX_INT32, JSONObjectField, StrictBooleanField, StrictCharField,
                                          StrictIntegerField, StrictModelSerializer)
from studio.api.serializers.savepoints import SavepointRequestSerializer
from studio.models import Run

RUN_STATUSES = [choice for choice, _ in Run._meta.get_field("status").choices]


class RestoreFromSerializer(serializers.Serializer):
    """Where a run starts from: a checkpoint by the id users see (``#7``, with its run when ids repeat
    across runs), a checkpoint row by ``pk``, or a directory by ``path``."""

    checkpoint = StrictIntegerField(required=False, min_value=1, max_value=MAX_INT32,
                                    help_text="The checkpoint or savepoint id shown in the UI (#7), among "
                                              "this pipeline's runs; add `run` when several runs have it.")
    run = StrictIntegerField(required=False, min_value=1, max_value=MAX_BIGINT,
                             help_text="The run whose `checkpoint` is meant.")
    pk = StrictIntegerField(required=False, min_value=1, max_value=MAX_BIGINT,
                            help_text="The row id of a completed checkpoint or savepoint (`pk` in the "
                                      "checkpoint history, `checkpoint_pk` of a savepoint request).")
    path = StrictCharField(required=False, max_length=1000, allow_blank=False,
                           help_text="A checkpoint or savepoint directory (with `_metadata`) or URL.")

    def validate(self, attrs):
        if "run" in attrs and "checkpoint" not in attrs:
            raise serializers.ValidationError("run names whose checkpoint is meant: give checkpoint with it")
        if sum(key in attrs for key in ("checkpoint", "pk", "path")) != 1:
            raise serializers.ValidationError("give exactly one of checkpoint (with run when needed), pk and path")
        return attrs


class RunStartSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=["streaming", "batch"], required=False)
    version = StrictIntegerField(required=False, min_value=1, max_value=MAX_INT32)
    restore_from = RestoreFromSerializer(required=False, allow_null=True)
    allow_non_restored_state = StrictBooleanField(required=False, default=False)
    environment = StrictCharField(required=False, allow_blank=True, max_length=100,
                                  help_text="The environment whose parameters the definition's ${param:name} take "
                                            "(by name); none when empty.")


class StatusChangeSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=RUN_STATUSES)
    ts = serializers.IntegerField(help_text="epoch milliseconds")
    cause = StrictCharField(required=False)


class RestoredFromSerializer(serializers.Serializer):
    pk = serializers.IntegerField(allow_null=True)
    checkpoint_id = serializers.IntegerField(allow_null=True)
    run = serializers.IntegerField(allow_null=True)
    kind = StrictCharField(allow_null=True)
    path = StrictCharField()
    allow_non_restored_state = serializers.BooleanField()


class LastCheckpointSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The checkpoint id users see (#id).")
    kind = StrictCharField()
    trigger_timestamp = serializers.IntegerField(help_text="epoch milliseconds")


class EndedBySerializer(serializers.Serializer):
    how = serializers.ChoiceField(choices=["rescale", "upgrade", "restart", "stop", "cancel", "failure",
                                           "end_of_input"],
                                  help_text="rescale, upgrade, restart: stopped with a savepoint, and a later run "
                                            "of the pipeline restored from it (continued_as); stop: stopped with a "
                                            "savepoint; cancel; failure; end_of_input: its sources ended.")
    continued_as = serializers.IntegerField(allow_null=True, help_text="The run the job goes on as.")
    detail = StrictCharField(help_text='"parallelism 1 -> 2", "v3 -> v4", the failure\'s first line, or empty.')


class RunSummarySerializer(StrictModelSerializer):
    """A run without its definition, plan and records: what lists, the jobs overview and the pipeline's
    stream show. ``restarts`` counts RESTARTING transitions; ``last_checkpoint`` is the newest completed one;
    ``ended_by`` says how an ended run ended, and which run the job continues as."""

    pipeline_name = StrictCharField(source="pipeline.name", read_only=True)
    version = serializers.IntegerField(source="version.number", read_only=True)
    created_by = StrictCharField(source="created_by.username", read_only=True, allow_null=True, default=None)
    restarts = serializers.SerializerMethodField()
    last_checkpoint = serializers.SerializerMethodField()
    ended_by = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["id", "pipeline", "pipeline_name", "version", "mode", "status", "failure_cause",
                  "created_by", "created_at", "started_at", "ended_at", "restarts", "last_checkpoint", "ended_by"]

    def get_restarts(self, run: Run) -> int:
        return sum(1 for entry in run.status_history or [] if entry.get("status") == "RESTARTING")

    @extend_schema_field(LastCheckpointSerializer(allow_null=True))
    def get_last_checkpoint(self, run: Run) -> dict | None:
        from studio.runs.overview import last_checkpoint_of

        return last_checkpoint_of(run)

    @extend_schema_field(EndedBySerializer(allow_null=True))
    def get_ended_by(self, run: Run) -> dict | None:
        from studio.runs.overview import ended_by

        return ended_by(run)


class RunSerializer(RunSummarySerializer):
    placement = serializers.ChoiceField(
        choices=["session", "own_driver", ""], read_only=True,
        help_text='Where its job runs: "session" (the Spark application runs share), "own_driver" (a driver '
                  'and application of its own), "" (not launched yet).')
    placement_reason = StrictCharField(read_only=True, help_text="Why it runs there.")
    pipeline_isolated = serializers.BooleanField(source="pipeline.isolated", read_only=True,
                                                 help_text="Its pipeline's runs from now on get a driver of their "
                                                           "own (POST /api/pipelines/{id}/isolation changes it).")
    definition = JSONObjectField(source="version.definition", read_only=True)
    plan = serializers.JSONField(read_only=True, allow_null=True)
    collected = JSONObjectField(read_only=True)
    status_history = StatusChangeSerializer(many=True, read_only=True)
    restored_from = serializers.SerializerMethodField()
    savepoint_requests = serializers.SerializerMethodField()
    environment = serializers.SerializerMethodField(help_text=(
        "The environment the run runs in, by name (null: none); the parameters it got: GET /api/runs/{id}/environment."))

    class Meta(RunSummarySerializer.Meta):
        fields = RunSummarySerializer.Meta.fields + [
            "definition", "plan", "collected", "status_history", "restored_from", "savepoint_requests",
            "checkpoint_dir", "placement", "placement_reason", "pipeline_isolated", "environment"]

    def get_environment(self, run: Run) -> str | None:
        from studio.run_values import environment_of

        return environment_of(run)

    @extend_schema_field(RestoredFromSerializer(allow_null=True))
    def get_restored_from(self, run: Run) -> dict | None:
        if not run.restore_path and run.restored_from_id is None:
            return None
        checkpoint = run.restored_from
        return {"pk": checkpoint.pk if checkpoint else None,
                "checkpoint_id": checkpoint.checkpoint_id if checkpoint else None,
                "run": checkpoint.run_id if checkpoint else None,
                "kind": checkpoint.kind if checkpoint else None,
                "path": run.restore_path or (checkpoint.external_path if checkpoint else ""),
                "allow_non_restored_state": run.allow_non_restored_state}

    @extend_schema_field(SavepointRequestSerializer(many=True))
    def get_savepoint_requests(self, run: Run) -> list[dict]:
        requests = run.savepoint_requests.select_related("checkpoint")
        return SavepointRequestSerializer(requests, many=True).data


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = StrictCharField()
    ts = serializers.IntegerField()
    data = JSONObjectField()


class RescaleRequestSerializer(serializers.Serializer):
    parallelism = StrictIntegerField(min_value=1, max_value=1024, required=False,
                                     help_text="The job's new parallelism (nodes that followed it move along).")
    nodes = serializers.DictField(child=StrictIntegerField(min_value=1, max_value=1024), required=False,
                                  help_text="New parallelism per node id.")


class RescaleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    run = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["STOPPING", "STARTING", "COMPLETED", "ROLLED_BACK", "FAILED"])
    message = StrictCharField()
    from_version = serializers.IntegerField()
    to_version = serializers.IntegerField()
    parallelism = serializers.IntegerField(allow_null=True)
    nodes = serializers.DictField(child=serializers.IntegerField())
    savepoint_request_id = StrictCharField(allow_null=True)
    new_run = serializers.IntegerField(allow_null=True, help_text="The run at the new parallelism, once started.")
    rollback_run = serializers.IntegerField(allow_null=True,
                                            help_text="The run at the old parallelism, if the new one failed.")


class StateCompatibilitySerializer(serializers.Serializer):
    compatible = serializers.BooleanField(help_text="False when a stateful node changed its operator type.")
    needs_allow_non_restored_state = serializers.BooleanField()
    kept = serializers.ListField(child=StrictCharField())
    dropped = serializers.ListField(child=StrictCharField())
    added = serializers.ListField(child=StrictCharField())
    changed_type = serializers.ListField(child=StrictCharField())
    message = StrictCharField()

    def get_fields(self):
        return {"from": serializers.IntegerField(), "to": serializers.IntegerField(), **super().get_fields()}


class PaginatedRunsSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RunSummarySerializer(many=True)
