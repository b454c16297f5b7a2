"""Serializers: the shapes the browser and scripts read and write."""
from __future__ import annotations

from django.contrib.auth.models import Group
from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine.api import DEFINITION_SCHEMA
from studio.models import ApiToken, Pipeline, PipelineShare, PipelineVersion, Run, SavepointRequest, SavepointTrigger

MAX_INT32 = 2**31 - 1
MAX_BIGINT = 2**63 - 1
RUN_STATUSES = [choice for choice, _ in Run._meta.get_field("status").choices]
CHECKPOINT_STATUSES = ["IN_PROGRESS", "COMPLETED", "FAILED"]


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would take the number 0 for "0", which the schema refuses."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictModelSerializer(serializers.ModelSerializer):
    serializer_field_mapping = {**serializers.ModelSerializer.serializer_field_mapping,
                                models.CharField: StrictCharField, models.TextField: StrictCharField}


def openapi_dialect(schema):
    """A JSON Schema (2020-12) in the OpenAPI 3.0 dialect the schema is written in: ``const`` as a one-value
    ``enum``, a ``null`` type as ``nullable``."""
    if isinstance(schema, list):
        return [openapi_dialect(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: openapi_dialect(value) for key, value in schema.items() if key != "const"}
    if "const" in schema:
        converted["enum"] = [schema["const"]]
    kinds = schema.get("type")
    if isinstance(kinds, list) and "null" in kinds:
        [converted["type"]] = [kind for kind in kinds if kind != "null"]
        converted["nullable"] = True
    if "properties" in schema:
        converted["properties"] = {name: openapi_dialect(value) for name, value in schema["properties"].items()}
    return converted


class DraftField(serializers.JSONField):
    """A draft of a pipeline definition: any JSON object, valid or not (its problems are what is asked for).

    Edges without an ``id`` get one here (``e1``, ``e2``, ... the first free, in order): a hand-written
    definition may leave them out, and validation then reports every other problem instead of stopping at
    the missing ids."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("a pipeline definition is a JSON object")
        return with_edge_ids(value)


def with_edge_ids(definition: dict) -> dict:
    """``definition`` with an id on every edge object that has none (a copy when one was added)."""
    edges = definition.get("edges")
    if not isinstance(edges, list) or all(not isinstance(edge, dict) or "id" in edge for edge in edges):
        return definition
    taken = {str(edge["id"]) for edge in edges if isinstance(edge, dict) and "id" in edge}
    numbers = (f"e{number}" for number in range(1, len(edges) + len(taken) + 2))
    named = []
    for edge in edges:
        if isinstance(edge, dict) and "id" not in edge:
            edge = {"id": next(name for name in numbers if name not in taken), **edge}
        named.append(edge)
    return {**definition, "edges": named}


extend_schema_field({"type": "object", "additionalProperties": True,
                     "description": "A draft of a pipeline definition, valid or not."})(DraftField)


@extend_schema_field({**openapi_dialect(DEFINITION_SCHEMA),
                      "description": "A pipeline definition (format 1); see GET /api/operators for node types "
                                     "and the JSON Schema of each one's params."})
class DefinitionField(DraftField):
    """A pipeline definition; its schema is documented, and ``engine.spec`` checks it in the view, where all
    errors are known."""


class JSONObjectField(serializers.JSONField):
    """Any JSON object (documented as such)."""


extend_schema_field({"type": "object", "additionalProperties": True})(JSONObjectField)


class OperatorSerializer(serializers.Serializer):
    """One operator type of the catalog (``engine.spec.catalog``)."""

    type = StrictCharField()
    category = StrictCharField()
    title = StrictCharField()
    description = StrictCharField()
    inputs = serializers.JSONField(help_text='How many inputs: 0, 1 or "many".')
    outputs = serializers.IntegerField()
    source = serializers.BooleanField()
    sink = serializers.BooleanField()
    keyed = serializers.BooleanField()
    stateful = serializers.BooleanField()
    params_schema = JSONObjectField(help_text="The JSON Schema of the operator's params.")
    output_ports = serializers.ListField(
        child=serializers.DictField(child=StrictCharField()),
        help_text='Named output ports besides the main output, [{"name", "description"}]: an edge leaves one '
                  'with "from_port" (event-time windows: "late").')
    input_sides = serializers.ListField(
        child=StrictCharField(), required=False,
        help_text='Named inputs of a two-input operator (joins: ["left", "right"]); an edge into one says which '
                  'it feeds with "side". Absent for operators with one kind of input.')


# -- errors -------------------------------------------------------------------------------------------

class ErrorSerializer(serializers.Serializer):
    detail = StrictCharField()


class ProblemSerializer(serializers.Serializer):
    node = StrictCharField(allow_null=True)
    edge = StrictCharField(allow_null=True)
    field = StrictCharField(allow_null=True)
    message = StrictCharField()


class DefinitionErrorSerializer(serializers.Serializer):
    detail = StrictCharField()
    errors = ProblemSerializer(many=True, required=False)


class FieldErrorsSerializer(serializers.Serializer):
    """A request body that did not match: ``{"detail"}`` or one list of messages per field."""

    detail = StrictCharField(required=False)


# -- pipelines and versions ---------------------------------------------------------------------------

class PipelineWriteSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200, required=False)
    definition = DefinitionField()
    message = StrictCharField(max_length=500, required=False, allow_blank=True, default="")


class ImportSerializer(PipelineWriteSerializer):
    message = StrictCharField(max_length=500, required=False, allow_blank=True, default="Imported")


class PipelineSerializer(StrictModelSerializer):
    version = serializers.SerializerMethodField()
    definition = serializers.SerializerMethodField()
    owner = StrictCharField(source="owner.username", read_only=True, allow_null=True, default=None)
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


class LatestRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=[choice for choice, _ in Run._meta.get_field("status").choices])


class PipelineListSerializer(PipelineSerializer):
    latest_run = serializers.SerializerMethodField()

    class Meta(PipelineSerializer.Meta):
        fields = ["id", "name", "version", "owner", "created_at", "updated_at", "latest_run"]

    @extend_schema_field(LatestRunSerializer(allow_null=True))
    def get_latest_run(self, pipeline: Pipeline) -> dict | None:
        """The newest run (annotated by the list's query; looked up for a single pipeline)."""
        if hasattr(pipeline, "latest_run_id"):
            run_id, status = pipeline.latest_run_id, pipeline.latest_run_status
        else:
            run_id, status = pipeline.runs.order_by("-created_at", "-id").values_list("id", "status").first() or (None, None)
        return {"id": run_id, "status": status} if run_id is not None else None

    def get_version(self, pipeline: Pipeline) -> int:
        number = getattr(pipeline, "latest_number", None)
        return number if number is not None else super().get_version(pipeline)


class VersionSerializer(StrictModelSerializer):
    created_by = StrictCharField(source="created_by.username", read_only=True, allow_null=True, default=None)

    class Meta:
        model = PipelineVersion
        fields = ["number", "message", "created_at", "created_by"]


class VersionDetailSerializer(VersionSerializer):
    definition = JSONObjectField(read_only=True)

    class Meta(VersionSerializer.Meta):
        fields = ["number", "message", "definition", "created_at", "created_by"]


class RollbackSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=1, max_value=MAX_INT32)
    message = StrictCharField(max_length=500, required=False, allow_blank=True)


WORKSPACE_HELP = ("The saved pipeline whose workspace relative paths resolve in (one you may view); "
                  "your draft workspace when omitted.")


class ValidateSerializer(serializers.Serializer):
    definition = DraftField()
    pipeline = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_INT32,
                                        help_text=WORKSPACE_HELP)


