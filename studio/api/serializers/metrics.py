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


LATE_RECORDS = ("Records that came after the watermark had closed their window (or join range) and were dropped "
                "(or sent to the late port); only operators that drop late records have it.")
PARTIALS_IN = ("A window fed partial aggregates (local aggregation before the exchange): how many arrived; "
               "records_in counts the records they stand for.")


class LatencyFiguresSerializer(serializers.Serializer):
    """What latency markers measured over a window of the latest markers (128 per source subtask)."""

    p50_ms = serializers.FloatField()
    p99_ms = serializers.FloatField()
    markers = serializers.IntegerField(help_text="Markers recorded since the subtask started.")


class SubtaskLatencySerializer(LatencyFiguresSerializer):
    """Source-to-here latency at one subtask's operator, pooled over its sources and per source subtask."""

    max_ms = serializers.FloatField()
    sources = serializers.DictField(child=LatencyFiguresSerializer(), help_text='Per source subtask ("node#i").')


LATENCY = ("Latency markers: how long after a source emitted it a marker reached this operator, ms "
           "(only when the run tracks latency; a source has none).")
HOP_LATENCY = ("Latency markers: the time one spent in the channel into this operator, ms (the head of a job "
               "vertex only; a slow operator makes the hop into it the largest).")


VISIBLE_LATENCY = ("Exactly-once (two-phase-commit) sinks: how long after it arrived at the sink a record was "
                   "committed, readable outside, ms (over the records of the latest commits).")
SOURCE_VISIBLE_LATENCY = ("Exactly-once sinks, when the run tracks latency: how long after a source emitted it a "
                          "latency marker's transaction was committed, ms -- the latency a reader of the output sees.")


class VisibleLatencySerializer(serializers.Serializer):
    """How long a sink subtask's records waited for their commit, weighed by records, over its latest commits."""

    p50_ms = serializers.FloatField()
    p99_ms = serializers.FloatField()
    max_ms = serializers.FloatField()
    records = serializers.IntegerField(help_text="Records committed since the subtask started.")
    commits = serializers.IntegerField(help_text="Commits of those records since the subtask started.")


class SplitLagSerializer(serializers.Serializer):
    """What one split of a source has left to read, as the source's system counts it; null where it cannot say."""

    split = StrictCharField(help_text="The split: a file and byte range, a stream, a stream/group/consumer, a "
                                      "topic/partition, a replication slot.")
    records_behind = serializers.IntegerField(allow_null=True, help_text=(
        "Records after the position: Kafka's end offset minus it, a Redis stream's entries after the last id "
        "read (a consumer group: its lag), a Parquet split's rows left."))
    bytes_behind = serializers.IntegerField(allow_null=True, help_text=(
        "Bytes after the position: a file split's unread bytes, PostgreSQL's WAL from the position read to "
        "the current LSN."))
    pending = serializers.IntegerField(allow_null=True, help_text=(
        "Read but not covered by a completed checkpoint, as the system keeps it: a Redis consumer's pending "
        "entries, the WAL bytes behind a PostgreSQL slot's confirmed LSN."))


class NodeSplitLagSerializer(SplitLagSerializer):
    subtask = serializers.IntegerField(help_text="The subtask holding the split.")


class NodeLagSerializer(serializers.Serializer):
    """What a source node has left to read: sums over its splits (null when none says the figure), what
    its split enumerator has not handed out, and the splits furthest behind."""

    records_behind = serializers.IntegerField(allow_null=True)
    bytes_behind = serializers.IntegerField(allow_null=True)
    pending = serializers.IntegerField(allow_null=True)
    splits_unassigned = serializers.IntegerField(allow_null=True, help_text="Splits no subtask took yet (file "
                                                                            "and Parquet sources).")
    bytes_unassigned = serializers.IntegerField(allow_null=True, help_text="Their bytes (file sources).")
    splits_total = serializers.IntegerField(help_text="Splits the subtasks hold.")
    splits = NodeSplitLagSerializer(many=True, help_text="The 20 splits furthest behind.")


EMIT_DELAY = ("Windows and window joins: how long after its window's end, on the clock, a result left, ms (the mean "
              "over the recent results; event times in epoch ms only).")


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
    late_records = serializers.IntegerField(required=False, help_text=LATE_RECORDS)
    partials_in = serializers.IntegerField(required=False, help_text=PARTIALS_IN)
    latency = SubtaskLatencySerializer(required=False, help_text=LATENCY)
    hop_latency = LatencyFiguresSerializer(required=False, help_text=HOP_LATENCY)
    visible_latency = VisibleLatencySerializer(required=False, help_text=VISIBLE_LATENCY)
    source_visible_latency = SubtaskLatencySerializer(required=False, help_text=SOURCE_VISIBLE_LATENCY)
    lag = SplitLagSerializer(many=True, required=False, help_text="Sources: each split the subtask holds.")
    emit_delay_ms = serializers.FloatField(required=False, help_text=EMIT_DELAY)
    emit_delay_max_ms = serializers.FloatField(required=False, help_text="The largest emit delay of those results.")
    emit_delay_results = serializers.IntegerField(required=False, help_text="The results the emit delay is over.")


