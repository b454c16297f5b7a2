from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.node_lag import NodeLag
    from ..models.node_metrics_latency_sources import NodeMetricsLatencySources
    from ..models.subtask_metrics import SubtaskMetrics


T = TypeVar("T", bound="NodeMetrics")


@_attrs_define
class NodeMetrics:
    """One node (operator) of the pipeline: sums over its subtasks, and the subtasks themselves.

    Attributes:
        vertex (str): The job vertex (chain) the node runs in.
        parallelism (int | None):
        records_in (float):
        records_out (float):
        records_in_per_second (float | None):
        records_out_per_second (float | None):
        watermark (int | None): The lowest of the subtasks' watermarks.
        busy_ratio (float | None):
        idle_ratio (float | None):
        backpressured_ratio (float | None):
        subtasks (list[SubtaskMetrics]):
        watermark_lag_ms (float | None | Unset): Processing time minus the watermark when it was reported (event times
            in epoch ms only; null before the first or after the last).
        late_records (int | Unset): Records that came after the watermark had closed their window (or join range) and
            were dropped (or sent to the late port); only operators that drop late records have it.
        partials_in (int | Unset): A window fed partial aggregates (local aggregation before the exchange): how many
            arrived; records_in counts the records they stand for.
        latency_p50_ms (float | Unset): Latency markers: how long after a source emitted it a marker reached this
            operator, ms (only when the run tracks latency; a source has none). The median of the subtasks' medians.
        latency_p99_ms (float | Unset): Latency markers: how long after a source emitted it a marker reached this
            operator, ms (only when the run tracks latency; a source has none). The highest of the subtasks' p99.
        latency_markers (int | Unset): Latency markers recorded, all subtasks.
        latency_sources (NodeMetricsLatencySources | Unset): Latency per source subtask ("node#i"), over the subtasks.
        hop_latency_p50_ms (float | Unset): Latency markers: the time one spent in the channel into this operator, ms
            (the head of a job vertex only; a slow operator makes the hop into it the largest).
        hop_latency_p99_ms (float | Unset): Latency markers: the time one spent in the channel into this operator, ms
            (the head of a job vertex only; a slow operator makes the hop into it the largest).
        visible_latency_p50_ms (float | Unset): Exactly-once (two-phase-commit) sinks: how long after it arrived at the
            sink a record was committed, readable outside, ms (over the records of the latest commits). The median of the
            subtasks' medians.
        visible_latency_p99_ms (float | Unset): Exactly-once (two-phase-commit) sinks: how long after it arrived at the
            sink a record was committed, readable outside, ms (over the records of the latest commits). The highest of the
            subtasks' p99.
        visible_latency_records (int | Unset): Records committed, all subtasks.
        source_visible_latency_p50_ms (float | Unset): Exactly-once sinks, when the run tracks latency: how long after a
            source emitted it a latency marker's transaction was committed, ms -- the latency a reader of the output sees.
            The median of the subtasks' medians.
        source_visible_latency_p99_ms (float | Unset): Exactly-once sinks, when the run tracks latency: how long after a
            source emitted it a latency marker's transaction was committed, ms -- the latency a reader of the output sees.
            The highest of the subtasks' p99.
        source_visible_latency_markers (int | Unset): Markers committed, all subtasks.
        lag (NodeLag | Unset): What a source node has left to read: sums over its splits (null when none says the
            figure), what
            its split enumerator has not handed out, and the splits furthest behind.
        emit_delay_ms (float | Unset): Windows and window joins: how long after its window's end, on the clock, a result
            left, ms (the mean over the recent results; event times in epoch ms only). Weighed by the subtasks' results.
        emit_delay_max_ms (float | Unset): The largest emit delay of those results.
        emit_delay_results (int | Unset): The results the emit delay is over.
    """

    vertex: str
    parallelism: int | None
    records_in: float
    records_out: float
    records_in_per_second: float | None
    records_out_per_second: float | None
    watermark: int | None
    busy_ratio: float | None
    idle_ratio: float | None
    backpressured_ratio: float | None
    subtasks: list[SubtaskMetrics]
    watermark_lag_ms: float | None | Unset = UNSET
    late_records: int | Unset = UNSET
    partials_in: int | Unset = UNSET
    latency_p50_ms: float | Unset = UNSET
    latency_p99_ms: float | Unset = UNSET
    latency_markers: int | Unset = UNSET
    latency_sources: NodeMetricsLatencySources | Unset = UNSET
    hop_latency_p50_ms: float | Unset = UNSET
    hop_latency_p99_ms: float | Unset = UNSET
    visible_latency_p50_ms: float | Unset = UNSET
    visible_latency_p99_ms: float | Unset = UNSET
    visible_latency_records: int | Unset = UNSET
    source_visible_latency_p50_ms: float | Unset = UNSET
    source_visible_latency_p99_ms: float | Unset = UNSET
    source_visible_latency_markers: int | Unset = UNSET
    lag: NodeLag | Unset = UNSET
    emit_delay_ms: float | Unset = UNSET
    emit_delay_max_ms: float | Unset = UNSET
    emit_delay_results: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        vertex = self.vertex

        parallelism: int | None
        parallelism = self.parallelism

        records_in = self.records_in

        records_out = self.records_out

        records_in_per_second: float | None
        records_in_per_second = self.records_in_per_second

        records_out_per_second: float | None
        records_out_per_second = self.records_out_per_second

        watermark: int | None
        watermark = self.watermark

        busy_ratio: float | None
        busy_ratio = self.busy_ratio

        idle_ratio: float | None
        idle_ratio = self.idle_ratio

        backpressured_ratio: float | None
        backpressured_ratio = self.backpressured_ratio

        subtasks = []
        for subtasks_item_data in self.subtasks:
            subtasks_item = subtasks_item_data.to_dict()
            subtasks.append(subtasks_item)

        watermark_lag_ms: float | None | Unset
        if isinstance(self.watermark_lag_ms, Unset):
            watermark_lag_ms = UNSET
        else:
            watermark_lag_ms = self.watermark_lag_ms

        late_records = self.late_records

        partials_in = self.partials_in

        latency_p50_ms = self.latency_p50_ms

        latency_p99_ms = self.latency_p99_ms

        latency_markers = self.latency_markers

        latency_sources: dict[str, Any] | Unset = UNSET
        if not isinstance(self.latency_sources, Unset):
            latency_sources = self.latency_sources.to_dict()

        hop_latency_p50_ms = self.hop_latency_p50_ms

        hop_latency_p99_ms = self.hop_latency_p99_ms

        visible_latency_p50_ms = self.visible_latency_p50_ms

        visible_latency_p99_ms = self.visible_latency_p99_ms

        visible_latency_records = self.visible_latency_records

        source_visible_latency_p50_ms = self.source_visible_latency_p50_ms

        source_visible_latency_p99_ms = self.source_visible_latency_p99_ms

        source_visible_latency_markers = self.source_visible_latency_markers

        lag: dict[str, Any] | Unset = UNSET
        if not isinstance(self.lag, Unset):
            lag = self.lag.to_dict()

        emit_delay_ms = self.emit_delay_ms

        emit_delay_max_ms = self.emit_delay_max_ms

        emit_delay_results = self.emit_delay_results

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "vertex": vertex,
                "parallelism": parallelism,
                "records_in": records_in,
                "records_out": records_out,
                "records_in_per_second": records_in_per_second,
                "records_out_per_second": records_out_per_second,
                "watermark": watermark,
                "busy_ratio": busy_ratio,
                "idle_ratio": idle_ratio,
                "backpressured_ratio": backpressured_ratio,
                "subtasks": subtasks,
            }
        )
        if watermark_lag_ms is not UNSET:
            field_dict["watermark_lag_ms"] = watermark_lag_ms
        if late_records is not UNSET:
            field_dict["late_records"] = late_records
        if partials_in is not UNSET:
            field_dict["partials_in"] = partials_in
        if latency_p50_ms is not UNSET:
            field_dict["latency_p50_ms"] = latency_p50_ms
        if latency_p99_ms is not UNSET:
            field_dict["latency_p99_ms"] = latency_p99_ms
        if latency_markers is not UNSET:
            field_dict["latency_markers"] = latency_markers
        if latency_sources is not UNSET:
            field_dict["latency_sources"] = latency_sources
        if hop_latency_p50_ms is not UNSET:
            field_dict["hop_latency_p50_ms"] = hop_latency_p50_ms
        if hop_latency_p99_ms is not UNSET:
            field_dict["hop_latency_p99_ms"] = hop_latency_p99_ms
        if visible_latency_p50_ms is not UNSET:
            field_dict["visible_latency_p50_ms"] = visible_latency_p50_ms
        if visible_latency_p99_ms is not UNSET:
            field_dict["visible_latency_p99_ms"] = visible_latency_p99_ms
        if visible_latency_records is not UNSET:
            field_dict["visible_latency_records"] = visible_latency_records
        if source_visible_latency_p50_ms is not UNSET:
            field_dict["source_visible_latency_p50_ms"] = source_visible_latency_p50_ms
        if source_visible_latency_p99_ms is not UNSET:
            field_dict["source_visible_latency_p99_ms"] = source_visible_latency_p99_ms
        if source_visible_latency_markers is not UNSET:
            field_dict["source_visible_latency_markers"] = source_visible_latency_markers
        if lag is not UNSET:
            field_dict["lag"] = lag
        if emit_delay_ms is not UNSET:
            field_dict["emit_delay_ms"] = emit_delay_ms
        if emit_delay_max_ms is not UNSET:
            field_dict["emit_delay_max_ms"] = emit_delay_max_ms
        if emit_delay_results is not UNSET:
            field_dict["emit_delay_results"] = emit_delay_results

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.node_lag import NodeLag  # noqa: PLC0415
        from ..models.node_metrics_latency_sources import NodeMetricsLatencySources  # noqa: PLC0415
        from ..models.subtask_metrics import SubtaskMetrics  # noqa: PLC0415

        d = dict(src_dict)
        vertex = d.pop("vertex")

        def _parse_parallelism(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        parallelism = _parse_parallelism(d.pop("parallelism"))

        records_in = d.pop("records_in")

        records_out = d.pop("records_out")

        def _parse_records_in_per_second(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        records_in_per_second = _parse_records_in_per_second(d.pop("records_in_per_second"))

        def _parse_records_out_per_second(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        records_out_per_second = _parse_records_out_per_second(d.pop("records_out_per_second"))

        def _parse_watermark(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        watermark = _parse_watermark(d.pop("watermark"))

        def _parse_busy_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        busy_ratio = _parse_busy_ratio(d.pop("busy_ratio"))

        def _parse_idle_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        idle_ratio = _parse_idle_ratio(d.pop("idle_ratio"))

        def _parse_backpressured_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        backpressured_ratio = _parse_backpressured_ratio(d.pop("backpressured_ratio"))

        subtasks = []
        _subtasks = d.pop("subtasks")
        for subtasks_item_data in _subtasks:
            subtasks_item = SubtaskMetrics.from_dict(subtasks_item_data)

            subtasks.append(subtasks_item)

        def _parse_watermark_lag_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        watermark_lag_ms = _parse_watermark_lag_ms(d.pop("watermark_lag_ms", UNSET))

        late_records = d.pop("late_records", UNSET)

        partials_in = d.pop("partials_in", UNSET)

        latency_p50_ms = d.pop("latency_p50_ms", UNSET)

        latency_p99_ms = d.pop("latency_p99_ms", UNSET)

        latency_markers = d.pop("latency_markers", UNSET)

        _latency_sources = d.pop("latency_sources", UNSET)
        latency_sources: NodeMetricsLatencySources | Unset
        if isinstance(_latency_sources, Unset):
            latency_sources = UNSET
        else:
            latency_sources = NodeMetricsLatencySources.from_dict(_latency_sources)

        hop_latency_p50_ms = d.pop("hop_latency_p50_ms", UNSET)

        hop_latency_p99_ms = d.pop("hop_latency_p99_ms", UNSET)

        visible_latency_p50_ms = d.pop("visible_latency_p50_ms", UNSET)

        visible_latency_p99_ms = d.pop("visible_latency_p99_ms", UNSET)

        visible_latency_records = d.pop("visible_latency_records", UNSET)

        source_visible_latency_p50_ms = d.pop("source_visible_latency_p50_ms", UNSET)

        source_visible_latency_p99_ms = d.pop("source_visible_latency_p99_ms", UNSET)

        source_visible_latency_markers = d.pop("source_visible_latency_markers", UNSET)

        _lag = d.pop("lag", UNSET)
        lag: NodeLag | Unset
        if isinstance(_lag, Unset):
            lag = UNSET
        else:
            lag = NodeLag.from_dict(_lag)

        emit_delay_ms = d.pop("emit_delay_ms", UNSET)

        emit_delay_max_ms = d.pop("emit_delay_max_ms", UNSET)

        emit_delay_results = d.pop("emit_delay_results", UNSET)

        node_metrics = cls(
            vertex=vertex,
            parallelism=parallelism,
            records_in=records_in,
            records_out=records_out,
            records_in_per_second=records_in_per_second,
            records_out_per_second=records_out_per_second,
            watermark=watermark,
            busy_ratio=busy_ratio,
            idle_ratio=idle_ratio,
            backpressured_ratio=backpressured_ratio,
            subtasks=subtasks,
            watermark_lag_ms=watermark_lag_ms,
            late_records=late_records,
            partials_in=partials_in,
            latency_p50_ms=latency_p50_ms,
            latency_p99_ms=latency_p99_ms,
            latency_markers=latency_markers,
            latency_sources=latency_sources,
            hop_latency_p50_ms=hop_latency_p50_ms,
            hop_latency_p99_ms=hop_latency_p99_ms,
            visible_latency_p50_ms=visible_latency_p50_ms,
            visible_latency_p99_ms=visible_latency_p99_ms,
            visible_latency_records=visible_latency_records,
            source_visible_latency_p50_ms=source_visible_latency_p50_ms,
            source_visible_latency_p99_ms=source_visible_latency_p99_ms,
            source_visible_latency_markers=source_visible_latency_markers,
            lag=lag,
            emit_delay_ms=emit_delay_ms,
            emit_delay_max_ms=emit_delay_max_ms,
            emit_delay_results=emit_delay_results,
        )

        node_metrics.additional_properties = d
        return node_metrics

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
