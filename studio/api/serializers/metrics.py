"""A run's metrics: per vertex, per node with its subtasks, and the last samples."""
from __future__ import annotations

from rest_framework import serializers

from studio.api.serializers.fields import StrictCharField


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