class NodeMetricsSerializer(serializers.Serializer):
    """One node (operator) of the pipeline: sums over its subtasks, and the subtasks themselves."""

    vertex = StrictCharField(help_text="The job vertex (chain) the node runs in.")
    parallelism = serializers.IntegerField(allow_null=True)
    records_in = serializers.FloatField()
    records_out = serializers.FloatField()
    records_in_per_second = serializers.FloatField(allow_null=True)
    records_out_per_second = serializers.FloatField(allow_null=True)
    watermark = serializers.IntegerField(allow_null=True, help_text="The lowest of the subtasks' watermarks.")
    watermark_lag_ms = serializers.FloatField(
        allow_null=True, required=False, help_text="Processing time minus the watermark when it was reported (event "
                                                   "times in epoch ms only; null before the first or after the last).")
    busy_ratio = serializers.FloatField(allow_null=True)
    idle_ratio = serializers.FloatField(allow_null=True)
    backpressured_ratio = serializers.FloatField(allow_null=True)
    late_records = serializers.IntegerField(required=False, help_text=LATE_RECORDS)
    partials_in = serializers.IntegerField(required=False, help_text=PARTIALS_IN)
    latency_p50_ms = serializers.FloatField(required=False, help_text=LATENCY + " The median of the subtasks' medians.")
    latency_p99_ms = serializers.FloatField(required=False, help_text=LATENCY + " The highest of the subtasks' p99.")
    latency_markers = serializers.IntegerField(required=False, help_text="Latency markers recorded, all subtasks.")
    latency_sources = serializers.DictField(child=LatencyFiguresSerializer(), required=False,
                                            help_text='Latency per source subtask ("node#i"), over the subtasks.')
    hop_latency_p50_ms = serializers.FloatField(required=False, help_text=HOP_LATENCY)
    hop_latency_p99_ms = serializers.FloatField(required=False, help_text=HOP_LATENCY)
    visible_latency_p50_ms = serializers.FloatField(required=False, help_text=VISIBLE_LATENCY + " The median of the "
                                                    "subtasks' medians.")
    visible_latency_p99_ms = serializers.FloatField(required=False, help_text=VISIBLE_LATENCY + " The highest of the "
                                                    "subtasks' p99.")
    visible_latency_records = serializers.IntegerField(required=False, help_text="Records committed, all subtasks.")
    source_visible_latency_p50_ms = serializers.FloatField(required=False, help_text=SOURCE_VISIBLE_LATENCY +
                                                           " The median of the subtasks' medians.")
    source_visible_latency_p99_ms = serializers.FloatField(required=False, help_text=SOURCE_VISIBLE_LATENCY +
                                                           " The highest of the subtasks' p99.")
    source_visible_latency_markers = serializers.IntegerField(required=False, help_text="Markers committed, all "
                                                                                        "subtasks.")
    lag = NodeLagSerializer(required=False, help_text="Sources: what is left to read.")
    emit_delay_ms = serializers.FloatField(required=False, help_text=EMIT_DELAY + " Weighed by the subtasks' results.")
    emit_delay_max_ms = serializers.FloatField(required=False, help_text="The largest emit delay of those results.")
    emit_delay_results = serializers.IntegerField(required=False, help_text="The results the emit delay is over.")
    subtasks = SubtaskMetricsSerializer(many=True)


class MetricsSampleSerializer(serializers.Serializer):
    ts = serializers.IntegerField()
    seq = serializers.IntegerField()
    vertices = serializers.DictField(child=VertexMetricsSerializer())


class ExpectationRuleCountSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=["warn", "drop", "quarantine", "fail"])
    violated = serializers.IntegerField(help_text="Records that violated the rule (or that it could not judge).")


class ExpectationCountsSerializer(serializers.Serializer):
    """The counts of one checked node or edge, summed over its subtasks; continued exactly from the
    restored checkpoint after a restart."""

    records = serializers.IntegerField(help_text="Records checked.")
    dropped = serializers.IntegerField(help_text="Records a drop rule held back (and no quarantine rule took).")
    quarantined = serializers.IntegerField(help_text="Records sent to a quarantine port.")
    rules = serializers.DictField(child=ExpectationRuleCountSerializer())


class MetricsSerializer(serializers.Serializer):
    vertices = serializers.DictField(child=VertexMetricsSerializer())
    expectations = serializers.DictField(
        child=ExpectationCountsSerializer(), required=False,
        help_text='Per checked node ("node:<id>") or edge ("edge:<id>"): the counts of its expectations.')
    nodes = serializers.DictField(child=NodeMetricsSerializer(), help_text="Per node (operator) of the pipeline, "
                                  "from each operator's own counters; empty before the first report.")
    samples = MetricsSampleSerializer(many=True)
