"""Serializers: the shapes the browser and scripts read and write."""
from __future__ import annotations

from django.contrib.auth.models import Group
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from studio.models import ApiToken, Pipeline, PipelineShare, PipelineVersion, Run, SavepointRequest

MAX_INT32 = 2**31 - 1
MAX_BIGINT = 2**63 - 1
RUN_STATUSES = [choice for choice, _ in Run._meta.get_field("status").choices]
CHECKPOINT_STATUSES = ["IN_PROGRESS", "COMPLETED", "FAILED"]


@extend_schema_field({"type": "object", "additionalProperties": True,
                      "description": "A pipeline definition (format 1); see GET /api/operators for node types."})
class DefinitionField(serializers.JSONField):
    """A pipeline definition; checked by ``engine.spec`` in the view, where all errors are known."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("a pipeline definition is a JSON object")
        return value


class JSONObjectField(serializers.JSONField):
    """Any JSON object (documented as such)."""


extend_schema_field({"type": "object", "additionalProperties": True})(JSONObjectField)


class OperatorSerializer(serializers.Serializer):
    """One operator type of the catalog (``engine.spec.catalog``)."""

    type = serializers.CharField()
    category = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    inputs = serializers.JSONField(help_text='How many inputs: 0, 1 or "many".')
    outputs = serializers.IntegerField()
    source = serializers.BooleanField()
    sink = serializers.BooleanField()
    keyed = serializers.BooleanField()
    stateful = serializers.BooleanField()
    params_schema = JSONObjectField(help_text="The JSON Schema of the operator's params.")


# -- errors -------------------------------------------------------------------------------------------

class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


class ProblemSerializer(serializers.Serializer):
    node = serializers.CharField(allow_null=True)
    edge = serializers.CharField(allow_null=True)
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class DefinitionErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = ProblemSerializer(many=True, required=False)


class FieldErrorsSerializer(serializers.Serializer):
    """A request body that did not match: ``{"detail"}`` or one list of messages per field."""

    detail = serializers.CharField(required=False)


# -- pipelines and versions ---------------------------------------------------------------------------

class PipelineWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    definition = DefinitionField()
    message = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class ImportSerializer(PipelineWriteSerializer):
    message = serializers.CharField(max_length=500, required=False, allow_blank=True, default="Imported")


class PipelineSerializer(serializers.ModelSerializer):
    version = serializers.SerializerMethodField()
    definition = serializers.SerializerMethodField()
    owner = serializers.CharField(source="owner.username", read_only=True, allow_null=True, default=None)
    permissions = serializers.SerializerMethodField()

    class Meta:
        model = Pipeline
        fields = ["id", "name", "version", "definition", "owner", "permissions", "created_at", "updated_at"]

    def get_version(self, pipeline: Pipeline) -> int:
        return pipeline.latest_version().number

    @extend_schema_field({"type": "object", "additionalProperties": True})
    def get_definition(self, pipeline: Pipeline) -> dict:
        return pipeline.latest_version().definition

    @extend_schema_field({"type": "array", "items": {"type": "string", "enum": ["view", "edit", "run", "own"]}})
    def get_permissions(self, pipeline: Pipeline) -> list[str]:
        from studio.access import PERMISSIONS, pipeline_permissions

        request = self.context.get("request")
        granted = pipeline_permissions(getattr(request, "user", None), pipeline)
        return [name for name in PERMISSIONS if name in granted]


class PipelineListSerializer(PipelineSerializer):
    class Meta(PipelineSerializer.Meta):
        fields = ["id", "name", "version", "owner", "created_at", "updated_at"]

    def get_version(self, pipeline: Pipeline) -> int:
        number = getattr(pipeline, "latest_number", None)
        return number if number is not None else super().get_version(pipeline)


class VersionSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True, default=None)

    class Meta:
        model = PipelineVersion
        fields = ["number", "message", "created_at", "created_by"]


class VersionDetailSerializer(VersionSerializer):
    definition = JSONObjectField(read_only=True)

    class Meta(VersionSerializer.Meta):
        fields = ["number", "message", "definition", "created_at", "created_by"]


class RollbackSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=1, max_value=MAX_INT32)
    message = serializers.CharField(max_length=500, required=False, allow_blank=True)


class ValidateSerializer(serializers.Serializer):
    definition = DefinitionField()


class ValidationResultSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    errors = ProblemSerializer(many=True)


class DraftDiffSerializer(serializers.Serializer):
    def get_fields(self):  # "from" is a Python keyword, so the fields are declared here
        return {"from": DefinitionField(), "to": DefinitionField()}


class ChangeSerializer(serializers.Serializer):
    path = serializers.CharField()

    def get_fields(self):
        return {**super().get_fields(), "from": serializers.JSONField(allow_null=True),
                "to": serializers.JSONField(allow_null=True)}


class ChangedItemSerializer(serializers.Serializer):
    id = serializers.CharField()
    changes = ChangeSerializer(many=True)


class ItemsDiffSerializer(serializers.Serializer):
    added = serializers.ListField(child=serializers.CharField())
    removed = serializers.ListField(child=serializers.CharField())
    changed = ChangedItemSerializer(many=True)


class SettingsDiffSerializer(serializers.Serializer):
    changed = ChangeSerializer(many=True)


class DiffSerializer(serializers.Serializer):
    nodes = ItemsDiffSerializer()
    edges = ItemsDiffSerializer()
    settings = SettingsDiffSerializer()

    def get_fields(self):
        return {"from": serializers.IntegerField(allow_null=True, help_text="null for a draft or nothing"),
                "to": serializers.IntegerField(allow_null=True), **super().get_fields()}


class PlanRegionSerializer(serializers.Serializer):
    id = serializers.CharField()
    vertices = JSONObjectField()
    job_vertices = serializers.ListField(child=serializers.CharField())
    depends_on = serializers.JSONField()
    size = serializers.IntegerField()


class PlanSerializer(serializers.Serializer):
    """The planner's summary (``engine.plan.plan_summary``)."""

    job_vertices = serializers.ListField(child=JSONObjectField())
    job_edges = serializers.ListField(child=JSONObjectField())
    regions = PlanRegionSerializer(many=True)
    node_regions = JSONObjectField()
    schedule = serializers.ListField(child=serializers.CharField())
    counts = JSONObjectField()


