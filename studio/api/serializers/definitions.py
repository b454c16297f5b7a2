"""Definitions before they are saved: the operator catalog, validate, plan, preview and a draft's diff."""
from __future__ import annotations

from rest_framework import serializers

from studio.api.serializers.errors import ProblemSerializer
from studio.api.serializers.fields import (MAX_INT32, DefinitionField, DraftField, JSONObjectField, StrictCharField,
                                          StrictIntegerField)


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
    event_time = serializers.ChoiceField(
        choices=["needs", "assigns"], allow_null=True,
        help_text='"needs": every input must carry event time (a watermark operator upstream, or a source that '
                  'assigns it); "assigns": the operator stamps its records with event time; null: neither. A '
                  'parameter whose schema has "x-event-time" does the same while it is set (a state TTL needs '
                  'event time, a Kafka source with watermarks assigns it).')
    input_sides = serializers.ListField(
        child=StrictCharField(), required=False,
        help_text='Named inputs of a two-input operator (joins: ["left", "right"]); an edge into one says which '
                  'it feeds with "side". Absent for operators with one kind of input.')


WORKSPACE_HELP = ("The saved pipeline whose workspace relative paths resolve in (one you may view); "
                  "your draft workspace when omitted.")


class ValidateSerializer(serializers.Serializer):
    definition = DraftField()
    pipeline = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_INT32,
                                  help_text=WORKSPACE_HELP)
    environment = StrictCharField(required=False, allow_blank=True, max_length=100, help_text=(
        "The environment (by name) whose parameters the definition's ${param:name} take: each is filled in and "
        "checked where it is used, a parameter the environment does not define is a problem there, and so is a "
        "${secret:name} that is not yours. When empty, references are left to the run that gives them values."))


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


class PlanJobVertexSerializer(serializers.Serializer):
    """A job vertex: a chain of operators one task thread runs (``engine.plan.plan_summary``)."""

    id = StrictCharField(help_text="The id of the chain's head operator.")
    name = StrictCharField()
    operators = serializers.ListField(child=StrictCharField(), help_text=(
        "The chain's operators (node ids), head first, each after the one that feeds it."))
    chain_inputs = serializers.ListField(child=serializers.IntegerField(min_value=-1), help_text=(
        "Per operator, the position in `operators` of the chained operator that feeds it (-1 for the head): "
        "[-1, 0, 1] is a line, [-1, 0, 1, 1] a chain whose second operator fans out to the last two (a tree)."))
    parallelism = serializers.IntegerField()
    max_parallelism = serializers.IntegerField()
    is_source = serializers.BooleanField()


class PlanSerializer(serializers.Serializer):
    """The planner's summary (``engine.plan.plan_summary``)."""

    job_vertices = PlanJobVertexSerializer(many=True)
    job_edges = serializers.ListField(child=JSONObjectField())
    regions = PlanRegionSerializer(many=True)
    node_regions = JSONObjectField()
    schedule = serializers.ListField(child=StrictCharField())
    counts = JSONObjectField()


class PreviewRequestSerializer(serializers.Serializer):
    definition = DefinitionField()
    limit = StrictIntegerField(min_value=1, max_value=1000, default=100)
    pipeline = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_INT32,
                                  help_text=WORKSPACE_HELP)
    environment = StrictCharField(required=False, allow_blank=True, max_length=100, help_text=(
        "The environment whose parameters the definition's ${param:name} take (by name), as a run started there "
        "gets them; none when empty. Your ${secret:name} are filled in and masked in the answer."))


class PreviewNodeSerializer(serializers.Serializer):
    records = serializers.ListField(child=serializers.JSONField(allow_null=True))
    count = serializers.IntegerField()


class PreviewSerializer(serializers.Serializer):
    environment = StrictCharField(allow_null=True, help_text=(
        "The environment whose parameters the preview ran with (null: none, the definition as written)."))
    status = StrictCharField()
    failure = StrictCharField(required=False, allow_null=True)
    nodes = serializers.DictField(child=PreviewNodeSerializer())
