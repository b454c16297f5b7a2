"""A run's checkpoint statistics, with Flink's field names (``studio.runs.checkpoint_stats``)."""
from __future__ import annotations

from rest_framework import serializers

from studio.api.serializers.fields import JSONObjectField, StrictCharField
from studio.models import SavepointTrigger

CHECKPOINT_STATUSES = ["IN_PROGRESS", "COMPLETED", "FAILED"]


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


class RestorePointSerializer(serializers.Serializer):
    """A completed checkpoint or savepoint whose files are still there; restore it with ``{"pk": pk}``."""

    pk = serializers.IntegerField()
    run = serializers.IntegerField()
    checkpoint_id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["checkpoint", "savepoint"])
    trigger = serializers.ChoiceField(choices=SavepointTrigger.choices, allow_null=True,
                                      help_text="Savepoints: who asked for it; null for checkpoints.")
    trigger_timestamp = serializers.IntegerField()
    completed_timestamp = serializers.IntegerField(help_text="When its last subtask acknowledged it (epoch ms).")
    state_size = serializers.IntegerField(help_text="Bytes.")
    location = StrictCharField()


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


class FoldedCheckpointsSerializer(serializers.Serializer):
    completed = serializers.IntegerField(help_text="Completed checkpoints folded into rollups.")
    failed = serializers.IntegerField(help_text="Failed checkpoints folded (beyond the kept ones).")
    first_id = serializers.IntegerField()
    last_id = serializers.IntegerField()
    first_trigger_timestamp = serializers.IntegerField()
    last_trigger_timestamp = serializers.IntegerField()
    relative_accuracy = serializers.FloatField(help_text="The largest relative error of a percentile over them.")


class CheckpointOverviewSerializer(serializers.Serializer):
    counts = CheckpointCountsSerializer()
    summary = CheckpointSummarySerializer()
    latest = LatestCheckpointsSerializer()
    history = CheckpointRowSerializer(many=True)
    folded = FoldedCheckpointsSerializer(allow_null=True, help_text=(
        "Older checkpoints kept only in rollups (counted in counts and summary, not in history); null: none."))
    summary_exact = serializers.BooleanField(help_text=(
        "Whether the summary's percentiles are exact; false once folded checkpoints count in them (min, max "
        "and avg stay exact)."))


class TimelineBucketSerializer(serializers.Serializer):
    start = serializers.IntegerField(help_text="The bucket's first moment (epoch ms of trigger time).")
    completed = serializers.IntegerField()
    failed = serializers.IntegerField()
    unaligned = serializers.IntegerField()
    first_id = serializers.IntegerField(allow_null=True)
    last_id = serializers.IntegerField(allow_null=True)
    summary = CheckpointSummarySerializer()
    summary_exact = serializers.BooleanField()


class CheckpointTimelineSerializer(serializers.Serializer):
    resolution = serializers.ChoiceField(choices=["minute", "hour"])
    buckets = TimelineBucketSerializer(many=True, help_text="Newest first.")
    next_before = serializers.IntegerField(allow_null=True, help_text="Pass as before= for the next page.")


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