class PreviewRequestSerializer(serializers.Serializer):
    definition = DefinitionField()
    limit = serializers.IntegerField(min_value=1, max_value=1000, default=100)


class PreviewNodeSerializer(serializers.Serializer):
    records = serializers.ListField(child=serializers.JSONField(allow_null=True))
    count = serializers.IntegerField()


class PreviewSerializer(serializers.Serializer):
    status = serializers.CharField()
    failure = serializers.CharField(required=False, allow_null=True)
    nodes = serializers.DictField(child=PreviewNodeSerializer())


class ShareSerializer(serializers.ModelSerializer):
    group = serializers.SlugRelatedField(slug_field="name", queryset=Group.objects.all())
    permissions = serializers.ListField(
        child=serializers.ChoiceField(choices=["view", "edit", "run"]), required=False, default=["view"])

    class Meta:
        model = PipelineShare
        fields = ["id", "group", "permissions", "created_at"]
        read_only_fields = ["id", "created_at"]
        validators = []  # the view answers a second share of the same group with 409

    def to_representation(self, share):
        return {"id": share.id, "group": share.group.name, "permissions": share.permissions,
                "created_at": serializers.DateTimeField().to_representation(share.created_at)}

    def create(self, validated):
        permissions = set(validated.pop("permissions", ["view"]))
        return PipelineShare.objects.create(can_edit="edit" in permissions, can_run="run" in permissions,
                                            **validated)


# -- runs ------------------------------------------------------------------------------------------------

class RestoreFromSerializer(serializers.Serializer):
    checkpoint = serializers.IntegerField(required=False, min_value=1, max_value=MAX_BIGINT,
                                          help_text="The row id (`pk`) of a completed checkpoint or savepoint.")
    path = serializers.CharField(required=False, max_length=1000, allow_blank=False,
                                 help_text="A checkpoint or savepoint directory (with `_metadata`) or URL.")

    def validate(self, attrs):
        if ("checkpoint" in attrs) == ("path" in attrs):
            raise serializers.ValidationError("give exactly one of checkpoint and path")
        return attrs


class RunStartSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=["streaming", "batch"], required=False)
    version = serializers.IntegerField(required=False, min_value=1, max_value=MAX_INT32)
    restore_from = RestoreFromSerializer(required=False, allow_null=True)
    allow_non_restored_state = serializers.BooleanField(required=False, default=False)


class StatusChangeSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=RUN_STATUSES)
    ts = serializers.IntegerField(help_text="epoch milliseconds")
    cause = serializers.CharField(required=False)


class RestoredFromSerializer(serializers.Serializer):
    pk = serializers.IntegerField(allow_null=True)
    checkpoint_id = serializers.IntegerField(allow_null=True)
    run = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField(allow_null=True)
    path = serializers.CharField()
    allow_non_restored_state = serializers.BooleanField()


