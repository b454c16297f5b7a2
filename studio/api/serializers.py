"""Serializers: the shapes the browser and scripts read and write."""
from __future__ import annotations

from rest_framework import serializers

from studio.models import Checkpoint, Pipeline, Run


class DefinitionField(serializers.JSONField):
    """A pipeline definition; checked by ``engine.spec`` in the view, where all errors are known."""


class PipelineWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    definition = DefinitionField()
    message = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class PipelineSerializer(serializers.ModelSerializer):
    version = serializers.SerializerMethodField()
    definition = serializers.SerializerMethodField()

    class Meta:
        model = Pipeline
        fields = ["id", "name", "version", "definition", "created_at", "updated_at"]

    def get_version(self, pipeline: Pipeline) -> int:
        return pipeline.latest_version().number

    def get_definition(self, pipeline: Pipeline) -> dict:
        return pipeline.latest_version().definition


class PipelineListSerializer(PipelineSerializer):
    class Meta(PipelineSerializer.Meta):
        fields = ["id", "name", "version", "created_at", "updated_at"]


class ValidateSerializer(serializers.Serializer):
    definition = DefinitionField()


class RunStartSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=["streaming", "batch"], required=False)
    version = serializers.IntegerField(required=False, min_value=1)


class RunSerializer(serializers.ModelSerializer):
    pipeline_name = serializers.CharField(source="pipeline.name", read_only=True)
    version = serializers.IntegerField(source="version.number", read_only=True)
    definition = serializers.JSONField(source="version.definition", read_only=True)

    class Meta:
        model = Run
        fields = ["id", "pipeline", "pipeline_name", "version", "definition", "mode", "status",
                  "failure_cause", "created_at", "started_at", "ended_at", "collected", "plan"]


class CheckpointSerializer(serializers.ModelSerializer):
    id = serializers.IntegerField(source="checkpoint_id")

    class Meta:
        model = Checkpoint
        fields = ["id", "kind", "status", "trigger_timestamp", "latest_ack_timestamp", "end_to_end_duration",
                  "state_size", "num_acknowledged_subtasks", "num_subtasks", "external_path",
                  "failure_message", "subtasks"]