class PlanRequestSerializer(serializers.Serializer):
    definition = DefinitionField()


class ValidationResultSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    errors = ProblemSerializer(many=True)
    warnings = ProblemSerializer(many=True, help_text="Allowed but likely wrong (a file source matching no file "
                                                      "yet); listed only for a definition without errors.")


class DraftDiffSerializer(serializers.Serializer):
    def get_fields(self):  # "from" is a Python keyword, so the fields are declared here
        return {"from": DraftField(), "to": DraftField()}


class ChangeSerializer(serializers.Serializer):
    path = StrictCharField()

    def get_fields(self):
        return {**super().get_fields(), "from": serializers.JSONField(allow_null=True),
                "to": serializers.JSONField(allow_null=True)}


class ChangedItemSerializer(serializers.Serializer):
    id = StrictCharField()
    changes = ChangeSerializer(many=True)


class ItemsDiffSerializer(serializers.Serializer):
    added = serializers.ListField(child=StrictCharField())
    removed = serializers.ListField(child=StrictCharField())
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
    id = StrictCharField()
    vertices = JSONObjectField()
    job_vertices = serializers.ListField(child=StrictCharField())
    depends_on = serializers.JSONField()
    size = serializers.IntegerField()


class PlanSerializer(serializers.Serializer):
    """The planner's summary (``engine.plan.plan_summary``)."""

    job_vertices = serializers.ListField(child=JSONObjectField())
    job_edges = serializers.ListField(child=JSONObjectField())
    regions = PlanRegionSerializer(many=True)
    node_regions = JSONObjectField()
    schedule = serializers.ListField(child=StrictCharField())
    counts = JSONObjectField()