class RunSummarySerializer(serializers.ModelSerializer):
    """A run without its definition, plan and records: what lists and the pipeline's stream show."""

    pipeline_name = serializers.CharField(source="pipeline.name", read_only=True)
    version = serializers.IntegerField(source="version.number", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True, default=None)

    class Meta:
        model = Run
        fields = ["id", "pipeline", "pipeline_name", "version", "mode", "status", "failure_cause",
                  "created_by", "created_at", "started_at", "ended_at"]


class SavepointRequestSerializer(serializers.ModelSerializer):
    checkpoint_id = serializers.IntegerField(source="checkpoint.checkpoint_id", read_only=True, allow_null=True,
                                             default=None)
    checkpoint_pk = serializers.IntegerField(source="checkpoint.pk", read_only=True, allow_null=True, default=None)
    location = serializers.CharField(allow_null=True)
    target_directory = serializers.CharField(allow_null=True)

    class Meta:
        model = SavepointRequest
        fields = ["request_id", "run", "kind", "status", "location", "failure_cause", "checkpoint_id",
                  "checkpoint_pk", "target_directory", "drain", "triggered_at", "completed_at"]

    def to_representation(self, request):
        data = super().to_representation(request)
        data["location"] = data["location"] or None
        data["target_directory"] = data["target_directory"] or None
        return data


class RunSerializer(RunSummarySerializer):
    definition = JSONObjectField(source="version.definition", read_only=True)
    plan = serializers.JSONField(read_only=True, allow_null=True)
    collected = JSONObjectField(read_only=True)
    status_history = StatusChangeSerializer(many=True, read_only=True)
    restored_from = serializers.SerializerMethodField()
    savepoint_requests = serializers.SerializerMethodField()

    class Meta(RunSummarySerializer.Meta):
        fields = RunSummarySerializer.Meta.fields + [
            "definition", "plan", "collected", "status_history", "restored_from", "savepoint_requests",
            "checkpoint_dir", "heartbeat_at"]

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


class SavepointTriggerSerializer(serializers.Serializer):
    target_directory = serializers.CharField(required=False, allow_null=True, allow_blank=True, max_length=1000,
                                             help_text="Where to write the savepoint; the run's default if empty.")


class StopSerializer(SavepointTriggerSerializer):
    drain = serializers.BooleanField(default=False, help_text="Drain: sources end (max watermark, end of data) "
                                                               "before the savepoint.")


class RequestIdSerializer(serializers.Serializer):
    request_id = serializers.CharField()


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    ts = serializers.IntegerField()
    data = JSONObjectField()


# -- checkpoints -----------------------------------------------------------------------------------------

class SubtaskStatsSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    status = serializers.CharField()
    ack_timestamp = serializers.IntegerField(allow_null=True)
    end_to_end_duration = serializers.IntegerField(allow_null=True)
    start_delay = serializers.FloatField(allow_null=True)
    alignment_duration = serializers.FloatField(allow_null=True)
    sync_duration = serializers.FloatField(allow_null=True)
    async_duration = serializers.FloatField(allow_null=True)
    state_size = serializers.IntegerField(allow_null=True)


class CheckpointRowSerializer(serializers.Serializer):
    """One checkpoint in the history (Flink's field names); ``id`` is the checkpoint id, ``pk`` the row id."""

    id = serializers.IntegerField()
    pk = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["checkpoint", "savepoint", "sync-savepoint"])
    is_savepoint = serializers.BooleanField()
    status = serializers.ChoiceField(choices=CHECKPOINT_STATUSES)
    trigger_timestamp = serializers.IntegerField()
    latest_ack_timestamp = serializers.IntegerField(allow_null=True)
    end_to_end_duration = serializers.IntegerField(allow_null=True)
    alignment_duration = serializers.FloatField(allow_null=True)
    state_size = serializers.IntegerField()
    num_acknowledged_subtasks = serializers.IntegerField()
    num_subtasks = serializers.IntegerField()
    external_path = serializers.CharField(allow_null=True)
    failure_message = serializers.CharField(allow_null=True)
    discarded = serializers.BooleanField()


class VertexCheckpointSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    operators = serializers.ListField(child=serializers.CharField())
    num_subtasks = serializers.IntegerField()
    num_acknowledged_subtasks = serializers.IntegerField()
    state_size = serializers.IntegerField()
    latest_ack_timestamp = serializers.IntegerField(allow_null=True)
    end_to_end_duration = serializers.IntegerField(allow_null=True)
    alignment_duration = serializers.FloatField(allow_null=True)
    start_delay = serializers.FloatField(allow_null=True)
    sync_duration = serializers.FloatField(allow_null=True)
    async_duration = serializers.FloatField(allow_null=True)
    subtasks = SubtaskStatsSerializer(many=True)


class CheckpointDetailSerializer(CheckpointRowSerializer):
    vertices = VertexCheckpointSerializer(many=True)


class StatisticSerializer(serializers.Serializer):
    min = serializers.FloatField(allow_null=True)
    max = serializers.FloatField(allow_null=True)
    avg = serializers.FloatField(allow_null=True)
    p50 = serializers.FloatField(allow_null=True)
    p90 = serializers.FloatField(allow_null=True)
    p99 = serializers.FloatField(allow_null=True)


class CheckpointCountsSerializer(serializers.Serializer):
    restored = serializers.IntegerField()
    total = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    completed = serializers.IntegerField()
    failed = serializers.IntegerField()


class CheckpointSummarySerializer(serializers.Serializer):
    end_to_end_duration = StatisticSerializer()
    state_size = StatisticSerializer()
    alignment_duration = StatisticSerializer()


class RestoredCheckpointSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True)
    pk = serializers.IntegerField(allow_null=True)
    external_path = serializers.CharField()
    is_savepoint = serializers.BooleanField(allow_null=True)
    restore_timestamp = serializers.IntegerField()


class LatestCheckpointsSerializer(serializers.Serializer):
    completed = CheckpointRowSerializer(allow_null=True)
    savepoint = CheckpointRowSerializer(allow_null=True)
    failed = CheckpointRowSerializer(allow_null=True)
    restored = RestoredCheckpointSerializer(allow_null=True)


class CheckpointOverviewSerializer(serializers.Serializer):
    counts = CheckpointCountsSerializer()
    summary = CheckpointSummarySerializer()
    latest = LatestCheckpointsSerializer()
    history = CheckpointRowSerializer(many=True)


class CheckpointConfigSerializer(serializers.Serializer):
    enabled = serializers.BooleanField()
    mode = serializers.ChoiceField(choices=["exactly_once", "at_least_once"])
    interval = serializers.IntegerField(help_text="ms")
    timeout = serializers.IntegerField(help_text="ms")
    min_pause = serializers.IntegerField(help_text="ms")
    max_concurrent = serializers.IntegerField()
    tolerable_failed_checkpoints = serializers.IntegerField()
    unaligned_checkpoints = serializers.BooleanField()
    aligned_checkpoint_timeout = serializers.IntegerField(help_text="ms")
    retained_checkpoints = serializers.IntegerField()
    checkpoints_after_tasks_finish = serializers.BooleanField()
    checkpoint_storage = serializers.CharField()
    externalization = JSONObjectField()
    settings = JSONObjectField(help_text="The definition's checkpointing section with defaults filled in.")


# -- metrics ---------------------------------------------------------------------------------------------

class VertexMetricsSerializer(serializers.Serializer):
    """One job vertex's metrics; every field may be missing while the engine has not reported it."""

    records_in = serializers.FloatField(required=False)
    records_out = serializers.FloatField(required=False)
    records_in_per_second = serializers.FloatField(allow_null=True, required=False)
    records_out_per_second = serializers.FloatField(allow_null=True, required=False)
    busy_ratio = serializers.FloatField(allow_null=True, required=False)
    idle_ratio = serializers.FloatField(allow_null=True, required=False)
    backpressured_ratio = serializers.FloatField(allow_null=True, required=False)
    operators = serializers.ListField(child=serializers.CharField(), required=False)
    parallelism = serializers.IntegerField(allow_null=True, required=False)


class MetricsSampleSerializer(serializers.Serializer):
    ts = serializers.IntegerField()
    seq = serializers.IntegerField()
    vertices = serializers.DictField(child=VertexMetricsSerializer())


class MetricsSerializer(serializers.Serializer):
    vertices = serializers.DictField(child=VertexMetricsSerializer())
    samples = MetricsSampleSerializer(many=True)


# -- auth ------------------------------------------------------------------------------------------------

class LoginSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, style={"input_type": "password"})


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_superuser = serializers.BooleanField()
    groups = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_groups(self, user) -> list[str]:
        return sorted(user.groups.values_list("name", flat=True))


class TokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at"]
        read_only_fields = ["id", "prefix", "created_at", "last_used_at"]


class NewTokenSerializer(TokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown once: only its hash is stored.")

    class Meta(TokenSerializer.Meta):
        fields = TokenSerializer.Meta.fields + ["key"]


class PaginatedRunsSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RunSummarySerializer(many=True)