class PreviewRequestSerializer(serializers.Serializer):
    definition = DefinitionField()
    limit = serializers.IntegerField(min_value=1, max_value=1000, default=100)
    pipeline = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_INT32,
                                        help_text=WORKSPACE_HELP)


class PreviewNodeSerializer(serializers.Serializer):
    records = serializers.ListField(child=serializers.JSONField(allow_null=True))
    count = serializers.IntegerField()


class PreviewSerializer(serializers.Serializer):
    status = StrictCharField()
    failure = StrictCharField(required=False, allow_null=True)
    nodes = serializers.DictField(child=PreviewNodeSerializer())


class ShareSerializer(StrictModelSerializer):
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
    """Where a run starts from: a checkpoint by the id users see (``#7``, with its run when ids repeat
    across runs), a checkpoint row by ``pk``, or a directory by ``path``."""

    checkpoint = serializers.IntegerField(required=False, min_value=1, max_value=MAX_INT32,
                                          help_text="The checkpoint or savepoint id shown in the UI (#7), among "
                                                    "this pipeline's runs; add `run` when several runs have it.")
    run = serializers.IntegerField(required=False, min_value=1, max_value=MAX_BIGINT,
                                   help_text="The run whose `checkpoint` is meant.")
    pk = serializers.IntegerField(required=False, min_value=1, max_value=MAX_BIGINT,
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
    version = serializers.IntegerField(required=False, min_value=1, max_value=MAX_INT32)
    restore_from = RestoreFromSerializer(required=False, allow_null=True)
    allow_non_restored_state = serializers.BooleanField(required=False, default=False)


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


class RunSummarySerializer(StrictModelSerializer):
    """A run without its definition, plan and records: what lists, the jobs overview and the pipeline's
    stream show. ``restarts`` counts RESTARTING transitions; ``last_checkpoint`` is the newest completed one."""

    pipeline_name = StrictCharField(source="pipeline.name", read_only=True)
    version = serializers.IntegerField(source="version.number", read_only=True)
    created_by = StrictCharField(source="created_by.username", read_only=True, allow_null=True, default=None)
    restarts = serializers.SerializerMethodField()
    last_checkpoint = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = ["id", "pipeline", "pipeline_name", "version", "mode", "status", "failure_cause",
                  "created_by", "created_at", "started_at", "ended_at", "restarts", "last_checkpoint"]

    def get_restarts(self, run: Run) -> int:
        return sum(1 for entry in run.status_history or [] if entry.get("status") == "RESTARTING")

    @extend_schema_field(LastCheckpointSerializer(allow_null=True))
    def get_last_checkpoint(self, run: Run) -> dict | None:
        from studio.runs.overview import last_checkpoint_of

        return last_checkpoint_of(run)


class SavepointRequestSerializer(StrictModelSerializer):
    checkpoint_id = serializers.IntegerField(source="checkpoint.checkpoint_id", read_only=True, allow_null=True,
                                             default=None)
    checkpoint_pk = serializers.IntegerField(source="checkpoint.pk", read_only=True, allow_null=True, default=None)
    acknowledged_subtasks = serializers.IntegerField(
        source="checkpoint.num_acknowledged_subtasks", read_only=True, allow_null=True, default=None,
        help_text="Subtasks that acknowledged the savepoint so far (null before the engine triggered it).")
    total_subtasks = serializers.IntegerField(source="checkpoint.num_subtasks", read_only=True, allow_null=True,
                                              default=None, help_text="Subtasks that take part in the savepoint.")
    location = StrictCharField(allow_null=True)
    target_directory = StrictCharField(allow_null=True)

    class Meta:
        model = SavepointRequest
        fields = ["request_id", "run", "kind", "status", "location", "failure_cause", "checkpoint_id",
                  "checkpoint_pk", "acknowledged_subtasks", "total_subtasks", "target_directory", "drain", "trigger",
                  "schedule", "triggered_at", "completed_at"]

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
    target_directory = StrictCharField(required=False, allow_null=True, allow_blank=True, max_length=1000,
                                             help_text="Where to write the savepoint; the run's default if empty.")


class StopSerializer(SavepointTriggerSerializer):
    drain = serializers.BooleanField(default=False, help_text="Drain: sources end (max watermark, end of data) "
                                                               "before the savepoint.")


class RequestIdSerializer(serializers.Serializer):
    request_id = StrictCharField()


class EventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = StrictCharField()
    ts = serializers.IntegerField()
    data = JSONObjectField()


class RescaleRequestSerializer(serializers.Serializer):
    parallelism = serializers.IntegerField(min_value=1, max_value=1024, required=False,
                                           help_text="The job's new parallelism (nodes that followed it move along).")
    nodes = serializers.DictField(child=serializers.IntegerField(min_value=1, max_value=1024), required=False,
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


# -- checkpoints -----------------------------------------------------------------------------------------

class SubtaskStatsSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    status = StrictCharField()
    ack_timestamp = serializers.IntegerField(allow_null=True)
    end_to_end_duration = serializers.IntegerField(allow_null=True)
    start_delay = serializers.FloatField(allow_null=True)
    alignment_duration = serializers.FloatField(allow_null=True)
    sync_duration = serializers.FloatField(allow_null=True)
    async_duration = serializers.FloatField(allow_null=True)
    state_size = serializers.IntegerField(allow_null=True)
    persisted_data = serializers.IntegerField(allow_null=True, required=False,
                                              help_text="Bytes of in-flight data this subtask persisted.")
    unaligned = serializers.BooleanField(allow_null=True, required=False,
                                         help_text="Taken on its first barrier (unaligned) or aligned.")


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
    unaligned = serializers.BooleanField(help_text="Some subtask took it unaligned (on its first barrier).")
    persisted_data = serializers.IntegerField(help_text="Bytes of in-flight data (channel state) it persisted.")
    state_size = serializers.IntegerField()
    num_acknowledged_subtasks = serializers.IntegerField()
    num_subtasks = serializers.IntegerField()
    external_path = StrictCharField(allow_null=True)
    failure_message = StrictCharField(allow_null=True)
    discarded = serializers.BooleanField()
    trigger = serializers.ChoiceField(choices=SavepointTrigger.choices, allow_null=True,
                                      help_text="Savepoints: who asked for it; null for checkpoints.")


class VertexCheckpointSerializer(serializers.Serializer):
    id = StrictCharField()
    name = StrictCharField()
    operators = serializers.ListField(child=StrictCharField())
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
    persisted_data = StatisticSerializer()


class RestoredCheckpointSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True)
    pk = serializers.IntegerField(allow_null=True)
    external_path = StrictCharField()
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
    checkpoint_storage = StrictCharField()
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
    operators = serializers.ListField(child=StrictCharField(), required=False)
    parallelism = serializers.IntegerField(allow_null=True, required=False)


class SubtaskCheckpointSerializer(serializers.Serializer):
    """A subtask's part of the latest completed checkpoint (its whole chain's state)."""

    id = serializers.IntegerField(allow_null=True)
    state_size = serializers.IntegerField(allow_null=True, help_text="bytes")
    processed_data = serializers.IntegerField(allow_null=True, help_text="bytes")
    persisted_data = serializers.IntegerField(allow_null=True, help_text="bytes")
    sync_duration = serializers.FloatField(allow_null=True, help_text="ms")
    async_duration = serializers.FloatField(allow_null=True, help_text="ms")
    alignment_duration = serializers.FloatField(allow_null=True, help_text="ms")


class SubtaskMetricsSerializer(serializers.Serializer):
    """One subtask of a node: its operator's own counts, its thread's time shares."""

    subtask = serializers.IntegerField()
    records_in = serializers.FloatField()
    records_out = serializers.FloatField()
    records_in_per_second = serializers.FloatField(allow_null=True)
    records_out_per_second = serializers.FloatField(allow_null=True)
    watermark = serializers.IntegerField(allow_null=True, help_text="The operator's input watermark, event-time "
                                                                    "ms; a source's own; null before the first.")
    busy_ratio = serializers.FloatField(allow_null=True)
    idle_ratio = serializers.FloatField(allow_null=True)
    backpressured_ratio = serializers.FloatField(allow_null=True)
    checkpoint = SubtaskCheckpointSerializer(allow_null=True)


class NodeMetricsSerializer(serializers.Serializer):
    """One node (operator) of the pipeline: sums over its subtasks, and the subtasks themselves."""

    vertex = StrictCharField(help_text="The job vertex (chain) the node runs in.")
    parallelism = serializers.IntegerField(allow_null=True)
    records_in = serializers.FloatField()
    records_out = serializers.FloatField()
    records_in_per_second = serializers.FloatField(allow_null=True)
    records_out_per_second = serializers.FloatField(allow_null=True)
    watermark = serializers.IntegerField(allow_null=True, help_text="The lowest of the subtasks' watermarks.")
    busy_ratio = serializers.FloatField(allow_null=True)
    idle_ratio = serializers.FloatField(allow_null=True)
    backpressured_ratio = serializers.FloatField(allow_null=True)
    subtasks = SubtaskMetricsSerializer(many=True)


class MetricsSampleSerializer(serializers.Serializer):
    ts = serializers.IntegerField()
    seq = serializers.IntegerField()
    vertices = serializers.DictField(child=VertexMetricsSerializer())


class MetricsSerializer(serializers.Serializer):
    vertices = serializers.DictField(child=VertexMetricsSerializer())
    nodes = serializers.DictField(child=NodeMetricsSerializer(), help_text="Per node (operator) of the pipeline, "
                                  "from each operator's own counters; empty before the first report.")
    samples = MetricsSampleSerializer(many=True)


# -- exceptions ------------------------------------------------------------------------------------------

class TaskExceptionSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    ts = serializers.IntegerField(help_text="epoch milliseconds")
    task = StrictCharField(allow_null=True, help_text='"vertex#subtask"; null when a whole slot was lost')
    vertex = StrictCharField(allow_null=True)
    subtask = serializers.IntegerField(allow_null=True)
    operator = StrictCharField(allow_null=True, help_text="The node the error came from, when known.")
    region = StrictCharField(allow_null=True)
    attempt = serializers.IntegerField(allow_null=True)
    message = StrictCharField()
    traceback = StrictCharField(allow_null=True)


class RestartSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    ts = serializers.IntegerField(help_text="epoch milliseconds")
    cause = StrictCharField(allow_null=True)
    regions = serializers.ListField(child=StrictCharField())
    delay_ms = serializers.IntegerField(allow_null=True)


class ExceptionsSerializer(serializers.Serializer):
    root = StrictCharField(allow_null=True, help_text="Why the run failed, when it did.")
    exceptions = TaskExceptionSerializer(many=True)
    restarts = RestartSerializer(many=True)


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


# -- auth ------------------------------------------------------------------------------------------------

class LoginSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=4096, style={"input_type": "password"})


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = StrictCharField()
    is_superuser = serializers.BooleanField()
    groups = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ListField(child=StrictCharField()))
    def get_groups(self, user) -> list[str]:
        return sorted(user.groups.values_list("name", flat=True))


class TokenSerializer(StrictModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at"]
        read_only_fields = ["id", "prefix", "created_at", "last_used_at"]


class NewTokenSerializer(TokenSerializer):
    key = StrictCharField(read_only=True, help_text="Shown once: only its hash is stored.")

    class Meta(TokenSerializer.Meta):
        fields = TokenSerializer.Meta.fields + ["key"]


class PaginatedRunsSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RunSummarySerializer(many=True)


